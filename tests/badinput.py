"""Shared by the bad-input and fuzz tests: a tiny data root in the official layout, CSV builders, CLI runners.

The tiny data root (built once per session by the ``tiny_root`` fixture):

    npz/tile/xla/test/          conv_net_0123456789abcdef   3 configs
                                matmul_fedcba9876543210    25 configs
    npz/layout/xla/default/test resnet_v1                   6 configs
    npz/tile/xla/valid/         other_graph_1111222233334444 4 configs  (the "other split" hint)
    npz/layout/xla/default/valid valid_layout               4 configs  (eval-indices checks)

A valid test submission is ``HEADER`` + rows A (line 2), B (line 3), L (line 4).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval.commands import evaluate as cli

# --- the tiny data root ---------------------------------------------------------------------------

TILE3 = "conv_net_0123456789abcdef"
TILE25 = "matmul_fedcba9876543210"
LAYOUT6 = "resnet_v1"
VALID_TILE = "other_graph_1111222233334444"
VALID_LAYOUT = "valid_layout"

A = f"tile:xla:{TILE3}"
B = f"tile:xla:{TILE25}"
L = f"layout:xla:default:{LAYOUT6}"
HEADER = "ID,TopConfigs"
ROW_A = f"{A},0;1;2"
ROW_B = f"{B},0;1;2;3;4"
ROW_L = f"{L},0;1;2;3;4;5"

TILE_TEST = "npz/tile/xla/test"
LAYOUT_TEST = "npz/layout/xla/default/test"


def _tile(folder: Path, name: str, runtime: list[int], normalizers: list[int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / f"{name}.npz", config_runtime=np.array(runtime, dtype=np.int64),
             config_runtime_normalizers=np.array(normalizers, dtype=np.int64))


def _layout(folder: Path, name: str, runtime: list[int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / f"{name}.npz", config_runtime=np.array(runtime, dtype=np.int64))


def build_tiny_root(root: Path) -> Path:
    """Write the tiny data root described in the module docstring into ``root``; returns ``root``."""
    tile25 = [1000 + 37 * ((7 * i) % 25) for i in range(25)]
    _tile(root / TILE_TEST, TILE3, [3000, 1000, 2000], [10, 10, 10])
    _tile(root / TILE_TEST, TILE25, tile25, [5] * 25)
    _layout(root / LAYOUT_TEST, LAYOUT6, [600, 100, 500, 200, 400, 300])
    _tile(root / "npz/tile/xla/valid", VALID_TILE, [40, 10, 30, 20], [2, 2, 2, 2])
    _layout(root / "npz/layout/xla/default/valid", VALID_LAYOUT, [40, 10, 30, 20])
    return root


def csv(*rows: str, header: str | None = HEADER, end: str = "\n") -> bytes:
    """A submission: ``header`` (None: no header line) and ``rows``, each line ended by ``end``."""
    lines = ([header] if header is not None else []) + list(rows)
    return "".join(line + end for line in lines).encode("utf-8")


VALID = csv(ROW_A, ROW_B, ROW_L)


# --- running the CLI ------------------------------------------------------------------------------

CONSOLE_SCRIPT = Path(sys.executable).with_name("tpugraphs-eval")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    """Run ``tpugraphs_eval.commands.evaluate.main`` in-process; (exit code, stdout + stderr). Fails on a traceback."""
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:  # argparse errors (see test_main_returns_on_argparse_errors)
        code = exc.code
    out, err = capsys.readouterr()
    text = out + err
    assert "Traceback" not in text, text
    assert "internal error" not in text, text
    return code, text


def submit(capsys, tmp_path: Path, data: bytes, root: Path, *extra: object, split: str = "test"):
    """Score ``data`` with the CLI; (exit code, output, JSON report or None)."""
    path = tmp_path / "submission.csv"
    path.write_bytes(data)
    report_path = tmp_path / "report.json"
    report_path.unlink(missing_ok=True)
    code, text = run_cli(capsys, path, "--data-root", root, "--split", split, "--no-progress",
                         "--json", report_path, *extra)
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    return code, text, report


def run_script(*argv: object) -> subprocess.CompletedProcess[str]:
    if not CONSOLE_SCRIPT.exists():
        pytest.skip(f"console script {CONSOLE_SCRIPT} is not installed")
    return subprocess.run([str(CONSOLE_SCRIPT), *map(str, argv)], capture_output=True, text=True, timeout=120)


RNG = random.Random(20231121)
BINARY_GARBAGE = RNG.randbytes(300) + b"\x00\x00\x00" + RNG.randbytes(300)
HIGH_BYTES = bytes(range(0x80, 0x100)) * 4  # not UTF-8, no NUL, no newline

NEG_ZERO = csv(f"{A},0;1;2;-0", ROW_B, ROW_L)
HUGE = "1" * 5000  # more digits than Python's int() accepts by default (4300)
