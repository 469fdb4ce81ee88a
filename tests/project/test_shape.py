"""The shape of the source (issue 21 item 4): no function over 60 lines, and imports pointing down the layers.

Both read the source with ``ast`` (nothing is imported), so a lazy import inside a function or under
``TYPE_CHECKING`` counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = {"tpugraphs_eval": REPO / "evaluator" / "tpugraphs_eval", "tpugraphs_kit": REPO / "kit" / "tpugraphs_kit"}
MAX_FUNCTION_LINES = 60


LAYERS: tuple[tuple[str, ...], ...] = (
    # lowest first: a module may import its own layer and those before it. A module belongs to the layer of the
    # longest name below that is a prefix of its dotted name.
    ("tpugraphs_eval.rules", "tpugraphs_eval._version", "tpugraphs_eval.errors", "tpugraphs_eval.defaults",
     "tpugraphs_eval.display", "tpugraphs_eval.safeopen", "tpugraphs_eval.atomicfile", "tpugraphs_eval.file_digest",
     "tpugraphs_eval.source_digest", "tpugraphs_eval.progress", "tpugraphs_eval.kernels",
     "tpugraphs_eval.kernels_numpy", "tpugraphs_eval._native", "tpugraphs_eval.dataset"),
    ("tpugraphs_eval.truth",),
    # the synthetic data root, made from the ground truth's format; roots.py turns the word `demo` into it
    ("tpugraphs_eval.demo", "tpugraphs_eval.roots"),
    ("tpugraphs_eval.submission",),
    ("tpugraphs_eval.scoring", "tpugraphs_eval.options"),
    ("tpugraphs_eval.report",),
    ("tpugraphs_eval.api", "tpugraphs_eval.cv", "tpugraphs_eval.prepare", "tpugraphs_eval.entrypoint",
     "tpugraphs_eval.outputs"),
    ("tpugraphs_eval.hosting", "tpugraphs_eval.leaderboard"),
    ("tpugraphs_eval.commands", "tpugraphs_eval.__main__", "tpugraphs_eval.__init__"),
    ("tpugraphs_kit",),
)
MAX_UPWARD = 1
"""Allowed: ``commands/export.py`` hands the kit's learned baseline and notebooks to ``hosting/`` (the one place the
evaluator reaches the kit, so that hosting/ does not)."""


def _modules() -> dict[str, Path]:
    """Dotted module name (``tpugraphs_eval.scoring.score``; a package's ``__init__`` named ``pkg.__init__``) →
    its file."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            found[".".join((package, *path.relative_to(folder).with_suffix("").parts))] = path
    found["tpugraphs_eval._native"] = PACKAGES["tpugraphs_eval"] / "_native.c"  # the C extension: imports nothing
    return found


def _layer(module: str) -> int:
    best, layer = -1, None
    for rank, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, layer = len(name), rank
    assert layer is not None, f"{module} has no layer in LAYERS"
    return layer


def _imports(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules that ``module`` imports (``from pkg import name``: the module ``pkg.name`` when there is
    one, else ``pkg``'s ``__init__``)."""
    package = module.split(".")[:-1]
    found = set()

    def resolve(name: str) -> str | None:
        return name if name in modules else f"{name}.__init__" if f"{name}.__init__" in modules else None

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")) if path.suffix == ".py" else ast.Module([], [])):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            if base.startswith(tuple(PACKAGES)):
                found.update(resolve(f"{base}.{alias.name}") or resolve(base) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(resolve(a.name) for a in node.names if a.name.startswith(tuple(PACKAGES)))
    assert None not in found, f"{module} imports a module that is not in the package"
    return found


def _unit(module: str) -> str:
    """The top-level part a module belongs to: ``tpugraphs_eval.scoring.cv`` → ``scoring``, ``tpugraphs_eval.api`` →
    ``api``, every module of the kit → ``tpugraphs_kit``."""
    parts = module.split(".")
    return parts[0] if parts[0] == "tpugraphs_kit" else parts[1]


def upward_imports() -> set[tuple[str, str]]:
    """(importer, imported) top-level parts (:func:`_unit`) for every import from a lower layer to a higher one."""
    modules = _modules()
    return {(_unit(module), _unit(target)) for module, path in modules.items()
            for target in _imports(module, path, modules) if _layer(target) > _layer(module)}


def long_functions() -> dict[str, int]:
    """``file::function`` → lines, for every function (method, nested function) of evaluator/ and kit/ over
    :data:`MAX_FUNCTION_LINES`. A function's lines run from its ``def`` line to its last line
    (``end_lineno - lineno + 1``; decorators excluded)."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        found[f"{package}/{path.relative_to(folder).as_posix()}::{node.name}"] = lines
    return found


def test_no_function_is_over_60_lines():
    found = long_functions()
    assert found == {}


def test_the_detectors_see_what_they_must(tmp_path):
    """A 61-line function is found, a 60-line one is not; an upward import hidden in a function is seen."""
    body = "".join(f"    x{i} = {i}\n" for i in range(59))
    tree = ast.parse(f"def long():\n{body}    return 0\n\n\n@decorated\ndef short():\n{body}\n")
    sizes = {n.name: n.end_lineno - n.lineno + 1 for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert sizes == {"long": 61, "short": 60}
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from ..api import Evaluator\n    from .. import report\n")
    modules = {**_modules(), "tpugraphs_eval.scoring.probe": probe}
    assert _imports("tpugraphs_eval.scoring.probe", probe, modules) == {"tpugraphs_eval.api",
                                                                        "tpugraphs_eval.report.__init__"}
    assert _layer("tpugraphs_eval.api") > _layer("tpugraphs_eval.scoring.probe")


def test_imports_point_down_the_layers():
    """At most :data:`MAX_UPWARD` import from a lower layer to a higher one, counted as pairs of top-level parts
    (4 before issue 21 under these layers: scoring/ → api and report/ (cv.py), hosting/ → the kit and the package's
    ``__init__``; roots.py → demo/ is downward once demo/ holds only the synthetic data)."""
    found = upward_imports()
    assert len(found) <= MAX_UPWARD and found <= {("commands", "tpugraphs_kit")}, found
