"""``tpugraphs-baseline learned --folds``: out-of-fold rankings for ``tpugraphs-eval cv``; and the baselines'
words on few graphs (a model trained on 1 graph per collection, a random tile top-10 error over 3 of 24 graphs).

Expected values: each fold's rows are compared with a model trained independently on a data root that holds only
the other folds' graphs (copies of the demo files), through the public ``train`` / ``write_learned_submission``;
graph counts come from the files copied and from the config counts of the demo valid split's truth.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from small_roots import demo_subset

from tpugraphs_eval import load_ground_truth, resolve_data_root, scan_catalog, validate_submission
from tpugraphs_eval.truth.graph_lists import read_folds
from tpugraphs_kit import train
from tpugraphs_kit.cli_baseline import main as baseline_main
from tpugraphs_kit.cli_data import main as data_main
from tpugraphs_kit.data import load_graph
from tpugraphs_kit.submission import rank_configs


def _path(root, catalog, graph_id: str):
    coll = catalog.index[graph_id].collection
    return root.path / coll.split_dir("train") / f"{graph_id.removeprefix(f'{coll.name}:')}.npz"


def _rows(path) -> dict[str, str]:
    return dict(line.split(",", 1) for line in path.read_text().splitlines()[1:])


@pytest.fixture(scope="module")
def out_of_fold(demo_root, tmp_path_factory):
    folder = tmp_path_factory.mktemp("oof")
    assert data_main(["folds", "--data-root", "demo", "--split", "train", "--k", "3", "--seed", "0",
                      "-o", str(folder / "folds.csv")]) == 0
    assert baseline_main(["learned", "--split", "train", "--data-root", "demo", "--folds", str(folder / "folds.csv"),
                          "-o", str(folder / "oof.csv"), "--json", str(folder / "oof.json"), "--no-progress"]) == 0
    return folder


def test_each_fold_is_ranked_by_a_model_trained_on_the_other_folds(out_of_fold, demo_root, tmp_path):
    folds = read_folds(out_of_fold / "folds.csv")
    written = _rows(out_of_fold / "oof.csv")
    catalog = scan_catalog(demo_root, "train")
    assert validate_submission(out_of_fold / "oof.csv", catalog).valid and set(written) == set(catalog.index)
    for fold, ids in folds.items():
        root = tmp_path / f"without-{fold}"  # the train graphs of the other folds only
        for graph_id in catalog.index:
            if graph_id not in ids:
                source = _path(demo_root, catalog, graph_id)
                target = root / source.relative_to(demo_root.path)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
        models = train(resolve_data_root(str(root)), "train")
        for graph_id in ids:
            coll = catalog.index[graph_id].collection
            graph = load_graph(demo_root, coll, "train", graph_id.removeprefix(f"{coll.name}:"))
            expected = rank_configs(models[coll.name].predict(graph), coll.kind)
            assert written[graph_id] == ";".join(map(str, expected)), graph_id
    report = json.loads((out_of_fold / "oof.json").read_text())
    assert report["folds"] == str(out_of_fold / "folds.csv") and report["train_split"] == "train"
    # the in-sample file (one model trained on every graph) differs: its layout rows saw their own runtimes
    assert baseline_main(["learned", "--split", "train", "--data-root", "demo", "-o", str(tmp_path / "in.csv"),
                          "--no-progress"]) == 0
    in_sample = _rows(tmp_path / "in.csv")
    assert any(in_sample[i] != written[i] for i in written if i.startswith("layout:"))


def test_a_fold_file_that_misses_graphs_is_refused(out_of_fold, tmp_path, capsys):
    lines = (out_of_fold / "folds.csv").read_text().splitlines()
    (tmp_path / "f.csv").write_text("\n".join(lines[:-2] + ["layout:xla:default:nope,1"]) + "\n")
    assert baseline_main(["learned", "--split", "train", "--data-root", "demo", "--folds", str(tmp_path / "f.csv"),
                          "-o", str(tmp_path / "o.csv"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "[FOLDS_MISMATCH]" in err and "2 graph(s) of the split in no fold" in err
    assert "1 ID(s) not graphs of the split (first layout:xla:default:nope)" in err and not (tmp_path / "o.csv").exists()
    assert baseline_main(["learned", "--split", "train", "--train-split", "valid", "--data-root", "demo", "--folds",
                          str(out_of_fold / "folds.csv"), "-o", str(tmp_path / "o.csv")]) == 2
    assert "--train-split is not used" in capsys.readouterr().err


def test_learned_on_one_graph_per_collection_warns_with_the_counts(demo_root, tmp_path, capsys):
    """Before, a model trained on 1 graph per collection reported its normalised values without a word."""
    root = demo_subset(demo_root, tmp_path / "root", 1)
    assert baseline_main(["learned", "--split", "valid", "--data-root", str(root), "-o", str(tmp_path / "l.csv"),
                          "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert ("warning: few training graphs: tile:xla (1 graph), layout:xla:default (1 graph), layout:xla:random "
            "(1 graph), layout:nlp:default (1 graph), layout:nlp:random (1 graph): a model learned from so few graphs "
            "may rank worse than chance") in out
    assert baseline_main(["learned", "--split", "valid", "--data-root", "demo", "-o", str(tmp_path / "d.csv"),
                          "--no-progress"]) == 0
    assert "few training graphs" not in capsys.readouterr().out  # 80 tile and 6 per layout collection


def test_random_draws_say_which_graphs_the_top10_error_covers(tmp_path, capsys, demo_root):
    """A random tile row lists min(5, c) indices: the top-10 error exists only where c <= 5 (3 of the 24 demo
    valid graphs, counted here from the truth's config counts); before, "0.0000 ± 0.0000" said nothing of it."""
    truth = load_ground_truth(demo_root, "valid")
    small = sum(1 for c in truth.collections["tile:xla"].graphs.n_configs if c <= 5)
    assert baseline_main(["random", "--split", "valid", "--data-root", "demo", "-o", str(tmp_path / "r.csv"),
                          "--draws", "2", "--json", str(tmp_path / "r.json"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"tile:xla +│ top10_error +│ +0\.0000 ± 0\.0000 +│ +{small} of 24 │", out) and small == 3
    assert "its top-10 error covers only the graphs with at most 5 configurations" in out
    numbers = json.loads((tmp_path / "r.json").read_text())["collections"]["tile:xla"]
    assert numbers["random_graphs"]["top10_error"] == [3, 24] and numbers["random_graphs"]["score"] == [24, 24]


def test_a_fold_without_training_graphs_is_an_error_or_random_rows(demo_root, tmp_path, capsys):
    """2 graphs per collection, both tile graphs in fold 0: fold 0's tile model would learn from no graph."""
    root = demo_subset(demo_root, tmp_path / "root", 2, splits=("train",))
    catalog = scan_catalog(resolve_data_root(str(root)), "train")
    (tmp_path / "f.csv").write_text("ID,fold\n" + "".join(
        f"{graph_id},{0 if name == 'tile:xla' else i}\n" for name, graphs in catalog.collections.items()
        for i, graph_id in enumerate(graphs.ids)))
    argv = ["learned", "--split", "train", "--data-root", str(root), "--folds", str(tmp_path / "f.csv"), "-o",
            str(tmp_path / "o.csv"), "--no-progress"]
    assert baseline_main(argv) == 2
    assert "[NO_TRAINING_DATA] no tile:xla train (folds other than 0) graph" in capsys.readouterr().err
    assert baseline_main([*argv, "--fill-random", "0"]) == 0
    out = capsys.readouterr().out
    assert "training graphs per fold: tile:xla (0/2)" in out and "tile:xla (0 graphs)" in out
    assert validate_submission(tmp_path / "o.csv", catalog).valid
