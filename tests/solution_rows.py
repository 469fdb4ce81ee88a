"""Rewriting a solution file's rows in tests (tests/truth/test_solution*.py, tests/cli/test_error_messages.py)."""

from __future__ import annotations

import json

from tpugraphs_eval.truth.solution import MANIFEST_KEY, column_data_sha256


def write_rows(frame, out, manifest: dict) -> None:
    """Write ``frame`` as a solution file with ``manifest``, its data_sha256 made to match the new column data
    (what a tool that rewrites a solution's rows must do)."""
    import io

    draft = io.BytesIO()
    frame.write_parquet(draft)
    manifest = {**manifest, "data_sha256": column_data_sha256(draft.getvalue())}
    frame.write_parquet(out, metadata={MANIFEST_KEY: json.dumps(manifest)})
