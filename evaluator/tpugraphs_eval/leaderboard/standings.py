"""Teams from submissions: each team's final submissions, its score on a leaderboard, and ranks with ties.

Rules (docs/leaderboard.md, after Kaggle's):

- **Public leaderboard**: a team's score is the best public overall of all its valid submissions.
- **Private leaderboard**: a team's score is the best private overall of its *final* submissions: the
  ones it selected (metadata ``"selected": true``; at most 2 count: with more, the 2 most recent
  selected valid ones, recorded as ``TOO_MANY_SELECTED``; a selected invalid submission is recorded as
  ``SELECTED_INVALID`` and does not count), or, when it selected no valid one, its 2 best public ones.
- **Order of submissions** ("earlier"): by submission time (metadata ``submitted``); submissions of
  unknown time come after all known times, by file name.
- **Ranks**: equal scores (the same float, as identical predictions give) share a rank, and the next
  rank skips (1, 2, 2, 4). Among equal scores the team whose scoring submission is earlier is shown
  first (then by team name). Teams without a valid submission (or with an undefined score) have no
  rank and are listed last, by name.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from .codes import note
from .folder import Entry

MAX_FINAL = 2
"""Submissions that count for the private leaderboard (Kaggle: 2)."""


def time_key(entry: Entry) -> tuple:
    """Sort key putting earlier submissions first; unknown times last, by file name."""
    if entry.submitted is None:
        return (1, dt.datetime.min, entry.file)
    return (0, dt.datetime.fromisoformat(entry.submitted.removesuffix("Z")), entry.file)


@dataclass
class TeamStanding:
    """One team on one leaderboard.

    Attributes:
        team: the team's shown name.
        submissions: indices (into the entries) of all its submissions, earliest first.
        valid: indices of its scored submissions, earliest first.
        finals: the submissions its score is taken over (private: the final ones; public: all valid).
        chosen: the submission giving its score (None when it has none).
        score: its overall on this leaderboard (None: no rank).
        rank: competition rank (1, 2, 2, 4), None when unranked.
        notes: leaderboard problems of the team (selection faults, no valid submission).
    """

    team: str
    submissions: list[int]
    valid: list[int]
    finals: list[int] = field(default_factory=list)
    chosen: int | None = None
    score: float | None = None
    rank: int | None = None
    notes: list[dict[str, Any]] = field(default_factory=list)


def board_score(record: dict[str, Any], board: str) -> float | None:
    """A record's overall on ``board`` (``public``, ``private`` or ``all``); None when unscored or undefined."""
    if record.get("status") != "scored":
        return None
    return record["boards"][board]["overall"]


def _best(indices: list[int], records: list[dict[str, Any]], board: str) -> int | None:
    """The index with the highest defined score on ``board``; the earliest among equals (indices are in order)."""
    best = None
    for i in indices:
        score = board_score(records[i], board)
        if score is not None and (best is None or score > board_score(records[best], board)):
            best = i
    return best


def final_submissions(team: str, valid: list[int], entries: list[Entry],
                      records: list[dict[str, Any]]) -> tuple[list[int], list[dict[str, Any]]]:
    """The private leaderboard's final submissions of a team (``valid`` earliest first) and the notes made."""
    notes = []
    team_indices = [i for i, e in enumerate(entries) if e.team == team]
    for i in team_indices:
        if entries[i].selected and i not in valid:
            notes.append(note("SELECTED_INVALID", f"{entries[i].id} is selected but was not scored; it does not "
                                                  "count"))
    selected = [i for i in valid if entries[i].selected]
    if len(selected) > MAX_FINAL:
        kept = selected[-MAX_FINAL:]
        notes.append(note("TOO_MANY_SELECTED", f"{team} selected {len(selected)} valid submissions; the "
                                               f"{MAX_FINAL} most recent count: "
                                               + ", ".join(entries[i].file for i in kept)))
        return kept, notes
    if selected:
        return selected, notes
    ranked = sorted(valid, key=lambda i: -(board_score(records[i], "public") or float("-inf")))  # stable: earliest
    return sorted(ranked[:MAX_FINAL], key=valid.index), notes


def standings(teams: list[str], entries: list[Entry], records: list[dict[str, Any]],
              board: str) -> list[TeamStanding]:
    """Every team on ``board`` (``public`` or ``private``), in display order (ranked first, by rank).

    Args:
        teams: every team folder's name (teams without submissions included).
        entries: every submission; ``records``: their records (:func:`scorer.record_of`), same order.
        board: which leaderboard ranks the teams.
    """
    out = []
    for team in teams:
        mine = sorted((i for i, e in enumerate(entries) if e.team == team), key=lambda i: time_key(entries[i]))
        valid = [i for i in mine if records[i].get("status") == "scored"]
        standing = TeamStanding(team, mine, valid)
        if not valid:
            why = "no submissions" if not mine else f"none of its {len(mine)} submissions is valid"
            standing.notes.append(note("NO_VALID_SUBMISSION", f"{team}: {why}"))
        elif board == "public":
            standing.finals = valid
        else:
            standing.finals, standing.notes = final_submissions(team, valid, entries, records)
        standing.chosen = _best(standing.finals, records, board)
        if standing.chosen is not None:
            standing.score = board_score(records[standing.chosen], board)
        elif valid:
            standing.notes.append(note("SCORE_UNDEFINED", f"{team}: no {board} score is defined"))
        out.append(standing)
    ranked = sorted((s for s in out if s.score is not None),
                    key=lambda s: (-s.score, time_key(entries[s.chosen]), s.team))
    scores = [s.score for s in ranked]
    for position, standing in enumerate(ranked):
        first = position
        while first > 0 and scores[first - 1] == standing.score:
            first -= 1
        standing.rank = first + 1
    return ranked + sorted((s for s in out if s.score is None), key=lambda s: s.team)
