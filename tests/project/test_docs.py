"""README.md and docs/*.md: the generated code tables match the registries, and every relative link resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tpugraphs_eval.commands import evaluate as eval_cli
from tpugraphs_eval.commands import leaderboard as leaderboard_cli
from tpugraphs_eval.errors import ERROR_CODES, error_codes_markdown
from tpugraphs_eval.leaderboard.codes import LEADERBOARD_CODES, leaderboard_codes_markdown
from tpugraphs_eval.rules.metric_table import METRICS, metrics_markdown
from tpugraphs_eval.submission.problems import CODES, codes_markdown
from tpugraphs_eval.truth.solution import USAGE_WARNINGS
from tpugraphs_kit import cli_baseline as baseline_cli
from tpugraphs_kit import cli_data as data_cli
from tpugraphs_kit.errors import KIT_ERROR_CODES, kit_error_codes_markdown

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
CODES_MD = (REPO / "docs" / "codes.md").read_text(encoding="utf-8")
CODE_ROW = re.compile(r"^\| `([A-Z_0-9]+)` \|", flags=re.MULTILINE)


def test_docs_exist():
    names = {path.name for path in DOCUMENTS}
    assert {"options.md", "report-json.md", "codes.md", "metrics.md", "leaderboard.md"} <= names


def test_codes_markdown_renders_every_code_in_registry_order():
    lines = codes_markdown().splitlines()
    assert lines[:2] == ["| code | strict | lenient | meaning |", "|---|---|---|---|"]
    assert lines[2:] == [f"| `{c.name}` | {c.strict} | {c.lenient} | {c.meaning} |" for c in CODES.values()]
    assert lines[2 + list(CODES).index("BLANK_LINE")] == (
        "| `BLANK_LINE` | warning | warning | An empty or whitespace-only line; it is skipped, as CSV readers do. |")
    lb = leaderboard_codes_markdown().splitlines()
    assert lb[:2] == ["| code | severity | meaning |", "|---|---|---|"]
    assert [row.split(" | ")[0] for row in lb[2:]] == [f"| `{name}`" for name in LEADERBOARD_CODES]
    assert lb[2 + list(LEADERBOARD_CODES).index("NO_VALID_SUBMISSION")] == (
        "| `NO_VALID_SUBMISSION` | warning | The team has no valid submission: it is listed without a rank. |")


def test_docs_codes_holds_exactly_the_generated_tables():
    """docs/codes.md contains each generated table verbatim, and no code row besides theirs."""
    submission_table, leaderboard_table = codes_markdown(), leaderboard_codes_markdown()
    assert CODES_MD.count(submission_table) == 1
    assert CODES_MD.count(leaderboard_table) == 1
    assert CODES_MD.count(error_codes_markdown()) == 1
    assert CODES_MD.count(kit_error_codes_markdown()) == 1
    assert CODE_ROW.findall(CODES_MD) == [*CODES, *ERROR_CODES, *USAGE_WARNINGS, *LEADERBOARD_CODES, *KIT_ERROR_CODES]


def test_docs_metrics_holds_exactly_the_generated_metric_table():
    """docs/metrics.md contains the metric table of rules/metric_table.py verbatim, one row per metric."""
    text = (REPO / "docs" / "metrics.md").read_text(encoding="utf-8")
    table = metrics_markdown()
    assert text.count(table) == 1
    assert re.findall(r"^\| `([a-z_0-9]+)` \|", text, flags=re.MULTILINE) == [m.name for m in METRICS]
    assert table.splitlines()[2] == (
        '| `score` | tile | 5 | higher | yes | score | [−∞, 1] | `2 - min_{first 5 of L} y / min_A y` | Kaggle '
        '"Google - Fast or Slow? Predict AI Model Runtime" (2023), evaluation page |')


@pytest.mark.parametrize(("main", "args", "expected"), [(eval_cli.main, [], codes_markdown),
                                                        (eval_cli.main, ["--errors"], error_codes_markdown),
                                                        (leaderboard_cli.main, [], leaderboard_codes_markdown),
                                                        (baseline_cli.main, [], kit_error_codes_markdown),
                                                        (data_cli.main, [], kit_error_codes_markdown)])
def test_codes_markdown_command_prints_the_table(main, args, expected, capsys):
    assert main(["codes", "--markdown", *args]) == 0
    assert capsys.readouterr().out == expected()


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _relative_links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)  # links in code are not links
    return [target for target in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def test_every_relative_link_points_to_a_file_that_exists():
    checked = 0
    for document in DOCUMENTS:
        for target in _relative_links(document):
            file_part = target.split("#", 1)[0]
            if not file_part:
                continue  # an anchor within the same page
            assert (document.parent / file_part).exists(), f"{document.relative_to(REPO)}: {target}"
            checked += 1
    assert checked >= 10  # the README links every docs page


def test_link_checker_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[a](missing.md) [b](https://example.org/x.md) [c](#here)\n```\n[d](code.md)\n```\n")
    assert _relative_links(page) == ["missing.md", "#here"]


def test_no_references_to_files_outside_the_repository():
    """Only the sentence on where tests find the real data may name a path outside the repository."""
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        assert not re.search(r"\bSPEC\b|\bSTYLE\b", text), document.name
        outside = [m.start() for m in re.finditer(r"\.\./shared", text)]
        allowed = "tests that need the real files in `../shared/realdata`"
        assert not outside or allowed in text, document.name
        assert all(text.find(allowed) <= start < text.find(allowed) + len(allowed) for start in outside), document.name


def test_solution_build_warnings_are_in_codes_md():
    """Each warning code `solution build` can print has its row in docs/codes.md, with the code's own words."""
    for code, meaning in USAGE_WARNINGS.items():
        assert CODES_MD.count(f"| `{code}` | {meaning} |") == 1, code


def test_readme_examples_on_the_test_split_only_validate():
    """The public test files hold no runtimes, so scoring them stops with exit 2 (docs/codes.md, NO_GROUND_TRUTH):
    a participant's README example on `--split test` must be `validate` (it showed `--split test --lenient --json
    report.json` as a scoring command). The demo's test split has runtimes."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    participants = readme[readme.index("## For participants"):].split("\n## ")[0]
    lines = [line for line in participants.splitlines() if line.startswith("tpugraphs-eval ") and "--split test" in line
             and "--data-root demo" not in line]
    assert lines and all(line.split()[1] == "validate" for line in lines), lines


def test_readme_says_how_long_the_test_command_takes():
    """The README's test command has its duration beside it (the house rule: within 5 minutes on 2 cores)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    after = readme[readme.index("<!-- ci:test -->"):]
    assert re.search(r"about \d+ minutes on 2 (idle )?cores", after[:1500]), after[:1500]
