"""Which graphs belong to one program, so that a program is never on both sides of a split or a fold.

**Decision** (docs/prepare.md, "Programs"): the program of a graph is derived from its collection and
file name alone:

- layout: the source (``xla`` or ``nlp``) and the whole file name. The ``default`` and ``random``
  collections of one source hold the same programs under the same file names (the official dataset: one
  program compiled under two layout searches), so ``layout:xla:default:unet3d`` and
  ``layout:xla:random:unet3d`` are one program, ``layout:xla:unet3d``.
- tile: :func:`..dataset.tile_program`, the file name without its last ``_`` part, as the official
  ``tiles_evaluate.py`` groups graphs (``retinanet.2x2.fp32_-342c949e14733d96`` → ``retinanet.2x2.fp32``):
  every kernel of a model is one program, ``tile:xla:retinanet.2x2.fp32``; the report's per-program means
  use the same rule.

Programs are grouped in *strata*: ``tile:xla``, ``layout:xla`` and ``layout:nlp`` (a layout program spans
two collections of its source). Both ``prepare`` and ``tpugraphs-data folds`` use this module.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..dataset import Collection, tile_program


def stratum(collection: Collection) -> str:
    """``tile:xla``, ``layout:xla`` or ``layout:nlp``: the collections whose programs may be shared."""
    parts = collection.name.split(":")
    return ":".join(parts[:2])


def program_of(collection: Collection, name: str) -> str:
    """The program a graph belongs to (see the module docstring): ``<stratum>:<program name>``."""
    if collection.kind == "tile":
        return f"{stratum(collection)}:{tile_program(name)}"
    return f"{stratum(collection)}:{name}"


def programs(graphs: Iterable[tuple[Collection, str]]) -> dict[str, list[tuple[Collection, str]]]:
    """Program → its graphs ``(collection, name)``, programs sorted, graphs in the order given."""
    found: dict[str, list[tuple[Collection, str]]] = {}
    for collection, name in graphs:
        found.setdefault(program_of(collection, name), []).append((collection, name))
    return dict(sorted(found.items()))
