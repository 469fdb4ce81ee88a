"""``tpugraphs-baseline``: write baseline submissions (random, learned) and combine per-collection files.

    tpugraphs-baseline random  --split test --data-root DIR --seed 0 -o submission.csv
    tpugraphs-baseline learned --split test --data-root DIR -o submission.csv
    tpugraphs-baseline combine tile.csv layout_xla_default.csv ... --split test -o submission.csv

When the split has runtimes (train, valid, or the demo's test), the written file is scored by the evaluator and
shown beside the expected score of random ranking and the oracle's. Exit codes: :mod:`tpugraphs_kit.cli_common`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tpugraphs_eval import (
    CODES,
    DataError,
    Evaluator,
    NoGroundTruthError,
    Options,
    Severity,
    load_ground_truth,
    scan_catalog,
)
from tpugraphs_eval._version import __version__
from tpugraphs_eval.dataset import COLLECTIONS, SPLITS
from tpugraphs_eval.display import number
from tpugraphs_eval.entrypoint import ArgumentParser, guarded_main, int_at_least
from tpugraphs_eval.errors import EXIT_OK, UsageError
from tpugraphs_eval.outputs import refuse_output_is_input

from . import learned
from .cli_common import add_codes_command, notice, print_codes, print_table, score_rows, write_json
from .combine import combine_submissions
from .data import data_root, present_collections
from .errors import KitError
from .random_baseline import random_expectations, write_random_submission

_DATA_ROOT_HELP = ("folder holding npz/ (official layout), or `demo` for the bundled SYNTHETIC data "
                   "(default: $TPUGRAPHS_DATA, else ~/data/tpugraphs)")


_seed = int_at_least(0, 2**63 - 1)
"""A random seed: an integer from 0 to 2**63 - 1 (argparse's coded usage error otherwise)."""


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="tpugraphs-baseline", description="Write baseline submissions (random, "
                                     "learned) and combine per-collection files; every file is validated first.",
                                     epilog="Exit codes: 0 ok, 1 invalid submission, 2 usage or data problem.")
    parser.add_argument("--version", action="version", version=f"tpugraphs-baseline {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--split", required=True, choices=SPLITS, help="the split the submission ranks")
        sub.add_argument("--data-root", metavar="DIR", help=_DATA_ROOT_HELP)
        sub.add_argument("-o", "--output", required=True, type=Path, metavar="CSV", help="submission file to write")
        sub.add_argument("--json", metavar="PATH", help="also write the numbers shown as JSON to PATH")
        sub.add_argument("--no-progress", action="store_true", help="no progress bar")

    def scoring(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--configs", choices=("all", "official"), default="all",
                         help="layout configs scored in the report (official: the paper's 1000 per valid graph)")
        sub.add_argument("--eval-indices", metavar="DIR", help="folder of the official index lists (--configs official)")

    sub = commands.add_parser("random", help="uniformly random rankings (tile: min(5,c) distinct configs; layout: "
                                             "a permutation); reports the expected random score")
    common(sub)
    scoring(sub)
    sub.add_argument("--seed", type=_seed, default=0, help="random seed; the same seed writes the same file (default 0)")
    sub.add_argument("--draws", type=int_at_least(0), default=10,
                     help="random files scored to estimate the metrics without a closed form (seeds seed+1 … "
                          "seed+N; default 10, 0 to skip)")

    sub = commands.add_parser("learned", help="ridge regression of log-runtime per collection (numpy/scipy), "
                                              "trained on --train-split, ranking --split")
    common(sub)
    scoring(sub)
    sub.add_argument("--train-split", choices=SPLITS, help="split to train on (default train)")
    sub.add_argument("--folds", type=Path, metavar="FILE",
                     help="out-of-fold rankings for `tpugraphs-eval cv`: each fold of this fold file (tpugraphs-data "
                          "folds) is ranked by a model trained on the other folds of --split")
    sub.add_argument("--alpha", type=float, default=learned.DEFAULT_ALPHA,
                     help=f"ridge penalty (default {learned.DEFAULT_ALPHA})")
    sub.add_argument("--max-configs", type=int, default=learned.DEFAULT_MAX_CONFIGS,
                     help=f"layout configs sampled per training graph (default {learned.DEFAULT_MAX_CONFIGS})")
    sub.add_argument("--seed", type=_seed, default=0, help="seed of the config sampling (default 0)")
    sub.add_argument("--fill-random", type=_seed, metavar="SEED",
                     help="collections without training graphs get random rows (seeded) instead of an error")

    sub = commands.add_parser("combine", help="merge per-collection submission files into one (refuses duplicate "
                                              "IDs; names missing collections); the result is validated first")
    sub.add_argument("inputs", nargs="+", type=Path, metavar="CSV", help="submission files, e.g. one per collection")
    common(sub)
    sub.add_argument("--fill-random", type=_seed, metavar="SEED",
                     help="fill graphs no input covers with the random baseline's rows (seeded) instead of failing")
    sub.add_argument("--lenient", action="store_true",
                     help="read the inputs as Kaggle did (tpugraphs-eval --lenient: duplicate or out-of-range indices, "
                          "extra tile indices, partial layout rows are warnings) and write each row as lenient mode "
                          "scores it; the combined file is valid in lenient mode")
    add_codes_command(commands)
    return parser


