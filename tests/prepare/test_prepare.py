"""``tpugraphs-eval prepare`` and ``tpugraphs_eval.prepare.prepare``: a competition with a labelled test split made
from the released labelled splits (docs/prepare.md). Expected values come from the source files themselves
(np.load of the source graph, its runtimes indexed by the recorded sample)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from prepared_roots import is_npz, npz_members, public_files, realdata_labelled_root

from tpugraphs_eval import resolve_data_root, scan_catalog, validate_submission
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.prepare import prepare, prepare_dir, program_of
from tpugraphs_eval.prepare import run as prepare_run
from tpugraphs_eval.prepare.naming import opaque_name

SEED = "organiser-secret-0123456789abcdef"


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def demo_prepared(tmp_path_factory) -> Path:
    """The demo prepared with --max-configs 100 (demo layout train graphs hold 57-925 configs: most are sampled)."""
    out = tmp_path_factory.mktemp("prepared") / "comp"
    assert cli.main(["prepare", "--data-root", "demo", "-o", str(out), "--max-configs", "100", "--seed", SEED,
                     "--no-progress"]) == 0
    return out


def _manifest(out: Path) -> dict:
    return json.loads((out / "private" / "prepare.json").read_text())


def test_output_layout_and_json_files(demo_prepared):
    public, private = demo_prepared / "public", demo_prepared / "private"
    assert sorted(p.name for p in demo_prepared.iterdir()) == ["private", "public"]
    assert sorted(p.name for p in private.iterdir()) == ["prepare.json", "solution.parquet"]
    assert {p.name for p in public.iterdir()} == {"npz", "prepare.json", "sample_submission.csv"}
    shown = json.loads((public / "prepare.json").read_text())
    assert SEED not in (public / "prepare.json").read_text() and "names" not in shown and "seed" not in shown
    assert shown["options"] == {"from": ["train"], "test_fraction": 0.1, "public_fraction": 0.25,
                                "max_configs": 100, "collections": None}
    # demo train: 80 tile graphs (8 programs of 10), 6 per layout collection; held out: max(2, round(0.1 G))
    assert shown["collections"]["layout:xla:default"] == {"train": 4, "valid": 3, "test": 2}
    assert shown["collections"]["tile:xla"] == {"train": 70, "valid": 24, "test": 10}  # one whole model
    secret = _manifest(demo_prepared)
    assert secret["seed"] == SEED and secret["options"] == shown["options"]
    demo = resolve_data_root("demo").path
    for rel, digest in secret["source_sha256"].items():  # every source file read, with its hash
        assert hashlib.sha256((demo / rel).read_bytes()).hexdigest() == digest
    assert len(secret["source_sha256"]) == 80 + 24 + 4 * (6 + 3)


def test_held_out_programs_stay_together_and_names_are_opaque(demo_prepared):
    names = _manifest(demo_prepared)["names"]
    public = demo_prepared / "public"
    held_programs = {n["program"] for n in names}
    for split in ("train", "valid"):  # no held-out program left in a public split
        for c in ("tile:xla", "layout:xla:default", "layout:xla:random", "layout:nlp:default", "layout:nlp:random"):
            from tpugraphs_eval.dataset import BY_NAME

            for name in resolve_data_root(public).graph_names(BY_NAME[c], split):
                assert program_of(BY_NAME[c], name) not in held_programs
    layout = [n for n in names if n["collection"].startswith("layout")]
    by_program = {}
    for n in layout:
        by_program.setdefault(n["program"], []).append(n)
    assert all(len(v) == 2 for v in by_program.values())  # default and random twins together
    assert all(v[0]["test_graph"] == v[1]["test_graph"] for v in by_program.values())  # one opaque name
    for n in names:
        assert re.fullmatch(r"[0-9a-f]{32}", n["test_graph"])
        assert n["test_graph"] not in (hashlib.md5(n["graph"].encode()).hexdigest(),
                                       hashlib.sha256(n["graph"].encode()).hexdigest()[:32])
        assert n["test_graph"] == opaque_name(SEED, ":".join(n["collection"].split(":")[:2]), n["graph"])
        assert n["test_graph"] != opaque_name("another seed", ":".join(n["collection"].split(":")[:2]), n["graph"])
    tile = [n for n in names if n["collection"] == "tile:xla"]
    assert len(tile) == 10 and len({n["program"] for n in tile}) == 1  # one whole model (8 graphs needed, 10 each)
    assert all(n["graph"].startswith(n["program"].removeprefix("tile:xla:") + "_") for n in tile)


def test_public_test_files_are_written_like_the_official_ones(demo_prepared):
    demo = resolve_data_root("demo").path
    from tpugraphs_eval.dataset import BY_NAME

    sampled = 0
    for n in _manifest(demo_prepared)["names"]:
        c = BY_NAME[n["collection"]]
        src = npz_members(demo / c.split_dir(n["split"]) / f"{n['graph']}.npz")
        pub = npz_members(demo_prepared / "public" / c.split_dir("test") / f"{n['test_graph']}.npz")
        assert list(pub) == list(src)  # the same members in the same order
        keep = np.arange(n["configs"]) if n["kept_configs"] is None else np.array(n["kept_configs"])
        if c.kind == "layout":
            assert keep.size == min(n["configs"], 100) and np.all(np.diff(keep) > 0)
            sampled += n["kept_configs"] is not None
            np.testing.assert_array_equal(pub["node_config_feat"], src["node_config_feat"][keep])
        else:
            assert n["kept_configs"] is None
            np.testing.assert_array_equal(pub["config_runtime_normalizers"], np.ones(keep.size, dtype=np.int64))
        assert pub["config_runtime"].dtype == src["config_runtime"].dtype
        np.testing.assert_array_equal(pub["config_runtime"], np.zeros(keep.size, dtype=np.int64))
        for key in set(src) - {"config_runtime", "config_runtime_normalizers", "node_config_feat"}:
            assert pub[key].dtype == src[key].dtype
            np.testing.assert_array_equal(pub[key], src[key], err_msg=key)
    assert sampled == 8  # every held-out layout graph of the draw has more than 100 configs


def test_solution_holds_the_held_out_runtimes_with_usage(demo_prepared):
    demo = resolve_data_root("demo").path
    from tpugraphs_eval.dataset import BY_NAME

    frame = pl.read_parquet(demo_prepared / "private" / "solution.parquet")
    names = _manifest(demo_prepared)["names"]
    assert frame.select(pl.struct("collection", "graph").n_unique()).item() == len(names) == 18
    for n in names:
        c = BY_NAME[n["collection"]]
        src = npz_members(demo / c.split_dir(n["split"]) / f"{n['graph']}.npz")
        rows = frame.filter((pl.col("collection") == c.name) & (pl.col("graph") == n["test_graph"])).sort("config")
        keep = slice(None) if n["kept_configs"] is None else np.array(n["kept_configs"])
        np.testing.assert_array_equal(rows["runtime"].to_numpy(), src["config_runtime"][keep])
        if c.kind == "tile":
            np.testing.assert_array_equal(rows["normalizer"].to_numpy(), src["config_runtime_normalizers"])
    public = frame.filter(pl.col("usage") == "Public").group_by("collection").agg(pl.col("graph").n_unique())
    # round(0.25 G) clamped to [1, G - 1] (truth/solution.py assign_usage): tile 10 -> 2 (2.5 halves to even)
    assert dict(public.iter_rows()) == {"tile:xla": 2, "layout:xla:default": 1, "layout:xla:random": 1,
                                        "layout:nlp:default": 1, "layout:nlp:random": 1}


def scan_public(out: Path, source: Path) -> int:
    """Every member of every public file of the prepared ``out`` (from the data root ``source``): test files hold no
    held-out runtime value; the train and valid files are byte-identical copies of source graphs that were not held
    out (the same path in the source); the text files name no runtime. Returns the number of npz members scanned."""
    from tpugraphs_eval.dataset import BY_NAME

    names = _manifest(out)["names"]
    held_paths = [source / BY_NAME[n["collection"]].split_dir(n["split"]) / f"{n['graph']}.npz" for n in names]
    held_runtimes = np.unique(np.concatenate([npz_members(p)["config_runtime"] for p in held_paths]))
    scanned = 0
    for path in public_files(out / "public"):
        data = path.read_bytes()
        if not is_npz(path):
            text = data.decode()
            assert not {int(t) for t in re.findall(r"\d{4,}", text)} & set(held_runtimes.tolist()), path
            continue
        members = npz_members(path)
        scanned += len(members)
        if path.parent.name == "test":
            for key, array in members.items():
                if array.dtype.kind in "iu":
                    assert not np.isin(array, held_runtimes).any(), (path, key)
                else:  # float members: no runtime as a float either
                    assert not np.isin(array.astype(np.float64), held_runtimes.astype(np.float64)).any(), (path, key)
        else:  # the source file at the same place, not held out, byte for byte
            same = source / path.relative_to(out / "public")
            assert same not in held_paths and data == same.read_bytes(), path
    return scanned


def test_no_runtime_of_a_held_out_graph_reaches_public(demo_prepared):
    assert scan_public(demo_prepared, resolve_data_root("demo").path) > 100


def test_the_same_seed_gives_the_same_bytes(demo_prepared, tmp_path):
    again = tmp_path / "again"
    prepare_dir("demo", again, seed=SEED, max_configs=100)
    assert _files(again) == _files(demo_prepared)
    other = tmp_path / "other"
    prepare_dir("demo", other, seed="another seed 0123456789", max_configs=100)
    assert sorted(p.name for p in (other / "public/npz/layout/xla/default/test").iterdir()) != sorted(
        p.name for p in (demo_prepared / "public/npz/layout/xla/default/test").iterdir())


def test_the_same_data_at_two_places_gives_the_same_bytes(tmp_path):
    """No written file holds the data root's path (MLE-bench checks a preparation made from its own download
    folder against the organiser's MD5s): two copies of one data root, prepared with one seed, agree byte for
    byte, the private files and the solution's manifest included."""
    source = resolve_data_root("demo").path / "npz"
    outs = []
    for place in ("organiser/data", "elsewhere/mle-bench/raw"):
        shutil.copytree(source, tmp_path / place / "npz")
        outs.append(tmp_path / place.replace("/", "-"))
        prepare_dir(str(tmp_path / place), outs[-1], seed=SEED, max_configs=100)
    first, second = (_files(out) for out in outs)
    assert first.keys() == second.keys() and "private/prepare.json" in first
    assert [name for name in first if first[name] != second[name]] == []
    assert json.loads(first["private/prepare.json"])["source"] == "a data root (its files: source_sha256)"


