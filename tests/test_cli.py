"""The command line, the README's promises about it, and the committed sample submissions."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tpugraphs_eval import cli
from tpugraphs_eval.problems import CODES

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_submissions"
README = (REPO / "README.md").read_text(encoding="utf-8")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_demo_sample(capsys):
    code, out, err = run(capsys, str(SAMPLES / "demo_random_test.csv"), "--data-root", "demo", "--split", "test")
    assert code == 0, err
    assert "SYNTHETIC" in out and "overall" in out and "VALID" in out
    for collection in ("tile:xla", "layout:xla:default", "layout:nlp:random"):
        assert collection in out


def test_json_to_stdout_matches_api(capsys, demo_root):
    code, out, err = run(capsys, str(SAMPLES / "demo_identity_test.csv"), "--data-root", "demo",
                         "--split", "test", "--json", "-")
    assert code == 0
    report = json.loads(out)  # stdout holds only the JSON; tables went to stderr
    assert "Scores" in err
    from tpugraphs_eval import evaluate

    assert report == evaluate(SAMPLES / "demo_identity_test.csv", split="test", data_root="demo").to_dict()


def test_json_file_and_several_submissions(capsys, tmp_path):
    target = tmp_path / "reports.json"
    files = [str(SAMPLES / n) for n in ("demo_random_test.csv", "demo_kaggle_sample_test.csv")]
    code, out, _ = run(capsys, *files, "--data-root", "demo", "--split", "test", "--json", str(target), "-q")
    assert code == 1  # the Kaggle-shaped sample is invalid in strict mode
    reports = json.loads(target.read_text())
    assert [r["valid"] for r in reports] == [True, False]
    assert reports[1]["problem_counts"] == {"INDEX_OUT_OF_RANGE": 6, "LAYOUT_NOT_PERMUTATION": 1}
    assert "Submissions" in out


def test_lenient_accepts_the_kaggle_shaped_sample(capsys):
    args = (str(SAMPLES / "demo_kaggle_sample_test.csv"), "--data-root", "demo", "--split", "test")
    code, out, _ = run(capsys, *args)
    assert code == 1 and "--lenient accepts them" in out
    code, out, _ = run(capsys, *args, "--lenient")
    assert code == 0 and "warning" in out


def test_validate_command_and_flag_agree(capsys):
    args = (str(SAMPLES / "demo_random_test.csv"), "--data-root", "demo", "--split", "test", "--json", "-")
    code1, out1, _ = run(capsys, "validate", *args)
    code2, out2, _ = run(capsys, "score", *args, "--validate-only")
    assert code1 == code2 == 0
    first, second = json.loads(out1), json.loads(out2)
    assert first == second and first["scored"] is False and first["provenance"]["ground_truth_sha256"] is None


def test_per_graph_lists_every_graph_and_programs(capsys):
    code, out, _ = run(capsys, str(SAMPLES / "demo_random_test.csv"), "--data-root", "demo", "--split", "test",
                       "--per-graph")
    assert code == 0
    assert "per graph" in out and "per program" in out and "f4b5b7ed2551ed5219a33fbc16061516" in out


def test_official_configs_on_demo_valid(capsys, tmp_path, demo_root):
    from tpugraphs_eval import load_ground_truth

    truth = load_ground_truth(demo_root, "valid")
    rows = ["ID,TopConfigs"]
    for name, ct in truth.collections.items():
        for graph, y in zip(ct.graphs.names, ct.runtimes):
            order = list(range(min(5, y.size))) if name == "tile:xla" else list(range(y.size))
            rows.append(f"{name}:{graph}," + ";".join(map(str, order)))
    path = tmp_path / "valid.csv"
    path.write_text("\n".join(rows) + "\n")
    code, out, _ = run(capsys, str(path), "--data-root", "demo", "--split", "valid", "--configs", "official",
                       "--json", "-")
    assert code == 0 and json.loads(out)["options"]["configs"] == "official"


def test_codes_command_lists_every_code(capsys):
    code, out, _ = run(capsys, "codes")
    assert code == 0
    for name in CODES:
        assert name in out


def test_usage_errors_exit_2(capsys):
    assert cli.main(["sub.csv"]) == 2  # --split missing: argparse usage error, returned by main(argv)
    code, _, err = run(capsys, str(SAMPLES / "demo_random_test.csv"), "--split", "test", "--data-root",
                       "/nonexistent/tpugraphs")
    assert code == 2 and "does not exist" in err and "--data-root demo" in err


def test_console_script_has_no_traceback_on_bad_input(tmp_path):
    script = Path(sys.executable).with_name("tpugraphs-eval")
    garbage = tmp_path / "garbage.csv"
    garbage.write_bytes(bytes(range(256)) * 8)
    result = subprocess.run([str(script), str(garbage), "--split", "test", "--data-root", "demo"],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "NOT_TEXT" in result.stdout and "Traceback" not in result.stdout + result.stderr


# --- README promises ----------------------------------------------------------------------------

def test_readme_opens_with_two_commands_that_ci_runs():
    blocks = re.findall(r"<!-- ci:(setup|test) -->\n```sh\n(.+?)\n```", README)
    assert [name for name, _ in blocks] == ["setup", "test"]
    setup, tests = (command for _, command in blocks)
    assert setup.startswith("python3.11 -m venv .venv && .venv/bin/pip install -e .")
    assert "tpugraphs-eval sample_submissions/" in setup and "--data-root demo" in setup
    assert "pytest" in tests
    first_code = README.index("```sh")
    assert README.index("<!-- ci:setup -->") < first_code  # the very first command block


def test_readme_codes_table_matches_the_code_registry():
    rows = re.findall(r"^\| `([A-Z_0-9]+)` \| (\w+) \| (\w+) \| (.+?) \|$", README, flags=re.M)
    table = {name: (strict, lenient, meaning) for name, strict, lenient, meaning in rows}
    assert table == {c.name: (str(c.strict), str(c.lenient), c.meaning) for c in CODES.values()}


def test_readme_documents_every_option():
    help_text = cli._parser()._subparsers._group_actions[0].choices["score"].format_help()
    options = set(re.findall(r"(--[a-z-]+)", help_text)) - {"--help"}
    for option in options:
        assert f"`{option}" in README, option


def test_committed_samples_are_what_the_script_writes():
    sys.path.insert(0, str(SAMPLES))
    try:
        import make_samples
    finally:
        sys.path.remove(str(SAMPLES))
    for file_name, kind in make_samples.SAMPLES.items():
        assert (SAMPLES / file_name).read_text() == make_samples.render(kind), file_name
