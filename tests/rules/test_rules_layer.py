"""rules/: standard library and numpy only, Python >= 3.9 syntax, nothing else of the package (issue 13 item 1); the
modules the Codabench bundle imports side by side import no sibling; the metric file defines each name once."""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

from tpugraphs_eval import rules
from tpugraphs_eval.hosting.codabench import BUNDLED_RULES
from tpugraphs_eval.hosting.metric_file import METRIC_RULES, metric_source

RULES = sorted(Path(rules.__file__).parent.glob("*.py"))


def _imports(path: Path) -> tuple[set[str], set[str]]:
    """(absolute top-level modules, relative sibling modules) a file imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), feature_version=(3, 9))  # Codabench's image: Python 3.9
    absolute = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    absolute |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0}
    relative = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level > 0}
    assert all(n.level <= 1 for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)), path  # siblings only
    return absolute, relative


def test_rules_import_the_standard_library_numpy_and_their_siblings_only():
    assert {p.stem for p in RULES} >= {"codes", "csvshape", "public_rule", "sniff", "topconfigs"}
    for path in RULES:
        absolute, relative = _imports(path)
        assert absolute - sys.stdlib_module_names <= {"numpy"}, path
        assert relative <= {p.stem for p in RULES}, path


def test_the_bundled_rules_import_no_sibling_and_the_metric_rules_only_earlier_ones():
    for module in BUNDLED_RULES:  # imported as plain modules beside score.py
        assert _imports(Path(module.__file__))[1] == set(), module
    for i, module in enumerate(METRIC_RULES):  # concatenated in this order
        assert _imports(Path(module.__file__))[1] <= {m.__name__.rpartition(".")[2] for m in METRIC_RULES[:i]}


def test_the_metric_file_defines_each_top_level_name_once():
    defined: Counter[str] = Counter()
    for node in ast.parse(metric_source()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined[node.name] += 1
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    assert {name for name, n in defined.items() if n > 1} == set()
    assert {"check_field", "ShapeReader", "PROBLEM_CODES", "score"} <= set(defined)
