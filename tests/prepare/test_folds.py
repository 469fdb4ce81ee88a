"""Folds and subsets: ``tpugraphs-data folds``, ``--graphs FILE [--fold K]`` on score/validate/compare and
``tpugraphs-eval cv``. The independent reference: each fold's rows alone, scored against a data root that holds
only that fold's graph files (copies), with no selection option at all."""

from __future__ import annotations

import csv
import json
import shutil
import statistics
from pathlib import Path

import pytest

from tpugraphs_eval import resolve_data_root
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.dataset import BY_NAME, split_submission_id
from tpugraphs_eval.prepare import program_of
from tpugraphs_kit import cli_baseline, cli_data


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """folds.csv (demo train, k 3, seed 7) and a random submission for demo train."""
    work = tmp_path_factory.mktemp("folds")
    assert cli_data.main(["folds", "--data-root", "demo", "--split", "train", "--k", "3", "--seed", "7",
                          "-o", str(work / "folds.csv")]) == 0
    assert cli_baseline.main(["random", "--data-root", "demo", "--split", "train", "-o", str(work / "sub.csv"),
                              "--no-progress", "--seed", "3"]) == 0
    return work


def _folds(path: Path) -> dict[str, int]:
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["ID", "fold"]
    return {graph_id: int(fold) for graph_id, fold in rows[1:]}


def _json(argv, capsys) -> tuple[int, dict]:
    code = cli.main([*map(str, argv), "--json", "-", "-q"])
    return code, json.loads(capsys.readouterr().out)


def test_folds_keep_programs_together_and_balance_collections(work, tmp_path):
    folds = _folds(work / "folds.csv")
    demo = resolve_data_root("demo")
    assert len(folds) == 80 + 4 * 6 and set(folds.values()) == {0, 1, 2}
    by_program: dict[str, set[int]] = {}
    for graph_id, fold in folds.items():
        collection, name = split_submission_id(graph_id)
        assert name in demo.graph_names(collection, "train")
        by_program.setdefault(program_of(collection, name), set()).add(fold)
    assert all(len(f) == 1 for f in by_program.values())  # a program (tile model; layout twins) in one fold
    assert len(by_program) == 8 + 6 + 6  # 8 tile models of 10 kernels; 6 programs per layout source
    for name in BY_NAME:
        counts = [sum(1 for i, f in folds.items() if i.startswith(name + ":") and f == k) for k in range(3)]
        assert max(counts) - min(counts) <= (10 if name == "tile:xla" else 1), (name, counts)
    assert cli_data.main(["folds", "--data-root", "demo", "--split", "train", "--k", "3", "--seed", "7",
                          "-o", str(tmp_path / "again.csv")]) == 0
    assert (tmp_path / "again.csv").read_bytes() == (work / "folds.csv").read_bytes()


