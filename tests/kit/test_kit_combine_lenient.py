"""``tpugraphs-baseline combine --lenient`` and the kit's hints (issue 9 item 4).

The demo's Kaggle-shaped sample (``sample_submissions/demo_kaggle_sample_test.csv``) is invalid in strict
mode (6 INDEX_OUT_OF_RANGE, 1 LAYOUT_NOT_PERMUTATION) and valid in lenient mode; cut into a tile file and
a layout file, the lenient combination must score exactly as the whole file does under --lenient.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from badinput import LAYOUT6, LAYOUT_TEST, TILE3, TILE_TEST, _layout, _tile

from tpugraphs_eval import Options, evaluate
from tpugraphs_eval.commands import evaluate as eval_cli
from tpugraphs_kit.cli_baseline import main as baseline_main

SAMPLE = Path(__file__).resolve().parents[2] / "sample_submissions" / "demo_kaggle_sample_test.csv"


def _parts(tmp_path: Path) -> list[Path]:
    header, *rows = SAMPLE.read_text().splitlines(keepends=True)
    paths = []
    for prefix in ("tile:", "layout:"):
        paths.append(tmp_path / f"{prefix[:-1]}.csv")
        paths[-1].write_text(header + "".join(r for r in rows if r.startswith(prefix)))
    return paths


def test_lenient_combine_scores_as_the_whole_file(tmp_path, capsys, demo_root):
    out = tmp_path / "combined.csv"
    args = ["combine", *map(str, _parts(tmp_path)), "--split", "test", "--data-root", "demo", "-o", str(out)]
    assert baseline_main([*args, "--lenient"]) == 0
    text = capsys.readouterr().out
    assert "valid (lenient)" in text and "LAYOUT_NOT_PERMUTATION x1" in text
    whole = evaluate(SAMPLE, split="test", data_root="demo", options=Options(mode="lenient"))
    combined = evaluate(out, split="test", data_root="demo", options=Options(mode="lenient"))
    assert combined.valid and combined.to_dict()["collections"] == whole.to_dict()["collections"]
    assert combined.overall == whole.overall


def test_strict_combine_hint_keeps_the_data_root_and_runs(tmp_path, capsys, demo_root):
    out = tmp_path / "combined.csv"
    args = ["combine", *map(str, _parts(tmp_path)), "--split", "test", "--data-root", "demo", "-o", str(out)]
    assert baseline_main(args) == 1 and not out.exists()
    err = capsys.readouterr().err
    hint = err.split("(check it with `")[1].split("`)")[0]
    assert hint.startswith("tpugraphs-eval validate ") and "--data-root demo" in hint and "--split test" in hint
    assert eval_cli.main(shlex.split(hint)[1:] + ["-q"]) == 1  # the hinted command runs: the part is invalid
    assert "INVALID" in capsys.readouterr().out


def test_baseline_on_files_without_runtimes_does_not_suggest_validate_only(tmp_path, capsys):
    root = tmp_path / "root"  # the public test files' shape: every config_runtime is 0
    _tile(root / TILE_TEST, TILE3, [0, 0, 0], [10, 10, 10])
    _layout(root / LAYOUT_TEST, LAYOUT6, [0] * 6)
    out = tmp_path / "r.csv"
    assert baseline_main(["random", "--split", "test", "--data-root", str(root), "-o", str(out), "--draws", "0",
                          "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "not scored: the test split of" in text and "holds no runtimes" in text
    assert "--validate-only" not in text
    assert eval_cli.main([str(out), "--split", "test", "--data-root", str(root)]) == 2  # the evaluator's own hint
    err = capsys.readouterr().err
    assert "[NO_GROUND_TRUTH]" in err and "--validate-only" in err
