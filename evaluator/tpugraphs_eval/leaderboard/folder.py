"""The submissions folder: one sub-folder per team holding submission files, each with optional metadata.

Layout and rules (which entries are submissions, metadata, ignored entries and notes, hostile names, merged teams):
docs/leaderboard.md, "The submissions folder"::

    SUBMISSIONS_DIR/<team>/<name>.csv   (or .gz, .zip; any case) one submission
    SUBMISSIONS_DIR/<team>/<name>.json  its optional metadata (:func:`submission_stem`):
                                        {"submitted": "2023-11-17T12:00:00Z", "description": "...", "selected": true}

Names are untrusted: only ever *shown* (:func:`display_name`, then escaped by each renderer), never used to build a
path. Files are read as :mod:`reading` reads them (no link followed).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import re
import stat
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..display import safe
from ..errors import UsageError
from ..safeopen import file_type_in_words
from .codes import note
from .reading import RefusedFile, read_file_stat, refusal

if TYPE_CHECKING:
    from .store import Store

SUBMISSION_SUFFIXES = (".csv", ".gz", ".zip")
"""A file of a team folder whose name ends in one of these (any case) is a submission, read exactly as
``tpugraphs-eval`` reads one (a gzip or zip file too: :mod:`..submission.compressed`)."""
NOT_A_SUBMISSION = "not a submission file (a name ending in .csv, .gz or .zip)"
METADATA_KEYS = ("submitted", "description", "selected")
MAX_METADATA_BYTES = 64 * 1024
"""A metadata file larger than this is not read (it is recorded as ``METADATA_INVALID``)."""
_NAME_ESCAPES = {ord("\\"): "\\\\", **{code: f"\\x{code - 0xDC00:02x}" for code in range(0xDC80, 0xDD00)}}
"""A backslash doubled; an undecodable byte (surrogateescape's stand-in U+DC80..U+DCFF) as ``\\xNN``."""


def display_name(name: str) -> str:
    """A file-system name made showable: a backslash doubled, undecodable bytes as ``\\xNN``, control and
    invisible characters escaped (:func:`display.safe`), a newline too (``\\x0a``). One-to-one (a folder
    ``a\\x0ab`` shows as ``a\\\\x0ab``, one with a newline as ``a\\x0ab``); one line in every output."""
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
        modified: the file's modification time when listed (``lstat``), UTC, in the form of ``submitted``;
            used only to place a submission without ``submitted`` in a day for the daily limit
            (:func:`standings.over_daily_limit`), never shown (it differs between clones). None when unknown.
    """

    team: str
    file: str
    path: Path
    submitted: str | None = None
    description: str = ""
    selected: bool = False
    notes: list[dict[str, Any]] = field(default_factory=list)
    folder: str = ""
    modified: str | None = None

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
        team_notes: team → notes about the team itself (``TEAM_NAMES_MERGED``, ``TEAM_FOLDER_NOT_READ``).
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
    steps = (1 if char in "[{" else -1 if char in "]}" else 0 for char in _JSON_STRING.sub("", text))
    return max(itertools.accumulate(steps, initial=0))


def read_metadata(path: Path, entry: Entry, memory: Store | None, info: os.stat_result | None) -> None:
    """Fill ``entry`` from its metadata file; each unusable field is recorded and left at its default.

    With ``memory``, a file whose ``lstat`` (``info``, taken by the caller when listing; None when it failed) shows
    the size, mtime (ns) and inode it had when last read is not read again: what it gave then is used
    (docs/leaderboard.md, "Warm rebuilds"); a file read is remembered.
    """
    if memory is not None and info is not None and refusal(info, MAX_METADATA_BYTES) is None:  # read_file_stat reads it
        known = memory.known("metadata", path, info)  # as kept below (the store checks its checksum)
        if known is not None:
            fields = json.loads(known)
            entry.submitted, entry.description = fields["submitted"], fields["description"]
            entry.selected = fields["selected"]
            entry.notes.extend(fields["notes"])
            return
    notes = len(entry.notes)

    def bad(message: str) -> None:
        entry.notes.append(note("METADATA_INVALID", f"{entry.team}/{display_name(path.name)}: {message}"))

    try:
        data, info = read_file_stat(path, MAX_METADATA_BYTES)
        text = data.decode("utf-8-sig")
    except RefusedFile as refused:
        return bad(f"{refused.reason}; ignored")
    except UnicodeDecodeError as err:
        bad(f"not UTF-8 (byte {err.start}); ignored")
    else:
        _parse_metadata(text, entry, bad)
    if memory is not None:
        kept = {"submitted": entry.submitted, "description": entry.description, "selected": entry.selected,
                "notes": entry.notes[notes:]}
        memory.remember("metadata", path, info, json.dumps(kept, sort_keys=True))


def _parse_metadata(text: str, entry: Entry, bad: Callable[[str], None]) -> None:
    """Fill ``entry`` from a metadata file's ``text``, calling ``bad`` with the message of each fault."""
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


def submission_stem(name: str) -> str | None:
    """The stem a submission shares with its metadata file, or None when ``name`` is not a submission's.

    A submission's name ends in one of :data:`SUBMISSION_SUFFIXES` (any case); its stem is the name without
    ``.gz`` or ``.zip`` and then without ``.csv``: ``a`` for ``a.csv``, ``a.csv.gz``, ``a.gz``, ``a.csv.zip``
    and ``a.zip`` (Kaggle's own download is ``sample_submission.csv.zip``)."""
    lower = name.lower()
    if not lower.endswith(SUBMISSION_SUFFIXES):
        return None
    if lower.endswith((".gz", ".zip")):
        name = name[:name.rfind(".")]
    return name[:-4] if name.lower().endswith(".csv") else name


def _kind(path: Path) -> tuple[str, str]:
    """(``file``, ``dir``, ``link`` or ``other``, also when gone; the file type in words), no link followed."""
    try:
        mode = path.lstat().st_mode
    except OSError as err:
        return "other", f"gone or unreadable ({err.strerror or err})"
    return _kind_of(mode), file_type_in_words(mode) or "a regular file"


def _kind_of(mode: int) -> str:
    return "link" if stat.S_ISLNK(mode) else "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def _lstat(path: str | Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:  # gone since the listing, or unreadable: ``other``, and no modification time
        return None


def _modified(info: os.stat_result | None) -> str | None:
    """The modification time of a file of that ``lstat`` (None: it could not be looked at), UTC, as
    :func:`parse_time` writes times; None when unknown (the scorer then records the file as unreadable)."""
    try:
        return (dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=info.st_mtime_ns // 1000)).isoformat() + "Z"
    except (AttributeError, OverflowError):  # not looked at, or a time outside years 1 to 9999
        return None


def _listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder), key=os.fsencode)


