"""Write the leaderboard's files so that an interrupted build leaves the previous ones intact.

Every file is first written completely (and flushed to disk) into a new hidden staging folder inside the
output folder; only when all of them are written are they renamed over the old ones (a rename is atomic
on one file system), and the staging folder is removed. A build interrupted before that point changes
nothing; staging folders left by a killed build are removed by the next one. Output file names are
fixed: nothing from a submission ever becomes part of a path.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .render_html import render_html
from .render_text import render_csv, render_markdown

OUTPUT_FILES = ("leaderboard.csv", "leaderboard.md", "leaderboard.json", "leaderboard.html")
STAGING_PREFIX = ".staging-"


def render_all(document: dict[str, Any]) -> dict[str, str]:
    """File name → text of every output (JSON: sorted keys, 1-space indent, UTF-8, no NaN)."""
    return {"leaderboard.csv": render_csv(document), "leaderboard.md": render_markdown(document),
            "leaderboard.json": json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False,
                                           allow_nan=False) + "\n",
            "leaderboard.html": render_html(document)}


def write_outputs(out: Path, files: dict[str, str]) -> None:
    """Write ``files`` (name → text) into ``out`` all together (see the module docstring).

    Raises:
        UsageError: ``out`` cannot be created or written.
    """
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for stale in out.glob(f"{STAGING_PREFIX}*"):
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=out))
        try:
            for name, text in files.items():
                with open(staging / name, "w", encoding="utf-8", newline="") as handle:
                    handle.write(text)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.chmod(staging / name, 0o644)
            for name in files:
                os.replace(staging / name, out / name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    except OSError as err:
        raise UsageError(f"cannot write the leaderboard to {out}: {err.strerror or err}") from None