def test_api_in_mle_bench_shape(tmp_path, demo_prepared):
    public, private = tmp_path / "public", tmp_path / "private"
    public.mkdir()  # MLE-bench makes both folders before calling prepare: empty is accepted
    result = prepare("demo", public, private, seed=SEED, max_configs=100)
    assert result["seed"] == SEED
    assert _files(public) == _files(demo_prepared / "public")
    assert _files(private).keys() == _files(demo_prepared / "private").keys()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["private", "public"]  # no temporary sibling left


def _refused(args, capsys, code):
    assert cli.main(["prepare", *args, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"[{code}]" in err and "Traceback" not in err
    return err


def test_refusals_leave_nothing(tmp_path, capsys, realdata):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    _refused(["--data-root", "demo", "-o", str(out), "--seed", SEED], capsys, "PREPARE_OUTPUT_NOT_EMPTY")
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    _refused(["--data-root", str(realdata / "tpugraphs"), "-o", str(empty), "--from", "test", "--seed", SEED], capsys,
             "PREPARE_NO_RUNTIMES")
    err = _refused(["--data-root", str(realdata / "tpugraphs"), "-o", str(empty), "--seed", SEED], capsys,
                   "PREPARE_TOO_FEW_GRAPHS")
    assert "tile:xla: 1 graph(s)" in err and "Add source splits (--from train,valid)" in err
    err = _refused(["--data-root", str(realdata / "tpugraphs"), "-o", str(empty), "--seed", SEED, "--from",
                    "train,valid"], capsys, "PREPARE_TOO_FEW_GRAPHS")
    assert "Leave the collection out (--collections)" in err and "--from train,valid" not in err  # already given
    _refused(["--data-root", "demo", "-o", str(empty), "--seed", SEED, "--collections", "tile:xla",
              "--test-fraction", "0.95"], capsys, "PREPARE_TOO_FEW_GRAPHS")
    assert cli.main(["prepare", "--data-root", "demo", "-o", str(empty), "--test-fraction", "1.5"]) == 2
    err = _refused(["--data-root", "demo", "-o", str(empty), "--seed", SEED, "--from", "test"], capsys, "USAGE_ERROR")
    assert "--from test" in err  # the demo's test split is labelled, but it would be replaced
    assert list(empty.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["empty", "out"]


def test_a_held_out_program_in_another_public_split_is_refused(tmp_path, capsys):
    root = tmp_path / "root"
    shutil.copytree(resolve_data_root("demo").path / "npz", root / "npz")
    for p in (root / "npz/layout/xla/default/train").glob("*.npz"):  # every xla program also in valid
        shutil.copyfile(p, root / "npz/layout/xla/default/valid" / p.name)
    err = _refused(["--data-root", str(root), "-o", str(tmp_path / "out"), "--seed", SEED], capsys,
                   "PREPARE_PROGRAM_LEAK")
    assert "valid/layout:xla:default:" in err and not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["root"]


def test_a_public_test_file_with_a_runtime_is_refused(tmp_path, capsys, monkeypatch):
    def leaky(source, target, keep):  # a writer that forgets to zero the runtimes
        shutil.copyfile(source, target)
        return 0

    monkeypatch.setattr(prepare_run, "write_public_test_file", leaky)
    _refused(["--data-root", "demo", "-o", str(tmp_path / "out"), "--seed", SEED], capsys, "PREPARE_PUBLIC_RUNTIME")
    assert list(tmp_path.iterdir()) == []


def organiser_tools_run(prepared: Path, tmp_path: Path, capsys) -> None:
    """validate, both baselines, score (all, public view), leaderboard build, both exports on a prepared folder."""
    from tpugraphs_eval.commands import leaderboard as board_cli
    from tpugraphs_kit import cli_baseline

    public, solution = prepared / "public", prepared / "private" / "solution.parquet"
    subs = tmp_path / "subs"
    subs.mkdir()
    assert cli.main(["validate", str(public / "sample_submission.csv"), "--data-root", str(public), "--split",
                     "test", "-q"]) == 0
    for kind in ("random", "learned"):
        assert cli_baseline.main([kind, "--data-root", str(public), "--split", "test", "-o",
                                  str(subs / f"{kind}.csv"), "--no-progress"]) == 0
        assert validate_submission(subs / f"{kind}.csv", scan_catalog(resolve_data_root(public), "test")).valid
    shutil.copyfile(public / "sample_submission.csv", subs / "sample.csv")
    capsys.readouterr()
    for extra in ([], ["--public-only"]):
        assert cli.main([str(subs / "learned.csv"), "--solution", str(solution), "--json", "-", "-q", *extra]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["split"] == "test"
    teams = tmp_path / "teams"  # one team folder per submission, as a leaderboard's submissions folder holds them
    for name in ("random", "learned", "sample"):
        (teams / name).mkdir(parents=True)
        shutil.copyfile(subs / f"{name}.csv", teams / name / f"{name}.csv")
    assert board_cli.main(["build", str(teams), "--solution", str(solution), "-o", str(tmp_path / "board"),
                           "--no-progress", "--quiet", "--no-cache"]) == 0
    board = json.loads((tmp_path / "board" / "leaderboard.json").read_text(encoding="utf-8"))
    assert sorted(team["team"] for team in board["teams"]) == ["learned", "random", "sample"]
    assert cli.main(["export", "codabench", "--solution", str(solution), "-o", str(tmp_path / "bundle")]) == 0
    assert (tmp_path / "bundle" / "competition.yaml").is_file()
    assert cli.main(["export", "kaggle-metric", "-o", str(tmp_path / "metric.py")]) == 0
    import pandas as pd

    from tpugraphs_eval.hosting.kaggle_metric import score, solution_frame

    sub = pd.read_csv(subs / "learned.csv")
    frame = solution_frame(solution)
    from tpugraphs_eval import Evaluator

    expected = Evaluator.load(split=None, solution=solution).evaluate(subs / "learned.csv")
    assert score(frame, sub, "ID") == pytest.approx(expected.scores.overall, abs=1e-12)


def test_the_organiser_tools_run_unchanged_on_the_prepared_folder(demo_prepared, tmp_path, capsys):
    organiser_tools_run(demo_prepared, tmp_path, capsys)


def test_realdata_labelled_root_end_to_end(realdata, tmp_path, capsys):
    root = realdata_labelled_root(realdata, tmp_path / "root")
    out = tmp_path / "comp"
    assert cli.main(["prepare", "--data-root", str(root), "-o", str(out), "--seed", SEED, "--test-fraction", "0.3",
                     "--no-progress"]) == 0
    names = _manifest(out)["names"]
    big = [n for n in names if n["configs"] > 1000]
    assert big and all(len(n["kept_configs"]) == 1000 for n in big)  # the 1159 and 1965-config real graphs
    organiser_tools_run(out, tmp_path, capsys)
    assert scan_public(out, root) > 30
    again = tmp_path / "again"
    prepare_dir(root, again, seed=SEED, test_fraction=0.3)
    assert _files(again) == _files(out)


def test_a_killed_runs_work_folder_is_removed_by_the_next_run(tmp_path, capsys):
    """A SIGKILL mid-run leaves its work folder (.<name>.prepare-*) beside -o, holding the held-out runtimes in
    private/. The next run into the same -o deletes it and says so on stderr; before, it stayed for good."""
    stale = tmp_path / ".comp.prepare-killed0"
    (stale / "out" / "private").mkdir(parents=True)
    (stale / "out" / "private" / ".truth").write_bytes(b"runtimes")
    other = tmp_path / ".other.prepare-keep"  # another output's work folder is not touched
    other.mkdir()
    assert cli.main(["prepare", "--data-root", "demo", "-o", str(tmp_path / "comp"), "--seed", SEED,
                     "--no-progress"]) == 0
    assert not stale.exists() and other.is_dir()
    assert f"removed {stale}" in " ".join(capsys.readouterr().err.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.prepare-keep", "comp"]


def test_the_order_options_are_typed_in_changes_nothing(tmp_path):
    """`--from valid,train` and `--collections` in another order prepare the same bytes (before, the order fed
    the held-out draw and prepare.json, which MLE-bench's checksums cover)."""
    one, two = tmp_path / "one", tmp_path / "two"
    prepare_dir("demo", one, seed=SEED, max_configs=100, from_splits=("train", "valid"),
                collections=("tile:xla", "layout:xla:default"))
    prepare_dir("demo", two, seed=SEED, max_configs=100, from_splits=("valid", "train"),
                collections=("layout:xla:default", "tile:xla"))
    assert _files(one) == _files(two)
    assert json.loads((one / "public/prepare.json").read_text())["options"]["collections"] == [
        "tile:xla", "layout:xla:default"]