def read_folder(root: Path, memory: Store | None = None) -> Folder:
    """Find every team and submission under ``root`` (layout in the module docstring); metadata files already
    read are taken from ``memory`` when their stat is unchanged (:func:`read_metadata`).

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
    teams, entries, ignored, team_notes = [], [], [], {}
    for raw_team in top:
        team = display_name(raw_team)
        team_path = root / raw_team
        kind, words = _kind(team_path)
        if raw_team.startswith("."):
            ignored.append(_ignored(team, "hidden entry at the top level (team folders do not start with '.')"))
            continue
        if kind == "file":
            ignored.append(_ignored(team, "a file at the top level (submissions go in a team folder)"))
            continue
        teams.append(team)  # a team folder, or what stands in its place (a link, a FIFO): the team is listed
        names, what = None, "is a symbolic link, not followed" if kind == "link" else f"is {words}, not a folder"
        if kind == "dir":
            try:
                names = _listing(team_path)
            except OSError as err:
                what = f"cannot be listed ({err.strerror or err})"
        if names is None:
            team_notes[team] = [note("TEAM_FOLDER_NOT_READ", f"the team folder {team} {what}: no submission of it "
                                                             "is read")]
            continue
        found, skipped = _read_team(team, team_path, names, memory)
        entries += found
        ignored += skipped
    return _merge_teams(Folder(teams, entries, ignored, team_notes))


def _read_team(team: str, team_path: Path, names: list[str],
               memory: Store | None) -> tuple[list[Entry], list[dict[str, Any]]]:
    """The submissions (with their metadata read) and the ignored entries of one team folder's ``names``. Every
    entry named as a submission (:func:`submission_stem`) but a folder is one, a link or FIFO too: the scorer refuses
    to read it with a coded problem on that submission (:mod:`reading`), where the team looks for it."""
    stats = {raw: _lstat(os.path.join(team_path, raw)) for raw in names}  # one lstat per name
    kinds = {raw: "other" if info is None else _kind_of(info.st_mode) for raw, info in stats.items()}
    visible = [raw for raw in names if not raw.startswith(".") and kinds[raw] != "dir"]
    owners: dict[str, list[str]] = defaultdict(list)  # stem → the submissions of that stem
    metadata: dict[str, list[str]] = defaultdict(list)  # stem → the metadata files of that stem
    for raw in visible:
        if (stem := submission_stem(raw)) is not None:
            owners[stem].append(raw)
    for raw in visible:
        if raw.lower().endswith(".json") and raw[:-5] in owners:
            metadata[raw[:-5]].append(raw)
    entries, ignored = [], []
    for raw in names:
        file = display_name(raw)
        shown = f"{team}/{file}"
        stem = submission_stem(raw)
        if raw.startswith("."):
            ignored.append(_ignored(shown, "hidden entry"))
        elif kinds[raw] == "dir":
            ignored.append(_ignored(shown, "a folder inside a team folder (not read)"))
        elif stem is not None:
            entry = Entry(team, file, team_path / raw, modified=_modified(stats[raw]))
            _attach_metadata(entry, team_path, owners[stem], metadata[stem], memory, stats)
            entries.append(entry)
        elif raw.lower().endswith(".json") and raw[:-5] in owners:
            continue  # read with its submission
        else:
            ignored.append(_ignored(shown, "metadata without a submission of the same stem"
                                    if raw.lower().endswith(".json") else NOT_A_SUBMISSION))
    return entries, ignored


def _attach_metadata(entry: Entry, team_path: Path, owners: list[str], files: list[str], memory: Store | None,
                     stats: dict[str, os.stat_result | None]) -> None:
    """Read the one metadata file of ``entry``; a metadata file shared by several submissions of one stem
    (``a.csv`` and ``a.csv.gz``), or several metadata files of one stem (``a.json``, ``a.JSON``), are
    ``METADATA_INVALID`` notes instead: which submission or file was meant is unknown."""
    if not files:
        return
    shown = ", ".join(display_name(f) for f in files)
    if len(owners) > 1:
        entry.notes.append(note("METADATA_INVALID", f"{entry.team}/{shown}: the metadata of {len(owners)} submissions "
                                f"({', '.join(display_name(o) for o in owners)}); ignored (give each its own stem)"))
    elif len(files) > 1:
        entry.notes.append(note("METADATA_INVALID", f"{entry.team}/{entry.file}: {len(files)} metadata files "
                                f"({shown}); ignored (keep one)"))
    else:
        read_metadata(team_path / files[0], entry, memory, stats[files[0]])


def team_key(name: str) -> str:
    """The key under which team names are one team: NFC, case folded, NFC again (Unicode's canonical
    caseless match, The Unicode Standard §3.13)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def _merge_teams(found: Folder) -> Folder:
    """Team folders with the same :func:`team_key` become one team named as the first (in listing order)."""
    merged: dict[str, list[str]] = {}  # team_key → the folders' names, the first one's shown
    for team in found.teams:
        merged.setdefault(team_key(team), []).append(team)
    rename = {t: names[0] for names in merged.values() for t in names}
    for entry in found.entries:
        entry.folder, entry.team = entry.team, rename[entry.team]
    notes: dict[str, list[dict[str, Any]]] = {}
    for names in merged.values():
        mine = [n for name in names for n in found.team_notes.get(name, [])]
        if len(names) > 1:
            mine.insert(0, note("TEAM_NAMES_MERGED", f"team folders {', '.join(names)} are one team (names equal "
                                                     f"after NFC normalisation and case folding), shown as {names[0]}"))
        if mine:
            notes[names[0]] = mine
    return Folder([names[0] for names in merged.values()], found.entries, found.ignored, notes)
