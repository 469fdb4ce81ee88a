"""Writing submissions (tpugraphs_kit.submission) and combining per-collection files (tpugraphs_kit.combine).

Every file the kit writes is checked here again with the evaluator's strict validation; expected rankings
are worked by hand (ties broken by the lower index, SPEC §2's min(5, c) tile rows).
"""

from __future__ import annotations

import numpy as np
import pytest

from tpugraphs_eval import scan_catalog, validate_submission
from tpugraphs_kit import (
    KitError,
    SubmissionError,
    combine_submissions,
    csv_bytes,
    random_rankings,
    rank_configs,
    write_predictions,
    write_submission,
)
from tpugraphs_kit.cli_baseline import main as baseline_main


@pytest.fixture(scope="module")
def catalog(demo_root):
    return scan_catalog(demo_root, "valid")


def test_rank_configs_by_hand():
    # scores 3, 1, 2, 1, 0.5, 7 → fastest 0.5 (4), then the tie 1 (1 before 3), then 2 (2), 3 (0), 7 (5)
    scores = np.array([3.0, 1.0, 2.0, 1.0, 0.5, 7.0])
    assert rank_configs(scores, "layout").tolist() == [4, 1, 3, 2, 0, 5]
    assert rank_configs(scores, "tile").tolist() == [4, 1, 3, 2, 0]
    assert rank_configs(np.array([5, 5, 5]), "tile").tolist() == [0, 1, 2]  # c < 5: all, ties by index
    for bad in (np.array([1.0, np.nan]), np.array([]), np.zeros((2, 2)), np.array([np.inf, 1.0])):
        with pytest.raises(KitError) as err:
            rank_configs(bad, "layout")
        assert err.value.code == "BAD_PREDICTIONS"


def test_write_predictions_is_strictly_valid(tmp_path, catalog):
    predictions = {graph_id: -np.arange(c, dtype=float) for graph_id, (_, _, c) in catalog.index.items()}
    out = tmp_path / "sub.csv"
    validation = write_predictions(predictions, out, catalog)
    assert validation.valid and validation.n_rows == 36
    again = validate_submission(out, catalog, mode="strict")  # independent re-check of the bytes on disk
    assert again.valid and again.problems == []
    rows = dict(line.split(",") for line in out.read_text().splitlines()[1:])
    tile_id = next(i for i in rows if i.startswith("tile:"))
    c = catalog.index[tile_id][2]
    assert rows[tile_id] == ";".join(str(i) for i in range(c - 1, c - 1 - min(5, c), -1))  # reversed: c-1 first
    layout_id = "layout:xla:default:unet_3d.4x4.bf16"
    assert rows[layout_id].split(";") == [str(i) for i in range(1964, -1, -1)]


def test_invalid_submission_is_refused_and_nothing_written(tmp_path, catalog):
    out = tmp_path / "sub.csv"
    out.write_bytes(b"previous content\n")
    rankings = random_rankings(catalog, 0)
    del rankings["layout:xla:default:unet_3d.4x4.bf16"]
    with pytest.raises(SubmissionError) as err:
        write_submission(rankings, out, catalog)
    assert err.value.code == "MISSING_IDS" and err.value.exit_code == 1
    assert out.read_bytes() == b"previous content\n"  # untouched
    assert [p.name for p in tmp_path.iterdir()] == ["sub.csv"]  # no temporary left behind
    rankings = random_rankings(catalog, 0)
    rankings["layout:xla:default:unet_3d.4x4.bf16"] = np.arange(10)  # not a permutation of 1965
    with pytest.raises(SubmissionError) as err:
        write_submission(rankings, out, catalog)
    assert err.value.code == "LAYOUT_NOT_PERMUTATION"
    with pytest.raises(KitError) as err:
        write_predictions({"tile:xla:" + catalog.collections["tile:xla"].names[0]: np.zeros(999)}, out, catalog)
    assert err.value.code == "BAD_PREDICTIONS"


def _per_collection_files(tmp_path, catalog, seed=0):
    rankings = random_rankings(catalog, seed)
    paths = {}
    for name in catalog.collections:
        part = {i: r for i, r in rankings.items() if i.startswith(name + ":")}
        paths[name] = tmp_path / f"{name.replace(':', '_')}.csv"
        assert write_submission(part, paths[name], catalog, collections=[name]).valid
    return rankings, paths


def test_combine_per_collection_files(tmp_path, catalog):
    rankings, paths = _per_collection_files(tmp_path, catalog)
    out = tmp_path / "combined.csv"
    result = combine_submissions(list(paths.values()), out, catalog)
    assert result.n_rows == 36 and result.missing_collections == [] and result.filled == []
    assert validate_submission(out, catalog).valid
    assert out.read_bytes() == csv_bytes(rankings, catalog)  # the same rows as writing them at once
    assert result.sources == {name: [str(p)] for name, p in paths.items()}


