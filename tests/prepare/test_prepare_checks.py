"""``prepare``'s checks of its input (issue 24 items 1, 2 and 11): the organiser's seed, every source graph checked
before the draw whatever the seed, every copied file checked as a scored file is, the collections left out named."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from prepared_roots import npz_members

from tpugraphs_eval import resolve_data_root
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.errors import UsageError
from tpugraphs_eval.prepare import prepare_dir

SEED = "organiser-secret-0123456789abcdef"
XLA = "npz/layout/xla/default"


@pytest.fixture()
def root(tmp_path) -> Path:
    """A copy of the demo's npz/ tree (the tests damage it)."""
    shutil.copytree(resolve_data_root("demo").path / "npz", tmp_path / "root" / "npz")
    return tmp_path / "root"


def _run(args, capsys) -> tuple[int, str]:
    code = cli.main(["prepare", *map(str, args), "--no-progress"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out + captured.err


@pytest.mark.parametrize("seed", ["", "1", "fifteen chars.."])
def test_a_seed_under_16_characters_is_refused(tmp_path, capsys, seed):
    code, text = _run(["--data-root", "demo", "-o", tmp_path / "out", "--seed", seed], capsys)
    assert code == 2 and "[PREPARE_WEAK_SEED]" in text and not (tmp_path / "out").exists()
    with pytest.raises(UsageError) as err:
        prepare_dir("demo", tmp_path / "api", seed=seed)
    assert err.value.code == "PREPARE_WEAK_SEED"
    assert cli.main(["export", "mlebench", "-o", str(tmp_path / "comp" / "x"), "--data-root", "demo",
                     "--seed", seed]) == 2
    assert "[PREPARE_WEAK_SEED]" in capsys.readouterr().err and not (tmp_path / "comp").exists()


def test_insecure_seed_is_a_warned_opt_out_and_no_seed_draws_a_recorded_secret(tmp_path, capsys):
    code, text = _run(["--data-root", "demo", "-o", tmp_path / "weak", "--seed", "1", "--insecure-seed",
                       "--collections", "layout:xla:default"], capsys)
    assert code == 0 and "warning: --insecure-seed" in text
    code, text = _run(["--data-root", "demo", "-o", tmp_path / "drawn", "--collections", "layout:xla:default"], capsys)
    seed = json.loads((tmp_path / "drawn/private/prepare.json").read_text())["seed"]
    assert code == 0 and re.fullmatch("[0-9a-f]{32}", seed) and seed in text  # secrets.token_hex(16), printed
    assert seed not in (tmp_path / "drawn/public/prepare.json").read_text()


def _rewrite_runtime(path: Path, runtime: np.ndarray) -> None:
    arrays = npz_members(path)
    arrays["config_runtime"] = runtime
    path.unlink()
    np.savez(path, **arrays)


@pytest.mark.parametrize("damage", ["negative", "all zero"])
def test_a_bad_source_graph_is_refused_whatever_the_seed(root, tmp_path, capsys, damage):
    """A train graph with a -5 runtime, or all runtimes 0, is refused by name for every seed (before: refused when
    held out, with a temporary folder and an opaque name; published when the draw kept it public)."""
    bad = sorted((root / XLA / "train").glob("*.npz"))[0]
    runtime = npz_members(bad)["config_runtime"]
    _rewrite_runtime(bad, np.where(np.arange(runtime.size) == 0, -5, runtime) if damage == "negative"
                     else np.zeros_like(runtime))
    for i in range(3):
        code, text = _run(["--data-root", root, "-o", tmp_path / f"out{i}", "--seed", f"{SEED}{i}"], capsys)
        assert code == 2 and "[RUNTIME_NOT_POSITIVE]" in text and str(bad) in text
        assert not (tmp_path / f"out{i}").exists()


def test_the_collections_left_out_are_named_with_the_reason(root, tmp_path, capsys):
    shutil.rmtree(root / "npz/layout/nlp/random/train")  # nlp random: valid and test graphs only
    code, text = _run(["--data-root", root, "-o", tmp_path / "out", "--seed", SEED], capsys)
    assert code == 0 and "layout:nlp:random: left out (no graph in the source split(s) train)" in text
    left = json.loads((tmp_path / "out/public/prepare.json").read_text())["left_out"]
    assert left == {"layout:nlp:random": "no graph in the source split(s) train"}
    assert _run(["--data-root", root, "-o", tmp_path / "two", "--seed", SEED, "--collections",
                 "tile:xla,layout:xla:default"], capsys)[0] == 0
    left = json.loads((tmp_path / "two/private/prepare.json").read_text())["left_out"]
    assert left == {"layout:xla:random": "not in --collections", "layout:nlp:default": "not in --collections",
                    "layout:nlp:random": "not in --collections"}


@pytest.mark.parametrize("kind", ["fifo", "folder", "not a zip", "oversized"])
def test_a_bad_file_in_the_copied_split_is_refused(root, tmp_path, capsys, kind):
    """Before: a FIFO or a folder named *.npz in valid dropped the whole split silently; corrupt, non-npz and
    oversized files were copied unchecked. Now every copied file passes the scored files' checks."""
    bad = root / XLA / "valid" / "bad.npz"
    if kind == "fifo":
        os.mkfifo(bad)
    elif kind == "folder":
        bad.mkdir()
    elif kind == "not a zip":
        bad.write_bytes(b"this is not an npz file")
    else:  # a sparse file one byte over the reader's 16 GiB limit
        with open(bad, "wb") as f:
            f.truncate((16 << 30) + 1)
    code, text = _run(["--data-root", root, "-o", tmp_path / "out", "--seed", SEED], capsys)
    assert code == 2 and "bad.npz" in text and not (tmp_path / "out").exists()


def test_a_symbolic_link_is_published_as_a_file(root, tmp_path, capsys):
    valid = root / XLA / "valid"
    real = sorted(valid.glob("*.npz"))[0]
    outside = tmp_path / "elsewhere.npz"
    shutil.move(real, outside)
    real.symlink_to(outside.resolve())
    code, _ = _run(["--data-root", root, "-o", tmp_path / "out", "--seed", SEED], capsys)
    published = tmp_path / "out/public" / XLA / "valid" / real.name
    assert code == 0 and not published.is_symlink() and published.read_bytes() == outside.read_bytes()
    links = [p for p in (tmp_path / "out/public").rglob("*") if p.is_symlink()]
    assert links == []


@pytest.mark.parametrize("layout", ["one-folder", "private-inside-public", "public-inside-private"])
def test_public_and_private_in_one_folder_are_refused_before_any_work(tmp_path, layout):
    """The API's prepare(raw, public, private): one folder for both, or one inside the other, would leave the
    private solution in (or under) the public folder; refused with SAME_OUTPUT_TWICE, nothing written."""
    from tpugraphs_eval.prepare import prepare

    public, private = {"one-folder": ("same", "same"), "private-inside-public": ("pub", "pub/priv"),
                       "public-inside-private": ("priv/pub", "priv")}[layout]
    with pytest.raises(UsageError) as err:
        prepare("demo", tmp_path / public, tmp_path / private, seed="a seed of enough characters")
    assert err.value.code == "SAME_OUTPUT_TWICE"
    assert list(tmp_path.iterdir()) == []
