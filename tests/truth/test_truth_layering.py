"""Dense ranks of runtimes (``truth/ranks.py``) belong to the truth side (the layers themselves:
tests/project/test_shape.py)."""

from __future__ import annotations

import numpy as np

from tpugraphs_eval.truth.ranks import dense_ranks


def test_dense_ranks_by_hand():
    ranks = dense_ranks(np.array([5, 1, 5, 7]))  # distinct values 1 < 5 < 7 → ranks 1, 0, 1, 2; one tied pair (5, 5)
    assert ranks.ranks.tolist() == [1, 0, 1, 2] and (ranks.n_distinct, ranks.tied_pairs) == (3, 1)
