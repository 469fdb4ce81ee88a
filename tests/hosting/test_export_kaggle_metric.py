"""`tpugraphs-eval export kaggle-metric`: one self-contained file (numpy, pandas, scipy, standard library) that
gives tpugraphs-eval's numbers and verdicts on every fixture, run where tpugraphs_eval cannot be imported."""

from __future__ import annotations

import ast
import difflib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from csv_rows import csv_bytes, demo_rows
from metric_sandbox import LOAD_EXPORTED_METRIC

from tpugraphs_eval import resolve_data_root, score_submission
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.dataset import COLLECTIONS, split_submission_id
from tpugraphs_eval.errors import TpuGraphsEvalError
from tpugraphs_eval.hosting import standalone_metric
from tpugraphs_eval.hosting.kaggle_metric import solution_frame
from tpugraphs_eval.hosting.metric_file import METRIC_RULES, metric_source, module_code
from tpugraphs_eval.options import Options
from tpugraphs_eval.truth.dataroot import DataRoot
from tpugraphs_eval.truth.groundtruth import GraphRuntimes, GraphsRead, GroundTruth, build_ground_truth
from tpugraphs_eval.truth.solution import build_solution

ALLOWED_IMPORTS = {"numpy", "pandas", "scipy"}

# Runs in a subprocess (`python -I`): tpugraphs_eval is made unimportable before the exported file loads,
# then every case is scored and the results printed as JSON.
_DRIVER = LOAD_EXPORTED_METRIC + r"""
out = {}
for case in json.loads(open(sys.argv[2]).read()):
    read = lambda path: pd.read_csv(path, dtype=str, keep_default_na=False)
    solution, submission = read(case["solution"]), read(case["submission"])
    try:
        values = metric.collection_scores(solution, submission, case["row_id"], mode=case["mode"],
                                          tile_runtime=case["tile_runtime"], usage=case["usage"])
        if case["usage"]:  # as Kaggle passes one Usage: both tables filtered to its rows
            solution = solution[solution.Usage == case["usage"]]
            submission = submission[submission[case["row_id"]].isin(solution[case["row_id"]])]
        overall = metric.score(solution, submission, case["row_id"], mode=case["mode"],
                               tile_runtime=case["tile_runtime"])
        out[case["name"]] = {"values": values, "score": None if math.isnan(overall) else overall}
    except metric.ParticipantVisibleError as err:
        out[case["name"]] = {"codes": sorted({p[2] for p in err.problems}), "message": str(err)}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("kaggle") / "metric.py"
    assert cli.main(["export", "kaggle-metric", "-o", str(path)]) == 0
    return path


def test_the_file_is_the_rules_and_the_standalone_module_and_imports_only_numpy_pandas_scipy(exported):
    text = exported.read_text(encoding="utf-8")
    assert text == metric_source()
    for module in (*METRIC_RULES, standalone_metric):  # one source: each module's code, in order, unchanged
        code = module_code(module)
        assert code in text and text.index(code) > text.index("from __future__ import annotations"), module
        original = Path(module.__file__).read_text(encoding="utf-8").splitlines(keepends=True)
        edits = difflib.SequenceMatcher(None, original, code.splitlines(keepends=True), autojunk=False).get_opcodes()
        assert {tag for tag, *_ in edits} <= {"equal", "delete"}, module  # only whole lines are left out ...
        left_out = "".join("".join(original[i1:i2]) for tag, i1, i2, _, _ in edits if tag == "delete")
        assert all(isinstance(node, ast.ImportFrom) and (node.level or node.module == "__future__")
                   for node in ast.parse(left_out).body), left_out  # ... and those are the package's imports
    assert [m.__name__ for m in METRIC_RULES] == ["tpugraphs_eval.rules.codes", "tpugraphs_eval.rules.topconfigs",
                                                "tpugraphs_eval.rules.ids",
                                                "tpugraphs_eval.rules.csvshape"]
    assert text.endswith(module_code(standalone_metric))
    tree = ast.parse(text, feature_version=(3, 9))  # Codabench's legacy image runs Python 3.9
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.level == 0}
    assert imported - sys.stdlib_module_names == ALLOWED_IMPORTS
    assert {"score", "ParticipantVisibleError"} <= {n.name for n in tree.body if hasattr(n, "name")}
    assert "tpugraphs_eval" not in text.replace("tpugraphs_eval`", "")  # named in prose only


def _truth(solution: pd.DataFrame, row_id: str, tile_runtime: str) -> GroundTruth:
    """The ground truth of a solution table, built by the package (its problems: ValueError, as the file raises)."""
    def integers(text: object) -> np.ndarray:
        blank = text is None or (isinstance(text, float) and np.isnan(text)) or str(text) == ""
        return np.array([] if blank else [int(v) for v in str(text).split(";")], dtype=np.int64)

    read: GraphsRead = {}
    for graph_id, runtimes, normalizers in solution[[row_id, "runtimes", "normalizers"]].itertuples(index=False):
        parts = split_submission_id(str(graph_id))
        if parts is None:
            raise ValueError(f"solution row {graph_id!r}: not a submission ID")
        collection, name = parts
        normalizer = integers(normalizers) if collection.kind == "tile" else None
        read.setdefault(collection, []).append((name, GraphRuntimes(integers(runtimes), normalizer)))
    read = {c: sorted(read[c], key=lambda graph: graph[0]) for c in COLLECTIONS if c in read}  # catalog order
    try:
        return build_ground_truth(DataRoot(Path("<solution table>"), noun="solution"), "test", read,
                                  tile_runtime=tile_runtime)
    except TpuGraphsEvalError as err:
        raise ValueError(f"the solution cannot be scored: {err}") from None


def _package(solution: pd.DataFrame, submission: pd.DataFrame, row_id: str, mode: str, tile_runtime: str,
             usage: str | None) -> dict:
    """tpugraphs-eval's verdict: the CLI's validation and scoring on the solution table's graphs."""
    truth = _truth(solution.drop(columns="Usage", errors="ignore"), row_id, tile_runtime)
    table = submission.rename(columns={row_id: "ID"})
    report = score_submission(table.to_csv(index=False).encode(), truth, Options(mode=mode, tile_runtime=tile_runtime))
    if not report.valid:
        return {"codes": sorted({p.code for p in report.problems if p.severity == "error"})}
    if usage:  # the Usage subset, as tpugraphs-eval --solution scores the public/private leaderboards
        keep = set(solution[row_id][solution.Usage == usage])
        part = solution[solution[row_id].isin(keep)]
        sub = submission[submission[row_id].isin(keep)]
        scores = _package(part, sub, row_id, mode, tile_runtime, None)
        return {**scores, "score": scores["values"]["overall"]}
    values = {name: r.value for name, r in report.collections.items()}
    return {"values": {**values, "overall": report.overall}, "score": report.overall}


