"""Which graphs of the source splits are held out as the prepared test split, and which folds graphs go to. Both draws
take whole programs (:mod:`.grouping`), shuffled per stratum with a seed from (seed, stratum) (:func:`_shuffled`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..dataset import Collection
from ..errors import DataError
from .grouping import program_of, stratum
from .naming import seeded_int

MIN_HELD_OUT = 2
"""Held-out graphs per collection at least (a collection value over one graph is that graph's value)."""
MIN_LEFT = 1
"""Graphs per collection left in the public source splits at least (something to train on)."""

Graph = tuple[Collection, str, str]
"""``(collection, split, name)`` of one source graph."""


@dataclass(frozen=True)
class HeldOut:
    """The held-out graphs and the programs they belong to.

    Attributes:
        graphs: the held-out graphs, in the order of the source listing.
        programs: the held-out programs (``<stratum>:<name>``, :func:`.grouping.program_of`), sorted.
        targets: collection name → the number of graphs it was meant to hold out at least.
    """

    graphs: list[Graph]
    programs: list[str]
    targets: dict[str, int]


def _shuffled(graphs: list[Graph], seed: str, draw: str) -> Iterator[list[tuple[str, list[Graph]]]]:
    """Per stratum (sorted by name), its programs ``(program, its graphs in the order given)`` sorted by name, then
    shuffled with the seed of (``seed``, ``draw``, stratum)."""
    strata: dict[str, dict[str, list[Graph]]] = {}
    for c, split, name in graphs:
        strata.setdefault(stratum(c), {}).setdefault(program_of(c, name), []).append((c, split, name))
    for name, by_program in sorted(strata.items()):
        programs = sorted(by_program.items())
        order = np.random.default_rng(seeded_int(seed, draw, name)).permutation(len(programs))
        yield [programs[i] for i in order.tolist()]


def select_held_out(graphs: list[Graph], test_fraction: float, seed: str, *, where: str = "the source") -> HeldOut:
    """Hold out whole programs until every collection holds out ``max(2, round(test_fraction * G))`` graphs (halves
    to even): programs are taken in :func:`_shuffled` order while one of their collections is short of its target.
    ``where`` names the source in errors.

    Raises:
        DataError: ``PREPARE_TOO_FEW_GRAPHS``: a collection cannot hold out :data:`MIN_HELD_OUT` graphs and
            keep :data:`MIN_LEFT` (too few graphs, or too few programs), naming each such collection.
    """
    counts = Counter(c for c, _, _ in graphs)
    targets = {c: max(MIN_HELD_OUT, int(round(test_fraction * n))) for c, n in counts.items()}
    taken: dict[Collection, int] = dict.fromkeys(counts, 0)
    chosen: set[str] = set()
    for programs in _shuffled(graphs, seed, "held-out"):
        for program, members in programs:
            if any(taken[c] < targets[c] for c, _, _ in members):
                chosen.add(program)
                for c, _, _ in members:
                    taken[c] += 1
    held = [g for g in graphs if program_of(g[0], g[2]) in chosen]
    short = [f"{c.name}: {counts[c]} graph(s), {taken[c]} held out, {counts[c] - taken[c]} left"
             for c in counts if taken[c] < MIN_HELD_OUT or counts[c] - taken[c] < MIN_LEFT]
    if short:
        both = {"train", "valid"} <= {split for _, split, _ in graphs}  # --from train,valid already
        advice = "leave the collection out (--collections)" if both else \
            "add source splits (--from train,valid) or leave the collection out (--collections)"
        raise DataError(f"{where}: too few graphs or programs to hold out {MIN_HELD_OUT} graphs per collection and keep "
                        f"{MIN_LEFT} (a program's graphs stay together): " + "; ".join(short) + f". {advice[0].upper()}"
                        f"{advice[1:]}", code="PREPARE_TOO_FEW_GRAPHS")
    return HeldOut(held, sorted(chosen), {c.name: t for c, t in targets.items()})


def assign_folds(graphs: list[Graph], k: int, seed: str) -> dict[Graph, int]:
    """Graph → fold (0..k-1): whole programs, balanced per collection.

    Per stratum the programs of :func:`_shuffled` are sorted by size, largest first (a stable sort); each goes to the
    fold that holds the fewest graphs of its collections so far (ties: the lowest fold number).
    """
    folds: dict[Graph, int] = {}
    load: dict[tuple[Collection, int], int] = {}
    for programs in _shuffled(graphs, seed, "folds"):
        for _, members in sorted(programs, key=lambda program: -len(program[1])):
            fold = min(range(k), key=lambda f: (sum(load.get((c, f), 0) for c, _, _ in members), f))
            for g in members:
                folds[g] = fold
                load[(g[0], fold)] = load.get((g[0], fold), 0) + 1
    return {g: folds[g] for g in graphs}
