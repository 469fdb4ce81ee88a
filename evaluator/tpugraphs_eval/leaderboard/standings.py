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


def submissions_by_team(teams: list[str], entries: list[Entry]) -> dict[str, list[int]]:
    """Team → indices (into ``entries``) of its submissions, earliest first (:func:`time_key`), in one pass.

    Every team of ``teams`` is a key (an empty list when it has no submission); entries of a team not in
    ``teams`` are left out. O(N log N) for N submissions: each time is parsed once.
    """
    groups: dict[str, list[int]] = {team: [] for team in teams}
    for i, entry in enumerate(entries):
        mine = groups.get(entry.team)
        if mine is not None:
            mine.append(i)
    keys: dict[int, tuple] = {}
    for mine in groups.values():
        keys.update((i, time_key(entries[i])) for i in mine)
        mine.sort(key=keys.__getitem__)
    return groups


def final_submissions(team: str, mine: list[int], valid: list[int], entries: list[Entry],
                      records: list[dict[str, Any]]) -> tuple[list[int], list[dict[str, Any]]]:
    """The private leaderboard's final submissions of a team and the notes made.

    Args:
        team: the team's name; ``mine``: indices of all its submissions; ``valid``: of its scored ones,
            earliest first; ``entries``, ``records``: every submission and its record.
    """
    notes = []
    scored = set(valid)
    for i in sorted(mine):  # in the entries' order
        if entries[i].selected and i not in scored:
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
    publics = {i: board_score(records[i], "public") for i in valid}  # None: undefined, after every score
    ranked = sorted(valid, key=lambda i: (publics[i] is None, 0.0 if publics[i] is None else -publics[i]))  # stable
    position = {i: k for k, i in enumerate(valid)}
    return sorted(ranked[:MAX_FINAL], key=position.__getitem__), notes


def competition_ranks(scores: list[float]) -> list[int]:
    """Ranks of scores sorted best first: equal scores share the better rank, the next skips (1, 2, 2, 4)."""
    ranks: list[int] = []
    for position, score in enumerate(scores):
        ranks.append(ranks[-1] if position and scores[position - 1] == score else position + 1)
    return ranks


def standings(teams: list[str], entries: list[Entry], records: list[dict[str, Any]],
              board: str) -> list[TeamStanding]:
    """Every team on ``board`` (``public`` or ``private``), in display order (ranked first, by rank).

    Args:
        teams: every team folder's name (teams without submissions included).
        entries: every submission; ``records``: their records (:func:`scorer.record_of`), same order.
        board: which leaderboard ranks the teams.

    Cost: O(N log N + T log T) for N submissions and T teams (submissions are grouped by team once).
    """
    out = []
    groups = submissions_by_team(teams, entries)
    for team in teams:
        mine = groups[team]
        valid = [i for i in mine if records[i].get("status") == "scored"]
        standing = TeamStanding(team, mine, valid)
        if not valid:
            why = "no submissions" if not mine else f"none of its {len(mine)} submissions is valid"
            standing.notes.append(note("NO_VALID_SUBMISSION", f"{team}: {why}"))
        elif board == "public":
            standing.finals = valid
        else:
            standing.finals, standing.notes = final_submissions(team, mine, valid, entries, records)
        standing.chosen = _best(standing.finals, records, board)
        if standing.chosen is not None:
            standing.score = board_score(records[standing.chosen], board)
        elif valid:
            standing.notes.append(note("SCORE_UNDEFINED", f"{team}: no {board} score is defined"))
        out.append(standing)
    ranked = sorted((s for s in out if s.score is not None),
                    key=lambda s: (-s.score, time_key(entries[s.chosen]), s.team))
    for standing, rank in zip(ranked, competition_ranks([s.score for s in ranked])):
        standing.rank = rank
    return ranked + sorted((s for s in out if s.score is None), key=lambda s: s.team)