def _cases(solution: pd.DataFrame, rng: np.random.Generator, prefix: str) -> list[tuple]:
    """(name, solution, submission, mode, tile_runtime, usage): valid and invalid submissions of a solution."""
    counts = {i: r.count(";") + 1 for i, r in zip(solution.ID, solution.runtimes)}
    ids = list(counts)
    y = {i: np.array(list(map(int, r.split(";")))) for i, r in zip(solution.ID, solution.runtimes)}

    def table(rows: dict[str, str]) -> pd.DataFrame:
        return pd.DataFrame({"ID": list(rows), "TopConfigs": list(rows.values())})

    def ranking(i: str, order: np.ndarray) -> str:
        return ";".join(map(str, order[:5] if i.startswith("tile:") else order))

    random = table({i: ranking(i, rng.permutation(c)) for i, c in counts.items()})
    oracle = table({i: ranking(i, np.argsort(y[i], kind="stable")) for i in ids})
    messy = {i: ";".join(map(str, list(rng.permutation(c)[:11]) + [c + 3])) if i.startswith("tile:")
             else ";".join(map(str, rng.permutation(c)[: max(1, c // 2)])) for i, c in counts.items()}
    bad = dict(random.itertuples(index=False, name=None))
    bad[ids[0]], bad[ids[1]], bad[ids[-1]] = "0;0;1", "abc", ""
    del bad[ids[2]]
    bad["tile:xla:nope"] = "0"
    cases = [("random", solution, random, "strict", "normalized", None),
             ("oracle", solution, oracle, "strict", "normalized", None),
             ("raw", solution, random, "strict", "raw", None),
             ("messy-lenient", solution, table(messy), "lenient", "normalized", None),
             ("messy-strict", solution, table(messy), "strict", "normalized", None),
             ("bad", solution, table(bad), "strict", "normalized", None),
             ("bad-lenient", solution, table(bad), "lenient", "normalized", None),
             ("renamed", solution.rename(columns={"ID": "row_id"}), random.rename(columns={"ID": "row_id"}),
              "strict", "normalized", None)]
    if set(solution.Usage) == {"Public", "Private"}:
        cases += [("public", solution, random, "strict", "normalized", "Public"),
                  ("private", solution, random, "strict", "normalized", "Private")]
    return [(f"{prefix}/{name}", *rest) for name, *rest in cases]


def _run_exported(exported: Path, cases: list[tuple], tmp_path: Path) -> dict:
    specs = []
    for k, (name, solution, submission, mode, tile_runtime, usage) in enumerate(cases):
        solution.to_csv(tmp_path / f"solution{k}.csv", index=False)
        submission.to_csv(tmp_path / f"submission{k}.csv", index=False)
        specs.append({"name": name, "solution": str(tmp_path / f"solution{k}.csv"), "row_id": solution.columns[0],
                      "submission": str(tmp_path / f"submission{k}.csv"), "mode": mode,
                      "tile_runtime": tile_runtime, "usage": usage})
    (tmp_path / "cases.json").write_text(json.dumps(specs))
    done = subprocess.run([sys.executable, "-I", "-c", _DRIVER, str(exported), str(tmp_path / "cases.json")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _assert_same(exported: Path, cases: list[tuple], tmp_path: Path) -> dict:
    """Run every case through the exported file (one subprocess) and compare with the package; returns its results."""
    got = _run_exported(exported, cases, tmp_path)
    for name, solution, submission, mode, tile_runtime, usage in cases:
        expected = _package(solution, submission, solution.columns[0], mode, tile_runtime, usage)
        if "codes" in expected:
            assert got[name].get("codes") == expected["codes"], name
            assert "invalid submission" in got[name]["message"]
        else:
            assert got[name]["values"] == expected["values"], name  # bit for bit: same operations
            assert got[name]["score"] == expected["score"], name
    return got


def test_demo_test_and_valid_splits_give_the_package_numbers_and_verdicts(exported, demo_root, demo_solution, tmp_path):
    cases = _cases(solution_frame(demo_solution), np.random.default_rng(8), "demo-test")
    valid_solution = tmp_path / "valid.parquet"
    build_solution(demo_root, "valid", valid_solution, seed=3)
    cases += _cases(solution_frame(valid_solution), np.random.default_rng(9), "demo-valid")
    got = _assert_same(exported, cases, tmp_path)
    assert got["demo-test/oracle"]["score"] == 1.0 and "codes" in got["demo-valid/bad"]


def test_the_fixtures_of_test_kaggle_metric(exported, demo_solution, tmp_path):
    """The submissions tests/hosting/test_kaggle_metric.py gives the in-package metric, now to the exported file."""
    from tpugraphs_eval.truth.solution import load_solution

    truth = load_solution(demo_solution)
    rows = demo_rows(truth, "random", seed=8)
    solution = solution_frame(demo_solution)
    submission = pd.DataFrame({"ID": list(rows), "TopConfigs": [";".join(map(str, r)) for r in rows.values()]})
    first = solution.iloc[:3]
    tile = solution[solution.ID.str.startswith("tile:")].iloc[:4]
    too_many = pd.DataFrame({"ID": tile.ID, "TopConfigs": [";".join(map(str, range(11)))] * 4})  # > 10
    seven = pd.DataFrame({"ID": tile.ID, "TopConfigs": ["0;1;2;3;4;5;6"] * 4})  # 6 to 10: valid, first 5 scored
    cases = [("kaggle/all", solution, submission, "strict", "normalized", None),
             ("kaggle/public", solution, submission, "strict", "normalized", "Public"),
             ("kaggle/private", solution, submission, "strict", "normalized", "Private"),
             ("kaggle/mistakes", first, pd.DataFrame({"ID": first.ID, "TopConfigs": ["0;0;1", "abc", ""]}),
              "strict", "normalized", None),
             ("kaggle/too-many", tile, too_many, "strict", "normalized", None),
             ("kaggle/too-many-lenient", tile, too_many, "lenient", "normalized", None),
             ("kaggle/seven", tile, seven, "strict", "normalized", None)]
    got = _assert_same(exported, cases, tmp_path)
    assert got["kaggle/all"]["score"] == score_submission(csv_bytes(rows), truth).overall
    assert "DUPLICATE_INDEX" in got["kaggle/mistakes"]["codes"] and "TILE_TOO_MANY" in got["kaggle/too-many"]["codes"]
    assert got["kaggle/seven"]["score"] == got["kaggle/too-many-lenient"]["score"]  # both score indices 0..4


def test_real_valid_graphs(exported, realdata, tmp_path):
    """Real labelled graphs (tile valid, layout xla valid unet_3d with tied runtimes)."""
    path = tmp_path / "real-valid.parquet"
    build_solution(resolve_data_root(realdata / "tpugraphs"), "valid", path, public_fraction=0.5)
    _assert_same(exported, _cases(solution_frame(path), np.random.default_rng(10), "real-valid"), tmp_path)


def test_organiser_mistakes_are_value_errors(exported, demo_solution):
    solution = solution_frame(demo_solution).iloc[:2]
    submission = pd.DataFrame({"ID": solution.ID, "TopConfigs": ["0", "0"]})
    with pytest.raises(ValueError, match="lacks the columns"):
        standalone_metric.score(solution.drop(columns="runtimes"), submission, "ID")
    with pytest.raises(ValueError, match="must be integers"):
        standalone_metric.score(solution.assign(runtimes=["1;x", "2"]), submission, "ID")
    with pytest.raises(ValueError, match="every runtime"):
        zeros = [";".join(["0"] * (r.count(";") + 1)) for r in solution.runtimes]  # public test files
        standalone_metric.score(solution.assign(runtimes=zeros), submission, "ID")
    with pytest.raises(ValueError, match="mode must be"):
        standalone_metric.score(solution, submission, "ID", mode="loose")
    with pytest.raises(standalone_metric.ParticipantVisibleError, match="exactly the columns"):
        standalone_metric.score(solution, submission.rename(columns={"TopConfigs": "x"}), "ID")


def test_cli_refuses_an_unwritable_target(tmp_path, capsys):
    assert cli.main(["export", "kaggle-metric", "-o", str(tmp_path / "missing" / "metric.py")]) == 2
    assert "cannot write" in capsys.readouterr().err


@pytest.mark.parametrize("mode", ["strict", "lenient"])
def test_random_messy_rows_get_the_package_codes_and_values(tiny_root, tmp_path, mode):
    """300 seeded random submissions on the tiny data root (tile graphs of 3 and 25 configs, a layout graph
    of 6): fields mixing valid, repeated, out-of-range, negative, empty, non-integer and over-long tokens.
    The metric module (the exported text) and tpugraphs-eval agree on every verdict, code set and value."""
    path = tmp_path / "tiny.parquet"
    build_solution(resolve_data_root(tiny_root), "test", path)
    solution = solution_frame(path).drop(columns="Usage")
    counts = {i: r.count(";") + 1 for i, r in zip(solution.ID, solution.runtimes)}
    rng = np.random.default_rng(2024)
    extra = ["", "abc", "3.0", "-0", "-2", " 1", "+1", "1e3", "9" * 30]
    seen_codes: set[str] = set()
    for _ in range(150):
        rows = {}
        for graph_id, c in counts.items():
            if rng.random() < 0.5:  # a clean row, so that some submissions are valid in strict mode too
                order = rng.permutation(c)
                rows[graph_id] = ";".join(map(str, order[:5] if graph_id.startswith("tile:") else order))
                continue
            n = int(rng.integers(1, c + 4))
            tokens = [str(v) for v in rng.permutation(c + 2)[:n]]  # may go out of range
            if rng.random() < 0.3:
                tokens.append(tokens[0])  # a repeated index
            if rng.random() < 0.3:
                tokens.insert(int(rng.integers(0, len(tokens) + 1)), str(rng.choice(extra)))
            rows[graph_id] = ";".join(tokens)
        submission = pd.DataFrame({"ID": list(rows), "TopConfigs": list(rows.values())})
        expected = _package(solution, submission, "ID", mode, "normalized", None)
        try:
            got = {"values": standalone_metric.collection_scores(solution, submission, "ID", mode=mode)}
            got["score"] = standalone_metric.score(solution, submission, "ID", mode=mode)
        except standalone_metric.ParticipantVisibleError as err:
            got = {"codes": sorted({p[2] for p in err.problems})}
        assert got == expected, rows
        seen_codes.update(expected.get("codes", ["<valid>"]))
    assert "<valid>" in seen_codes and len(seen_codes) >= (9 if mode == "strict" else 4), seen_codes
