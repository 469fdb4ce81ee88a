"""The problems a submission can have: stable codes, their severity in strict and lenient mode (docs/codes.md), what
they mean. Codes never change meaning once released: tools may match on them.

Standard library only, Python >= 3.9: the validator (``submission/problems.py``), the Codabench scoring program and
the exported Kaggle metric judge a problem by this one table.
"""

ERROR, WARNING, INFO = "error", "warning", "info"
MODES = ("strict", "lenient")
"""The validation modes."""

PROBLEM_CODES = (
    # the file as a whole
    ("EMPTY_FILE", ERROR, ERROR, "The file is empty: no header and no rows."),
    ("NOT_TEXT", ERROR, ERROR, "The file is binary data (NUL bytes or UTF-16), not CSV text; nothing after this is read."),
    ("NOT_UTF8", ERROR, ERROR, "A line holds bytes that are not UTF-8 text; the line is skipped."),
    ("COMPRESSED", INFO, INFO, "A zip (one CSV member) or gzip submission, as Kaggle accepts: the CSV inside is read."),
    ("ARCHIVE_UNREADABLE", ERROR, ERROR, "A zip or gzip file that cannot be read: corrupt, encrypted, or a zip without exactly one CSV member."),
    ("ARCHIVE_TOO_LARGE", ERROR, ERROR, "A zip or gzip submission that unpacks to more than 256 MiB (a zip bomb?): unpacking stops there, it is not read."),
    ("BOM", INFO, INFO, "A UTF-8 byte-order mark starts the file (Excel \"CSV UTF-8\"); every CSV reader skips it."),
    ("BOM_INSIDE", ERROR, ERROR, "A UTF-8 byte-order mark starts a line below the first (concatenated files?)."),
    ("CRLF", INFO, INFO, "Windows (CRLF, or CR CR LF from a CSV writer in text mode) or old Mac (CR) line endings: read normally."),
    ("BLANK_LINE", WARNING, WARNING, "An empty or whitespace-only line; it is skipped, as CSV readers do."),
    ("NO_FINAL_NEWLINE", INFO, INFO, "The last line has problems and no line terminator: the file may be cut off."),
    # the header
    ("HEADER_MISSING", ERROR, ERROR, "The first line is a data row, not the header `ID,TopConfigs`; it is read as data."),
    ("HEADER_RENAMED", ERROR, ERROR, "The header names other columns than exactly `ID,TopConfigs`."),
    ("HEADER_REPEATED", ERROR, ERROR, "The header line appears again below the first line (concatenated files?)."),
    ("SEP_LINE", ERROR, ERROR, "The first line is Excel's `sep=` hint, not the header (Kaggle's reader takes it for the header)."),
    ("INDEX_COLUMN", ERROR, ERROR, "A pandas index column before ID (header `,ID,TopConfigs` or `Unnamed: 0,ID,TopConfigs`): one problem for the file."),
    ("WRONG_DELIMITER", ERROR, ERROR, "Columns are separated by a tab or `;` instead of `,` (quoted fields included): one problem for the file."),
    # the shape of a row
    ("EXTRA_COLUMNS", ERROR, ERROR, "A line has more than two comma-separated fields."),
    ("MISSING_COLUMN", ERROR, ERROR, "A line has one field only: no comma between ID and TopConfigs."),
    ("QUOTED_FIELD", INFO, INFO, "RFC 4180 double-quoted fields (pandas QUOTE_NONNUMERIC, Excel): their unquoted values are read."),
    ("MALFORMED_QUOTES", ERROR, ERROR, "Unbalanced or stray double quotes: the line cannot be split into fields."),
    # the ID
    ("UNKNOWN_COLLECTION", ERROR, ERROR, "The ID does not start with one of the five collection prefixes."),
    ("UNKNOWN_ID", ERROR, ERROR, "The ID names no graph of this collection and split (a hint names a near miss)."),
    ("DUPLICATE_ID", ERROR, ERROR, "A second row for an ID that already has one."),
    ("MISSING_IDS", ERROR, ERROR, "Graphs of the split that have no row, counted per collection."),
    # TopConfigs
    ("EMPTY_CONFIGS", ERROR, ERROR, "TopConfigs is empty."),
    ("INDICES_SPACE_SEPARATED", ERROR, ERROR, "Indices joined by spaces (`0 1 2`) instead of `;`: one problem for the file, naming the rows."),
    ("INDICES_AS_LIST", ERROR, ERROR, "Indices written as a Python or numpy list (`[0, 1, 2]`) instead of `0;1;2`: one problem for the file."),
    ("INDICES_COMMA_SEPARATED", ERROR, ERROR, "Indices joined by commas, in a quoted field (`\"0,1,2\"`) or unquoted (`ID,0,1,2`: more columns), instead of `;`: one problem for the file, naming the rows."),
    ("INDICES_ONE_BASED", ERROR, ERROR, "Indices counted from 1: no row lists configuration 0 and rows list c, one past the last index c-1. One problem for the file, an error in lenient mode too (its rows' out-of-range problems are withdrawn)."),
    ("EMPTY_TOKEN", ERROR, ERROR, "An empty entry between separators (`1;;2`) or a leading/trailing `;`."),
    ("NON_INTEGER", ERROR, ERROR, "An entry that is not a plain decimal integer (`3.0`, `1e3`, `abc`, ` 3`, `+3`)."),
    ("NEGATIVE_INDEX", ERROR, WARNING, "A negative configuration index; lenient mode drops it."),
    ("INDEX_OUT_OF_RANGE", ERROR, WARNING, "An index >= the graph's number of configurations c; lenient mode drops it."),
    ("DUPLICATE_INDEX", ERROR, WARNING, "An index listed twice in a row; lenient mode keeps its first occurrence."),
    ("TILE_TOO_MANY", ERROR, WARNING, "A tile row lists more than 10 indices (the Kaggle score uses the first 5, the top-K errors the first K)."),
    ("TILE_TOO_FEW", ERROR, WARNING, "A tile row lists fewer than min(5, c) distinct valid indices."),
    ("LAYOUT_NOT_PERMUTATION", ERROR, WARNING, "A layout row does not list every configuration 0..c-1; lenient mode ranks the listed ones first, the others tied last."),
    ("NO_USABLE_CONFIGS", ERROR, ERROR, "Nothing in the row is a valid index of the graph: there is nothing to score."),
    ("FIELD_TOO_LONG", ERROR, ERROR, "TopConfigs is longer than 8 MiB (over 10 times the longest real field); it is not read."),
    # predictions (``--predictions``, ``score_predictions``) instead of a ranking: errors in both modes
    ("PREDICTIONS_UNREADABLE", ERROR, ERROR, "The predictions file cannot be read as a Parquet or CSV table or an npz archive (corrupt, truncated, not that format)."),
    ("PREDICTIONS_COLUMNS", ERROR, ERROR, "The predictions table does not have exactly the columns `ID`, `config`, `prediction` (one row per graph and configuration)."),
    ("PREDICTION_WRONG_SHAPE", ERROR, ERROR, "A graph's array of predictions is not 1-D of length c (or, with `--configs official`, of the official list's length), or an npz member is larger than any graph needs."),
    ("PREDICTION_BAD_CONFIG", ERROR, ERROR, "A table row's `config` is not an integer 0..c-1 of its graph."),
    ("PREDICTION_DUPLICATE_CONFIG", ERROR, ERROR, "A configuration of a graph has more than one row in the predictions table."),
    ("PREDICTION_MISSING_CONFIGS", ERROR, ERROR, "Configurations of a graph (with `--configs official`: of its sampled configs) have no prediction."),
    ("PREDICTION_NOT_NUMBER", ERROR, ERROR, "A prediction is empty or not a number (`abc`; an array of text or objects)."),
    ("PREDICTION_NAN", ERROR, ERROR, "A prediction is NaN: its order against the others is undefined."),
    ("PREDICTION_INFINITE", ERROR, ERROR, "A prediction is infinite: `inf` ties with `inf`, so it would order nothing (rescale or clip the model's outputs)."),
    ("COLLECTION_ABSENT", WARNING, WARNING, "Rows of a collection the ground truth (data root or solution) lacks for this split: counted, not scored."),
    ("COLLECTION_NOT_SELECTED", INFO, INFO, "Rows of a collection that `--collections` leaves out: counted, not scored."),
    ("GRAPH_NOT_SELECTED", INFO, INFO, "Rows of graphs of the split that `--graphs FILE` leaves out: counted, not scored."),
)
"""(code, severity in strict mode, severity in lenient mode, meaning), in the order docs/codes.md lists them."""

SEVERITY = {mode: {code: row[i] for code, *row in PROBLEM_CODES} for i, mode in enumerate(MODES)}
"""Mode → code → its severity (``error``, ``warning`` or ``info``)."""


def is_error(code, mode):
    """Whether a problem of ``code`` makes a submission invalid under ``mode`` (``strict`` or ``lenient``)."""
    return SEVERITY[mode][code] == ERROR


def preview(values, limit=5):
    """``"3, 7, 9"`` or ``"3, 7, 9, 11, 12, … (40 in all)"``: a short list for messages. Only the first ``limit``
    values are shown: callers may pad a long list with placeholders (``[3, 7, 9, 11, 12] + [None] * 35``)."""
    shown = ", ".join(str(v) for v in values[:limit])
    return shown if len(values) <= limit else f"{shown}, … ({len(values)} in all)"
