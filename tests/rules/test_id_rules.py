"""rules/ids.py: the ID rules, one ledger for the validator and the standalone metric (issue 21 item 4). Before, the
two had their own 88-line loops and said DUPLICATE_ID and MISSING_IDS in different words ("a second row for this ID",
"2 tile:xla graphs have no row"); INDICES_ONE_BASED stood at its line in one and after the rows in the other."""

from __future__ import annotations

import pandas as pd

from tpugraphs_eval.hosting import standalone_metric
from tpugraphs_eval.hosting.kaggle_metric import solution_frame
from tpugraphs_eval.rules.ids import IdLedger, missing_ids
from tpugraphs_eval.submission.validation import validate_submission
from tpugraphs_eval.truth.solution import load_solution


def test_the_ledger_by_hand():
    ledger = IdLedger()
    assert ledger.first(2, "tile:xla:a") is None and ledger.first(3, "tile:xla:b") is None
    assert ledger.first(5, "tile:xla:a") == ("DUPLICATE_ID", "second row for this ID (first at line 2).")
    assert ledger.lines == {"tile:xla:a": 2, "tile:xla:b": 3}
    assert ledger.one_based(zero_listed=False) is None  # no row lists c
    ledger.lists_one_past_end(2, ["INDEX_OUT_OF_RANGE", "NON_INTEGER"])
    ledger.lists_one_past_end(3, ["TILE_TOO_FEW"])
    (code, _, line), withdrawn = ledger.one_based(zero_listed=False)
    assert (code, line, withdrawn) == ("INDICES_ONE_BASED", 2, {2: ["INDEX_OUT_OF_RANGE"], 3: ["TILE_TOO_FEW"]})
    assert ledger.one_based(zero_listed=True) is None  # a row lists 0: the file counts from 0
    graphs = {"tile:xla": ["tile:xla:a", "tile:xla:b", "tile:xla:c"], "layout:nlp:random": ["layout:nlp:random:d"]}
    assert missing_ids(ledger.lines, graphs, "test") == [
        ("tile:xla", ["tile:xla:c"], "1 of the 3 tile:xla test graphs have no row: tile:xla:c."),
        ("layout:nlp:random", ["layout:nlp:random:d"],
         "1 of the 1 layout:nlp:random test graphs have no row: layout:nlp:random:d.")]


def test_the_validator_and_the_standalone_metric_say_the_same(demo_solution):
    """A repeated row, a 1-based file and two graphs without a row, on the demo's test solution: the same problems
    at the same lines in the same order, in the same words (the metric names its graphs "solution" graphs, having no
    split name)."""
    truth = load_solution(demo_solution)
    frame = solution_frame(demo_solution).drop(columns="Usage")
    configs = {graph_id: len(runtimes.split(";")) for graph_id, runtimes in zip(frame.ID, frame.runtimes, strict=True)}
    ids = list(frame.ID)
    del ids[-1], ids[5]  # a layout graph and a tile graph have no row
    rows = [(i, ";".join(str(k + 1) for k in range(min(5, configs[i]) if i.startswith("tile") else configs[i])))
            for i in ids]
    rows.insert(1, rows[0])  # line 3 repeats line 2
    text = "ID,TopConfigs\n" + "".join(f"{i},{c}\n" for i, c in rows)
    validation = validate_submission(text.encode(), truth.catalog)
    package = [(p.line, p.code, p.message.replace(" test graphs", " solution graphs")) for p in validation.problems]
    table = pd.DataFrame(rows, columns=["ID", "TopConfigs"])
    graphs = standalone_metric.read_solution(frame, "ID")
    try:
        standalone_metric.validate(table, graphs, "ID")
    except standalone_metric.ParticipantVisibleError as err:
        metric = [(line, code, message) for line, _, code, message in err.problems]
    assert [code for _, code, _ in package] == ["DUPLICATE_ID", "INDICES_ONE_BASED", "MISSING_IDS", "MISSING_IDS"]
    assert package == metric
    assert package[0] == (3, "DUPLICATE_ID", "second row for this ID (first at line 2).")
