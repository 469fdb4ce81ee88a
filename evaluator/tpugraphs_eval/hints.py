"""Near-miss hints for IDs that name no graph: whitespace, ``.npz``, ``/`` for ``:``, case, another split."""

from __future__ import annotations

import difflib
from functools import cached_property

from .catalog import BY_NAME, COLLECTIONS, SPLITS, split_submission_id, submission_id
from .groundtruth import SplitCatalog
from .problems import preview


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


class IdHints:
    """Explains unknown IDs against a split catalog (other splits are listed lazily, by file name only)."""

    def __init__(self, catalog: SplitCatalog) -> None:
        self.catalog = catalog

    @cached_property
    def _elsewhere(self) -> dict[str, str]:
        """Submission ID → the other split holding it."""
        found = {}
        for split in SPLITS:
            if split == self.catalog.split:
                continue
            for collection in COLLECTIONS:
                for name in self.catalog.root.graph_names(collection, split):
                    found.setdefault(submission_id(collection, name), split)
        return found

    @cached_property
    def _lower_index(self) -> dict[str, str]:
        return {known.lower(): known for known in self.catalog.index}

    def explain(self, raw: str) -> tuple[str, str]:
        """(code, message) for an ID that is not in the catalog: UNKNOWN_COLLECTION or UNKNOWN_ID."""
        split = self.catalog.split
        if not raw.strip():
            return "UNKNOWN_COLLECTION", "the ID is empty."
        for candidate, change in _variants(raw):
            known = candidate if candidate in self.catalog.index else self._lower_index.get(candidate)
            if known is not None:
                parts = split_submission_id(raw.strip())
                code = "UNKNOWN_ID" if parts else "UNKNOWN_COLLECTION"
                return code, f"`{raw}` is not an ID of the {split} split; did you mean `{known}` ({change})?"
        parts = split_submission_id(raw)
        if parts is None:
            prefix = raw.rpartition(":")[0] or raw
            close = difflib.get_close_matches(prefix, list(BY_NAME), n=1)
            hint = f" Did you mean `{close[0]}`?" if close else ""
            return "UNKNOWN_COLLECTION", (f"`{prefix}` is not a collection; IDs start with one of "
                                          f"{', '.join(BY_NAME)}.{hint}")
        collection, graph = parts
        if raw in self._elsewhere:
            return "UNKNOWN_ID", (f"`{raw}` is a graph of the {self._elsewhere[raw]} split, not of {split}: "
                                  "is this submission for another split?")
        if collection.name not in self.catalog.collections:
            return "UNKNOWN_ID", (f"`{raw}`: the data root has no {collection.name} {split} graphs at all.")
        others = [c.name for c in COLLECTIONS if submission_id(c, graph) in self.catalog.index]
        if others:
            return "UNKNOWN_ID", (f"`{graph}` is not a {collection.name} {split} graph, but it is one of "
                                  f"{preview(others)}.")
        names = self.catalog.collections[collection.name].names
        extended = [n for n in names if n.startswith(graph)] if graph else []
        if len(extended) == 1:
            return "UNKNOWN_ID", (f"`{raw}` is not a {split} graph; `{submission_id(collection, extended[0])}` "
                                  "starts with it (is the ID cut off?).")
        return "UNKNOWN_ID", f"`{raw}` is not a graph of {collection.name} in the {split} split."
