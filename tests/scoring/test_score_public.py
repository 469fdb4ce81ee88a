"""``tpugraphs-eval SUB --solution S --public-only``: the scorer's participant-facing view (rules.public_rule).

Every output (JSON, terminal, HTML page, the API's Report) is scanned: no graph name of the split, no
per-graph number (every metric of every graph, from each submission scored alone by ``score_submission``),
no private value; the only decimals are the public overall and the shown collections' values and
references. The problems and missing IDs are the organiser view's, found over the whole split.
"""

from __future__ import annotations

import json
import re

import pytest
from leaderboard_helpers import rows_for
from public_scan import graph_names, numbers, scored_values

from tpugraphs_eval.api import Evaluator
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.errors import UsageError
from tpugraphs_eval.report.public import PUBLIC_REPORT_FIELDS, PublicReport
from tpugraphs_eval.truth.solution import build_solution, load_solution


def _allowed(document: dict) -> set[str]:
    """Every way a shown number is written: repr (JSON) and 3, 4 or 6 decimals (terminal, HTML)."""
    values = [document["overall"], *document["collections"].values(), *document["normalised"].values()]
    for d in document["collection_details"].values():
        # only the primary value and references: no secondary mean, no means_over (a top-10 error's count
        # would tell which graphs are public to a file listing 10 indices on chosen tile rows)
        assert set(d) <= {"metric", "value", "n_graphs", "random", "oracle", "normalised"}, d
        values += [d["value"], d.get("random"), d.get("oracle"), d.get("normalised")]
    return {text for v in values if v is not None for text in (repr(float(v)), *(f"{v:.{k}f}" for k in (3, 4, 6)))}


@pytest.mark.parametrize("fraction", [None, 0.7], ids=["demo-split", "two-public-graphs-each"])
def test_every_public_output_holds_no_graph_and_no_per_graph_number(demo_root, demo_solution, tmp_path, capsys,
                                                                     fraction):
    solution = demo_solution
    if fraction is not None:  # 2 of the 3 graphs of each layout collection public: every collection is shown
        solution = tmp_path / "solution.parquet"
        build_solution(demo_root, "test", solution, public_fraction=fraction)
    truth = load_solution(solution)
    paths = [tmp_path / "first.csv", tmp_path / "second.csv"]
    paths[0].write_bytes(rows_for(truth, 0.3, 1, tile_k=10))  # 10 tile indices: every top-K error defined
    paths[1].write_bytes(rows_for(truth, 1.0, 2))
    json_path, pages = tmp_path / "r.json", tmp_path / "pages"
    assert cli.main([*map(str, paths), "--solution", str(solution), "--public-only", "--per-graph", "--json",
                     str(json_path), "--html", str(pages)]) == 0
    terminal = capsys.readouterr().out
    documents = json.loads(json_path.read_text())
    texts = {"json": json_path.read_text(), "terminal": terminal,
             **{p.name: p.read_text(encoding="utf-8") for p in sorted(pages.iterdir())}}
    assert len(texts) == 4 and "Public leaderboard only" in terminal

    private, per_graph, public = scored_values(paths, solution)
    allowed = set().union(*(_allowed(d) for d in documents))
    hidden = {repr(v) for v in private | per_graph} - allowed
    graphs = graph_names(solution)
    assert len(graphs) == 52 and len(per_graph) > 150
    for document, path in zip(documents, paths):
        assert tuple(document) == PUBLIC_REPORT_FIELDS and document["overall"] == public[path]["overall"]
        shown = ["tile:xla"] if fraction is None else list(truth.collections)
        assert list(document["collections"]) == shown
        assert document["collections"] == {n: public[path]["collections"][n] for n in shown}
        assert "ground_truth_sha256" not in document["provenance"]
    for name, text in texts.items():
        assert not [g for g in graphs if g in text], name
        assert truth.sha256 not in text and str(solution) not in text, name
        assert not numbers(text) & hidden, name
        # a page's SVG: one reference bar per shown collection (its coordinates are not values); CSS holds none
        assert text.count("<svg") == (len(documents[0]["collections"]) if name.endswith(".html") else 0)
        written = re.sub(r"<(style|svg)\b.*?</\1>", "", text, flags=re.DOTALL)
        assert numbers(written) <= allowed, (name, numbers(written) - allowed)
    for page in (t for name, t in texts.items() if name.endswith(".html")):
        assert not [s for s in ("tau-histograms", "worst-graphs", "tile-programs") if s in page]


