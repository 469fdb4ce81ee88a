"""The naive reference scorer (``tests/naive_scorer.py``: csv module, ``int()`` per token, scipy's kendalltau,
refscore-style) as a whole process, for bench_process.py: ``python bench/naive_process.py ROOT SPLIT CSV``
prints the overall score (``invalid`` when its strict checks fail)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import naive_scorer  # noqa: E402

if __name__ == "__main__":
    root, split, csv_path = sys.argv[1:4]
    result = naive_scorer.score(Path(csv_path), naive_scorer.load_runtimes(Path(root), split))
    print(f"{result['overall']:.12f}" if result["valid"] else "invalid")
