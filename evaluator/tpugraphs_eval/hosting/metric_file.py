"""``tpugraphs-eval export kaggle-metric``: the self-contained metric file for Kaggle-like platforms, and the solution table.

**Decision** (one source): the file is the text of the ``rules/`` modules the metric uses (:data:`METRIC_RULES`),
then of :mod:`.standalone_metric`, each unchanged but for its relative imports and its ``from __future__`` line;
the Codabench bundle's ``tpugraphs_metric.py`` is this same text (docs/hosting.md, "One metric file", says how
tests/hosting/test_export_kaggle_metric.py holds it to ``tpugraphs-eval``).
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType

from .._version import __version__
from ..atomicfile import write_atomically
from ..errors import UsageError
from ..rules import codes, csvshape, ids, topconfigs
from . import standalone_metric
from .kaggle_metric import solution_frame

METRIC_RULES: tuple[ModuleType, ...] = (codes, topconfigs, ids, csvshape)
"""The ``rules/`` modules in the metric file, in dependency order (each imports only those before it)."""
_FUTURE = "from __future__ import annotations\n"


def module_code(module: ModuleType) -> str:
    """A module's text as the metric file holds it: without its relative imports and its ``from __future__`` line.

    Raises:
        ValueError: the module imports a name of this package that the file would not define (an import of
            ``tpugraphs_eval`` by absolute name).
    """
    text = Path(module.__file__).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for node in ast.parse(text).body:
        if isinstance(node, ast.ImportFrom) and (node.level > 0 or node.module == "__future__"):
            drop.update(range(node.lineno - 1, node.end_lineno))
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and "tpugraphs_eval" in ast.unparse(node):
            raise ValueError(f"{module.__name__} imports the package: {ast.unparse(node)}")
    return "".join(line for number, line in enumerate(lines) if number not in drop)


def metric_source() -> str:
    """The exported file's text: a provenance comment, ``from __future__ import annotations``, then
    :func:`module_code` of each module of :data:`METRIC_RULES` and of :mod:`.standalone_metric`, each under a
    comment naming its file."""
    parts = [f"# TpuGraphs metric, written by `tpugraphs-eval export kaggle-metric` (tpugraphs-eval {__version__}).\n"
             "# Self-contained: numpy, pandas, scipy and the standard library. Kaggle calls score().\n", _FUTURE]
    for module in (*METRIC_RULES, standalone_metric):
        name = module.__name__.removeprefix("tpugraphs_eval.").replace(".", "/")
        parts.append(f"\n\n# ---- {name}.py (tpugraphs-eval {__version__}) ----\n")
        parts.append(module_code(module))
    return "".join(parts)


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


def write_solution_table(solution_file: Path, path: Path) -> None:
    """Write the solution table of ``solution_file`` (:func:`.kaggle_metric.solution_frame`: one row per graph,
    ``ID``, ``runtimes``, ``normalizers``, ``Usage``) to ``path`` as CSV, replaced atomically: the file to upload
    as a Kaggle competition's solution (docs/hosting.md).

    Raises:
        DataError: ``solution_file`` is not a solution file.
        UsageError: ``OUTPUT_WRITE_FAILED``: ``path`` cannot be written.
    """
    frame = solution_frame(solution_file)
    try:
        write_atomically(Path(path), lambda tmp: frame.to_csv(tmp, index=False))
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror or err}", code="OUTPUT_WRITE_FAILED") from None
