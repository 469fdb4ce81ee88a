"""``truth/`` is the bottom layer of the package (issue 13 item 6): the ground truth imports no stage built on it
(``scoring/``, ``submission/``, ``report/``, ``leaderboard/``, ``hosting/``, ``commands/``) and not ``demo/``,
which is built from the ground truth's format. Dense ranks of runtimes (``truth/ranks.py``) belong to the truth
side; the word ``demo`` becomes a data root in ``tpugraphs_eval/roots.py``. Read off the source with ``ast``
(every ``import``/``from ... import``, at any depth: a lazy import inside a function counts too)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import tpugraphs_eval
from tpugraphs_eval.truth.ranks import dense_ranks

TRUTH = Path(tpugraphs_eval.__file__).parent / "truth"
ABOVE = {"scoring", "submission", "report", "leaderboard", "hosting", "commands", "demo", "api", "roots"}


def _imported(text: str) -> set[str]:
    """The package sub-modules the source ``text`` imports (first part after ``tpugraphs_eval``), relative or
    absolute."""
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            if node.level >= 2 and node.module:  # from ..scoring.metrics import x
                found.add(node.module.split(".")[0])
            elif node.level >= 2:  # from .. import kernels
                found.update(alias.name for alias in node.names)
            elif node.level == 0 and node.module and node.module.startswith("tpugraphs_eval."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("tpugraphs_eval."))
    return found


def test_truth_imports_no_stage_above_it_nor_the_demo():
    files = sorted(TRUTH.glob("*.py"))
    assert len(files) >= 7  # the detector reads the real folder
    found = {f.name: _imported(f.read_text(encoding="utf-8")) & ABOVE for f in files}
    assert found == {f.name: set() for f in files}
    # the detector sees a lazy import inside a function (as dataroot.py had for the demo), and absolute ones
    probe = "def f():\n    from ..demo.dataset import demo_data_root\n    from .. import scoring\nimport tpugraphs_eval.report\n"
    assert _imported(probe) == {"demo", "scoring", "report"}


def test_dense_ranks_by_hand():
    ranks = dense_ranks(np.array([5, 1, 5, 7]))  # distinct values 1 < 5 < 7 → ranks 1, 0, 1, 2; one tied pair (5, 5)
    assert ranks.ranks.tolist() == [1, 0, 1, 2] and (ranks.n_distinct, ranks.tied_pairs) == (3, 1)
