"""Which graphs belong to one program, so that a program is never on both sides of a split or a fold (``prepare`` and
``tpugraphs-data folds``). **Decision** (docs/prepare.md, "Decision: programs"): derived from the collection and file
name alone: layout, the source and the whole file name (``default`` and ``random`` share programs); tile,
:func:`..dataset.tile_program`. Programs are grouped in *strata*: ``tile:xla``, ``layout:xla``, ``layout:nlp``.
"""

from __future__ import annotations

from ..dataset import Collection, tile_program


def stratum(collection: Collection) -> str:
    """``tile:xla``, ``layout:xla`` or ``layout:nlp``: the collections whose programs may be shared."""
    return ":".join(collection.name.split(":")[:2])


def program_of(collection: Collection, name: str) -> str:
    """The program a graph belongs to (see the module docstring): ``<stratum>:<program name>``."""
    return f"{stratum(collection)}:{tile_program(name) if collection.kind == 'tile' else name}"
