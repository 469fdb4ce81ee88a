"""A user's script, type-checked by mypy in CI (the README's test command; pyproject's ``[tool.mypy]``): what a
type checker sees of the public API. It is checked, not run (no test collects it)."""

from __future__ import annotations

from typing import assert_type

import numpy as np

import tpugraphs_eval as te
import tpugraphs_kit as kit

report = te.evaluate("submission.csv", split="valid", data_root="demo")
assert_type(report, te.Report)
assert_type(report.overall, float | None)
assert_type(te.score_predictions({"tile:xla:g": np.zeros(3)}, "demo", split="valid"), te.Report)
assert_type(te.Evaluator.load(split="valid", data_root="demo", public_only=True).evaluate("submission.csv"),
            te.Report | te.PublicReport)
assert_type(te.load_ground_truth("demo", "valid"), te.GroundTruth)
assert_type(te.scan_catalog(te.resolve_data_root("demo"), "valid"), te.SplitCatalog)
assert_type(te.tile_score(predictions=[0.1, 0.3], runtimes=[3, 1]), float)
assert_type(te.kendall_tau_b(np.arange(3), np.array([3.0, 1.0, 2.0])), float)
assert_type(te.ordered_pair_accuracy(predictions=[1.0, 2.0], runtimes=[1, 2]), float)
assert_type(te.slowdown(predictions=[1.0, 2.0], runtimes=[1, 2], k=1), float)
assert_type(te.top_k_error(predictions=[1.0, 2.0], runtimes=[1, 2], k=1), float)
assert_type(te.validate_submission(b"ID,TopConfigs\n", te.scan_catalog("demo", "valid")), te.Validation)
assert_type(te.__version__, str)
assert_type(kit.load_graph("demo", "tile:xla", "valid", "g"), kit.Graph)
