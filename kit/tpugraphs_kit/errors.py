"""Errors of the participant kit: each has a stable code and maps to the project's exit codes.

They subclass the evaluator's :class:`tpugraphs_eval.TpuGraphsEvalError`, so one ``except`` catches both, and the
CLIs map every one to an exit code without a traceback. A kit error's code is one of :data:`KIT_ERROR_CODES` (what
only the kit meets) or of :data:`SHARED_CODES` (the evaluator's code where the meaning is the same): one code for
one meaning across the project.
"""

from __future__ import annotations

from tpugraphs_eval import CODES, TpuGraphsEvalError
from tpugraphs_eval.errors import ERROR_CODES, EXIT_INVALID, EXIT_USAGE_OR_DATA
from tpugraphs_eval.submission.problems import markdown_cell

KIT_ERROR_CODES: dict[str, str] = {
    # reading the data (tpugraphs_kit.data, tpugraphs-data info)
    "UNKNOWN_COLLECTION": "A collection name that is none of the five (`tile:xla`, "
                          "`layout:{xla,nlp}:{default,random}`).",
    "UNKNOWN_SPLIT": "A split that is none of train, valid, test.",
    "GRAPH_NOT_FOUND": "No `.npz` file for the graph named (`load_graph`, `Graph`).",
    "MISSING_KEY": "A graph file lacks an array asked for (e.g. `config_feat`).",
    "UNREADABLE_GRAPH": "A graph file cannot be read: not a `.npz`, a damaged member, or not a regular file.",
    "NO_GRAPHS": "`tpugraphs-data list --collection C --split S`: the data root has no graphs of that collection "
                 "and split.",
    # writing submissions (tpugraphs-baseline, write_predictions, combine_submissions)
    "BAD_PREDICTIONS": "Predictions that are not a mapping of submission IDs to finite 1-D arrays of one score per "
                       "configuration.",
    "BAD_SEED": "A random seed that is not an integer from 0 to 2**63 - 1.",
    "BAD_DRAWS": "A negative number of random files for the expected random score.",
    "COLLECTION_NOT_IN_SPLIT": "A per-collection file asked for a collection the split has no graphs of.",
    "SAME_INPUT_TWICE": "`combine`: one input file given twice (under any name, through a link or a hard link).",
    "MISSING_COLLECTIONS": "`combine`: no input has rows of some collections of the split, and no `--fill-random` "
                           "(exit 1).",
    # the learned baseline
    "NO_MODEL": "`learned`: a collection of the split has no training graphs, so no model, and no `--fill-random`.",
    "NO_TRAINING_DATA": "`learned`: no training graph of a collection has varying positive runtimes to learn from.",
    "WRONG_COLLECTION": "A model asked to rank a graph of another collection.",
    "FOLDS_MISMATCH": "`learned --folds`: the fold file does not name every graph of the split once (a graph in no "
                      "fold, or an ID that is not a graph of the split).",
    # downloading and extracting the archives (tpugraphs-data download)
    "DOWNLOAD_FAILED": "An archive could not be fetched: an HTTP error, a missing `file://` source (neither is "
                       "retried), a network error after every retry, a bad resume answer. The message says whether "
                       "a partial file is kept for a resume, and its size.",
    "CHECKSUM_MISMATCH": "`download --base-url`: an archive's sha256 is not the one the address's SHA256SUMS "
                         "lists (or it is not listed, or the file has a line that is not `<sha256>  <name>`): "
                         "nothing of it is extracted and the download is deleted.",
    "TIMED_OUT": "Every attempt stalled (slower than 1 KiB/s, or idle, over `--timeout`), or `--deadline` passed.",
    "SIZE_MISMATCH": "More bytes arrived than the server announced: the partial file is deleted.",
    "ARCHIVE_TOO_LARGE": "An archive over the size or member-count limit, or with a header declaring over 1 MiB: "
                         "nothing is extracted.",
    "UNSAFE_ARCHIVE": "An archive member that is not a folder or regular file under `npz/` (a link, a device, a "
                      "sparse file, a path outside it), or one that appears twice or is both a file and a folder: "
                      "nothing is extracted.",
    "ARCHIVE_OUTSIDE_ITS_FOLDER": "An official archive with a member outside its own collection and split folder "
                                  "(its name says which: `npz_tile_xla_valid.tar` may write only under "
                                  "`npz/tile/xla/valid/`), other than a folder on the way to it: so no archive "
                                  "overwrites another's graphs, plants graphs in another split or blocks another's "
                                  "install. Nothing of it is extracted.",
    "TRUNCATED_ARCHIVE": "An archive without its end-of-archive marker or with a member cut short: nothing is "
                         "extracted.",
    "BAD_ARCHIVE": "A file that is not a readable tar archive, or one with no file under `npz/`.",
    "UNSAFE_TARGET": "A folder of the data root (or `.downloads/`) is a link or a file, a partial download "
                     "(`.part`) is not a regular file (a folder, a FIFO, a device), or a file of the archive would "
                     "replace a folder: nothing is written through it, and it is not retried.",
    "UNSUPPORTED_PLATFORM": "Safe extraction needs descriptor-relative file operations (Linux, macOS).",
}
"""Code → meaning of the codes only the kit raises. Codes are stable: tools may match on them."""

SHARED_CODES = frozenset(ERROR_CODES) | frozenset(CODES) | {"USAGE_ERROR", "INVALID_SUBMISSION"}
"""The evaluator's codes a kit error may carry where the meaning is the same: its data and usage error codes,
the generic ``USAGE_ERROR``, ``INVALID_SUBMISSION`` and the submission problem codes (a refused file)."""


class KitError(TpuGraphsEvalError):
    """A usage or data problem met by the kit (exit code 2).

    Attributes:
        code: a stable upper-case code tools may match on (e.g. ``UNSAFE_ARCHIVE``): a key of
            :data:`KIT_ERROR_CODES`, or one of :data:`SHARED_CODES`.
        exit_code: the CLI exit status.

    Raises:
        ValueError: ``code`` is registered nowhere (a bug in the kit).
    """

    exit_code = EXIT_USAGE_OR_DATA

    def __init__(self, code: str, message: str) -> None:
        if code not in KIT_ERROR_CODES and code not in SHARED_CODES:
            raise ValueError(f"unregistered kit error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


class SubmissionError(KitError):
    """A submission the kit was asked to write or combine fails strict validation (exit code 1).

    Attributes:
        problems: the evaluator's :class:`tpugraphs_eval.Problem` list behind the refusal (may be empty).
    """

    exit_code = EXIT_INVALID

    def __init__(self, code: str, message: str, problems: list | None = None) -> None:
        super().__init__(code, message)
        self.problems = list(problems or [])


class DownloadError(KitError):
    """A download or extraction failed (exit code 2): network error, timeout, size mismatch, an unsafe, truncated
    or too large archive, a link in the data root."""


def kit_error_codes_markdown() -> str:
    """:data:`KIT_ERROR_CODES` as a Markdown table (``| code | meaning |``) in registry order; ``docs/codes.md``
    holds exactly this text."""
    rows = ["| code | meaning |", "|---|---|"]
    rows += [f"| `{code}` | {markdown_cell(meaning)} |" for code, meaning in KIT_ERROR_CODES.items()]
    return "\n".join(rows) + "\n"
