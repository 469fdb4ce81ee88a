"""The three demo sample submissions (the committed ``sample_submissions/*.csv``), generated from the synthetic
demo's test split, so that an installed package (not only a source checkout) can write them.

- ``demo_random_test.csv``: seed 0; tile: min(5, c) distinct random configs; layout: a random permutation.
- ``demo_identity_test.csv``: Kaggle-style identity ranking, valid: tile ``0..min(5,c)-1``; layout ``0..c-1``.
- ``demo_kaggle_sample_test.csv``: shaped like Kaggle's own ``sample_submission.csv``: tile ``0;1;2;3;4``
  even for graphs with fewer than 5 configs, layout ``0..999`` even for the 1001-config graph. Invalid in
  strict mode, accepted by ``--lenient`` (docs/codes.md, strict or lenient).

``sample_submissions/make_samples.py`` writes them into the repository; a test checks the committed files
equal :func:`render`'s text.
"""

from __future__ import annotations

import numpy as np

from ..roots import resolve_data_root
from ..truth.npzread import scan_catalog

SEED = 0
SAMPLES = {"demo_random_test.csv": "random", "demo_identity_test.csv": "identity",
           "demo_kaggle_sample_test.csv": "kaggle"}
"""File name → the kind of sample :func:`render` writes."""


def render(kind_of_sample: str) -> str:
    """The full CSV text (``ID,TopConfigs``, rows in catalog order) of one sample; ``kind_of_sample`` is ``random``,
    ``identity`` or ``kaggle``."""
    catalog = scan_catalog(resolve_data_root("demo"), "test")
    rng = np.random.default_rng(SEED)
    rows = []
    for name, graphs in catalog.collections.items():
        tile = graphs.collection.kind == "tile"
        for graph, c in zip(graphs.names, graphs.n_configs.tolist(), strict=True):
            if kind_of_sample == "random":
                ranking = rng.permutation(c)[: min(5, c)] if tile else rng.permutation(c)
            elif kind_of_sample == "identity":
                ranking = np.arange(min(5, c) if tile else c)
            else:  # Kaggle's sample_submission.csv shape
                ranking = np.arange(5 if tile else 1000)
            rows.append(f"{name}:{graph}," + ";".join(map(str, ranking.tolist())))
    return "ID,TopConfigs\n" + "\n".join(rows) + "\n"
