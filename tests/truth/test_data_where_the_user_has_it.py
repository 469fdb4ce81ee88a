"""Data where the user has it: Kaggle's competition folder (``npz_all/npz/``) is a data root; ``--configs
official`` reads the official eval indices shipped with the package (an explicit ``--eval-indices`` still wins);
``load_ground_truth`` and ``scan_catalog`` take a path string, ``"demo"`` or a DataRoot (a string raised
AttributeError)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import tpugraphs_eval as te
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.truth.eval_indices import OFFICIAL


@pytest.fixture
def kaggle_folder(realdata, tmp_path) -> Path:
    """The real files laid out as a Kaggle notebook sees them: ``predict-ai-model-runtime/npz_all/npz/...``."""
    folder = tmp_path / "predict-ai-model-runtime"
    (folder / "npz_all").mkdir(parents=True)
    (folder / "npz_all" / "npz").symlink_to(realdata / "tpugraphs" / "npz")
    return folder


def test_the_shipped_indices_are_the_official_files(realdata):
    """Byte for byte the four files of google-research-datasets/tpu_graphs (../shared/realdata/eval_indices), with
    their licence notice."""
    for source in sorted((realdata / "eval_indices").glob("*.json")):
        assert (OFFICIAL / source.name).read_bytes() == source.read_bytes(), source.name
    notice = (OFFICIAL / "NOTICE.md").read_text(encoding="utf-8")
    assert "Apache License, Version 2.0" in notice and "google-research-datasets/tpu_graphs" in notice
    for path in sorted(OFFICIAL.glob("*.json")):
        assert hashlib.sha256(path.read_bytes()).hexdigest()[:16] in notice


def test_kaggles_folder_is_a_data_root_and_official_needs_no_folder(realdata, kaggle_folder, tmp_path, capsys):
    """The random baseline's valid rankings scored under --configs official three ways: Kaggle's folder without
    --eval-indices, the official layout with the shipped lists, and with the official folder given: one report."""
    submission = tmp_path / "random_valid.csv"
    from tpugraphs_kit import write_random_submission

    write_random_submission(te.scan_catalog(realdata / "tpugraphs", "valid"), submission, seed=0)
    reports = []
    for root, extra in ((kaggle_folder, []), (realdata / "tpugraphs", []),
                        (realdata / "tpugraphs", ["--eval-indices", str(realdata / "eval_indices")])):
        out = tmp_path / f"report{len(reports)}.json"
        code = cli.main([str(submission), "--split", "valid", "--data-root", str(root), "--configs", "official",
                         "--json", str(out), "--no-progress", *extra])
        assert code == 0, capsys.readouterr().err
        reports.append(json.loads(out.read_text()))
    assert reports[0]["collections"] == reports[1]["collections"] == reports[2]["collections"]
    digests = {r["provenance"]["eval_indices_sha256"] for r in reports}
    assert len(digests) == 1 and reports[0]["options"]["configs"] == "official"
    assert reports[0]["data_root"] == str(kaggle_folder / "npz_all")


def test_an_explicit_eval_indices_folder_wins(realdata, tmp_path):
    """A folder of other lists (each valid graph's first config only) gives another digest and other values."""
    folder = tmp_path / "mine"
    folder.mkdir()
    for source in (realdata / "eval_indices").glob("*.json"):
        lists = json.loads(source.read_text())
        (folder / source.name).write_text(json.dumps({name: [0, 1, 2] for name in lists}))
    sample = tmp_path / "s.csv"
    from tpugraphs_kit import write_random_submission

    write_random_submission(te.scan_catalog(realdata / "tpugraphs", "valid"), sample, seed=0)
    shipped = te.evaluate(sample, split="valid", data_root=realdata / "tpugraphs", options=te.Options(configs="official"))
    mine = te.evaluate(sample, split="valid", data_root=realdata / "tpugraphs", options=te.Options(configs="official"),
                       eval_indices_dir=folder)
    assert mine.provenance["eval_indices_sha256"] != shipped.provenance["eval_indices_sha256"]
    assert mine.references != shipped.references


@pytest.mark.parametrize("form", [str, Path, "resolved"])
def test_ground_truth_and_catalog_take_a_path_string(realdata, form):
    root = realdata / "tpugraphs"
    given = te.resolve_data_root(root) if form == "resolved" else form(root)
    truth = te.load_ground_truth(given, "valid")
    assert truth.catalog.split == "valid" and "tile:xla" in truth.collections
    catalog = te.scan_catalog(given, "test")
    assert sum(len(g.names) for g in catalog.collections.values()) == 5  # one real graph per test folder
    assert te.scan_catalog("demo", "test").root.synthetic


def test_a_copy_of_the_demo_is_labelled_synthetic_and_a_real_root_is_not(demo_root, tmp_path, capsys):
    """The demo's SYNTHETIC.txt travels with a copy: its reports say SYNTHETIC (banner, JSON) as the demo's do; the
    same files without the marker are an ordinary data root."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(demo_root.path, copy)
    assert te.resolve_data_root(copy).synthetic and te.resolve_data_root("demo").synthetic
    sample = Path(__file__).resolve().parents[2] / "sample_submissions" / "demo_random_test.csv"
    assert cli.main([str(sample), "--data-root", str(copy), "--split", "test", "--json", str(tmp_path / "r.json")]) == 0
    assert "SYNTHETIC" in capsys.readouterr().out and json.loads((tmp_path / "r.json").read_text())["synthetic"]
    (copy / "SYNTHETIC.txt").unlink()
    assert not te.resolve_data_root(copy).synthetic
