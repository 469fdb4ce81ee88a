"""A tile graph with one configuration is scored and counted in the tile mean (docs/metrics.md, Decision).

Hand-worked: graph `one` (1 config, runtime 7) scores 2 - 7/7 = 1.0 and top-K errors 0 for any row; graph
`six` (runtimes 60, 10, 20, 30, 40, 50, normalizers 1) with the row 0;2;3;4;5 scores 2 - 20/10 = 0.0. The tile
mean is (1.0 + 0.0) / 2 = 0.5, as Kaggle's scorer counted every row; the official loader, which drops graphs of
fewer than 2 configurations from valid and test, would give 0.0.
"""

from __future__ import annotations

import numpy as np

from tpugraphs_eval import load_ground_truth, resolve_data_root, score_submission


def test_a_one_config_tile_graph_scores_one_and_is_in_the_mean(tmp_path):
    folder = tmp_path / "npz" / "tile" / "xla" / "valid"
    folder.mkdir(parents=True)
    np.savez(folder / "one.npz", config_runtime=np.array([7], np.int64),
             config_runtime_normalizers=np.array([1], np.int64))
    np.savez(folder / "six.npz", config_runtime=np.array([60, 10, 20, 30, 40, 50], np.int64),
             config_runtime_normalizers=np.ones(6, np.int64))
    submission = tmp_path / "s.csv"
    submission.write_text("ID,TopConfigs\ntile:xla:one,0\ntile:xla:six,0;2;3;4;5\n", encoding="utf-8")
    report = score_submission(submission, load_ground_truth(resolve_data_root(tmp_path), "valid"))
    tile = report.collections["tile:xla"]
    assert report.valid and tile.value == 0.5
    assert dict(zip(tile.ids, tile.per_graph["score"].tolist())) == {"tile:xla:one": 1.0, "tile:xla:six": 0.0}
    top_errors = {m: v.tolist()[tile.ids.index("tile:xla:one")] for m, v in tile.per_graph.items() if m != "score"}
    assert top_errors and set(top_errors.values()) == {0.0}, top_errors  # every top-K error defined and 0
