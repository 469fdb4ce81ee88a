"""The submissions folder: one sub-folder per team holding CSV files, each with optional metadata.

Layout (docs/leaderboard.md)::

    SUBMISSIONS_DIR/
      <team>/              the folder name is the team name
        <name>.csv         one submission (any file name ending in .csv, case-insensitive)
        <name>.json        optional metadata of <name>.csv (same stem; suffixes in any case):
                           {"submitted": "2023-11-17T12:00:00Z", "description": "...", "selected": true}

Everything else found there is not a submission and is recorded as ``IGNORED_ENTRY`` with the reason
(a file at the top level, a file that is neither ``.csv`` nor the metadata of one, a nested folder,
a symbolic link, a hidden entry): nothing is skipped silently. Names come from the file system and
are untrusted: they are only ever *shown* (escaped by each renderer), never used to build a path.
Team folders whose names are equal after Unicode NFC normalisation and case folding (``Café``/``CAFÉ``,
precomposed or not) are one team, shown under the first one's name, with a ``TEAM_NAMES_MERGED`` note.
Metadata is read like submissions (:mod:`reading`: no link followed) as UTF-8 with or without a BOM; any
fault of one file (bad encoding, nesting too deep, a time out of range) is a ``METADATA_INVALID`` note on
that submission, never an error of the build.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..display import safe
from ..errors import UsageError
from .codes import note
from .reading import RefusedFile, read_file

METADATA_KEYS = ("submitted", "description", "selected")
MAX_METADATA_BYTES = 64 * 1024
"""A metadata file larger than this is not read (it is recorded as ``METADATA_INVALID``)."""


_NAME_ESCAPES = {ord("\\"): "\\\\", **{code: f"\\x{code - 0xDC00:02x}" for code in range(0xDC80, 0xDD00)}}
"""A backslash doubled; an undecodable byte (surrogateescape's stand-in U+DC80..U+DCFF) as ``\\xNN``."""


def display_name(name: str) -> str:
    """A file-system name made showable: a backslash doubled, undecodable bytes as ``\\xNN``, control and
    invisible characters escaped (:func:`display.safe`), a newline too (``\\x0a``). So the escaping is
    one-to-one: two teams cannot look alike through a zero-width character or a name spelling an escape
    (a folder ``a\\x0ab`` shows as ``a\\\\x0ab``, one with a newline as ``a\\x0ab``), and every output
    (CSV, Markdown, JSON, HTML, the terminal) shows the same one-line name."""
    text = os.fsencode(name).decode("utf-8", "surrogateescape").translate(_NAME_ESCAPES)
    return safe(text, keep_newline=False)


@dataclass
class Entry:
    """One submission file found in the folder.

    Attributes:
        team: the team's name as shown (the folder name, made showable by :func:`display_name`).
        file: the file name as shown.
        path: where it is (read only by the scorer; never used to build an output path).
        submitted: submission time, UTC, ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``, or None when unknown.
        description: the metadata's description ("" when none).
        selected: True when the metadata marks it as selected for the final (private) leaderboard.
        notes: leaderboard problems of this entry (metadata faults), as :func:`codes.note` dicts.
        folder: the shown name of the team folder holding it (differs from ``team`` when merged).
    """

    team: str
    file: str
    path: Path
    submitted: str | None = None
    description: str = ""
    selected: bool = False
    notes: list[dict[str, Any]] = field(default_factory=list)
    folder: str = ""

    @property
    def id(self) -> str:
        """``folder/file`` (the team folder's shown name): how the leaderboard names this submission."""
        return f"{self.folder or self.team}/{self.file}"


@dataclass
class Folder:
    """What :func:`read_folder` found.

    Attributes:
        teams: every team's shown name, sorted (teams without a submission included; folders whose names
            are one team after :func:`team_key` appear once, as the first of them).
        entries: every submission, sorted by (team, file name).
        ignored: entries that are not submissions, each a :func:`codes.note` dict with a ``path``.
        team_notes: team → notes about the team itself (``TEAM_NAMES_MERGED``).
    """

    teams: list[str]
    entries: list[Entry]
    ignored: list[dict[str, Any]]
    team_notes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def parse_time(text: object) -> str:
    """An ISO-8601 time as UTC text ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``; a time without a zone is read as UTC.

    Raises:
        ValueError: not a string, or not an ISO-8601 date and time.
    """
    if not isinstance(text, str):
        raise ValueError(f"`submitted` must be an ISO-8601 string, not {type(text).__name__}")
    when = dt.datetime.fromisoformat(text.strip())
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    try:
        return when.astimezone(dt.timezone.utc).replace(tzinfo=None).isoformat() + "Z"
    except OverflowError:  # 0001-01-01T00:00+01:00 is before year 1 in UTC
        raise ValueError(f"{text.strip()[:40]} is out of range in UTC (years 1 to 9999)") from None


MAX_METADATA_DEPTH = 8
"""Deepest ``[``/``{`` nesting read in a metadata file (a valid one has depth 1); deeper is a note."""
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _nesting_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in JSON ``text``, brackets inside strings not counted."""
    depth = deepest = 0
    for char in _JSON_STRING.sub("", text):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def read_metadata(path: Path, entry: Entry) -> None:
    """Fill ``entry`` from its metadata file; each unusable field is recorded and left at its default."""
    def bad(message: str) -> None:
        entry.notes.append(note("METADATA_INVALID", f"{entry.team}/{display_name(path.name)}: {message}"))

    try:
        text = read_file(path, MAX_METADATA_BYTES).decode("utf-8-sig")
    except RefusedFile as refused:
        return bad(f"{refused.reason}; ignored")
    except UnicodeDecodeError as err:
        return bad(f"not UTF-8 (byte {err.start}); ignored")
    if _nesting_depth(text) > MAX_METADATA_DEPTH:  # the same note on every Python (3.13 parses deeper than 3.11)
        return bad(f"JSON nested more than {MAX_METADATA_DEPTH} levels deep (nested too deeply); ignored")
    try:
        data = json.loads(text)
    except RecursionError:
        return bad("JSON nested too deeply to read; ignored")
    except ValueError as err:
        return bad(f"not JSON ({safe(str(err))[:120]}); ignored")
    if not isinstance(data, dict):
        return bad(f"a JSON object is expected, not {type(data).__name__}; ignored")
    unknown = sorted(str(k) for k in data if k not in METADATA_KEYS)
    if unknown:
        bad(f"unknown keys {', '.join(safe(k)[:40] for k in unknown[:5])} (known: {', '.join(METADATA_KEYS)})")
    if "submitted" in data:
        try:
            entry.submitted = parse_time(data["submitted"])
        except ValueError as err:
            bad(f"`submitted`: {safe(str(err))[:200]}; the time is unknown")
    if "description" in data:
        if isinstance(data["description"], str):
            entry.description = safe(data["description"])
        else:
            bad("`description` must be a string; ignored")
    if "selected" in data:
        if isinstance(data["selected"], bool):
            entry.selected = data["selected"]
        else:
            bad("`selected` must be true or false; read as false")


def _ignored(path: str, why: str) -> dict[str, Any]:
    return {"path": path, **note("IGNORED_ENTRY", f"{path}: {why}")}


def _kind(path: Path) -> str:
    """``file``, ``dir``, ``link`` or ``other``, without following links."""
    mode = path.lstat().st_mode
    return ("link" if stat.S_ISLNK(mode) else "dir" if stat.S_ISDIR(mode)
            else "file" if stat.S_ISREG(mode) else "other")


def _listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder), key=lambda n: os.fsencode(n))


def read_folder(root: Path) -> Folder:
    """Find every team and submission under ``root`` (layout in the module docstring).

    Raises:
        UsageError: ``root`` is not a readable folder.
    """
    root = Path(root)
    if not root.is_dir():
        raise UsageError(f"the submissions folder {root} does not exist or is not a folder")
    try:
        top = _listing(root)
    except OSError as err:
        raise UsageError(f"cannot list the submissions folder {root}: {err.strerror or err}") from None
    teams, entries, ignored = [], [], []
    for raw_team in top:
        team = display_name(raw_team)
        team_path = root / raw_team
        kind = _kind(team_path)
        if raw_team.startswith("."):
            ignored.append(_ignored(team, "hidden entry at the top level (team folders do not start with '.')"))
            continue
        if kind != "dir":
            why = {"link": "a symbolic link (team folders must be real folders)",
                   "file": "a file at the top level (submissions go in a team folder)"}.get(kind, "not a folder")
            ignored.append(_ignored(team, why))
            continue
        teams.append(team)
        try:
            names = _listing(team_path)
        except OSError as err:
            ignored.append(_ignored(team, f"the team folder cannot be listed ({err.strerror or err})"))
            continue
        metadata = {n[:-5]: n for n in names if n.lower().endswith(".json")}
        stems = {n[:-4] for n in names if n.lower().endswith(".csv")}
        for raw in names:
            shown = f"{team}/{display_name(raw)}"
            path = team_path / raw
            kind = _kind(path)
            is_csv, is_meta = raw.lower().endswith(".csv"), raw.lower().endswith(".json")
            if raw.startswith("."):
                ignored.append(_ignored(shown, "hidden entry"))
            elif kind == "link":
                ignored.append(_ignored(shown, "a symbolic link (submissions must be regular files)"))
            elif kind == "dir":
                ignored.append(_ignored(shown, "a folder inside a team folder (not read)"))
            elif is_meta and raw[:-5] in stems:
                continue  # read with its CSV below
            elif not is_csv or kind != "file":
                why = ("metadata without a CSV of the same name" if is_meta else
                       "not a regular file" if is_csv else "not a .csv file")
                ignored.append(_ignored(shown, why))
            else:
                entry = Entry(team, display_name(raw), path)
                meta = metadata.get(raw[:-4])
                if meta is not None:
                    read_metadata(team_path / meta, entry)
                entries.append(entry)
    return _merge_teams(Folder(teams, entries, ignored))


def team_key(name: str) -> str:
    """The key under which team names are one team: NFC, case folded, NFC again (Unicode's canonical
    caseless match, The Unicode Standard §3.13)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def _merge_teams(found: Folder) -> Folder:
    """Team folders with the same :func:`team_key` become one team named as the first (in listing order)."""
    first: dict[str, str] = {}
    merged: dict[str, list[str]] = {}
    for team in found.teams:
        canonical = first.setdefault(team_key(team), team)
        merged.setdefault(canonical, []).append(team)
    rename = {t: canonical for canonical, names in merged.items() for t in names}
    for entry in found.entries:
        entry.folder, entry.team = entry.team, rename[entry.team]
    notes = {canonical: [note("TEAM_NAMES_MERGED", f"team folders {', '.join(names)} are one team (names equal "
                                                   f"after NFC normalisation and case folding), shown as {canonical}")]
             for canonical, names in merged.items() if len(names) > 1}
    return Folder(list(merged), found.entries, found.ignored, notes)
