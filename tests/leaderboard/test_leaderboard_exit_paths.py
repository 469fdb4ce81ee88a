"""How a leaderboard build ends when its folders or its stdout fail (docs/leaderboard.md, exit codes).

- A leaderboard folder that cannot be written is coded OUTPUT_WRITE_FAILED (it was the generic USAGE_ERROR).
- A full stdout after the leaderboard was written is a warning, exit 0 (it was exit 2, the build having
  succeeded).
- A submissions folder without a team folder is NO_TEAM_FOLDERS, exit 2, nothing written, unless
  --allow-empty (it was exit 0 and an empty leaderboard with no reason).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest
from leaderboard_helpers import OUTPUTS, build_folder

from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import output

SPEC = {"north": [("n1", 0.2, True)]}


def build(subs, solution, out, *extra: str) -> list[str]:
    return ["build", str(subs), "--solution", str(solution), "-o", str(out), "--workers", "1", "--resamples", "20",
            "--no-progress", *extra]


def test_a_failed_leaderboard_write_is_output_write_failed(demo_solution, tmp_path, monkeypatch, capsys):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output.os, "fsync", no_space)
    code = cli.main(build(subs, demo_solution, tmp_path / "out", "-q"))
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("tpugraphs-leaderboard: error: [OUTPUT_WRITE_FAILED] cannot write the leaderboard to "
                          f"{tmp_path / 'out'}: No space left on device"), err
    monkeypatch.undo()
    (tmp_path / "foreign" / "current").mkdir(parents=True)  # a `current` this build did not write
    code = cli.main(build(subs, demo_solution, tmp_path / "foreign", "-q"))
    err = capsys.readouterr().err
    assert code == 2 and "[OUTPUT_WRITE_FAILED]" in err and "remove it or write elsewhere" in err


def test_a_full_stdout_after_the_write_is_a_warning_and_exit_0(demo_solution, tmp_path):
    if not stat.S_ISCHR(os.stat("/dev/full").st_mode):
        pytest.skip("no /dev/full character device")
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    script = "import sys; from tpugraphs_eval.commands.leaderboard import main; main(sys.argv[1:])"
    with open("/dev/full", "w") as full:  # only opened for writing, never replaced
        done = subprocess.run([sys.executable, "-c", script, *build(subs, demo_solution, out)], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines() == [
        "tpugraphs-leaderboard: warning: [OUTPUT_WRITE_FAILED] cannot write to standard output: No space left on "
        f"device (the summary line; the leaderboard was written to {out})"]
    assert all((out / name).is_file() for name in OUTPUTS)


@pytest.mark.parametrize("content", ["nothing", "files only"])
def test_a_folder_without_team_folders_is_refused_unless_allow_empty(demo_solution, tmp_path, capsys, content):
    subs = tmp_path / "subs"
    subs.mkdir()
    if content == "files only":  # a submission put at the top level instead of in a team folder
        (subs / "mine.csv").write_bytes(b"ID,TopConfigs\n")
    out = tmp_path / "out"
    code = cli.main(build(subs, demo_solution, out, "-q"))
    err = capsys.readouterr().err
    assert code == 2
    held = "it is empty" if content == "nothing" else "it holds only 1 entries that are not team folders"
    assert err.startswith(f"tpugraphs-leaderboard: error: [NO_TEAM_FOLDERS] the submissions folder {subs} holds no "
                          f"team folder ({held}"), err
    assert "--allow-empty" in err and not out.exists()  # nothing written
    code = cli.main(build(subs, demo_solution, out, "-q", "--allow-empty"))
    assert code == 0, capsys.readouterr().err
    assert '"teams": []' in (out / "leaderboard.json").read_text(encoding="utf-8")
