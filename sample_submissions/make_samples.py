"""Regenerate the demo sample submissions in this folder from the synthetic demo test split
(the rows come from tpugraphs_eval.leaderboard.samples, which the demo leaderboard also uses).

    python sample_submissions/make_samples.py

- ``demo_random_test.csv``: seed 0; tile: min(5, c) distinct random configs; layout: a random permutation.
- ``demo_identity_test.csv``: Kaggle-style identity ranking, valid: tile ``0..min(5,c)-1``; layout ``0..c-1``.
- ``demo_kaggle_sample_test.csv``: shaped like Kaggle's own ``sample_submission.csv``: tile ``0;1;2;3;4``
  even for graphs with fewer than 5 configs, layout ``0..999`` even for the 1001-config graph. Invalid in
  strict mode, accepted by ``--lenient`` (docs/codes.md).

A test (tests/cli/test_cli.py) checks the committed files equal what this script writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tpugraphs_eval.leaderboard.samples import SAMPLES, render

HERE = Path(__file__).resolve().parent


def main() -> int:
    for file_name, kind_of_sample in SAMPLES.items():
        (HERE / file_name).write_text(render(kind_of_sample), encoding="utf-8")
        print(f"wrote {HERE / file_name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