def _header(root, split: str, output: Path, n_rows: int, mode: str = "strict") -> None:
    print(f"wrote {output}: {n_rows} rows, valid ({mode}) for the {split} split of {root.label}")


def _refuse_output_is_input(args, root, splits: tuple[str, ...] = (), inputs: tuple[Path, ...] = ()) -> None:
    """``-o`` and ``--json`` may be neither an input (``inputs``, the graph files of ``splits``), nor inside the data
    root's ``npz/`` folder, nor each other (``OUTPUT_IS_INPUT``, before any work; docs/options.md "Output files")."""
    graph_files = [path for split in splits for coll in COLLECTIONS for path in root.graph_files(coll, split) or []]
    refuse_output_is_input([("-o", args.output), ("--json", args.json)], [*inputs, *graph_files], data_root=root.path)


def _report(args, root, n_rows: int, extra: dict, title: str, labels: tuple[str, str]) -> int:
    """What ``random`` and ``learned`` print after writing -o: the file's scores and normalised values (``labels``)
    beside random's and the oracle's when the split has runtimes (``random`` adds its draws); the same to --json."""
    _header(root, args.split, args.output, n_rows)
    notice(root)
    payload = {"command": args.command, "output": str(args.output), "split": args.split, "data_root": root.label,
               "synthetic": root.synthetic, "rows": n_rows, "valid": True, **extra}
    try:
        truth = load_ground_truth(root, args.split, progress=not args.no_progress)
    except NoGroundTruthError:  # the file was validated above: only the score is missing
        truth, reason = None, (f"the {args.split} split of {root.label} holds no runtimes (every config_runtime is "
                               "0: the public test files); the file was validated against its config counts only")
    except DataError as err:
        truth, reason = None, str(err).split("\n")[0]
    if truth is None:
        print(f"not scored: {reason}")
        payload.update(scored=False, reason=reason)
        write_json(args.json, payload)
        return EXIT_OK
    report = Evaluator.over(truth.catalog, truth, Options(configs=args.configs),
                            eval_indices_dir=args.eval_indices).evaluate(args.output)
    expectations = {} if args.command != "random" else random_expectations(
        truth, draws=args.draws, seed=args.seed, options=report.options, eval_indices_dir=args.eval_indices)
    rows = score_rows(report)
    numbers = ("value", "random", "oracle", "normalised")
    print_table(title, ["collection", "metric", labels[0], "random (expected)", "oracle", labels[1]],
                [[name, str(row["metric"]), *(number(row[key], 4) for key in numbers)] for name, row in rows.items()])
    for name, exp in expectations.items():
        rows[name].update(random_method=exp.method, random_draws=exp.draws, random_estimated=exp.estimated,
                          random_spread=exp.spread, random_graphs={m: list(g) for m, g in exp.graphs.items()})
    if args.command == "random" and args.draws:
        _print_draws(expectations, args.draws, args.seed)
    print("normalised = (score - random) / (oracle - random): 0 is chance, 1 is the oracle.")
    payload.update(scored=True, overall=report.overall, collections=rows)
    write_json(args.json, payload)
    return EXIT_OK


def _random(args) -> int:
    root = data_root(args.data_root)
    _refuse_output_is_input(args, root, (args.split,))
    catalog = scan_catalog(root, args.split, progress=not args.no_progress)
    validation = write_random_submission(catalog, args.output, args.seed)
    return _report(args, root, validation.n_rows, {"seed": args.seed}, f"this file (seed {args.seed}) vs the "
                   f"expected score of random ranking ({args.configs} configs)", ("this file", "normalised"))


def _print_draws(expectations, draws: int, seed: int) -> None:
    rows = [[name, metric, f"{mean:.4f} ± {exp.spread.get(metric, 0.0):.4f}", "{} of {}".format(*exp.graphs[metric])]
            for name, exp in expectations.items() for metric, mean in exp.estimated.items()]
    print_table(f"random ranking, every metric: mean ± sd over {draws} seeded files (seeds {seed + 1}…{seed + draws})",
                ["collection", "metric", "mean ± sd", "graphs"], rows)
    if any(n < total for exp in expectations.values() for n, total in exp.graphs.values()):
        print("graphs: those a metric is defined on; a random tile row lists min(5, c) indices, so its top-10 error "
              "covers only the graphs with at most 5 configurations")


FEW_TRAINING_GRAPHS = 3
"""A model trained on fewer graphs than this gets a warning naming the counts (one graph per collection gave a
normalised layout value of -0.50 on a small root)."""


