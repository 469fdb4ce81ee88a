"""Plain reference versions of the leaderboard's standings and bootstrap: what the tests and the bench compare with.

Written from docs/leaderboard.md ("Rules", "Uncertainty and shake-up") alone, in the plainest form: every team
scans all submissions (O(teams x submissions)), a rank is one plus the number of better scores, the daily
limit counts submissions one by one, and the bootstrap loops over submissions, resamples and teams in Python.
It imports nothing of ``tpugraphs_eval``: its inputs are plain dicts, and its outputs plain dicts with what
the rules define (ranks, scores, which submissions count, note codes; not the notes' wording).

A submission is a dict: ``id`` (unique), ``team``, ``file``, ``submitted`` (``YYYY-MM-DDTHH:MM:SS[.f]Z`` or
None), ``modified`` (the file's modification time, same form, or None), ``selected`` (bool), ``status``
(``scored``, ``invalid`` or ``error``) and, for a scored one, ``public`` and ``private`` (its overall on each
leaderboard, None when undefined).
"""

from __future__ import annotations

import datetime as dt

import numpy as np

MAX_FINAL = 2
"""docs/leaderboard.md: "the ones it selected, at most 2"."""
TAILS = (2.5, 97.5)
"""docs/leaderboard.md: "the 95% percentile interval"."""


