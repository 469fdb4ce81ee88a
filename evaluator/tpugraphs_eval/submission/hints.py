"""Hints that name a mistake once instead of a cascade of per-line errors: :class:`IdHints` (near misses for IDs
that name no graph), :func:`collections_hint` (a per-collection file validated without ``--collections``) and
:class:`FieldHints` (TopConfigs written with spaces, as a list or joined by commas: read with their indices and
reported once per file). The header-level mistakes are rules of :mod:`..rules.csvshape`. Which mistakes are read
with a note and which refused with one hint: docs/codes.md.
"""

from __future__ import annotations

from functools import cached_property

from ..dataset import BY_NAME, COLLECTIONS, REAL_GRAPH_COUNTS, SPLITS, split_submission_id, submission_id
from ..display import shorten
from ..rules.topconfigs import FIELD_MISTAKES, field_mistake, mistake_problems
from ..truth.groundtruth import SplitCatalog
from .problems import ProblemLog, preview


def _variants(raw: str) -> list[tuple[str, str]]:
    """(candidate ID, what was changed) for the usual slips, single and combined."""
    fixes = (
        ("surrounding whitespace", lambda s: s.strip()),
        ("`/` instead of `:`", lambda s: s.replace("/", ":")),
        ("a `.npz` suffix", lambda s: s[:-4] if s.lower().endswith(".npz") else s),
        ("case", lambda s: s.lower()),
    )
    out: list[tuple[str, str]] = []
    candidates = [(raw, [])]
    for label, fix in fixes:
        for text, labels in list(candidates):
            fixed = fix(text)
            if fixed != text:
                candidates.append((fixed, labels + [label]))
                out.append((fixed, ", ".join(labels + [label])))
    return out


def code_of(raw: str) -> str:
    """The problem code of an ID that is not in the split: UNKNOWN_ID if it starts with a collection, else
    UNKNOWN_COLLECTION. Cheap: used alone once enough such problems are listed."""
    return "UNKNOWN_ID" if split_submission_id(raw.strip()) else "UNKNOWN_COLLECTION"


class IdHints:
    """Explains unknown IDs against a split catalog (other splits are listed lazily, by file name only)."""

    def __init__(self, catalog: SplitCatalog) -> None:
        self.catalog = catalog

    @cached_property
    def _elsewhere(self) -> dict[str, str]:
        """Submission ID → the other split holding it."""
        found = {}
        for split in (s for s in SPLITS if s != self.catalog.split):
            for collection in COLLECTIONS:
                for name in self.catalog.root.graph_names(collection, split):
                    found.setdefault(submission_id(collection, name), split)
        return found

    @cached_property
    def _lower_index(self) -> dict[str, str]:
        return {known.lower(): known for known in self.catalog.index}

    @cached_property
    def _by_graph_name(self) -> dict[str, list[str]]:
        """Graph name → the IDs of the split with that name (a name may be in several collections)."""
        found: dict[str, list[str]] = {}
        for graph_id in self.catalog.index:
            found.setdefault(graph_id.rpartition(":")[2], []).append(graph_id)
        return found

    def explain(self, raw: str) -> tuple[str, str]:
        """(code, message) for an ID that is not in the catalog; the code is :func:`code_of`'s."""
        return code_of(raw), self._message(raw, shorten(raw))

    def _message(self, raw: str, shown: str) -> str:
        split = self.catalog.split
        if not raw.strip():
            return "the ID is empty."
        for candidate, change in _variants(raw):
            known = candidate if candidate in self.catalog.index else self._lower_index.get(candidate)
            if known is not None:
                return f"`{shown}` is not an ID of the {split} split; did you mean `{known}` ({change})?"
        parts = split_submission_id(raw.strip())
        if parts is None:
            bare = self._by_graph_name.get(raw.strip())
            if bare:
                return f"`{shown}` lacks its collection prefix: did you mean {preview([f'`{i}`' for i in bare])}?"
            prefix = raw.strip().rpartition(":")[0] or raw.strip()
            below = [name for name in BY_NAME if name.startswith(prefix + ":")]
            # a near-miss only among prefixes of a collection name's length (difflib's cost grows with the
            # text's length: a 50 MB ID took 16 s and 2 GB here)
            import difflib  # here: only a wrong collection prefix needs it

            close = below or (difflib.get_close_matches(prefix, list(BY_NAME), n=1)
                              if len(prefix) <= 2 * max(map(len, BY_NAME)) else [])
            hint = f" Did you mean {' or '.join(f'`{c}`' for c in close)}?" if close else ""
            return f"`{shorten(prefix)}` is not a collection; IDs start with one of {', '.join(BY_NAME)}.{hint}"
        collection, graph = parts
        if raw.strip() in self._elsewhere:
            return (f"`{shown}` is a graph of the {self._elsewhere[raw.strip()]} split, not of {split}: is this "
                    "submission for another split?")
        if collection.name not in self.catalog.collections:
            return f"`{shown}`: the {self.catalog.root.noun} has no {collection.name} {split} graphs at all."
        others = [c.name for c in COLLECTIONS if submission_id(c, graph) in self.catalog.index]
        if others:
            return f"`{shorten(graph)}` is not a {collection.name} {split} graph, but it is one of {preview(others)}."
        names = self.catalog.collections[collection.name].names
        extended = [n for n in names if n.startswith(graph)] if graph else []
        if len(extended) == 1:
            return (f"`{shown}` is not a graph of the {split} split; `{submission_id(collection, extended[0])}` "
                    "starts with it (is the ID cut off?).")
        real = REAL_GRAPH_COUNTS[collection.name][split]
        root = self.catalog.root  # the synthetic demo is small by design: not a partial copy
        partial = (f" This {root.noun} holds {len(names)} of the {real} {collection.name} {split} graphs of the real "
                   f"dataset: {'is it' if root.noun == 'data root' else 'was it built from'} a partial copy?"
                   if len(names) < real and not root.synthetic else "")
        return f"`{shown}` is not a graph of {collection.name} in the {split} split.{partial}"


def collections_hint(catalog: SplitCatalog, lines: dict[str, int]) -> str:
    """The sentence a MISSING_IDS problem ends with when every listed ID is a graph of some of the split's
    collections only (a per-collection file validated as a whole submission): it names ``--collections``; else "".

    Args:
        lines: ID → line of the rows whose ID is a graph of the split.
    """
    listed = {catalog.index[graph_id].collection.name for graph_id in lines}
    if not listed or len(listed) == len(catalog.collections):
        return ""
    names = ",".join(name for name in catalog.collections if name in listed)
    return (f" Every row of the file is a graph of {names.replace(',', ', ')}: a per-collection file? "
            f"`--collections {names}` validates and scores those collections alone.")


class FieldHints:
    """Recognises TopConfigs fields written with spaces, as a list or joined by commas (the rules'
    :func:`..rules.topconfigs.field_mistake`), and reports each kind once per file."""

    def __init__(self) -> None:
        self._lines: dict[str, list[int]] = {code: [] for code in FIELD_MISTAKES}

    def rewrite(self, configs: bytes | memoryview, line: int) -> bytes | None:
        """The field's indices joined by ``;`` when it is one of the recognised mistakes (noted), else None.

        Only fields that failed the fast check come here, so the regular expressions cost nothing on good files.
        """
        found = field_mistake(configs)
        if found is None:
            return None
        self._lines[found[1]].append(line)
        return found[0]

    def report(self, log: ProblemLog) -> None:
        """One problem per mistake seen, naming how many rows have it and where (the first line)."""
        for code, message, line in mistake_problems(self._lines):
            log.add(code, message, line=line)
