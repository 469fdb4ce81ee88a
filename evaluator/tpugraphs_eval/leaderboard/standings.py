"""Teams from submissions: each team's final submissions, its score on a leaderboard, and ranks with ties.

The rules (public and private scores, final submissions, the daily limit, the order of submissions, ranks and
ties) are Kaggle's with our decisions: docs/leaderboard.md, "Rules".
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from .codes import note
from .folder import Entry
from .record import Record

MAX_FINAL = 2
"""Submissions that count for the private leaderboard (Kaggle: 2)."""
DEFAULT_MAX_DAILY = 5
"""Valid submissions of a team per UTC day scored on the public leaderboard (Kaggle's limit is 5 a day)."""


def _utc(text: str) -> dt.datetime:
    """A time as :func:`folder.parse_time` writes it (``...Z``) → a naive UTC datetime."""
    return dt.datetime.fromisoformat(text.removesuffix("Z"))


def time_key(entry: Entry) -> tuple:
    """Sort key putting earlier submissions first; unknown times last, by file name."""
    if entry.submitted is None:
        return (1, dt.datetime.min, entry.file)
    return (0, _utc(entry.submitted), entry.file)


def over_daily_limit(entries: list[Entry], records: list[Record], max_daily: int) -> dict[int, dict[str, Any]]:
    """The valid submissions not scored on the public leaderboard: index → its ``OVER_DAILY_LIMIT`` note.

    The rule: docs/leaderboard.md, "Rules" (a day from ``submitted``, else :attr:`folder.Entry.modified`); within a
    day, in order of that time, then file name, then ID. A submission with neither time (none in a folder read by
    :func:`folder.read_folder`) is never over. ``max_daily`` 0 or less: no limit, ``{}``. O(N log N).
    """
    if max_daily <= 0:
        return {}
    timed = []
    for i, (entry, record) in enumerate(zip(entries, records, strict=True)):
        when = entry.submitted or entry.modified
        if record.scored and when is not None:
            timed.append((_utc(when), entry.file, entry.id, i))
    seen: dict[tuple[str, dt.date], int] = {}
    over = {}
    for when, _, _, i in sorted(timed):
        entry = entries[i]
        day = (entry.team, when.date())
        seen[day] = seen.get(day, 0) + 1
        if seen[day] > max_daily:
            source = "submitted time" if entry.submitted else "file's modification time (no submitted time)"
            over[i] = note("OVER_DAILY_LIMIT", f"{entry.id}: valid submission {seen[day]} of {entry.team} on "
                                               f"{when.date().isoformat()} (UTC, by its {source}); the limit is "
                                               f"{max_daily} a day: not scored on the public leaderboard")
    return over


@dataclass
class TeamStanding:
    """One team on one leaderboard.

    Attributes:
        team: the team's shown name.
        submissions: indices (into the entries) of all its submissions, earliest first.
        valid: indices of its scored submissions, earliest first.
        finals: the submissions its score is taken over (private: the final ones; public: all valid ones
            within the daily limit).
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


def _best(indices: list[int], records: list[Record], board: str) -> int | None:
    """The index with the highest defined score on ``board``; the earliest among equals (indices are in order)."""
    defined = [i for i in indices if records[i].overall(board) is not None]
    return max(defined, key=lambda i: records[i].overall(board), default=None)


def submissions_by_team(teams: list[str], entries: list[Entry]) -> dict[str, list[int]]:
    """Team → indices (into ``entries``) of its submissions, earliest first (:func:`time_key`), in one pass.

    Every team of ``teams`` is a key (an empty list when it has no submission); entries of a team not in
    ``teams`` are left out. O(N log N) for N submissions: each time is parsed once.
    """
    groups: dict[str, list[int]] = {team: [] for team in teams}
    for i, entry in enumerate(entries):
        if entry.team in groups:
            groups[entry.team].append(i)
    for mine in groups.values():
        mine.sort(key=lambda i: time_key(entries[i]))
    return groups


def final_submissions(team: str, mine: list[int], valid: list[int], entries: list[Entry],
                      records: list[Record], over: dict[int, Any]) -> tuple[list[int], list[dict[str, Any]]]:
    """The private leaderboard's final submissions of ``team`` and the notes made: ``mine`` are the indices of all
    its submissions, ``valid`` of its scored ones, earliest first; ``over`` the submissions over the daily limit
    (:func:`over_daily_limit`), which come after every other when the 2 best public ones are taken."""
    scored = set(valid)
    notes = [note("SELECTED_INVALID", f"{entries[i].id} is selected but was not scored; it does not count")
             for i in sorted(mine) if entries[i].selected and i not in scored]  # in the entries' order
    selected = [i for i in valid if entries[i].selected]
    if len(selected) > MAX_FINAL:
        kept = selected[-MAX_FINAL:]
        notes.append(note("TOO_MANY_SELECTED", f"{team} selected {len(selected)} valid submissions; the "
                                               f"{MAX_FINAL} most recent count: "
                                               + ", ".join(entries[i].file for i in kept)))
        return kept, notes
    if selected:
        return selected, notes
    publics = {i: None if i in over else records[i].overall("public") for i in valid}  # None: after every score
    ranked = sorted(valid, key=lambda i: (publics[i] is None, 0.0 if publics[i] is None else -publics[i]))  # stable
    return sorted(ranked[:MAX_FINAL], key=valid.index), notes


def competition_ranks(scores: list[float]) -> list[int]:
    """Ranks of scores sorted best first: equal scores share the better rank, the next skips (1, 2, 2, 4)."""
    ranks: list[int] = []
    for position, score in enumerate(scores):
        ranks.append(ranks[-1] if position and scores[position - 1] == score else position + 1)
    return ranks


def standings(teams: list[str], entries: list[Entry], records: list[Record],
              board: str, max_daily: int = 0) -> list[TeamStanding]:
    """Every team on ``board`` (``public`` or ``private``), in display order (ranked first, by rank).

    Args:
        teams: every team folder's name (teams without submissions included).
        entries: every submission; ``records``: their records (:func:`scorer.record_of`), same order.
        board: which leaderboard ranks the teams.
        max_daily: the daily limit (:func:`over_daily_limit`; 0: none). On the public board a team's
            ``finals`` are its valid submissions within the limit.

    Cost: O(N log N + T log T) for N submissions and T teams.
    """
    out = []
    groups = submissions_by_team(teams, entries)
    over = over_daily_limit(entries, records, max_daily)
    for team in teams:
        mine = groups[team]
        valid = [i for i in mine if records[i].scored]
        standing = TeamStanding(team, mine, valid)
        if not valid:
            why = "no submissions" if not mine else f"none of its {len(mine)} submissions is valid"
            standing.notes.append(note("NO_VALID_SUBMISSION", f"{team}: {why}"))
        elif board == "public":
            standing.finals = [i for i in valid if i not in over]
        else:
            standing.finals, standing.notes = final_submissions(team, mine, valid, entries, records, over)
        standing.chosen = _best(standing.finals, records, board)
        if standing.chosen is not None:
            standing.score = records[standing.chosen].overall(board)
        elif valid:
            standing.notes.append(note("SCORE_UNDEFINED", f"{team}: no {board} score is defined"))
        out.append(standing)
    ranked = sorted((s for s in out if s.score is not None),
                    key=lambda s: (-s.score, time_key(entries[s.chosen]), s.team))
    for standing, rank in zip(ranked, competition_ranks([s.score for s in ranked]), strict=True):
        standing.rank = rank
    return ranked + sorted((s for s in out if s.score is None), key=lambda s: s.team)
