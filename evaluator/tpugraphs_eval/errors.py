"""Exceptions of tpugraphs_eval and the CLI exit codes they map to.

Problems in a *submission* are never raised: they are collected as
:class:`tpugraphs_eval.submission.problems.Problem` values, all in one pass. Exceptions are for what stops the
evaluator from working at all: a bad data root, a bad option.
"""

from __future__ import annotations

EXIT_OK = 0
"""The submission is valid (and was scored, unless only validation was asked for)."""
EXIT_INVALID = 1
"""The submission has at least one error-severity problem."""
EXIT_USAGE_OR_DATA = 2
"""Bad command line, or a data root / ground truth / eval-indices problem: nothing was scored."""
EXIT_INTERNAL = 3
"""A bug in tpugraphs-eval (please report it with the input that caused it)."""


ERROR_CODES: dict[str, str] = {
    # a submission path (UsageError)
    "SUBMISSION_NOT_FOUND": "The submission path does not exist.",
    "SUBMISSION_NOT_A_FILE": "The submission path is not a regular file (a folder, a FIFO, a device such as "
                             "/dev/zero): refused at once, without reading it.",
    "SUBMISSION_TOO_LARGE": "The submission (a file, or bytes or a file object given to the API) is larger than "
                            "256 MiB (as much CSV as a zip or gzip submission may unpack to; a real test "
                            "submission is about 10 MB): not read (a file object is read no further).",
    "SUBMISSION_UNREADABLE": "The submission file cannot be read (permissions, an I/O error).",
    # an organiser's input: a usage file, an eval-indices JSON file, a solution file, a .npz (DataError)
    "INPUT_NOT_A_FILE": "A usage file, eval-indices JSON file, solution file or `.npz` file is not a regular file "
                        "(a folder, a FIFO, a device such as /dev/zero): refused at once, without reading it.",
    "INPUT_TOO_LARGE": "A usage file (over 16 MiB), eval-indices JSON file (over 64 MiB) or solution file (over "
                       "4 GiB) is far larger than a real one: refused without reading it.",
    # the .npz files of a data root (DataError)
    "NPZ_UNREADABLE": "A `.npz` file cannot be read: permission denied, not a zip archive, or a member that is "
                      "not a numpy array.",
    "NPZ_KEY_MISSING": "A `.npz` file lacks `config_runtime` (or, for tile, `config_runtime_normalizers`).",
    "NPZ_ARRAY_INVALID": "A ground-truth array is not a non-empty 1-D integer or float array, or the runtimes and "
                         "normalizers differ in shape.",
    "NPZ_CORRUPT": "A ground-truth member does not decompress: a corrupt deflate stream, a CRC mismatch, or "
                   "fewer bytes than its header declares.",
    "NPZ_ENCRYPTED": "A ground-truth member is encrypted (zip flag bit 0): it is not read.",
    "NPZ_COMPRESSION_UNSUPPORTED": "A ground-truth member uses a compression method other than stored or "
                                   "deflate (the two numpy writes): it is not read.",
    "NPZ_MEMBER_TOO_LARGE": "A ground-truth member declares more than 8 MiB uncompressed (the int64 runtimes of "
                            "1,048,576 configurations, 10 times the largest real graph), its `.npy` header "
                            "declares a shape larger than the member (it is not decompressed: a zip bomb), or it "
                            "holds more than 1,048,576 configurations (the scorable maximum: the longest full "
                            "ranking a TopConfigs field of 8 MiB holds).",
    "NPZ_DUPLICATE_MEMBER": "A `.npz` file stores a member name twice (or both `config_runtime` and "
                            "`config_runtime.npy`): numpy never writes that and which copy is meant is unknown, "
                            "so the file is not read.",
    "NPZ_SPLIT_TOO_LARGE": "The ground-truth members of one split's `.npz` files declare more than 1 GiB "
                           "uncompressed in all (each member is capped at 8 MiB; the real train split, the "
                           "largest, holds well under the limit): every file's declared sizes are summed before "
                           "any member is decompressed, and the message names the split and the file that passed it.",
    "OUT_OF_MEMORY": "The machine ran out of memory (Python's MemoryError) while reading or scoring: the input is "
                     "larger than this machine can hold within the size limits (docs/options.md); nothing is written.",
    # runtimes (DataError)
    "NO_GROUND_TRUTH": "Every runtime of the split is 0: the public test files, which hold no ground truth.",
    "PUBLIC_BOARD_TOO_SMALL": "A public leaderboard build (`tpugraphs-leaderboard build --public-only`) over a "
                              "solution whose public leaderboard holds fewer than 2 graphs with a defined metric "
                              "in all: each overall ranked on it would be one graph's value, so it is refused.",
    "RUNTIME_NOT_POSITIVE": "A runtime or normalizer is not finite and positive.",
    "RUNTIME_OVERFLOW": "A tile runtime / normalizer quotient, or a graph's slowest / fastest runtime ratio, is "
                        "not a finite positive float64 (overflow or underflow): the metrics would be inf or NaN.",
    "RUNTIME_NOT_INT64": "`solution build`: a runtime or normalizer a solution file cannot hold exactly as int64 "
                         "ns: a float that is not a whole number, or an integer of 2^63 or more.",
    # solution files (DataError)
    "SOLUTION_UNREADABLE": "The solution file does not exist, is too short to be Parquet, is not Parquet (no PAR1 "
                           "magic bytes at the start), is cut off (none at the end), has a damaged footer, or holds "
                           "no tpugraphs-eval manifest: the message says which.",
    "SOLUTION_MANIFEST_INVALID": "The solution's manifest has another format (an integer: `true` and `1.0` are "
                                 "refused), or lacks (or mistypes) its split, source, evaluator version, synthetic "
                                 "flag, two sha256 (runtimes, column data) or counts.",
    "SOLUTION_MANIFEST_MISMATCH": "The solution's manifest contradicts its rows: they are exactly the graphs of a "
                                  "split of the bundled synthetic demo, or have the real dataset's graph counts of "
                                  "a split, or are all named by 32 hex digits (test graphs), and the manifest "
                                  "names another split or (demo rows) says synthetic: "
                                  "false. Demo data is never reported as real, nor one split as another.",
    "SOLUTION_SCHEMA_INVALID": "A column of the solution file is missing or of the wrong type (e.g. a boolean or "
                               "float runtime column).",
    "SOLUTION_ROWS_INVALID": "The rows do not form a solution: no rows, an unknown collection, a usage other than "
                             "Public/Private, a graph with missing or repeated configs or two usages.",
    "SOLUTION_CHECKSUM_MISMATCH": "The file disagrees with its manifest: the column data's sha256 (checked before "
                                  "any column is decoded), the runtimes' sha256, or the graph, config or "
                                  "public-graph counts differ (a corrupted or edited file).",
    "OUTPUT_WRITE_FAILED": "An output (a solution file, the JSON or HTML report, an exported file or bundle, a "
                           "kit submission or download folder, a leaderboard folder (its lock file, a generation, "
                           "a `current` it did not write), standard output) cannot be written: an unwritable "
                           "or missing folder, a full disk or device, an existing target that is not a regular "
                           "file (a device, a FIFO, a folder: refused, never replaced; only a stream such as "
                           "`--json` writes into a FIFO or a character device); a file where the output's folder "
                           "must be (`--zip afile/x.zip`, `--html FILE` naming the folder of several pages: "
                           "refused before any work). A file written atomically is left as it was, with no "
                           "partial file beside it.",
    "NO_TEAM_FOLDERS": "`tpugraphs-leaderboard build`: the submissions folder holds no team folder (it is empty, "
                       "or holds only files and hidden entries): an empty leaderboard is refused unless "
                       "`--allow-empty` asks for one; the message says what the folder holds.",
    "OUTPUT_IS_INPUT": "An output path (`--json`, `--html`, `-o`, `--zip`) is the same file as an input (a "
                       "submission, the solution file, the usage file, a graph file a kit command reads, the kit's "
                       "`-o` file for its `--json`), or lies inside the data root's `npz/` folder of graphs: "
                       "refused before any work, so that the report never overwrites what it reports on.",
    "SAME_OUTPUT_TWICE": "Two outputs of one command name the same path (`export codabench -o nb --zip nb`, "
                         "`--json r.html --html r.html`), or one lies inside the other's folder: refused before "
                         "any work, so that neither overwrites the other.",
    "LEADERBOARD_FILE_INVALID": "`export mlebench --kaggle-leaderboard FILE`: the file is unreadable, has no "
                                "`score` column or no private-board row, or holds a score that is not a finite "
                                "number.",
    "DATASET_ZIP_INVALID": "`export mlebench --dataset-zip FILE`: the file is not a readable zip (MLE-bench "
                           "extracts its download with zipfile), or holds no `.npz` file under `npz/` or "
                           "`npz_all/npz/` (not the TpuGraphs download): nothing is written.",
    # `tpugraphs-eval prepare` (UsageError, DataError): nothing is left in the output folder
    "PREPARE_OUTPUT_NOT_EMPTY": "`prepare`: the output folder (`-o DIR`, or the API's public or private folder) "
                                "exists and is not an empty folder: prepare writes into a new or empty folder only.",
    "PREPARE_NO_RUNTIMES": "`prepare`: a source split (`--from`) holds no runtimes (every `config_runtime` is 0: "
                           "the public test files): held-out graphs need ground truth.",
    "PREPARE_TOO_FEW_GRAPHS": "`prepare`: a collection cannot hold out 2 graphs and keep 1 in its source splits "
                              "(too few graphs, or too few programs: a program's graphs stay together), or a "
                              "`--collections` name has no graph in the source splits.",
    "PREPARE_PUBLIC_RUNTIME": "`prepare`: a written public test file holds a runtime other than 0 or a tile "
                              "normalizer other than 1 (the check before the folder is moved into place).",
    "PREPARE_PROGRAM_LEAK": "`prepare`: a graph of a held-out program is still in a public split (train or valid): "
                            "a program must be on one side only.",
    "PREPARE_NAME_CLASH": "`prepare`: two held-out graphs of one collection get the same opaque name (a 128-bit "
                          "collision: choose another seed).",
    "PREPARE_WEAK_SEED": "`prepare`, `export mlebench`: the seed is shorter than 16 characters (`--seed \"\"`, "
                         "`--seed 1`): the opaque test names could be mapped back by trying seeds. Leave `--seed` "
                         "out for a random one, or give `--insecure-seed` for a throwaway run (a warning).",
    # --graphs FILE and fold files (UsageError)
    "GRAPHS_FILE_INVALID": "A `--graphs` file or fold file cannot be used: unreadable, a fold file (`ID,fold`) "
                           "without `--fold K` or without that fold, `--fold` with a plain list of IDs, a repeated "
                           "ID, a fold that is not an integer of 0 or more (lines named).",
    "GRAPHS_FILE_UNKNOWN_ID": "An ID of a `--graphs` file or fold file is not a graph of the split (every such ID "
                              "named with its line).",
    # a submission a command must score (InvalidSubmissionError, exit 1)
    "INVALID_SUBMISSION": "Exit code 1, not 2: a submission that `compare` must score has an error-severity "
                          "problem under the mode in force; nothing is compared, and the message names the "
                          "file(s) and the command that lists the problems.",
    # an optional dependency (the console scripts' guard, entrypoint.py)
    "MISSING_EXTRA": "The command needs an optional dependency that is not installed (polars, pandas or scipy: the "
                     "`organiser` extra, for solution files, Parquet predictions, prepare, exports and leaderboards; "
                     "scipy: also the `kit` extra, for the learned baseline): the message names an extra to install.",
    # the generic codes: an error without a code of its own (DataError, UsageError)
    "DATA_ERROR": "Another problem with the data (a missing or unreadable data root, a usage file that cannot be "
                  "used, ...): the message names the file and what is wrong.",
    "USAGE_ERROR": "Options that do not fit together or cannot be parsed (an unknown option, a bad value, a "
                   "missing argument: every command-line parser error of every entry point), or an option that "
                   "needs another.",
}
"""Code → meaning of the coded :class:`DataError` and :class:`UsageError` raised on purpose (a submission's
content problems have their own codes, :data:`tpugraphs_eval.submission.problems.CODES`). An error without a
code of its own is ``DATA_ERROR`` or ``USAGE_ERROR``. Codes are stable: tools may match on them."""