def _time(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _order(submission: dict) -> tuple:
    """"by `submitted`; unknown times after all known ones, by file name"."""
    if submission["submitted"] is None:
        return (1, dt.datetime.min.replace(tzinfo=dt.timezone.utc), submission["file"])
    return (0, _time(submission["submitted"]), submission["file"])


def over_daily_limit(submissions: list[dict], max_daily: int) -> set[str]:
    """IDs of the valid submissions beyond a team's first ``max_daily`` of one UTC day (by ``submitted``, else the
    file's modification time; in time order, then file name, then ID); none when ``max_daily`` is 0."""
    if max_daily == 0:
        return set()
    over = set()
    for team in {s["team"] for s in submissions}:
        timed = []
        for s in submissions:
            when = s["submitted"] if s["submitted"] is not None else s["modified"]
            if s["team"] == team and s["status"] == "scored" and when is not None:
                timed.append((_time(when), s["file"], s["id"]))
        timed.sort()
        for k, (when, _, sid) in enumerate(timed):
            same_day_before = sum(1 for other, _, _ in timed[:k] if other.date() == when.date())
            if same_day_before >= max_daily:
                over.add(sid)
    return over


def _best(candidates: list[dict], score) -> dict | None:
    """The candidate with the highest defined score; the earliest (first in ``candidates``) among equals."""
    best = None
    for s in candidates:
        if score(s) is not None and (best is None or score(s) > score(best)):
            best = s
    return best


def standings(teams: list[str], submissions: list[dict], board: str, max_daily: int = 0) -> list[dict]:
    """Every team of ``teams`` on ``board`` (``public``/``private``), in display order: dicts ``team, rank, score,
    scored_by`` (an ID or None), ``submissions, valid, finals`` (IDs, earliest first) and ``notes`` (codes)."""
    over = over_daily_limit(submissions, max_daily)

    def public(s: dict) -> float | None:
        return None if s["id"] in over else s["public"]

    score = public if board == "public" else (lambda s: s["private"])
    rows = []
    for team in teams:
        mine = sorted((s for s in submissions if s["team"] == team), key=_order)
        valid = [s for s in mine if s["status"] == "scored"]
        notes: list[str] = []
        finals: list[dict] = []
        if not valid:
            notes.append("NO_VALID_SUBMISSION")
        elif board == "public":
            finals = [s for s in valid if s["id"] not in over]
        else:
            notes += ["SELECTED_INVALID" for s in submissions if s["team"] == team and s["selected"]
                      and s["status"] != "scored"]
            selected = [s for s in valid if s["selected"]]
            if len(selected) > MAX_FINAL:
                notes.append("TOO_MANY_SELECTED")
                finals = selected[-MAX_FINAL:]
            elif selected:
                finals = selected
            else:  # the 2 best public ones; the earlier among equals; no public score after every score
                with_score = [s for s in valid if public(s) is not None]
                without = [s for s in valid if public(s) is None]
                picked = []
                for s in sorted(with_score, key=lambda s: -public(s)) + without:  # sorted() is stable
                    if len(picked) < MAX_FINAL:
                        picked.append(s)
                finals = [s for s in valid if s in picked]
        chosen = _best(finals, score)
        if chosen is None and valid:
            notes.append("SCORE_UNDEFINED")
        rows.append({"team": team, "score": None if chosen is None else score(chosen),
                     "scored_by": None if chosen is None else chosen["id"], "chosen": chosen,
                     "submissions": [s["id"] for s in mine], "valid": [s["id"] for s in valid],
                     "finals": [s["id"] for s in finals], "notes": notes})
    ranked = [r for r in rows if r["score"] is not None]
    for r in ranked:
        r["rank"] = 1 + sum(1 for other in ranked if other["score"] > r["score"])
    ranked.sort(key=lambda r: (r["rank"], _order(r["chosen"]), r["team"]))
    unranked = sorted((r for r in rows if r["score"] is None), key=lambda r: r["team"])
    for r in unranked:
        r["rank"] = None
    for r in rows:
        del r["chosen"]
    return ranked + unranked


def resampled_overall(per_graph: dict[str, np.ndarray], draws: dict[str, np.ndarray]) -> np.ndarray:
    """(B,) overall of one submission per resample: one (B, G) gather per collection."""
    total = count = None
    for name, positions in draws.items():
        values = per_graph[name][positions]
        if np.isnan(per_graph[name]).any():
            defined = ~np.isnan(values)
            n = defined.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.where(defined, values, 0.0).sum(axis=1) / n
        else:
            mean = values.mean(axis=1)
        ok = ~np.isnan(mean)
        total = np.where(ok, mean, 0.0) if total is None else total + np.where(ok, mean, 0.0)
        count = ok.astype(np.int64) if count is None else count + ok
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / count


def team_samples(finals: list[list[dict[str, np.ndarray]]], draws: dict[str, np.ndarray], resamples: int) -> np.ndarray:
    """(T, B): per team, the fmax over its final submissions (each collection → (G,) values) of their overalls."""
    out = np.empty((len(finals), resamples))
    for t, mine in enumerate(finals):
        samples = [resampled_overall(per_graph, draws) for per_graph in mine]
        out[t] = np.fmax.reduce(samples) if samples else np.nan
    return out


def ranks_per_resample(scores: np.ndarray) -> np.ndarray:
    """(T, B) competition ranks, one resample at a time: T - (teams at or below) + 1."""
    teams, resamples = scores.shape
    safe = np.where(np.isnan(scores), -np.inf, scores)
    ranks = np.empty(scores.shape, dtype=np.int64)
    ordered = np.sort(safe, axis=0)
    for b in range(resamples):
        ranks[:, b] = teams - np.searchsorted(ordered[:, b], safe[:, b], side="right") + 1
    return ranks


def tied_with_leader(scores: np.ndarray, ranks: list[int]) -> list[bool]:
    """Per team: the 95% percentile interval of (leader - team) contains 0, one team at a time."""
    safe = np.where(np.isnan(scores), -np.inf, scores)
    leader = ranks.index(1) if 1 in ranks else None
    tied = []
    for t, rank in enumerate(ranks):
        if leader is None:
            tied.append(False)
            continue
        with np.errstate(invalid="ignore"):
            difference = safe[leader] - safe[t]
            difference = np.where(np.isnan(difference), 0.0, difference)
            lo, hi = np.percentile(difference, TAILS)
        tied.append(bool(rank == 1 or lo <= 0.0 <= hi))
    return tied
