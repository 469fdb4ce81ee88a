"""``tpugraphs-eval export kaggle-metric``: the self-contained metric file for Kaggle-like platforms.

**Decision** (one source): the file is the text of :mod:`.standalone_metric` (a module of this package,
imported and tested here) behind a two-line provenance comment; nothing is generated or rewritten, so the
exported file, the Codabench scoring program's ``tpugraphs_metric.py`` and the tested module are the same
code. tests/hosting/test_export_kaggle_metric.py runs the exported file with ``tpugraphs_eval`` out of reach and
compares it with ``tpugraphs-eval`` on every fixture.
"""

from __future__ import annotations

from pathlib import Path

from .._version import __version__
from ..atomicfile import write_atomically
from ..errors import UsageError
from . import standalone_metric


def metric_source() -> str:
    """The exported file's text: a provenance comment, then :mod:`.standalone_metric`'s source unchanged."""
    text = Path(standalone_metric.__file__).read_text(encoding="utf-8")
    return (f"# TpuGraphs metric, written by `tpugraphs-eval export kaggle-metric` (tpugraphs-eval {__version__}).\n"
            "# Self-contained: numpy, pandas, scipy and the standard library. Kaggle calls score().\n" + text)


def write_metric_file(path: Path) -> None:
    """Write :func:`metric_source` to ``path`` (replaced atomically).

    Raises:
        UsageError: ``OUTPUT_WRITE_FAILED``: the file cannot be written (an existing target that is not a
            regular file, a device or a FIFO, is refused, never replaced).
    """
    text = metric_source()
    try:
        write_atomically(Path(path), lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror or err}", code="OUTPUT_WRITE_FAILED") from None