def test_combine_refuses_duplicates_and_reports_missing(tmp_path, catalog):
    _, paths = _per_collection_files(tmp_path, catalog)
    out = tmp_path / "combined.csv"
    copy = tmp_path / "copy.csv"
    copy.write_bytes(paths["tile:xla"].read_bytes())
    with pytest.raises(SubmissionError) as err:
        combine_submissions([paths["tile:xla"], copy, paths["layout:xla:default"]], out, catalog)
    assert err.value.code == "DUPLICATE_ID" and "line 2" in str(err.value) and "copy.csv" in str(err.value)
    with pytest.raises(SubmissionError) as err:
        combine_submissions([paths["tile:xla"], paths["layout:xla:default"]], out, catalog)
    assert err.value.code == "MISSING_COLLECTIONS"
    assert "layout:xla:random, layout:nlp:default, layout:nlp:random" in str(err.value)
    assert not out.exists()
    result = combine_submissions([paths["tile:xla"], paths["layout:xla:default"]], out, catalog, fill_seed=7)
    assert result.missing_collections == ["layout:xla:random", "layout:nlp:default", "layout:nlp:random"]
    assert len(result.filled) == 9 and validate_submission(out, catalog).valid


def test_combine_refuses_the_same_file_given_twice(tmp_path, catalog, capsys):
    """The same input twice (as such, through a link, or spelled otherwise) is a usage error saying so; it
    used to be a DUPLICATE_ID "in tile_xla.csv (line 2) and in tile_xla.csv (line 2)"."""
    _, paths = _per_collection_files(tmp_path, catalog)
    tile = paths["tile:xla"]
    link = tmp_path / "link.csv"
    link.symlink_to(tile)
    other_spelling = tmp_path / ".." / tmp_path.name / tile.name
    out = tmp_path / "combined.csv"
    for again, shown in ((tile, str(tile)), (link, f"{link} (the same file as {tile})"),
                         (other_spelling, f"{other_spelling} (the same file as {tile})")):
        with pytest.raises(KitError) as err:
            combine_submissions([tile, *list(paths.values())[1:], again], out, catalog)
        assert err.value.code == "SAME_INPUT_TWICE" and not isinstance(err.value, SubmissionError)
        assert str(err.value) == (f"[SAME_INPUT_TWICE] input file(s) given more than once: {shown}; give each "
                                  "per-collection file once")
    args = ["combine", *map(str, paths.values()), str(tile), "--split", "valid", "--data-root", "demo", "-o", str(out)]
    assert baseline_main(args) == 2
    err = capsys.readouterr().err
    assert "error: [SAME_INPUT_TWICE]" in err and "DUPLICATE_ID" not in err and not out.exists()


def test_combine_refuses_a_broken_input(tmp_path, catalog):
    _, paths = _per_collection_files(tmp_path, catalog)
    broken = tmp_path / "broken.csv"
    broken.write_text(paths["tile:xla"].read_text().replace(";", ";;", 1))  # an empty entry
    with pytest.raises(SubmissionError) as err:
        combine_submissions([broken, *list(paths.values())[1:]], tmp_path / "out.csv", catalog)
    assert err.value.code == "EMPTY_TOKEN"


def test_combine_cli_exit_codes(tmp_path, catalog, capsys):
    _, paths = _per_collection_files(tmp_path, catalog)
    out = tmp_path / "combined.csv"
    args = ["combine", *map(str, paths.values()), "--split", "valid", "--data-root", "demo", "-o", str(out)]
    assert baseline_main(args) == 0 and validate_submission(out, catalog).valid
    assert "36 rows" in capsys.readouterr().out
    assert baseline_main(args[:2] + args[3:]) == 1  # one collection left out
    err = capsys.readouterr().err
    assert "[MISSING_COLLECTIONS]" in err and "Traceback" not in err
    assert baseline_main(["combine", str(tmp_path / "nope.csv"), "--split", "valid", "--data-root", "demo",
                          "-o", str(out)]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_wrong_types_and_missing_folders_are_coded_kit_errors(tmp_path, demo_root):
    from tpugraphs_eval import scan_catalog
    from tpugraphs_kit import KitError, write_predictions, write_submission

    catalog = scan_catalog(demo_root, "test")
    for bad in ([1, 2, 3], {1: [0.5]}):
        with pytest.raises(KitError) as err:
            write_predictions(bad, tmp_path / "x.csv", catalog)
        assert err.value.code == "BAD_PREDICTIONS"
    graph_id = next(iter(catalog.index))
    c = catalog.index[graph_id][2]
    with pytest.raises(KitError, match=graph_id):  # a NaN prediction names its graph
        write_predictions({graph_id: [float("nan")] * c}, tmp_path / "x.csv", catalog)
    with pytest.raises(KitError) as err:  # a valid submission, but a folder that does not exist
        write_submission(random_rankings(catalog, 0), tmp_path / "no-such-folder" / "x.csv", catalog)
    assert err.value.code == "OUTPUT_WRITE_FAILED" and not (tmp_path / "no-such-folder").exists()
