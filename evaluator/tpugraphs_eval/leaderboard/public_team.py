"""One team of the public leaderboard (:class:`PublicTeam`): a row that can hold only what Kaggle's public board
shows (why: docs/public-view.md). :func:`.assemble.public_document` makes every team of a ``public`` document
through it, so a graph ID, a per-graph array, an interval or a file name has no field to go in."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from ..dataset import BY_NAME
from ..report.public import one_number


@dataclass(frozen=True, slots=True)
class PublicTeam:
    """A ranked team on the public leaderboard (JSON keys :data:`.assemble.PUBLIC_TEAM_FIELDS`).

    Attributes:
        rank: its public rank (1 is best).
        team: its name.
        overall: its best public overall.
        collections: shown collection → that submission's public value (None when undefined or a mean over
            fewer than ``MIN_PUBLIC_GRAPHS`` graphs), read-only.
        entries: its number of submissions (every file, invalid ones too).
        last_submission: its latest known submission time (ISO 8601), None when none is known.

    Raises:
        TypeError: a value is not one number, or a count not an int.
        ValueError: a key of ``collections`` is not a collection.
    """

    rank: int
    team: str
    overall: float
    collections: Mapping[str, float | None]
    entries: int
    last_submission: str | None

    def __post_init__(self) -> None:
        for name in ("rank", "entries"):
            if isinstance(getattr(self, name), bool) or not isinstance(getattr(self, name), int):
                raise TypeError(f"{name} must be an int")
        object.__setattr__(self, "overall", one_number("overall", self.overall))
        if any(name not in BY_NAME for name in self.collections):
            raise ValueError(f"not a collection among {sorted(self.collections)}")
        object.__setattr__(self, "collections", MappingProxyType(
            {name: one_number(name, value) for name, value in self.collections.items()}))
        if not isinstance(self.team, str) or not (self.last_submission is None or isinstance(self.last_submission, str)):
            raise TypeError("team and last_submission are text")

    def to_dict(self) -> dict[str, Any]:
        """``{rank, team, overall, collections, entries, last_submission}`` for ``leaderboard.json``."""
        return {"rank": self.rank, "team": self.team, "overall": self.overall, "collections": dict(self.collections),
                "entries": self.entries, "last_submission": self.last_submission}
