"""Every error has a code and names its file; counts agree; no NaN leaves the metric API (issue 7 item 9).

- every code of ``errors.ERROR_CODES`` is produced here through the CLI, and its message carries ``[CODE]``
  and the path of the file at fault (a new code without a case here fails the walk);
- the terminal's problem counts equal the verdict's when one code has more problems than are listed;
- a tile runtime / normalizer quotient that overflows is a data error, not an "undefined tau";
- the public functions of ``scoring.metrics`` raise ``UndefinedMetricError`` where they used to return NaN
  (run with each kernel).
"""

from __future__ import annotations

import inspect
import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from badinput import HEADER, run_cli
from handmade_npz import HOSTILE, handmade_zip
from rich.console import Console
from solution_rows import write_rows

from tpugraphs_eval import validation_report
from tpugraphs_eval.commands import leaderboard
from tpugraphs_eval.errors import ERROR_CODES
from tpugraphs_eval.report.terminal import render
from tpugraphs_eval.scoring import metrics
from tpugraphs_eval.scoring.metrics import UndefinedMetricError
from tpugraphs_eval.submission.csvfile import MAX_SUBMISSION_BYTES
from tpugraphs_eval.submission.problems import MAX_LISTED_PER_CODE
from tpugraphs_eval.truth import ranks
from tpugraphs_eval.truth.solution import (
    MANIFEST_KEY,
    MAX_USAGE_FILE_BYTES,
    build_solution,
    load_solution,
    read_manifest,
)

LAYOUT = "npz/layout/xla/default/test"
LEADERBOARD = "tpugraphs-leaderboard"
"""A case's first argument naming the leaderboard command (the others run ``tpugraphs-eval``)."""
TILE = "npz/tile/xla/test"


# --- the walk: one case per registered code ---------------------------------------------------------

def _root_with(tmp_path: Path, folder: str, write) -> tuple[Path, Path]:
    """A data root holding one graph file written by ``write(path)``; (root, that file)."""
    root = tmp_path / "root"
    (root / folder).mkdir(parents=True)
    path = root / folder / "g.npz"
    write(path)
    return root, path


def _npz(folder: str, **arrays):
    return lambda tmp_path, tiny, solution: _data_case(tmp_path, folder, lambda p: np.savez(p, **arrays))


def _data_case(tmp_path, folder, write, command="score"):
    root, path = _root_with(tmp_path, folder, write)
    return [command, tmp_path / "none.csv", "--data-root", root, "--split", "test"], path


def _hostile(kind: str):
    make = HOSTILE[kind][0]
    return lambda tmp_path, tiny, solution: _data_case(tmp_path, LAYOUT, lambda p: p.write_bytes(handmade_zip(make())),
                                                       "validate")