EXTRAS = {"polars": "organiser", "pandas": "organiser", "pyarrow": "organiser", "scipy": "kit"}
"""Optional dependency (top-level module) → the extra of pyproject.toml that installs it (the core needs numpy and rich
only)."""


def missing_extra(err: ModuleNotFoundError) -> str | None:
    """The ``[MISSING_EXTRA]`` message for an optional dependency that is not installed, or None for another
    module (a broken install: not this error)."""
    module = (err.name or "").partition(".")[0]
    extra = EXTRAS.get(module)
    if extra is None:
        return None
    return (f"[MISSING_EXTRA] this command needs {module}, which is not installed: pip install "
            f"'tpugraphs-eval[{extra}]' (or '.[{extra}]' in a checkout; '[all]' installs every extra)")


class TpuGraphsEvalError(Exception):
    """Base class of every error tpugraphs_eval raises on purpose.

    Args:
        message: what went wrong, naming the file (path, line or ID) it is about.
        code: a key of :data:`ERROR_CODES` (None: the class's generic code, e.g. ``DATA_ERROR``).

    Attributes:
        exit_code: the CLI exit status for this error.
        code: the stable code, or None for the generic one.
    """

    exit_code = EXIT_USAGE_OR_DATA
    code: str | None = None

    def __init__(self, message: str = "", *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            if code not in ERROR_CODES:
                raise ValueError(f"unregistered error code {code!r}")
            self.code = code


class DataError(TpuGraphsEvalError):
    """The data root, a ``.npz`` file, or an eval-indices file cannot be used (exit code 2).

    The message names the file(s) and never contains ground-truth runtimes.
    """


class NoGroundTruthError(DataError):
    """The split's runtimes are all 0: the public test files, which hold no ground truth (exit code 2).

    Validation needs config counts only and still works; each command adds to the message what it can do
    instead (``tpugraphs_eval.commands.no_truth_hint``).
    """

    code = "NO_GROUND_TRUTH"


class UsageError(TpuGraphsEvalError):
    """Options that do not fit together, or a submission path that cannot be read (exit code 2)."""


class InvalidSubmissionError(TpuGraphsEvalError):
    """A submission that a command must score has error-severity problems (exit code 1, code
    ``INVALID_SUBMISSION``); the message names the file(s) and how to list the problems."""

    exit_code = EXIT_INVALID
    code = "INVALID_SUBMISSION"


def error_codes_markdown() -> str:
    """:data:`ERROR_CODES` as a Markdown table (``| code | meaning |``) in registry order; ``docs/codes.md``
    holds exactly this text (``tpugraphs-eval codes --errors --markdown``)."""
    rows = [f"| `{code}` | " + meaning.replace("|", "\\|") + " |" for code, meaning in ERROR_CODES.items()]
    return "\n".join(["| code | meaning |", "|---|---|", *rows]) + "\n"