def test_the_api_public_report_holds_no_per_graph_value(demo_solution, tmp_path):
    truth = load_solution(demo_solution)
    path = tmp_path / "s.csv"
    path.write_bytes(rows_for(truth, 0.5, 3, tile_k=10))
    report = Evaluator.load(split=None, solution=demo_solution, public_only=True).evaluate(path)
    organiser = Evaluator.load(split=None, solution=demo_solution).evaluate(path)
    assert isinstance(report, PublicReport)  # no per-graph results, leaderboards or graph metrics to hold
    assert not [a for a in ("collections", "leaderboards", "graph_metrics", "references", "ignored_files") if hasattr(report, a)]
    assert report.scored and report.overall == organiser.leaderboards["public"].overall
    # demo split: 10 public tile graphs, 1 public graph in each of the 4 layout collections
    assert list(report.scores.collections) == ["tile:xla"] and report.scores.n_counted == 5
    assert list(report.scores.not_shown) == [n for n in truth.collections if n != "tile:xla"]
    tile = report.scores.collections["tile:xla"]
    assert (tile.n_graphs, tile.value) == (10, organiser.leaderboards["public"].collections["tile:xla"].value)
    _, per_graph, _ = scored_values([path], demo_solution)
    text = repr(report.scores)
    assert not [g for g in graph_names(demo_solution) if g in text]
    assert numbers(text) <= _allowed(report.to_dict()) and not numbers(text) & {repr(v) for v in per_graph} - _allowed(
        report.to_dict())


def test_problems_and_missing_ids_are_found_over_the_whole_split(demo_solution, tmp_path, capsys):
    """A lenient file with a duplicate index in one public and one private graph, and a strict file missing
    one public and one private graph: the public view's problems and missing IDs are the organiser view's."""
    truth = load_solution(demo_solution)
    tile = truth.collections["tile:xla"]
    public_id, private_id = (tile.graphs.ids[tile.public.tolist().index(flag)] for flag in (True, False))
    lines = rows_for(truth, 0.5, 4).decode().splitlines()
    duplicated = [line + (";" + line.split(",")[1].split(";")[0] if line.split(",")[0] in (public_id, private_id)
                          else "") for line in lines]
    missing = [line for line in lines if line.split(",")[0] not in (public_id, private_id)]
    for rows, extra in ((duplicated, ["--lenient"]), (missing, [])):
        path = tmp_path / "s.csv"
        path.write_text("\n".join(rows) + "\n")
        views = []
        for public_only in ([], ["--public-only"]):
            cli.main([str(path), "--solution", str(demo_solution), *extra, *public_only, "--json", "-", "-q"])
            views.append(json.loads(capsys.readouterr().out))
        organiser, public = views
        assert public["problems"] == organiser["problems"] and public["missing_ids"] == organiser["missing_ids"]
        assert public["problems"] or public["missing_ids"]
        named = json.dumps([public["problems"], public["missing_ids"]])
        assert public_id in named and private_id in named


@pytest.mark.parametrize("command", [[], ["compare"]], ids=["score", "compare"])
def test_collections_with_public_only_is_refused(demo_solution, tmp_path, capsys, command):
    """``--collections tile:xla`` would show tile:xla's public value as the overall, and ``tile:xla,
    layout:xla:random`` (one public graph there) that graph's tau as 2 * overall - tile: refused, in every command."""
    truth = load_solution(demo_solution)
    path = tmp_path / "s.csv"
    path.write_bytes(rows_for(truth, 0.5, 1))
    files = [str(path)] * (2 if command == ["compare"] else 1)
    for selection in ("tile:xla", "tile:xla,layout:xla:random"):
        code = cli.main([*command, *files, "--solution", str(demo_solution), "--public-only",
                         "--collections", selection, "--json", "-"])
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        assert "[USAGE_ERROR] --collections cannot be combined with --public-only" in err
    with pytest.raises(UsageError, match="--collections cannot be combined with --public-only"):
        Evaluator.load(split=None, solution=demo_solution, public_only=True, collections=["tile:xla"])
    with pytest.raises(UsageError, match="--collections cannot be combined with --public-only"):
        Evaluator.over(truth.catalog, truth, public_only=True, collections=["tile:xla"])


def test_validate_refuses_public_only(demo_solution, tmp_path, capsys):
    """validate --public-only printed the organiser-shaped validation (graphs_scored all, the solution's path,
    ground_truth_sha256): the flag is refused with validate (and with --collections too)."""
    path = tmp_path / "s.csv"
    path.write_bytes(rows_for(load_solution(demo_solution), 0.5, 1))
    for extra in ([], ["--collections", "tile:xla"]):
        code = cli.main(["validate", str(path), "--solution", str(demo_solution), "--public-only", *extra, "--json", "-"])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and "[USAGE_ERROR] --public-only is not used with validate" in err


def test_per_graph_with_public_only_says_it_shows_nothing(demo_solution, tmp_path, capsys):
    """The public view holds no per-graph value, so ``--per-graph --public-only`` shows none (exit 0, as the leak
    test above requires) and says so on stderr instead of dropping ``--per-graph`` silently."""
    truth = load_solution(demo_solution)
    path = tmp_path / "s.csv"
    path.write_bytes(rows_for(truth, 0.5, 1))
    code = cli.main([str(path), "--solution", str(demo_solution), "--public-only", "--per-graph"])
    out, err = capsys.readouterr()
    assert code == 0 and "note: --per-graph shows nothing with --public-only" in " ".join(err.split())
    assert "tile:xla:" not in out