def _split_too_large(tmp_path, tiny, solution):
    """Graphs whose config_runtime members each declare the member cap (holding 3 configs), one more than the
    split's 1 GiB cap holds: the files before are corrupt, and the last would take the split past its cap: the
    read stops there, naming the split."""
    from handmade_npz import member

    from tpugraphs_eval.truth.npzread import MAX_MEMBER_BYTES, MAX_SPLIT_BYTES

    folder = tmp_path / "root" / LAYOUT
    folder.mkdir(parents=True)
    for k in range(MAX_SPLIT_BYTES // MAX_MEMBER_BYTES + 1):
        (folder / f"g{k:03}.npz").write_bytes(handmade_zip(member(size=MAX_MEMBER_BYTES)))
    return ["validate", tmp_path / "none.csv", "--data-root", tmp_path / "root", "--split", "test"], tmp_path / "root"


def _demo_as_real(tmp_path, tiny, solution):
    """The demo's test solution with its manifest saying synthetic: false (demo data reported as real)."""
    from tpugraphs_eval import resolve_data_root

    demo = tmp_path / "demo.parquet"
    build_solution(resolve_data_root("demo"), "test", demo)
    manifest = {**read_manifest(demo), "synthetic": False}
    odd = tmp_path / "odd.parquet"
    pl.read_parquet(demo).write_parquet(odd, metadata={MANIFEST_KEY: json.dumps(manifest)})
    return [tmp_path / "none.csv", "--solution", odd], odd


def _solution_case(change):
    """A copy of the tiny solution changed by ``change(frame, manifest) -> (frame, manifest, keep data_sha256?)``."""
    def case(tmp_path, tiny, solution):
        frame, manifest = pl.read_parquet(solution), read_manifest(solution)
        odd = tmp_path / "odd.parquet"
        frame, manifest, rewrite = change(frame, manifest)
        if rewrite:
            write_rows(frame, odd, manifest)
        else:
            frame.write_parquet(odd, metadata={MANIFEST_KEY: json.dumps(manifest)})
        return [tmp_path / "none.csv", "--solution", odd], odd
    return case


def _submission(make):
    def case(tmp_path, tiny, solution):
        path = make(tmp_path)
        return ["validate", path, "--data-root", tiny, "--split", "test"], path
    return case


def _loop(tmp_path: Path) -> Path:
    link = tmp_path / "loop.csv"
    os.symlink(link.name, link)  # a link to itself: open() fails with ELOOP
    return link


def _not_int64(tmp_path, tiny, solution):
    root, path = _root_with(tmp_path, TILE, lambda p: np.savez(p, config_runtime=np.array([1.5, 2.0]),
                                                                 config_runtime_normalizers=np.array([1, 1])))
    return ["solution", "build", "--data-root", root, "--split", "test", "-o", tmp_path / "s.parquet"], path


def _sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no disk space (a hole): larger than a cap without being written."""
    path.touch()
    os.truncate(path, size)
    return path


def _big_usage_file(tmp_path, tiny, solution):
    usage = _sparse(tmp_path / "usage.csv", MAX_USAGE_FILE_BYTES + 1)
    return ["solution", "build", "--data-root", tiny, "--split", "test", "-o", tmp_path / "s.parquet",
            "--usage-file", usage], usage


def _unwritable_json(tmp_path, tiny, solution):
    target = tmp_path / "no-such-folder" / "report.json"
    csv = tmp_path / "s.csv"
    csv.write_text(f"{HEADER}\n")
    return [csv, "--data-root", tiny, "--split", "test", "--json", target], target


def _compare_invalid(tmp_path, tiny, solution):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text(f"{HEADER}\n")
    bad.write_text("ID;TopConfigs\n")
    return ["compare", good, bad, "--data-root", tiny, "--split", "test"], bad


def _report_onto_submission(tmp_path, tiny, solution):
    csv = tmp_path / "s.csv"
    csv.write_text(f"{HEADER}\n")
    return [csv, "--data-root", tiny, "--split", "test", "--html", csv], csv


def _two_outputs_at_one_path(tmp_path, tiny, solution):
    csv, out = tmp_path / "s.csv", tmp_path / "r.out"
    csv.write_text(f"{HEADER}\n")
    return [csv, "--data-root", tiny, "--split", "test", "--json", out, "--html", out], out


def _prepare_case(tmp_path, graphs: dict[str, list[int]], *extra):
    """``prepare`` from a layout:xla:default root of hand-made graphs (``split/name`` → runtimes): the path named
    is the root (or the output folder)."""
    root = tmp_path / "root"
    for key, runtimes in graphs.items():
        folder = root / "npz/layout/xla/default" / key.split("/")[0]
        folder.mkdir(parents=True, exist_ok=True)
        c = len(runtimes)
        np.savez(folder / f"{key.split('/')[1]}.npz", node_config_feat=np.zeros((c, 1, 18), dtype=np.float32),
                 config_runtime=np.array(runtimes, dtype=np.int64))
    return ["prepare", "--data-root", root, "-o", tmp_path / "out", "--seed", "organiser-secret-0123456789", "--no-progress", *extra], root


def _graphs_case(tmp_path, tiny, text: str, *extra):
    """``validate --graphs FILE`` with ``text`` as the file: the path named is the file."""
    (tmp_path / "s.csv").write_text(f"{HEADER}\n")
    (tmp_path / "graphs.csv").write_text(text)
    return ["validate", tmp_path / "s.csv", "--data-root", tiny, "--split", "test", "--graphs",
            tmp_path / "graphs.csv", *extra], tmp_path / "graphs.csv"


def _prepare_into_a_full_folder(tmp_path, tiny, solution):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("x")
    return ["prepare", "--data-root", "demo", "-o", tmp_path / "out", "--seed", "organiser-secret-0123456789"], tmp_path / "out"


def _mlebench_with_a_dataset_zip_that_is_not_a_zip(tmp_path, tiny, solution):
    (tmp_path / "download.zip").write_text("ID,TopConfigs\n")
    return ["export", "mlebench", "-o", tmp_path / "comp" / "tpugraphs", "--data-root", "demo",
            "--dataset-zip", tmp_path / "download.zip"], tmp_path / "download.zip"


def _leaky_public_test_files(monkeypatch):
    """The public test files written as copies of the labelled ones (a writer that forgets the runtimes)."""
    import shutil

    from tpugraphs_eval.prepare import run as prepare_run

    monkeypatch.setattr(prepare_run, "write_public_test_file",
                        lambda source, target, keep: shutil.copyfile(source, target))


def _no_memory_left(monkeypatch):
    """The machine runs out of memory while reading the ground truth (issue 24 item 12: exit 3 before)."""
    from tpugraphs_eval.truth import npzread

    def out_of_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(npzread, "read_array", out_of_memory)


def _without_polars(monkeypatch):
    """An install without the organiser extra (tests/cli/test_missing_extras.py runs it in a subprocess too)."""
    monkeypatch.setitem(sys.modules, "polars", None)


PATCHES = {"PREPARE_PUBLIC_RUNTIME": _leaky_public_test_files, "OUT_OF_MEMORY": _no_memory_left,
           "MISSING_EXTRA": _without_polars}
"""Codes that no input file can cause through a correct program: the program is patched to cause them."""


def _one_public_graph(tmp_path, tiny, solution):
    """A solution whose public leaderboard holds one graph in all: its public build is refused."""
    from tpugraphs_eval import resolve_data_root

    ids = [i for c in load_solution(solution).collections.values() for i in c.graphs.ids]
    usage = tmp_path / "usage.csv"
    usage.write_text("ID,Usage\n" + "".join(f"{i},{'Public' if k == 0 else 'Private'}\n" for k, i in enumerate(ids)))
    build_solution(resolve_data_root(tiny), "test", tmp_path / "one.parquet", usage_file=usage)
    (tmp_path / "subs" / "team").mkdir(parents=True)  # a team folder: an empty submissions folder is NO_TEAM_FOLDERS
    return [LEADERBOARD, "build", tmp_path / "subs", "--solution", tmp_path / "one.parquet", "-o", tmp_path / "out",
            "--public-only", "--no-progress"], None


def _no_team_folders(tmp_path, tiny, solution):
    """A submissions folder holding only a loose file: no leaderboard is built (unless --allow-empty)."""
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "mine.csv").write_text("ID,TopConfigs\n", encoding="utf-8")
    return [LEADERBOARD, "build", tmp_path / "subs", "--solution", solution, "-o", tmp_path / "out",
            "--no-progress"], tmp_path / "subs"


CASES = {
    "SUBMISSION_NOT_FOUND": _submission(lambda t: t / "missing.csv"),
    "SUBMISSION_NOT_A_FILE": _submission(lambda t: t),
    "SUBMISSION_TOO_LARGE": _submission(lambda t: _sparse(t / "big.csv", MAX_SUBMISSION_BYTES + 1)),
    "SUBMISSION_UNREADABLE": _submission(_loop),
    "INPUT_NOT_A_FILE": lambda t, tiny, s: ([t / "none.csv", "--solution", t], t),
    "INPUT_TOO_LARGE": _big_usage_file,
    "NPZ_UNREADABLE": lambda t, tiny, s: _data_case(t, LAYOUT, lambda p: p.write_bytes(b"not a zip at all")),
    "NPZ_KEY_MISSING": _npz(LAYOUT, runtimes=np.array([1, 2])),
    "NPZ_ARRAY_INVALID": _npz(LAYOUT, config_runtime=np.ones((2, 2), dtype=np.int64)),
    "NPZ_CORRUPT": _hostile("corrupt-deflate"),
    "NPZ_ENCRYPTED": _hostile("encrypted"),
    "NPZ_COMPRESSION_UNSUPPORTED": _hostile("unsupported-method"),
    "NPZ_MEMBER_TOO_LARGE": _hostile("huge-declared-shape"),
    "NPZ_DUPLICATE_MEMBER": _hostile("duplicate-member"),
    "NPZ_SPLIT_TOO_LARGE": _split_too_large,
    "NO_GROUND_TRUTH": lambda t, tiny, s: (_data_case(t, LAYOUT, lambda p: np.savez(p, config_runtime=np.zeros(3)))[0],
                                           t / "root"),  # the split as a whole is at fault: its data root
    "RUNTIME_NOT_POSITIVE": _npz(LAYOUT, config_runtime=np.array([5, -1, 7])),
    "RUNTIME_OVERFLOW": _npz(TILE, config_runtime=np.array([1e308, 2.0]),
                             config_runtime_normalizers=np.array([1e-10, 1.0])),
    "RUNTIME_NOT_INT64": _not_int64,
    "SOLUTION_UNREADABLE": lambda t, tiny, s: ([t / "none.csv", "--solution", t / "none.parquet"], t / "none.parquet"),
    "SOLUTION_MANIFEST_INVALID": _solution_case(lambda f, m: (f, {k: v for k, v in m.items() if k != "split"}, False)),
    "SOLUTION_MANIFEST_MISMATCH": _demo_as_real,
    "SOLUTION_SCHEMA_INVALID": _solution_case(lambda f, m: (f.with_columns(pl.col("runtime") > 0), m, True)),
    "SOLUTION_ROWS_INVALID": _solution_case(lambda f, m: (f.with_columns(usage=pl.lit("Maybe")), m, True)),
    "SOLUTION_CHECKSUM_MISMATCH": _solution_case(lambda f, m: (f.with_columns(pl.col("runtime") * 2), m, True)),
    "PREPARE_OUTPUT_NOT_EMPTY": _prepare_into_a_full_folder,
    "DATASET_ZIP_INVALID": _mlebench_with_a_dataset_zip_that_is_not_a_zip,
    "PREPARE_NO_RUNTIMES": lambda t, tiny, s: _prepare_case(t, {"train/a": [0, 0, 0], "train/b": [0, 0]}),
    "PREPARE_TOO_FEW_GRAPHS": lambda t, tiny, s: _prepare_case(t, {"train/a": [5, 6, 7], "train/b": [3, 4]}),
    "PREPARE_PUBLIC_RUNTIME": lambda t, tiny, s: _prepare_case(t, {f"train/p{i}": [5, 6, 7] for i in range(4)}),
    "PREPARE_PROGRAM_LEAK": lambda t, tiny, s: _prepare_case(t, {**{f"train/p{i}": [5, 6] for i in range(4)},
                                                                 **{f"valid/p{i}": [5, 6] for i in range(4)}}),
    "PREPARE_NAME_CLASH": lambda t, tiny, s: _prepare_case(t, {**{f"train/p{i}": [5, 6] for i in range(4)},
                                                               **{f"valid/p{i}": [5, 6] for i in range(4)}},
                                                           "--from", "train,valid"),
    "LEADERBOARD_FILE_INVALID": lambda t, tiny, s: (
        ["export", "mlebench", "-o", t / "comp" / "x", "--data-root", "demo", "--kaggle-leaderboard", t / "none.csv"],
        t / "none.csv"),
    "PREPARE_WEAK_SEED": lambda t, tiny, s: (["prepare", "--data-root", "demo", "-o", t / "out", "--seed", "1"], None),
    "GRAPHS_FILE_INVALID": lambda t, tiny, s: _graphs_case(t, tiny, "ID,fold\ntile:xla:a,zero\n", "--fold", "0"),
    "GRAPHS_FILE_UNKNOWN_ID": lambda t, tiny, s: _graphs_case(t, tiny, "ID\nlayout:xla:default:no_such_graph\n"),
    "OUTPUT_WRITE_FAILED": _unwritable_json,
    "OUTPUT_IS_INPUT": _report_onto_submission,
    "SAME_OUTPUT_TWICE": _two_outputs_at_one_path,
    "INVALID_SUBMISSION": _compare_invalid,
    "PUBLIC_BOARD_TOO_SMALL": _one_public_graph,
    "NO_TEAM_FOLDERS": _no_team_folders,
    "OUT_OF_MEMORY": lambda tmp_path, tiny, solution: (["validate", tmp_path / "s.csv", "--data-root", tiny,
                                                        "--split", "test"], None),
    "MISSING_EXTRA": lambda tmp_path, tiny, solution: ([tmp_path / "s.csv", "--solution", solution], None),
    "DATA_ERROR": lambda tmp_path, tiny, solution: (["validate", tmp_path / "s.csv", "--data-root", tmp_path / "gone",
                                                     "--split", "test"], tmp_path / "gone"),
    "USAGE_ERROR": lambda tmp_path, tiny, solution: (["validate", tmp_path / "s.csv", "--data-root", tiny,
                                                      "--split", "bogus"], None),  # a parser error names no file
}


@pytest.fixture(scope="module")
def tiny_solution(tiny_root, tmp_path_factory) -> Path:
    from tpugraphs_eval import resolve_data_root

    path = tmp_path_factory.mktemp("walk") / "test.parquet"
    build_solution(resolve_data_root(tiny_root), "test", path)
    return path


def test_every_registered_code_has_a_case_here():
    assert set(CASES) == set(ERROR_CODES)


@pytest.mark.parametrize("code", CASES)
def test_each_error_prints_its_code_and_the_path(code, tmp_path, tiny_root, tiny_solution, capsys, monkeypatch):
    argv, path = CASES[code](tmp_path, tiny_root, tiny_solution)
    if code in PATCHES:
        PATCHES[code](monkeypatch)
    if argv[0] == LEADERBOARD:
        exit_code = leaderboard.main([str(a) for a in argv[1:]])
        text = "".join(capsys.readouterr())
        assert "Traceback" not in text and "internal error" not in text, text
    else:
        exit_code, text = run_cli(capsys, *argv)  # (fails on a traceback or an internal error)
    flat = " ".join(text.split())  # lists of faults wrap onto indented lines
    assert exit_code == (1 if code == "INVALID_SUBMISSION" else 2), text
    assert f"[{code}]" in flat and (path is None or str(path) in flat), text


def test_several_submissions_keep_each_failures_code(tiny_root, tmp_path, capsys):
    good = tmp_path / "good.csv"
    good.write_text(f"{HEADER}\n")
    exit_code, text = run_cli(capsys, "validate", good, tmp_path / "gone.csv", "--data-root", tiny_root,
                              "--split", "test", "--json", tmp_path / "r.json")
    assert exit_code == 2
    assert f"[SUBMISSION_NOT_FOUND] submission file {tmp_path / 'gone.csv'} does not exist" in " ".join(text.split())
    failure = json.loads((tmp_path / "r.json").read_text())[1]
    assert failure["error"].startswith("[SUBMISSION_NOT_FOUND] ")


# --- counts ------------------------------------------------------------------------------------------

def test_terminal_counts_equal_the_verdicts_beyond_the_listed_problems(catalog):
    """1,500 unknown IDs: the JSON lists 1,000 and one summary problem; the terminal counted those 1,001
    (the old code printed "Problems: 1003 error(s)" above "INVALID: 1502 error(s)")."""
    n = MAX_LISTED_PER_CODE + 500
    data = (f"{HEADER}\n" + "".join(f"tile:xla:nope{i},0\n" for i in range(n))).encode()
    report = validation_report(data, catalog)
    assert report.validation.counts["UNKNOWN_ID"] == n and report.n_errors == n + 2  # + MISSING_IDS per collection
    console = Console(record=True, width=200, color_system=None)
    render(report, console, per_code=5, validate_only=True)
    text = console.export_text()
    assert f"Problems: {n + 2} error(s) · 0 warning(s) · 0 note(s)" in text
    assert f"UNKNOWN_ID ×{n} error" in text and f"… and {n - 5} more" in text
    assert f"INVALID: {n + 2} error(s), 0 warning(s) in {n} rows" in text


# --- tile quotient overflow ------------------------------------------------------------------------

@pytest.mark.parametrize("folder, arrays", [
    (TILE, {"config_runtime": np.array([1e308, 1.5e308, 3.0]),
            "config_runtime_normalizers": np.array([1e-10, 1e-10, 1.0])}),
    (TILE, {"config_runtime": np.array([1e-20, 2e-20]),
            "config_runtime_normalizers": np.array([1e308, 1e308])}),  # the quotient underflows to 0
    (LAYOUT, {"config_runtime": np.array([1e-300, 1e300, 5.0])}),  # slowest / fastest overflows
])
def test_runtime_overflow_is_a_data_error_not_an_undefined_tau(folder, arrays, tmp_path, capsys):
    """The old code scored these: an inf top-1 error, or the graph reported as "tau undefined"."""
    root, path = _root_with(tmp_path, folder, lambda p: np.savez(p, **arrays))
    csv = tmp_path / "s.csv"
    prefix = "tile:xla" if folder == TILE else "layout:xla:default"
    csv.write_text(f"{HEADER}\n{prefix}:g,{';'.join(map(str, range(arrays['config_runtime'].size)))}\n")
    exit_code, text = run_cli(capsys, csv, "--data-root", root, "--split", "test")
    assert exit_code == 2 and f"[RUNTIME_OVERFLOW] {path}:" in " ".join(text.split())
    assert "undefined" not in text and "inf" not in text.replace("finite", "")


# --- the metric API never returns NaN ------------------------------------------------------------

UNDEFINED = {  # public function → calls where the old code returned NaN
    "kendall_tau_b": [([1], [1]), ([], []), ([0, 1, 2], [4, 4, 4]), ([3, 3], [1, 2]), ([0, 1], [np.nan, 1.0])],
    "ranking_tau_b": [(np.array([7]),), (np.array([4, 4, 4]),), (np.array([1.0, np.nan, 2.0]),)],
    "best_of_top_k_ratio": [(np.array([0.0, 1.0]), 0.0, 1), (np.array([np.nan, 1.0]), 1.0, 1),
                            (np.array([2.0]), np.nan, 1), (np.array([1e308]), 1e-308, 1)],
    "tile_score_from_ratio": [(np.nan,), (np.array([1.0, np.nan]),)],
    "error_from_ratio": [(np.nan,), (np.array([np.nan]),)],
    "tile_score": [(np.array([0.0, np.nan]), np.array([1.0, 2.0])), (np.array([0.0]), np.array([np.nan])),
                   (np.array([]), np.array([]))],
    "top_k_error": [(np.array([0.0, 1.0]), np.array([0.0, 2.0]), 1), (np.array([np.nan]), np.array([1.0]), 1)],
    "slowdown": [(np.array([0.0, 1.0]), np.array([np.nan, 2.0]), 10), (np.array([]), np.array([]), 1)],
    "ordered_pair_accuracy": [([1], [1]), ([], []), ([0, 1, 2], [4, 4, 4]), ([0, np.nan], [1, 2])],
    "pair_counts": [([0, np.nan], [1, 2]), ([0.0, 1.0], [np.nan, 2.0])],
    "search_curves": [(np.array([1.0, np.nan, 3.0]), np.array([2, 1]), np.array([1.0, 1.0]), 1),
                      (np.array([1.0]), np.array([1, 0]), np.array([1.0, 1.0]), 1)],
}
KEYWORD_ONLY = {"tile_score", "top_k_error", "slowdown", "ordered_pair_accuracy"}
"""The public metrics of a model's output whose two arrays are not interchangeable: keyword-only arguments."""
NO_NAN_BY_TYPE = {"tied_pairs", "dense_ranks", "dense_ranks_into", "discordant_pairs", "tau_b_from_counts",
                  "opa_from_counts", "defined_mean"}
"""Functions that return integers, or (for tau_b_from_counts, opa_from_counts) a ``defined`` mask beside the values, or (for
defined_mean) None when nothing is defined (test_defined_mean_skips_undefined_values_and_never_gives_nan)."""


def _public_functions() -> set[str]:
    """The public functions of the metric definitions and of the truth side's dense ranks (truth/ranks.py, which
    metrics.py uses)."""
    return {name for module in (metrics, ranks) for name, f in inspect.getmembers(module, inspect.isfunction)
            if not name.startswith("_") and f.__module__ == module.__name__}


def test_defined_mean_skips_undefined_values_and_never_gives_nan():
    assert metrics.defined_mean(np.array([1.0, np.nan, 2.0])) == 1.5  # (1 + 2) / 2, by hand
    assert metrics.defined_mean(np.array([np.nan, np.nan])) is None
    assert metrics.defined_mean(np.array([], dtype=np.float64)) is None


def test_every_public_metric_function_is_covered():
    assert _public_functions() == set(UNDEFINED) | NO_NAN_BY_TYPE


@pytest.mark.usefixtures("kernel")
@pytest.mark.parametrize("name, args", [(n, a) for n, calls in UNDEFINED.items() for a in calls])
def test_undefined_metrics_raise_instead_of_returning_nan(name, args):
    function = getattr(metrics, name)
    with pytest.raises(UndefinedMetricError):
        if name in KEYWORD_ONLY:  # (predictions, runtimes[, k]) by name
            function(**dict(zip(("predictions", "runtimes", "k"), args)))
        else:
            function(*args)
    assert issubclass(UndefinedMetricError, ValueError)


@pytest.mark.usefixtures("kernel")
def test_tau_b_from_counts_marks_undefined_without_nan():
    # n = 3, 3 pairs; all tied in y (undefined), none tied and 1 discordant: (3 - 2) / 3 = 1/3 by hand
    tau, defined = metrics.tau_b_from_counts(np.array([3, 3, 1]), 0, np.array([3, 0, 0]), 0, np.array([0, 1, 0]))
    assert defined.tolist() == [False, True, False] and not np.isnan(tau).any()
    assert tau[1] == pytest.approx(1 / 3, abs=1e-15)


@pytest.mark.usefixtures("kernel")
@pytest.mark.parametrize("seed", range(20))
def test_random_inputs_give_a_number_or_the_documented_error(seed):
    """Tiny random inputs with many ties (often constant): every result is a finite number, or the error."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 5))
    x, y = rng.integers(0, 2, n), rng.integers(1, 3, n).astype(np.float64)
    for call in (lambda: metrics.kendall_tau_b(x, y), lambda: metrics.ranking_tau_b(y),
                 lambda: metrics.best_of_top_k_ratio(y, float(y.min()) if n else 1.0, 3)):
        try:
            value = call()
        except UndefinedMetricError:
            continue
        assert math.isfinite(value)