def _learned(args) -> int:
    root = data_root(args.data_root)
    if args.folds and args.train_split not in (None, args.split):
        raise UsageError("--folds trains each fold's model on the other folds of --split: --train-split is not used")
    train_split = args.split if args.folds else args.train_split or "train"
    _refuse_output_is_input(args, root, (args.split, train_split), (args.folds,) if args.folds else ())
    catalog = scan_catalog(root, args.split, progress=not args.no_progress)
    start = time.perf_counter()
    trainable = [n for n in catalog.collections if n in present_collections(root, train_split)]
    untrained = [n for n in catalog.collections if n not in trainable]
    if untrained and args.fill_random is None:
        raise KitError("NO_MODEL", f"the {train_split} split of {root.label} has no graphs of "
                                   f"{', '.join(untrained)}: nothing to train their models on; add --fill-random SEED "
                                   "to give them random rows")
    validation, counts = _fit_and_write(args, root, catalog, trainable, train_split)
    if untrained:
        print(f"no {train_split} graphs of {', '.join(untrained)}: their rows are random (seed {args.fill_random})")
    if few := {name: n for name, n in counts.items() if n < FEW_TRAINING_GRAPHS}:
        print("warning: few training graphs: " + ", ".join(f"{name} ({n} graph{'s' * (n != 1)})" for name, n in
                                                       few.items())
              + ": a model learned from so few graphs may rank worse than chance; its values say little")
    extra = {"train_split": train_split, "folds": None if args.folds is None else str(args.folds),
             "training_seconds": time.perf_counter() - start, "alpha": args.alpha, "training_graphs": counts}
    return _report(args, root, validation.n_rows, extra, f"learned baseline vs random ranking on {args.split} "
                   f"({args.configs} configs" + (", out of fold)" if args.folds else ")"),
                   ("learned", "learned normalised"))


def _fit_and_write(args, root, catalog, trainable: list[str], train_split: str) -> tuple[object, dict[str, int]]:
    """Fit a model per collection of ``trainable`` on ``train_split`` (with --folds: per fold, on the other folds),
    rank --split and write -o: (validation, collection → the fewest graphs a model of it learned from)."""
    folds = None
    if args.folds:
        from tpugraphs_eval.truth.graph_lists import read_folds

        folds = {graph_id: fold for fold, ids in read_folds(args.folds).items() for graph_id in ids}
        learned.check_folds(catalog, folds)  # before any training
    start, progress = time.perf_counter(), None if not args.no_progress else False
    options = {"alpha": args.alpha, "max_configs": args.max_configs, "seed": args.seed, "progress": progress}
    models = {name: learned.fit_folds(root, name, train_split, folds, **options) if folds else
              learned.fit_collection(root, name, train_split, **options) for name in trainable}
    graphs = {name: [getattr(m, "n_graphs", 0) for m in (model.values() if folds else [model])]
              for name, model in models.items()}
    print(f"trained {'a ridge model per fold, on the other folds' if folds else 'a ridge model per collection'} of "
          f"the {train_split} split in {time.perf_counter() - start:.1f} s; training graphs"
          f"{' per fold' if folds else ''}: " + ", ".join(f"{n} ({'/'.join(map(str, g))})" for n, g in graphs.items()))
    validation = learned.write_learned_submission(models, catalog, args.output, fill_seed=args.fill_random,
                                                  progress=progress, folds=folds)
    return validation, {name: min(g) for name, g in graphs.items()}


def _combine(args) -> int:
    root = data_root(args.data_root)
    _refuse_output_is_input(args, root, (args.split,), tuple(args.inputs))
    catalog = scan_catalog(root, args.split, progress=not args.no_progress)
    mode = "lenient" if args.lenient else "strict"
    result = combine_submissions(args.inputs, args.output, catalog, fill_seed=args.fill_random, mode=mode)
    _header(root, args.split, args.output, result.n_rows, mode)
    for name in catalog.collections:
        print(f"  {name}: {', '.join(result.sources.get(name, [])) or 'no input'}")
    if result.missing_collections:
        print(f"missing collections (no input): {', '.join(result.missing_collections)}")
    if result.filled:
        print(f"filled {len(result.filled)} graph(s) with random rankings (seed {args.fill_random})")
    warned = {code: n for code, n in result.validation.counts.items() if CODES[code].lenient == Severity.WARNING}
    if mode == "lenient" and warned:
        print("lenient: written as lenient mode scores the inputs' rows ("
              + ", ".join(f"{code} x{n}" for code, n in sorted(warned.items())) + " in the combined file)")
    for path, n in result.ignored_rows.items():
        print(f"{path}: {n} row(s) of collections the data root lacks for this split were not copied")
    if catalog.missing_collections:
        print(f"the data root has no {args.split} graphs of {', '.join(catalog.missing_collections)}")
    write_json(args.json, {"command": "combine", "output": str(args.output), "split": args.split, "mode": mode,
                           "rows": result.n_rows, "sources": result.sources,
                           "missing_collections": result.missing_collections, "filled": len(result.filled)})
    return EXIT_OK


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.command in ("random", "learned") and args.configs == "official" and args.split != "valid":
        raise UsageError("--configs official is the paper's protocol for the valid split")
    if args.command in ("random", "learned") and args.eval_indices and args.configs != "official":
        raise UsageError("--eval-indices is only used with --configs official")
    return {"random": _random, "learned": _learned, "combine": _combine, "codes": print_codes}[args.command](args)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``tpugraphs-baseline``; returns the exit code."""
    return guarded_main("tpugraphs-baseline", _main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
