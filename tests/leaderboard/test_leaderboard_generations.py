"""Leaderboard outputs are replaced as one set (a generation folder and one ``current`` link), by one build at
a time (a lock on the output folder), and a build that fails anywhere leaves the previous set as it was.

Failures are injected at each step of a build (scoring, rendering, writing a file of the new generation,
the switch itself); each time every byte of the previous set, the ``current`` link and the top-level
links must be unchanged. The old code renamed the four files one by one, so a failure between two
renames left a mixed set, and two builds could write the same folder at once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from leaderboard_helpers import OUTPUTS, build_folder

from tpugraphs_eval.commands import leaderboard as cli
from tpugraphs_eval.leaderboard import build_leaderboard, output, scorer
from tpugraphs_eval.leaderboard.output import BuildLocked, build_lock, generation_id

SPEC = {"north": [("n1", 0.2, True)], "south": [("s1", 0.6, False)]}


def snapshot(out: Path) -> dict[str, object]:
    """Everything a reader of ``out`` can see: the link targets and every output's bytes."""
    return {"current": os.readlink(out / "current"),
            **{f"link:{n}": os.readlink(out / n) for n in OUTPUTS},
            **{n: (out / n).read_bytes() for n in OUTPUTS},
            "generations": sorted(p.name for p in (out / "generations").iterdir())}


@pytest.fixture
def built(demo_solution, tmp_path):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    result = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    return subs, out, result


def test_outputs_are_one_generation_behind_one_link(built):
    _, out, result = built
    gid = generation_id({n: t.encode() for n, t in result.files.items()})
    assert os.readlink(out / "current") == f"generations/{gid}"
    assert sorted(os.listdir(out / "generations" / gid)) == sorted(OUTPUTS)
    for name in OUTPUTS:
        assert os.readlink(out / name) == f"current/{name}"
        assert (out / name).read_text(encoding="utf-8") == result.files[name]


def test_a_new_build_switches_the_set_and_keeps_the_one_before(built, demo_solution):
    subs, out, _ = built
    first = os.readlink(out / "current")
    (subs / "south" / "s2.csv").write_bytes((subs / "north" / "n1.csv").read_bytes())
    build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    second = os.readlink(out / "current")
    (subs / "south" / "s3.csv").write_bytes(b"ID,TopConfigs\n")
    build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    third = os.readlink(out / "current")
    assert len({first, second, third}) == 3
    assert sorted(p.name for p in (out / "generations").iterdir()) == sorted(Path(g).name for g in (second, third))
    before = snapshot(out)
    build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)  # same inputs: same generation
    assert snapshot(out) == before


def fail_on_call(original, n: int):
    """``original`` that raises a full-disk OSError on its ``n``-th call."""
    calls = []

    def fail(*args, **kwargs):
        calls.append(args)
        if len(calls) == n:
            raise OSError(28, "No space left on device")
        return original(*args, **kwargs)
    return fail


@pytest.mark.parametrize("where", ["scoring", "rendering", "third file", "switch", "interrupt"])
def test_a_failed_build_leaves_the_previous_set_intact(where, built, demo_solution, monkeypatch, capsys):
    subs, out, _ = built
    before = snapshot(out)
    (subs / "south" / "s1.csv").write_bytes(b"ID,TopConfigs\n")  # the next set would differ
    if where == "scoring":
        monkeypatch.setattr(scorer, "record_of", lambda *a: 1 / 0)
    elif where == "rendering":
        monkeypatch.setattr(output, "render_html", lambda document: 1 / 0)
    elif where == "third file":
        monkeypatch.setattr(output.os, "fsync", fail_on_call(os.fsync, 3))
    elif where == "switch":
        real = os.replace  # the switch: the rename onto `current` (cache entries and generation files come first)

        def fail_at_switch(source, target, *args, **kwargs):
            if Path(target).name == "current":
                raise OSError(28, "No space left on device")
            return real(source, target, *args, **kwargs)
        monkeypatch.setattr(output.os, "replace", fail_at_switch)
    else:
        def interrupted(*args):
            raise KeyboardInterrupt
        monkeypatch.setattr(output, "symlink_atomically", interrupted)
    code = cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(out), "--workers", "1",
                     "--resamples", "20", "--no-progress", "-q"])
    err = capsys.readouterr().err
    assert code == {"scoring": 3, "rendering": 3, "interrupt": 130}.get(where, 2), err
    assert "Traceback" not in err
    monkeypatch.undo()
    after = snapshot(out)
    assert after == before
    assert not [p for p in (out / "generations").iterdir() if p.name.startswith(".staging-")]


