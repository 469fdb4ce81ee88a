"""README.md's "For participants" promises: the five-minute commands run as written, on the demo data."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tpugraphs_eval import resolve_data_root, scan_catalog, validate_submission
from tpugraphs_eval.commands import evaluate as eval_cli
from tpugraphs_kit import cli_baseline, cli_data

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
COMMANDS = {"tpugraphs-eval": eval_cli.main, "tpugraphs-baseline": cli_baseline.main, "tpugraphs-data": cli_data.main}


def _block_after(heading: str) -> list[str]:
    section = README[README.index(heading):]
    block = re.search(r"```sh\n(.+?)\n```", section, flags=re.DOTALL).group(1)
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def test_five_minute_path_runs_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    lines = _block_after("### The five-minute path")
    assert len(lines) == 5
    for line in lines:
        program, *argv = shlex.split(line)
        assert COMMANDS[program](argv) == 0, line
    assert "SYNTHETIC" in capsys.readouterr().out
    assert validate_submission(tmp_path / "submission.csv", scan_catalog(resolve_data_root("demo"), "test")).valid


def test_real_data_commands_exist():
    """Every kit command and option named in the real-data path is accepted by its parser (no data needed)."""
    for line in _block_after("### The real-data path"):
        program, command, *rest = shlex.split(line)
        options = [word for word in rest if word.startswith("--")]
        parser = {"tpugraphs-baseline": cli_baseline._parser(), "tpugraphs-data": cli_data._parser()}.get(program)
        if parser is None:
            continue
        sub = parser._subparsers._group_actions[0].choices[command]
        known = {s for action in sub._actions for s in action.option_strings}
        assert set(options) <= known, line
