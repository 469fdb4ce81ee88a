"""Hostile and broken .npz members and submission paths (truth/npzread.py, submission/csvfile.py; issue 7 item 8).

The .npz files are built byte by byte here (struct: zip local headers, central directory, end record; the
.npy header by hand), so that each one holds exactly the fault it is named after. Each gives exit code 2
and a coded message naming the file, without decompressing or allocating what the file declares.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest
from handmade_npz import DEFLATED, HOSTILE, LAYOUT, STORED, handmade_zip, member

from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.errors import ERROR_CODES


def _folder(tmp_path: Path) -> Path:
    """The layout test folder of a data root ``tmp_path/root`` holding one good graph."""
    folder = tmp_path / "root" / LAYOUT
    folder.mkdir(parents=True)
    np.savez(folder / "good.npz", config_runtime=np.array([5, 6, 7], dtype=np.int64))
    return folder


def _root(tmp_path: Path, members: list[dict]) -> tuple[Path, Path]:
    bad = _folder(tmp_path) / "hostile.npz"
    bad.write_bytes(handmade_zip(members))
    return tmp_path / "root", bad


def _validate(tmp_path: Path) -> int:
    """``validate`` of a submission that does not exist against ``tmp_path/root``: the ground truth's checks run
    first (exit 2 when a file is refused)."""
    return cli.main(["validate", str(tmp_path / "none.csv"), "--data-root", str(tmp_path / "root"), "--split", "test"])


def test_the_handmade_zip_writer_makes_what_numpy_reads(tmp_path):
    """The fixtures' writer is right: an honest stored and deflated member load with numpy itself."""
    for method in (STORED, DEFLATED):
        path = tmp_path / f"m{method}.npz"
        path.write_bytes(handmade_zip(member(method=method)))
        with np.load(path) as npz:
            assert npz["config_runtime"].tolist() == [30, 10, 20]


@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_members_exit_2_with_a_code_naming_the_file(kind, tmp_path, capsys):
    make, code, reason = HOSTILE[kind]
    _, bad = _root(tmp_path, make())
    assert _validate(tmp_path) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert code in ERROR_CODES and f"[{code}] {bad}: " in err and reason in err, err
    assert "internal error" not in err


def test_every_hostile_file_of_a_split_is_listed_in_one_run_in_file_order(tmp_path, capsys, monkeypatch):
    """Faults found from a file's zip directory (pass 1: sizes, flags, methods) do not hide those found reading
    another file's members (pass 2: a bad CRC, an object array): one run lists every hostile file, by name."""
    monkeypatch.setattr("tpugraphs_eval.truth.faults.MAX_LISTED", 100)
    folder = _folder(tmp_path)
    kinds = [k for k in HOSTILE if k != "zip-bomb"]  # the bomb alone is slow to build; its refusal is pass 1's
    for kind in kinds:
        (folder / f"{kind}.npz").write_bytes(handmade_zip(HOSTILE[kind][0]()))
    assert _validate(tmp_path) == 2
    listed = [line.split("] ", 1)[1].split(": ", 1)[0] for line in capsys.readouterr().err.splitlines()
              if line.strip().startswith("[NPZ_")]
    assert listed == [str(folder / f"{kind}.npz") for kind in sorted(kinds)]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_entries_that_are_not_files_are_named_with_what_they_are(tmp_path, capsys):
    folder = _folder(tmp_path)
    (folder / "a.npz").mkdir()
    os.mkfifo(folder / "b.npz")
    (folder / "c.npz").symlink_to(tmp_path / "nowhere")
    assert _validate(tmp_path) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "[INPUT_NOT_A_FILE]" in err and "a.npz (a folder), b.npz (a FIFO (named pipe)), c.npz (a link that leads " \
        "nowhere)" in err, err


def test_an_honest_member_at_the_limit_is_still_read(tmp_path, capsys):
    """The limit refuses declared sizes above it only: a 3-config graph beside the hostile ones reads fine."""
    root, bad = _root(tmp_path, member(method=DEFLATED))
    csv = tmp_path / "s.csv"
    csv.write_text("ID,TopConfigs\nlayout:xla:default:good,0;1;2\nlayout:xla:default:hostile,1;2;0\n")
    assert cli.main([str(csv), "--data-root", str(root), "--split", "test", "--json", str(tmp_path / "r.json")]) == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_submission_is_refused_at_once(tmp_path, capsys):
    """The old code blocked on open() until a writer came; nothing ever writes to this FIFO."""
    fifo = tmp_path / "sub.csv"
    os.mkfifo(fifo)
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("exit", cli.main(
        ["validate", str(fifo), "--data-root", "demo", "--split", "test"])), daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():  # unblock the old code's open() so the test process can end
        with open(fifo, "wb"):
            pass
        worker.join(5)
        pytest.fail("reading a FIFO submission blocked")
    assert outcome["exit"] == 2
    assert f"[SUBMISSION_NOT_A_FILE] submission file {fifo} is a FIFO" in capsys.readouterr().err


@pytest.mark.parametrize("path, what", [("/dev/zero", "a character device"), (".", "a folder")])
def test_devices_and_folders_are_refused_without_reading(path, what, tmp_path, capsys):
    """/dev/zero never ends: the old code read it until memory ran out."""
    if not Path(path).exists():
        pytest.skip(f"{path} is absent")
    target = str(tmp_path) if path == "." else path
    assert cli.main(["validate", target, "--data-root", "demo", "--split", "test"]) == 2
    assert f"[SUBMISSION_NOT_A_FILE] submission file {target} is {what}, not a regular file" in capsys.readouterr().err
