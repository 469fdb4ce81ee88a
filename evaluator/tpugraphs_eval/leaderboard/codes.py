"""The leaderboard's own problem codes: about files, metadata and selections, not about CSV content.

A submission's content problems keep the evaluator's codes (:data:`tpugraphs_eval.CODES`); these codes
cover what only a folder of submissions can get wrong. Codes are stable: tools may match on them.
"""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from ..submission.problems import markdown_cell

LEADERBOARD_CODES: dict[str, tuple[str, str]] = {
    "SUBMISSION_UNREADABLE": ("error", "The submission file cannot be read (permissions, vanished): it is "
                                       "recorded unscored."),
    "SUBMISSION_TOO_LARGE": ("error", "The submission file is larger than --max-size (default 64 MiB): it is "
                                      "recorded unscored, without being read."),
    "SUBMISSION_SYMLINK": ("error", "The submission file is a symbolic link, or it or its team folder became one "
                                    "after the folder was listed: the link is not followed, nothing is read, it is "
                                    "recorded unscored."),
    "SUBMISSION_HARDLINK": ("error", "The submission file has more than one name (a hard link, possibly to a file "
                                     "outside the folder): it is not read and is recorded unscored."),
    "SUBMISSION_NOT_REGULAR": ("error", "The submission is not a regular file (a FIFO, device or socket, or a "
                                        "folder swapped in after the folder was listed): not read, recorded "
                                        "unscored."),
    "PROBLEMS_NOT_LISTED": ("warning", "The submission has more problems than the leaderboard lists (100): the "
                                       "rest are counted in problem_counts, not listed."),
    "METADATA_INVALID": ("warning", "The metadata file (or one of its fields) is unusable: those fields keep "
                                    "their defaults (time unknown, no description, not selected)."),
    "TEAM_NAMES_MERGED": ("warning", "Team folders whose names are equal after Unicode NFC normalisation and "
                                     "case folding are one team, shown under the first folder's name."),
    "TEAM_FOLDER_NOT_READ": ("warning", "A team folder that is not read: a symbolic link (not followed), a FIFO, "
                                        "device or socket in its place, or a folder that cannot be listed. The team "
                                        "is listed, without its submissions."),
    "IGNORED_ENTRY": ("warning", "An entry of the submissions folder that is not a submission (a file at the top "
                                 "level, a file named neither .csv, .gz, .zip nor as a submission's metadata, a "
                                 "nested folder, a hidden entry)."),
    "TOO_MANY_SELECTED": ("warning", "A team selected more than 2 submissions: the 2 most recent selected valid ones "
                                     "count (Kaggle allows 2)."),
    "SELECTED_INVALID": ("warning", "A selected submission is invalid or unscored: it cannot count for the private "
                                    "leaderboard."),
    "OVER_DAILY_LIMIT": ("warning", "A valid submission beyond the team's first --max-daily (default 5) of one UTC "
                                    "day, by its submitted time or, without one, its file's modification time: it is "
                                    "not scored on the public leaderboard (nor taken as one of the 2 best public "
                                    "ones); it may still be selected for the private leaderboard."),
    "NO_VALID_SUBMISSION": ("warning", "The team has no valid submission: it is listed without a rank."),
    "SCORE_UNDEFINED": ("warning", "A valid submission whose leaderboard score is undefined (every collection "
                                   "undefined on that leaderboard's graphs): it cannot rank."),
    "CACHE_ENTRY_CORRUPT": ("warning", "A row of the leaderboard store (a record, a file's stat, a metadata file's "
                                       "fields, resampled overalls) fails its checksum: it is not used, the file is "
                                       "read and the submission scored again. Printed by the build, not part of the "
                                       "leaderboard."),
    "CACHE_SET_ASIDE": ("warning", "The store file (OUT/.cache/leaderboard.sqlite) is not a store of this version "
                                   "(damaged, another program's database, another schema, not a regular file): it is "
                                   "renamed leaderboard.sqlite.set-aside and a new one made; every submission is "
                                   "scored again. Printed by the build, not part of the leaderboard."),
    "CACHE_ENTRY_UNWRITABLE": ("warning", "The store cannot be made or written (a full disk, no permission): the "
                                          "build goes on without keeping what it scored, which the next build scores "
                                          "again. Printed by the build, not part of the leaderboard."),
    "BUILD_LOCKED": ("error", "Another build is writing into the same output folder (it holds OUT/.lock) or using "
                              "the same store: this build stops with exit code 2 and writes nothing."),
    "OUTPUT_NOT_A_FOLDER": ("error", "The output (-o) is not a folder: an existing file or link (e.g. an earlier "
                                     "build's OUT/leaderboard.csv), or a path under a file. The leaderboard's files "
                                     "are written into the folder -o names; exit code 2, nothing is written."),
}
"""Code → (severity, meaning)."""


def leaderboard_codes_markdown() -> str:
    """The leaderboard's codes as a Markdown table (``| code | severity | meaning |``) in registry order;
    ``docs/codes.md`` holds exactly this text (``tpugraphs-leaderboard codes --markdown``)."""
    rows = ["| code | severity | meaning |", "|---|---|---|"]
    rows += [f"| `{code}` | {severity} | {markdown_cell(meaning)} |"
             for code, (severity, meaning) in LEADERBOARD_CODES.items()]
    return "\n".join(rows) + "\n"


def note(code: str, message: str) -> dict[str, Any]:
    """A leaderboard problem as a dict ``{code, severity, message}`` (the shape of a report's problems)."""
    severity, _ = LEADERBOARD_CODES[code]
    return {"code": code, "severity": severity, "message": message}


class BuildLocked(UsageError):
    """Another build holds the output folder's lock or the store (exit code 2, code ``BUILD_LOCKED``)."""

    code = "BUILD_LOCKED"