def test_a_second_build_into_a_locked_folder_is_refused(built, demo_solution, capsys):
    subs, out, _ = built
    before = snapshot(out)
    (subs / "south" / "s1.csv").write_bytes(b"ID,TopConfigs\n")
    with build_lock(out):  # another open of the lock file: flock treats it as another holder
        with pytest.raises(BuildLocked, match="another build is writing into"):
            build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
        code = cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(out), "--workers", "1",
                         "--resamples", "20", "--no-progress", "-q"])
        err = capsys.readouterr().err
    assert code == 2 and "[BUILD_LOCKED]" in err and str(out / ".lock") in err and "Traceback" not in err
    assert snapshot(out) == before
    build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)  # released: the next build runs
    assert snapshot(out) != before


def test_an_output_that_is_not_a_folder_is_a_coded_usage_error(built, demo_solution, tmp_path, capsys):
    """`-o OUT/leaderboard.csv` (an earlier build's link), a plain file, or a path under a file: exit 2 with
    OUTPUT_NOT_A_FOLDER, nothing written; it used to be "cannot create the lock file .../leaderboard.csv/.lock"."""
    subs, out, _ = built
    before = snapshot(out)
    plain = tmp_path / "notes.txt"
    plain.write_text("keep me")
    for target, named, what in ((out / "leaderboard.csv", out / "leaderboard.csv",
                                 f"a link to a file: -o names the leaderboard's folder (here -o {out})"),
                                (plain, plain, "a file: -o names"),
                                (plain / "lb", plain, f"a file (the output {plain / 'lb'} would be under it)")):
        code = cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(target), "--workers", "1",
                         "--resamples", "20", "--no-progress", "-q"])
        err = capsys.readouterr().err
        assert code == 2 and "error: [OUTPUT_NOT_A_FOLDER] the output must be a folder, and " in err, err
        assert f"{named} is {what}" in err and "lock" not in err and "Traceback" not in err
    assert snapshot(out) == before and plain.read_text() == "keep me"
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(output.OutputNotAFolder, match="dangling is a link that leads nowhere"):
        build_leaderboard(subs, demo_solution, tmp_path / "dangling", workers=1, resamples=20)
    assert not (tmp_path / "nowhere").exists()


def test_the_lock_holds_across_processes(built, demo_solution):
    subs, out, _ = built
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); "
                               "print('held', flush=True); sys.stdin.read()", str(out / ".lock")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(BuildLocked):
            build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_a_folder_of_the_old_layout_is_taken_over(demo_solution, tmp_path):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    out = tmp_path / "out"
    out.mkdir()
    for name in OUTPUTS:  # plain files, as builds before generations wrote them
        (out / name).write_text("old", encoding="utf-8")
    result = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20)
    for name in OUTPUTS:
        assert (out / name).is_symlink() and (out / name).read_text(encoding="utf-8") == result.files[name]
    assert json.loads((out / "leaderboard.json").read_text(encoding="utf-8")) == result.document


def test_a_foreign_current_folder_is_a_usage_error(demo_solution, tmp_path, capsys):
    subs = build_folder(tmp_path / "subs", demo_solution, SPEC)
    (tmp_path / "out" / "current").mkdir(parents=True)
    code = cli.main(["build", str(subs), "--solution", str(demo_solution), "-o", str(tmp_path / "out"),
                     "--workers", "1", "--resamples", "20", "--no-progress", "-q"])
    assert code == 2 and "remove it or write elsewhere" in capsys.readouterr().err
    assert os.listdir(tmp_path / "out" / "current") == []


def test_a_public_build_keeps_no_earlier_generation(built, demo_solution):
    subs, out, result = built  # an organiser build was there: its private scores must not stay published
    assert '"view": "organiser"' in result.files["leaderboard.json"]
    shutil.rmtree(out / ".cache")  # a folder holding the cache is refused (test_leaderboard_public.py)
    public = build_leaderboard(subs, demo_solution, out, workers=1, resamples=20, view="public")
    gid = generation_id({n: t.encode() for n, t in public.files.items()})
    assert os.listdir(out / "generations") == [gid]
    published = [p for p in out.rglob("*") if p.is_file()]
    assert published and not any('"view": "organiser"' in p.read_text(encoding="utf-8") for p in published)
