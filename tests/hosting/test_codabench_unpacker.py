"""Codabench's own bundle unpacker (../shared/clients/codabench/check_bundle.py) accepts every bundle that
``export codabench`` writes: the demo (zip and folder), the valid split, a lenient one and the tiny real-data
one. Before the fix every bundle was refused: "Phases dates conflict. Phase: Final should start after Phase:
Public has ended" (the Public phase ended on the day the Final phase started)."""

from __future__ import annotations

import datetime as dt
import re
import zipfile

import pytest
from clients import check_codabench_bundle

from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.hosting.wheel import WHEEL_NAME

yaml = pytest.importorskip("yaml")

EXPORTS = {
    "demo-test": ["--data-root", "demo", "--split", "test"],
    "demo-valid": ["--data-root", "demo", "--split", "valid"],
    "lenient-raw": ["--data-root", "demo", "--split", "valid", "--lenient", "--tile-runtime", "raw"],
}


@pytest.mark.parametrize("name", sorted(EXPORTS))
@pytest.mark.parametrize("form", ["zip", "folder"])
def test_codabench_unpacks_every_exported_bundle(name, form, demo_root, tmp_path):
    out, archive = tmp_path / "bundle", tmp_path / "bundle.zip"
    assert cli.main(["export", "codabench", "-o", str(out), "--zip", str(archive), "--start", "2027-01-04",
                     *EXPORTS[name]]) == 0
    printed = check_codabench_bundle(archive if form == "zip" else out)
    # the unpacker's phases: Public 2027-01-04 -> 2027-04-04 (90 days), Final from the next day for 14 days
    phases = re.findall(r"^phase '(\w+)' (\S+) \S+ -> (\S+) \S+", printed, re.M)
    assert phases == [("Public", "2027-01-04", "2027-04-04"), ("Final", "2027-04-05", "2027-04-19")]


def test_codabench_unpacks_the_real_data_bundle(tiny_bundle):
    check_codabench_bundle(tiny_bundle)


def test_the_final_phase_opens_after_the_public_phase_ends_and_keeps_private_values_back(demo_solution, tmp_path):
    """Dates are compared as datetimes at 00:00 UTC: the Final phase starts a whole day after the Public end.
    Final: one submission per participant (used up by the migrated ones), no output log, no scoring output."""
    assert cli.main(["export", "codabench", "-o", str(tmp_path / "b"), "--solution", str(demo_solution),
                     "--start", "2027-12-30"]) == 0
    config = yaml.safe_load((tmp_path / "b" / "competition.yaml").read_text())
    public, final = config["phases"]
    assert (public["start"], public["end"]) == (dt.date(2027, 12, 30), dt.date(2028, 3, 29))
    assert (final["start"], final["end"]) == (dt.date(2028, 3, 30), dt.date(2028, 4, 13))
    assert config["enable_detailed_results"] is True
    assert {k: final[k] for k in ("max_submissions", "max_submissions_per_day", "hide_output", "hide_score_output",
                                  "auto_migrate_to_this_phase")} == {
        "max_submissions": 1, "max_submissions_per_day": 1, "hide_output": True, "hide_score_output": True,
        "auto_migrate_to_this_phase": True}
    assert not public.get("hide_output") and not public.get("hide_score_output")
    assert public["max_submissions_per_day"] == 5
    assert config["leaderboards"][0]["submission_rule"] == "Force_Last"
    assert not config["leaderboards"][0].get("hidden")  # one leaderboard serves both phases: hidden hides both


@pytest.fixture(scope="module")
def prepared_demo(tmp_path_factory):
    """A folder of `tpugraphs-eval prepare` from the demo (public/ and private/)."""
    out = tmp_path_factory.mktemp("prepared") / "comp"
    assert cli.main(["prepare", "--data-root", "demo", "-o", str(out), "--seed", "codabench-test-seed-0123", "--no-progress"]) == 0
    return out


def _files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("form", ["zip", "folder"])
def test_a_prepared_bundle_carries_the_public_data_and_a_starting_kit(form, prepared_demo, tmp_path, monkeypatch,
                                                                     capsys):
    out, archive = tmp_path / "bundle", tmp_path / "bundle.zip"
    assert cli.main(["export", "codabench", "-o", str(out), "--prepared", str(prepared_demo), "--zip", str(archive),
                     "--start", "2027-01-04"]) == 0
    check_codabench_bundle(archive if form == "zip" else out)
    config = yaml.safe_load((out / "competition.yaml").read_text())
    assert [(p["public_data"], p["starting_kit"]) for p in config["phases"]] == [("public_data", "starting_kit")] * 2
    assert _files(out / "public_data") == _files(prepared_demo / "public")  # the whole public tree, byte for byte
    assert all((out / "public_data" / f).read_bytes() == (prepared_demo / "public" / f).read_bytes()
               for f in _files(out / "public_data"))
    kit = out / "starting_kit"
    assert _files(kit) == ["01_quickstart.ipynb", "02_learned_baseline.ipynb", "README.md", "sample_submission.csv",
                           WHEEL_NAME]
    assert f"`pip install './{WHEEL_NAME}[kit]'`" in (kit / "README.md").read_text()  # what ships beside it
    with zipfile.ZipFile(kit / WHEEL_NAME) as wheel:  # the package, its notebooks and the official eval indices
        assert {"tpugraphs_eval/api.py", "tpugraphs_eval/py.typed", "tpugraphs_kit/notebooks/01_quickstart.ipynb",
                "tpugraphs_eval/truth/official_indices/xla_default.json"} < set(wheel.namelist())
    assert (kit / "sample_submission.csv").read_bytes() == (out / "sample_submission/submission.csv").read_bytes()
    command = re.search(r"`(tpugraphs-eval validate [^`]+)`", (kit / "README.md").read_text())[1]
    assert command == "tpugraphs-eval validate sample_submission.csv --data-root public_data --split test"
    assert "--data-root public_data --split test" in (out / "pages/overview.md").read_text()
    # as a participant: the starting kit's files and the public data unzipped into public_data/ beside them
    work = tmp_path / "participant"
    work.mkdir()
    for name in _files(kit):
        (work / name).write_bytes((kit / name).read_bytes())
    (work / "public_data").symlink_to(out / "public_data")
    monkeypatch.chdir(work)
    capsys.readouterr()
    assert cli.main(command.split()[1:]) == 0, capsys.readouterr()


def test_a_large_public_tree_is_a_download_note(prepared_demo, tmp_path, monkeypatch):
    from tpugraphs_eval.hosting import codabench

    monkeypatch.setattr(codabench, "PUBLIC_DATA_MAX_BYTES", 1000)
    out = tmp_path / "bundle"
    assert cli.main(["export", "codabench", "-o", str(out), "--prepared", str(prepared_demo)]) == 0
    assert _files(out / "public_data") == ["DOWNLOAD.md"]
    assert "larger than a bundle carries (1000 bytes)" in (out / "public_data/DOWNLOAD.md").read_text()
    check_codabench_bundle(out)


def test_prepared_needs_a_prepare_folder(tmp_path, capsys):
    assert cli.main(["export", "codabench", "-o", str(tmp_path / "b"), "--prepared", str(tmp_path)]) == 2
    assert "is not a folder of `tpugraphs-eval prepare`" in capsys.readouterr().err
