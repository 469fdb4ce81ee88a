"""Codabench's own bundle unpacker (../shared/clients/codabench/check_bundle.py) accepts every bundle that
``export codabench`` writes: the demo (zip and folder), the valid split, a lenient one and the tiny real-data
one. Before the fix every bundle was refused: "Phases dates conflict. Phase: Final should start after Phase:
Public has ended" (the Public phase ended on the day the Final phase started)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from clients import check_codabench_bundle

from tpugraphs_eval.commands import evaluate as cli

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
