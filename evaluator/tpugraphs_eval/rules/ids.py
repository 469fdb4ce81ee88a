"""The ID rules of a submission: one row per graph, each known ID once, every graph present, and the 1-based file.

Standard library only, Python >= 3.9: the validator (``submission/validation.py``) and the standalone metric
(``hosting/standalone_metric.py``) keep one :class:`IdLedger` each, so both report these problems with the same codes,
messages and order: the rows' problems in file order (an unknown ID's before its field's; a DUPLICATE_ID row's field
is not checked), then the problems of the whole file (INDICES_ONE_BASED in place of the rows' problems of
:data:`.topconfigs.ONE_BASED_FOLLOWS`, the field mistakes of :func:`.topconfigs.mistake_problems`), then one
MISSING_IDS per collection, in collection order.
"""

from .codes import preview
from .topconfigs import ONE_BASED_FOLLOWS, one_based

MISSING_NAMED = 5
"""IDs a MISSING_IDS message names (then a count)."""


class IdLedger:
    """The rows read so far of the known IDs (graphs of the split).

    Attributes:
        lines: known ID → the line of its first row (the IDs with a row).
        one_past_end: line → the codes of :data:`.topconfigs.ONE_BASED_FOLLOWS` found on a row of a known graph
            that lists c (what counting from 1 would explain).
    """

    def __init__(self):
        self.lines = {}
        self.one_past_end = {}

    def first(self, line, graph_id):
        """``None`` when ``line`` is the first row of the known ID ``graph_id`` (check its field), else the
        ``("DUPLICATE_ID", message)`` problem of a repeated row (its field is not checked)."""
        first = self.lines.setdefault(graph_id, line)
        return None if first == line else ("DUPLICATE_ID", f"second row for this ID (first at line {first}).")

    def lists_one_past_end(self, line, codes):
        """Record that the row on ``line`` (a known graph's first row) lists c and has the problem ``codes``."""
        self.one_past_end[line] = [code for code in codes if code in ONE_BASED_FOLLOWS]

    def one_based(self, zero_listed):
        """``((code, message, line), withdrawn)`` when the file counts from 1, else None: the INDICES_ONE_BASED
        problem and the problems it replaces (line → codes). ``zero_listed``: whether a known graph's row lists
        configuration 0."""
        found = one_based(sorted(self.one_past_end), len(self.lines), zero_listed) if self.one_past_end else None
        return None if found is None else (found, self.one_past_end)


def missing_ids(lines, graphs, where):
    """``[(collection, IDs without a row, MISSING_IDS message)]`` for each collection of ``graphs`` (collection → its
    IDs, in order) with some; ``lines``: the IDs with a row (:attr:`IdLedger.lines`); ``where`` names the graphs' set
    in the message (``test``: "1 of the 2 tile:xla test graphs have no row: …")."""
    found = []
    for name, ids in graphs.items():
        if absent := [graph_id for graph_id in ids if graph_id not in lines]:
            found.append((name, absent, f"{len(absent)} of the {len(ids)} {name} {where} graphs have no row: "
                                        f"{preview(absent, MISSING_NAMED)}."))
    return found
