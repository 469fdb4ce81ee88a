"""The command line, the README's promises about it, and the committed sample submissions."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.submission.problems import CODES

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_submissions"
README = (REPO / "README.md").read_text(encoding="utf-8")
DOCS_CODES = (REPO / "docs" / "codes.md").read_text(encoding="utf-8")
DOCS_OPTIONS = (REPO / "docs" / "options.md").read_text(encoding="utf-8")


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
    assert [r["submission"] for r in reports] == files
    assert reports[1]["problem_counts"] == {"INDEX_OUT_OF_RANGE": 6, "LAYOUT_NOT_PERMUTATION": 1}
    assert f"{files[0]}: VALID" in out.replace("\n", "") and "Submissions" not in out  # -q: verdicts only


def test_an_unreadable_file_among_several_does_not_stop_the_others(capsys, tmp_path):
    files = [str(SAMPLES / "demo_random_test.csv"), str(tmp_path / "missing.csv")]
    code, out, _ = run(capsys, *files, "--data-root", "demo", "--split", "test", "--json", str(tmp_path / "r.json"))
    assert code == 2
    reports = json.loads((tmp_path / "r.json").read_text())
    assert reports[0]["valid"] is True and "does not exist" in reports[1]["error"]
    assert "unreadable" in out and "Submissions" in out


def test_option_combinations_that_would_do_nothing_are_refused(capsys):
    args = (str(SAMPLES / "demo_random_test.csv"), "--data-root", "demo")
    code, _, err = run(capsys, *args, "--split", "test", "--eval-indices", "/tmp")
    assert code == 2 and "only used with --configs official" in err
    code, _, err = run(capsys, *args, "--split", "test", "--validate-only", "--configs", "official")
    assert code == 2 and "valid split" in err
    assert cli.main([*args, "--split", "test", "--max-problems", "-1"]) == 2


def test_closed_pipe_keeps_the_exit_code(tmp_path):
    script = Path(sys.executable).with_name("tpugraphs-eval")
    command = (f"'{script}' '{SAMPLES / 'demo_kaggle_sample_test.csv'}' --data-root demo --split test --per-graph "
               "| head -c 10; echo \" ${PIPESTATUS[0]}\"")
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert result.stdout.endswith(" 1\n") and "Traceback" not in result.stderr  # invalid file: 1, not a crash


def test_control_characters_in_ids_are_escaped_on_the_terminal(capsys, tmp_path):
    path = tmp_path / "evil.csv"
    path.write_bytes(b"ID,TopConfigs\ntile:xla:\x1b[2Jfake\xe2\x80\x8b,0;1\n")
    code, out, _ = run(capsys, "validate", str(path), "--data-root", "demo", "--split", "test")
    assert code == 1 and "\x1b" not in out and "\\x1b[2Jfake\\u200b" in out


def test_python_dash_m_runs_the_cli():
    result = subprocess.run([sys.executable, "-m", "tpugraphs_eval", "codes"], capture_output=True, text=True)
    assert result.returncode == 0 and "LAYOUT_NOT_PERMUTATION" in result.stdout


def test_json_through_a_symlink_writes_the_target(capsys, tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    (tmp_path / "link.json").symlink_to(target)
    code, _, _ = run(capsys, str(SAMPLES / "demo_random_test.csv"), "--data-root", "demo", "--split", "test",
                     "--json", str(tmp_path / "link.json"), "-q")
    assert code == 0 and (tmp_path / "link.json").is_symlink() and json.loads(target.read_text())["valid"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]  # no temporary file left


def test_lenient_accepts_the_kaggle_shaped_sample(capsys):
    args = (str(SAMPLES / "demo_kaggle_sample_test.csv"), "--data-root", "demo", "--split", "test")
    code, out, _ = run(capsys, *args)
    assert code == 1 and "--lenient accepts them" in out
    code, out, _ = run(capsys, *args, "--lenient")
    assert code == 0 and "warning" in out


@pytest.mark.parametrize("command", [[], ["validate"]])
def test_quiet_prints_the_verdict_line_only(capsys, command):
    """-q: one line, even for an invalid file whose errors Kaggle tolerated (the full report adds a --lenient hint)."""
    code, out, err = run(capsys, *command, str(SAMPLES / "demo_kaggle_sample_test.csv"), "--data-root", "demo",
                         "--split", "test", "-q")
    assert code == 1 and err == ""
    assert out == "INVALID: 7 error(s), 0 warning(s) in 52 rows. Nothing was scored.\n"


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


def test_docs_codes_table_matches_the_code_registry():
    rows = re.findall(r"^\| `([A-Z_0-9]+)` \| (\w+) \| (\w+) \| (.+?) \|$", DOCS_CODES, flags=re.MULTILINE)
    table = {name: (strict, lenient, meaning) for name, strict, lenient, meaning in rows}
    assert table == {c.name: (str(c.strict), str(c.lenient), c.meaning) for c in CODES.values()}


def test_docs_document_every_option():
    help_text = cli._parser()._subparsers._group_actions[0].choices["score"].format_help()
    options = set(re.findall(r"(--[a-z-]+)", help_text)) - {"--help"}
    for option in options:
        assert f"`{option}" in DOCS_OPTIONS, option


def test_committed_samples_are_what_the_script_writes():
    sys.path.insert(0, str(SAMPLES))
    try:
        import make_samples
    finally:
        sys.path.remove(str(SAMPLES))
    for file_name, kind in make_samples.SAMPLES.items():
        assert (SAMPLES / file_name).read_text() == make_samples.render(kind), file_name


def test_api_accepts_bytes_like_and_refuses_text_mode(tmp_path, demo_root):
    from tpugraphs_eval import UsageError, scan_catalog, validate_submission

    catalog = scan_catalog(demo_root, "test")
    data = (SAMPLES / "demo_random_test.csv").read_bytes()
    for source in (bytearray(data), memoryview(data)):
        assert validate_submission(source, catalog).valid
    with open(SAMPLES / "demo_random_test.csv", encoding="utf-8") as text_mode:
        with pytest.raises(UsageError, match="binary mode"):
            validate_submission(text_mode, catalog)
    with pytest.raises(UsageError, match="not int"):
        validate_submission(42, catalog)


def test_our_own_multi_line_messages_keep_their_newlines():
    from tpugraphs_eval.display import safe

    assert safe("cannot be scored:\n  a.npz: bad") == "cannot be scored:\n  a.npz: bad"
    assert safe("id\x1b[2J\r") == "id\\x1b[2J\\x0d"