def _fold_alone(work: Path, tmp_path: Path, fold: int) -> tuple[Path, Path]:
    """The fold's rows alone and a data root holding only the fold's graphs (copies of the demo files)."""
    folds = _folds(work / "folds.csv")
    demo = resolve_data_root("demo").path
    root = tmp_path / f"fold{fold}"
    for graph_id, f in folds.items():
        if f == fold:
            collection, name = split_submission_id(graph_id)
            (root / collection.split_dir("train")).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(demo / collection.split_dir("train") / f"{name}.npz",
                            root / collection.split_dir("train") / f"{name}.npz")
    with open(work / "sub.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    sub = tmp_path / f"sub{fold}.csv"
    with open(sub, "w", newline="") as handle:
        csv.writer(handle).writerows([rows[0], *(r for r in rows[1:] if folds[r[0]] == fold)])
    return root, sub


def test_graphs_and_cv_agree_with_each_folds_rows_alone(work, tmp_path, capsys):
    alone = {}
    for fold in range(3):
        root, sub = _fold_alone(work, tmp_path, fold)
        code, ref = _json([sub, "--data-root", root, "--split", "train"], capsys)
        assert code == 0
        code, got = _json([work / "sub.csv", "--data-root", "demo", "--split", "train", "--graphs",
                           work / "folds.csv", "--fold", fold], capsys)
        assert code == 0
        for key in ("collections", "collection_details", "graphs", "normalised"):  # bit for bit
            assert got[key] == ref[key], key
        assert got["overall"] == ref["overall"] and got["valid"]
        codes = {p["code"] for p in got["problems"]}
        assert "MISSING_IDS" not in codes and "UNKNOWN_ID" not in codes and "GRAPH_NOT_SELECTED" in codes
        alone[fold] = ref
    code = cli.main(["cv", str(work / "sub.csv"), "--folds", str(work / "folds.csv"), "--split", "train",
                     "--data-root", "demo", "--json", "-"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["fold"] for r in result["folds"]] == [0, 1, 2]
    for row in result["folds"]:
        assert row["overall"] == alone[row["fold"]]["overall"]
        assert row["collections"] == alone[row["fold"]]["collections"]
    overall = [alone[k]["overall"] for k in range(3)]
    assert result["mean"]["overall"] == pytest.approx(sum(overall) / 3, abs=1e-15)
    assert result["sd"]["overall"] == pytest.approx(statistics.stdev(overall), abs=1e-15)
    tile = [alone[k]["collections"]["tile:xla"] for k in range(3)]
    assert result["sd"]["collections"]["tile:xla"] == pytest.approx(statistics.stdev(tile), abs=1e-15)


def test_cv_takes_collections_as_graphs_and_fold_take_them(work, capsys):
    """``cv --collections tile:xla``: each fold's values are ``--graphs FILE --fold K --collections tile:xla``'s
    (the fold's graphs chosen first, then the collection), not a GRAPHS_FILE_UNKNOWN_ID for the other collections."""
    code, result = _json(["cv", work / "sub.csv", "--folds", work / "folds.csv", "--split", "train", "--data-root",
                          "demo", "--collections", "tile:xla"], capsys)
    assert code == 0 and [r["fold"] for r in result["folds"]] == [0, 1, 2]
    for row in result["folds"]:
        code, one = _json([work / "sub.csv", "--data-root", "demo", "--split", "train", "--graphs", work / "folds.csv",
                           "--fold", row["fold"], "--collections", "tile:xla"], capsys)
        assert code == 0 and list(one["collections"]) == ["tile:xla"]
        assert row["collections"] == one["collections"] and row["overall"] == one["overall"]


def test_a_plain_list_of_ids_and_validate_and_compare(work, tmp_path, capsys):
    folds = _folds(work / "folds.csv")
    listed = tmp_path / "ids.txt"
    listed.write_text("".join(f"{i}\n" for i, f in folds.items() if f == 1))
    a, b = (_json([work / "sub.csv", "--data-root", "demo", "--split", "train", *g], capsys)[1]
            for g in (["--graphs", listed], ["--graphs", work / "folds.csv", "--fold", "1"]))
    assert a["graphs"] == b["graphs"] and a["overall"] == b["overall"]
    code, report = _json(["validate", work / "sub.csv", "--data-root", "demo", "--split", "train", "--graphs",
                          listed], capsys)
    assert code == 0 and report["valid"]
    dropped = tmp_path / "dropped.csv"  # a listed graph without its row is still missing
    lines = (work / "sub.csv").read_text().splitlines()
    first = next(i for i in listed.read_text().split())
    dropped.write_text("\n".join(x for x in lines if not x.startswith(first + ",")) + "\n")
    code, report = _json(["validate", dropped, "--data-root", "demo", "--split", "train", "--graphs", listed],
                         capsys)
    assert code == 1 and "MISSING_IDS" in {p["code"] for p in report["problems"]}
    assert cli.main(["compare", str(work / "sub.csv"), str(work / "sub.csv"), "--data-root", "demo", "--split",
                     "train", "--graphs", str(listed)]) == 0
    capsys.readouterr()


def test_unknown_ids_and_bad_files_are_coded_usage_errors(work, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("ID\ntile:xla:no_such_graph\nlayout:nlp:random:nor_this\n")
    assert cli.main([str(work / "sub.csv"), "--data-root", "demo", "--split", "train", "--graphs", str(bad)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "[GRAPHS_FILE_UNKNOWN_ID]" in err and "line 2: tile:xla:no_such_graph" in err
    assert "line 3: layout:nlp:random:nor_this" in err and str(bad) in err
    for argv in (["--graphs", str(work / "folds.csv")], ["--graphs", str(work / "folds.csv"), "--fold", "9"],
                 ["--fold", "1"]):
        assert cli.main([str(work / "sub.csv"), "--data-root", "demo", "--split", "train", *argv]) == 2
        assert "[GRAPHS_FILE_INVALID]" in capsys.readouterr().err


def test_more_folds_than_a_collection_fills_is_refused(tmp_path, capsys):
    """--k 20 on the demo's train split: tile:xla has 8 programs, so 12 folds would hold no tile graph and their
    overall would leave tile out (a fold of tile graphs only scored 1.0 and inflated cv's mean). Refused, coded."""
    from tpugraphs_kit import cli_data

    assert cli_data.main(["folds", "--data-root", "demo", "--split", "train", "--k", "20", "-o",
                          str(tmp_path / "f.csv")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "[USAGE_ERROR] --k 20 leaves" in err and not (tmp_path / "f.csv").exists()
    # tile:xla's 8 programs fill 8 folds; `folds` has no --collections and --k must be 2 or more: neither is advised
    assert err.endswith("choose --k 8 or less") and "--collections" not in err


def test_a_collection_of_one_program_cannot_be_cross_validated(demo_root, tmp_path, capsys):
    """One graph per collection: no --k spreads it; the advice was "choose --k 1 or less, or --collections"."""
    from small_roots import demo_subset

    from tpugraphs_kit import cli_data

    root = demo_subset(demo_root, tmp_path / "root", 1, splits=("train",))
    assert cli_data.main(["folds", "--data-root", str(root), "--split", "train", "--k", "2", "-o", "-"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "its graphs form 1 program group(s)" in err and "--k 1" not in err and "--collections" not in err
    assert err.endswith("cross-validation needs 2 program groups of each collection: use a data root with more of "
                        "its programs, or one without it")


def test_cv_warns_about_an_in_sample_file_and_takes_q(work, tmp_path, capsys):
    """A file ranked by the runtimes themselves (what a model that memorised the split's runtimes writes) scores
    tau-b 1 on every layout fold: cv warns, in the table view, with -q and in the JSON. The random file does not
    warn. -q prints one line, its numbers those of the JSON (before, cv refused -q as an unknown argument)."""
    from tpugraphs_eval import scan_catalog
    from tpugraphs_kit import write_predictions
    from tpugraphs_kit.data import iter_split

    demo = resolve_data_root("demo")
    runtimes = {g.id: g.runtimes() for g in iter_split(demo, "train", progress=False)}
    write_predictions(runtimes, tmp_path / "memorised.csv", scan_catalog(demo, "train"))
    common = ["--folds", str(work / "folds.csv"), "--split", "train", "--data-root", "demo", "--no-progress"]
    assert cli.main(["cv", str(tmp_path / "memorised.csv"), *common, "--json", str(tmp_path / "m.json")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    warnings = json.loads((tmp_path / "m.json").read_text())["warnings"]
    assert len(warnings) == 1 and "fold 0: layout:xla:default 1.000" in warnings[0]
    assert "warning: the file looks in-sample: mean tau-b of 0.9 or more" in out and "learned --folds" in out
    assert cli.main(["cv", str(tmp_path / "memorised.csv"), *common, "-q"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith(f"{tmp_path / 'memorised.csv'}: 3 folds, overall ") and "in-sample" in lines[1]
    assert lines[1].startswith("warning: ") and "[/]" not in lines[1]  # no markup written as text into a pipe
    assert cli.main(["cv", str(work / "sub.csv"), *common, "-q", "--json", str(tmp_path / "r.json")]) == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["warnings"] == [] and capsys.readouterr().out == (
        f"{work / 'sub.csv'}: 3 folds, overall {result['mean']['overall']:.6f} ± {result['sd']['overall']:.6f}\n")


@pytest.mark.parametrize("fold", ["²", "1" * 5000])
def test_a_fold_that_is_no_plain_number_is_a_coded_error(work, tmp_path, capsys, fold):
    """Issue 24 item 13: ``²`` passes str.isdigit and a 5,000-digit number exceeds int()'s limit; both gave exit 3
    (an internal ValueError) from --graphs FILE --fold K and cv --folds. Now GRAPHS_FILE_INVALID naming the line, exit 2;
    --fold itself is argparse's coded usage error."""
    rows = (work / "folds.csv").read_text().splitlines()
    rows[3] = rows[3].rsplit(",", 1)[0] + "," + fold
    odd = tmp_path / "odd.csv"
    odd.write_text("\n".join(rows) + "\n")
    common = ["--data-root", "demo", "--split", "train"]
    for argv in ([str(work / "sub.csv"), *common, "--graphs", str(odd), "--fold", "0"],
                 ["cv", str(work / "sub.csv"), "--folds", str(odd), *common]):
        assert cli.main(argv) == 2
        err = " ".join(capsys.readouterr().err.split())
        assert "[GRAPHS_FILE_INVALID]" in err and "line 4: expected `ID,fold` with a fold of 0 or more" in err
    assert cli.main([str(work / "sub.csv"), *common, "--graphs", str(work / "folds.csv"), "--fold", fold]) == 2
    assert "[USAGE_ERROR] argument --fold: invalid int value" in capsys.readouterr().err


def test_one_tile_program_rule_for_folds_and_the_report():
    """The official tiles_evaluate.py groups tile graphs by ``tile_id.rsplit('_', 1)[0]``: ``resnet_128`` → ``resnet``,
    ``my_model_v2`` → ``my_model`` (the old prepare regex kept ``my_model_v2`` whole while the report cut it)."""
    import numpy as np

    from tpugraphs_eval.scoring.score import CollectionResult

    names = ["resnet_128", "resnet_256", "my_model_v2", "my_model_v3", "solo", "bert.x_-4f"]
    tile = BY_NAME["tile:xla"]
    assert [program_of(tile, n) for n in names] == ["tile:xla:resnet"] * 2 + ["tile:xla:my_model"] * 2 + [
        "tile:xla:solo", "tile:xla:bert.x"]
    result = CollectionResult(tile, [f"tile:xla:{n}" for n in names], {"score": np.arange(6.0)}, np.full(6, 5))
    assert {p: v["n_graphs"] for p, v in result.programs().items()} == {"bert.x": 1, "my_model": 2, "resnet": 2,
                                                                         "solo": 1}
