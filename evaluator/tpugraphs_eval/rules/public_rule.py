"""What a participant-facing view may show of scores over the public graphs: the one rule of every public view (the
public leaderboard, ``compare --public-only``, the scorer's public view and the Codabench Public phase, which carries
this file). Why each part is needed, the worked case and what is counted: docs/public-view.md.

- a collection value is shown only when it is a mean over at least :data:`MIN_PUBLIC_GRAPHS` public graphs (with
  one, it is that graph's metric);
- when the collections left out hold exactly one public graph between them, no collection value is shown at all:
  the overall less the shown collections would give that graph's value;
- the overall is shown only when it is over at least :data:`MIN_PUBLIC_GRAPHS` public graphs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Dict, Optional

MIN_PUBLIC_GRAPHS = 2
"""**Decision**: the public view shows a collection's value only when the collection has at least this many
public graphs; with one, the value is that graph's metric (a per-graph number). Kaggle shows no collection."""
RULE_IN_WORDS = (f"Public graphs only. A collection is shown with at least {MIN_PUBLIC_GRAPHS} public graphs "
                 "(none when the others hold a single one); no graph is listed.")
"""The rule as the scorer's public views (terminal, HTML page) state it under their table."""


def shown_collections(n_graphs: Mapping[str, int]) -> list[str]:
    """The collections whose values a participant-facing view may show (the module docstring's rule).

    Args:
        n_graphs: collection → the number of public graphs its value is a mean over (0 for a collection the
            board lacks or whose value is undefined), in display order.

    Returns:
        The names shown, in ``n_graphs`` order.
    """
    shown = [name for name, n in n_graphs.items() if n >= MIN_PUBLIC_GRAPHS]
    if 0 < sum(n for name, n in n_graphs.items() if name not in shown) < MIN_PUBLIC_GRAPHS:
        return []  # the overall less the shown collections would give the one left-out graph's value
    return shown


def overall_shown(n_graphs: Mapping[str, int]) -> bool:
    """Whether the overall may be shown: it is over at least :data:`MIN_PUBLIC_GRAPHS` public graphs
    (``n_graphs`` as for :func:`shown_collections`)."""
    return sum(n_graphs.values()) >= MIN_PUBLIC_GRAPHS


def public_values(values: Mapping[str, Optional[float]], n_graphs: Mapping[str, int]) -> Dict[str, float]:
    """The values a participant-facing view may show, by the module docstring's rule.

    Args:
        values: ``overall`` and collection → value (None or NaN: undefined).
        n_graphs: as for :func:`shown_collections`.

    Returns:
        ``overall`` (when :func:`overall_shown`) and each shown collection → its value, in ``n_graphs`` order
        after ``overall``; undefined values are left out.
    """
    shown = (["overall"] if overall_shown(n_graphs) else []) + shown_collections(n_graphs)
    return {name: float(values[name]) for name in shown
            if values.get(name) is not None and math.isfinite(values[name])}
