"""The demo leaderboard: a deterministic folder of demo submissions, scored against the demo solution.

``tpugraphs-leaderboard demo -o leaderboards/demo`` writes the committed ``leaderboards/demo/`` (docs/leaderboard.md,
"Building a leaderboard") from the synthetic demo's test split, its solution file built with the default seeded
Usage, the leaderboard with the default options. The submissions folder (temporary, or ``--submissions DIR``) holds
the three sample submissions (:mod:`.samples`, or read from ``--samples DIR``), synthetic teams of graded quality
(:data:`TEAMS`, :func:`_rows`) whose metadata exercises the rules, and bad input that must end up recorded, never
crash the build (:func:`write_demo_submissions`).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import UsageError
from ..roots import resolve_data_root
from ..truth.groundtruth import GroundTruth
from ..truth.solution import build_solution, load_solution
from . import samples as sample_files
from .build import BuildResult, build_leaderboard
from .output import prune_generations

SEED = 2023

# team → [(file stem, sigma or a special kind, day of submission or None, selected, description)]
TEAMS: dict[str, list[tuple[str, Any, int | None, bool, str]]] = {
    "aurora": [("first", 0.5, 2, False, "GNN baseline"),
               ("gnn-v2", 0.15, 9, True, "GNN v2 <b>with</b> | pipes & `ticks`"),
               ("gnn-v3", 0.1, 20, True, "GNN v3, ensembling")],
    "borealis": [("lgbm-a", 0.4, 3, False, "LightGBM"), ("lgbm-b", 0.3, 8, False, "LightGBM, tuned"),
                 ("lgbm-c", 0.35, 15, False, "LightGBM, more features")],
    "cirrus": [("try1", 0.8, 1, True, ""), ("try2", 0.6, 5, True, ""), ("try3", 0.7, 12, True, ""),
               ("try4", 0.65, 18, False, "not selected")],
    "drizzle": [("mlp", 1.5, 4, True, "MLP"), ("broken", "truncated", 10, True, "a tile row too short"),
                ("mlp-2", 1.2, 16, False, "MLP, wider")],
    "eclipse": [("noise-1", 4.0, None, False, ""), ("noise-2", 3.0, None, False, "")],
    "fog-twin": [("copy-of-aurora-2", "copy:aurora/gnn-v2", 21, False, "a later identical copy"),
                 ("copy-of-aurora-3", "copy:aurora/gnn-v3", 22, False, "a later identical copy")],
    "gale-overfit": [("public-probe", "overfit", 19, True, "oracle on the public graphs, random elsewhere")],
    "=1+1 & Co.": [("formula", 0.9, 14, False, "=HYPERLINK(\"http://example.invalid\") in a description")],
    "sample-identity": [("demo_identity_test", "sample", 0, False, "sample_submissions/demo_identity_test.csv")],
    "sample-random": [("demo_random_test", "sample", 0, False, "sample_submissions/demo_random_test.csv")],
    "sample-kaggle-shape": [("demo_kaggle_sample_test", "sample", 0, False,
                             "sample_submissions/demo_kaggle_sample_test.csv (invalid in strict mode)")],
}


def _rows(truth: GroundTruth, rng: np.random.Generator, sigma: float,
          keep: dict[str, np.ndarray] | None = None) -> list[str]:
    """CSV rows ranking each graph by its true order plus noise (catalog order); ``keep`` graphs get sigma 0.

    The key of configuration i is ``r_i / c + sigma * z_i``: r_i its rank by runtime (0 = fastest), c the
    number of configurations, z_i standard normal. Only exactly rounded arithmetic is used (no ``log``,
    whose last bit may differ between CPUs), so every machine writes the same files.
    """
    rows = []
    for name, t in truth.collections.items():
        for g, (graph_id, y) in enumerate(zip(t.graphs.ids, t.runtimes, strict=True)):
            noise = 0.0 if keep is not None and keep[name][g] else sigma
            ranks = np.empty(y.size)
            ranks[np.argsort(y, kind="stable")] = np.arange(y.size) / y.size
            order = np.argsort(ranks + noise * rng.standard_normal(y.size), kind="stable")
            ranking = order[: min(5, y.size)] if t.graphs.collection.kind == "tile" else order
            rows.append(f"{graph_id}," + ";".join(map(str, ranking.tolist())))
    return rows


def _csv(rows: list[str]) -> bytes:
    return ("ID,TopConfigs\n" + "".join(row + "\n" for row in rows)).encode()


def _content(truth: GroundTruth, team: int, index: int, kind: Any, written: dict[str, bytes], stem: str,
             samples: Path | None) -> bytes:
    rng = np.random.default_rng([SEED, team, index])
    if isinstance(kind, float):
        return _csv(_rows(truth, rng, kind))
    if kind == "truncated":  # a valid ranking whose first tile row lists 2 indices: TILE_TOO_FEW (strict)
        rows = _rows(truth, rng, 1.0)
        graph_id, configs = rows[0].split(",")
        rows[0] = f"{graph_id},{';'.join(configs.split(';')[:2])}"
        return _csv(rows)
    if kind == "overfit":
        keep = {name: t.public for name, t in truth.collections.items()}
        return _csv(_rows(truth, rng, 50.0, keep))
    if kind == "sample" and samples is None:
        return sample_files.render(sample_files.SAMPLES[f"{stem}.csv"]).encode("utf-8")
    if kind == "sample":
        path = samples / f"{stem}.csv"
        if not path.is_file():
            raise UsageError(f"--samples {samples}: there is no {stem}.csv (the folder must hold "
                             f"{', '.join(sample_files.SAMPLES)}; without --samples they are generated)")
        return path.read_bytes()
    return written[kind.removeprefix("copy:")]


def write_demo_submissions(target: Path, truth: GroundTruth, samples: Path | None = None) -> None:
    """Write the demo submissions folder into ``target`` (created; it must not hold anything yet); the sample
    submissions are generated (:mod:`.samples`), or read from the folder ``samples``."""
    target = Path(target)
    if target.exists() and any(target.iterdir()):
        raise UsageError(f"{target} is not empty: the demo submissions are written into a new or empty folder")
    target.mkdir(parents=True, exist_ok=True)
    written: dict[str, bytes] = {}
    for t, (team, submissions) in enumerate(TEAMS.items()):
        folder = target / team
        folder.mkdir()
        for i, (stem, kind, day, selected, description) in enumerate(submissions):
            data = _content(truth, t, i, kind, written, stem, samples)
            written[f"{team}/{stem}"] = data
            (folder / f"{stem}.csv").write_bytes(data)
            if day is not None:
                meta = {"submitted": f"2023-09-{day + 1:02d}T12:00:00Z", "description": description,
                        "selected": selected}
                (folder / f"{stem}.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    chaos = target / "chaos"
    chaos.mkdir()
    (chaos / "garbage.csv").write_bytes(np.random.default_rng([SEED, 99]).bytes(3000))
    (chaos / "garbage.json").write_text("{not json", encoding="utf-8")
    (chaos / "empty.csv").write_bytes(b"")
    wrong = [row.replace(",", "0,", 1) for row in _rows(truth, np.random.default_rng([SEED, 98]), 1.0)[:30]]
    (chaos / "wrong_ids.csv").write_bytes(_csv(wrong))
    (chaos / "wrong_ids.json").write_text(json.dumps({"submitted": "yesterday", "selected": "yes", "team": "x"}),
                                          encoding="utf-8")
    (chaos / "notes.txt").write_text("not a submission\n", encoding="utf-8")
    (target / "team-empty").mkdir()
    (target / "README.txt").write_text("a loose file at the top level: recorded as ignored\n", encoding="utf-8")


def build_demo(out: Path, *, submissions: Path | None = None, samples: Path | None = None,
               workers: int | None = None,
               progress: Callable[[int], Callable[[int], None]] | None = None) -> BuildResult:
    """Generate the demo submissions and solution, and build the demo leaderboard into ``out``.

    Args:
        out: the output folder (``leaderboards/demo`` for the committed one; only its current generation
            is kept, :func:`output.prune_generations`).
        submissions: keep the generated submissions folder there (new or empty); default a temporary folder.
        samples: a folder holding the three sample submissions; None (default): generate them
            (:mod:`.samples`, the same bytes as the committed ``sample_submissions/``).
        workers, progress: as for :func:`build.build_leaderboard`.
    """
    with tempfile.TemporaryDirectory(prefix="tpugraphs-demo-leaderboard-", ignore_cleanup_errors=True) as scratch:
        solution = Path(scratch) / "demo_test_solution.parquet"
        build_solution(resolve_data_root("demo"), "test", solution)
        folder = Path(submissions) if submissions is not None else Path(scratch) / "submissions"
        write_demo_submissions(folder, load_solution(solution), samples)
        result = build_leaderboard(folder, solution, out, name="demo", workers=workers, progress=progress)
        prune_generations(out)  # the committed folder holds one generation
        return result
