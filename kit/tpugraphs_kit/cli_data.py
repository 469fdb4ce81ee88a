"""``tpugraphs-data``: look at a data root and get the real dataset.

    tpugraphs-data info --data-root demo                          # graphs per collection and split
    tpugraphs-data list --data-root demo --collection tile:xla --split valid
    tpugraphs-data urls --collections tile:xla --splits valid     # the official archive URLs
    tpugraphs-data download --collections tile:xla,layout:xla:default --splits train,valid,test
    tpugraphs-data folds --data-root demo --split train --k 5 --seed 0 -o folds.csv   # graph -> fold
    tpugraphs-data noise --data-root ~/data/tpugraphs --splits train,valid   # measurement noise, noise ceilings
    tpugraphs-data publish --data-root comp/public -o site/       # archives + SHA256SUMS for download --base-url

Exit codes: 0 ok, 2 usage or data problem (including a failed download or an unsafe archive: every archive is
still attempted, each failure reported), 3 internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from functools import partial
from pathlib import Path

from tpugraphs_eval._version import __version__
from tpugraphs_eval.dataset import COLLECTIONS, REAL_GRAPH_COUNTS, SPLITS
from tpugraphs_eval.display import safe
from tpugraphs_eval.entrypoint import ArgumentParser, guarded_main, int_at_least
from tpugraphs_eval.errors import EXIT_OK, EXIT_USAGE_OR_DATA, UsageError

from .cli_common import add_codes_command, notice, print_codes
from .data import collection, data_root, list_graphs
from .download import BASE_URL, DownloadFailures, archives, download
from .errors import KitError

_ROOT_HELP = "folder holding npz/, or `demo` (default: $TPUGRAPHS_DATA, else ~/data/tpugraphs)"


def _names(text: str, allowed: tuple[str, ...], what: str) -> list[str]:
    if text == "all":
        return list(allowed)
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in allowed]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(bad) or repr(text)}; choose from "
                                         f"{', '.join(allowed)} (comma-separated) or all")
    return names


_collections = partial(_names, allowed=tuple(c.name for c in COLLECTIONS), what="collection")
_splits = partial(_names, allowed=SPLITS, what="split")


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="tpugraphs-data", description="Look at a TpuGraphs data root and "
                                     "download the official dataset archives.",
                                     epilog="Exit codes: 0 ok, 2 usage or data problem.")
    parser.add_argument("--version", action="version", version=f"tpugraphs-data {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub = commands.add_parser("info", help="graphs per collection and split of a data root")
    sub.add_argument("--data-root", metavar="DIR", help=_ROOT_HELP)
    sub = commands.add_parser("list", help="the graph names of one collection and split")
    sub.add_argument("--data-root", metavar="DIR", help=_ROOT_HELP)
    sub.add_argument("--collection", required=True, choices=[c.name for c in COLLECTIONS])
    sub.add_argument("--split", required=True, choices=SPLITS)
    for name, help_text in (("urls", "print the official archive URLs (one tar per collection and split)"),
                            ("download", "download, check and safely extract archives into the data root")):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("--collections", type=_collections, default=None, metavar="NAMES",
                         help="comma-separated collections, or all (default all)")
        sub.add_argument("--splits", type=_splits, default=None, metavar="NAMES",
                         help="comma-separated splits, or all (default all)")
        sub.add_argument("--base-url", default=BASE_URL, help=f"where the archives are (default {BASE_URL})")
        if name == "download":
            sub.add_argument("--data-root", metavar="DIR",
                             help="folder to install into (npz/ is created there; default $TPUGRAPHS_DATA, else "
                                  "~/data/tpugraphs)")
            sub.add_argument("--keep-archives", action="store_true", help="keep the .tar files after extraction")
            sub.add_argument("--force", action="store_true", help="download again archives already installed")
            sub.add_argument("--retries", type=int, default=3, help="resumed attempts after a cut connection (3)")
            sub.add_argument("--timeout", type=float, default=60.0,
                             help="an attempt fails after this many seconds without data, or with less than 1 KiB/s "
                                  "over that long (a trickling server), and is retried (60)")
            sub.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                             help="give up on an archive not downloaded within SECONDS, retries included "
                                  "(default: no limit)")
            sub.add_argument("--no-progress", action="store_true", help="no progress bar")
    sub = commands.add_parser("folds", help="assign each graph of a split to one of k cross-validation folds",
                              description="Write a fold file `ID,fold`: whole programs per fold (the grouping of "
                                          "`tpugraphs-eval prepare`), balanced per collection; score a fold with "
                                          "`--graphs FILE --fold K`, all folds with `tpugraphs-eval cv`.")
    sub.add_argument("--data-root", metavar="DIR", help=_ROOT_HELP)
    sub.add_argument("--split", required=True, choices=SPLITS)
    sub.add_argument("--k", type=int_at_least(2), default=5, help="number of folds (default 5)")
    sub.add_argument("--seed", default="0", help="seed of the draw (any text; default 0)")
    sub.add_argument("-o", "--output", required=True, metavar="CSV", help="the fold file to write (`-`: stdout)")
    sub = commands.add_parser("noise", help="measurement noise and noise ceilings of splits (docs/metrics.md)",
                              description="Read every graph's feature rows once (streaming), find configurations with "
                                          "identical rows, write the noise file <split>.json that scoring reads, and "
                                          "print a table per graph.")
    sub.add_argument("--data-root", metavar="DIR", help=_ROOT_HELP)
    sub.add_argument("--splits", type=_splits, required=True, metavar="NAMES", help="comma-separated splits, or all")
    sub.add_argument("-o", "--output-dir", metavar="DIR", help="where <split>.json goes (default <data root>/noise)")
    sub = commands.add_parser("publish", help="organiser tools: a data root (prepare's public/) as archives in the "
                                              "official layout with a SHA256SUMS file, for download --base-url")
    sub.add_argument("--data-root", required=True, metavar="DIR", help="the data root to publish (e.g. comp/public)")
    sub.add_argument("-o", "--output", required=True, type=Path, metavar="DIR", help="a new or empty folder")
    add_codes_command(commands)
    return parser


def _publish(args) -> int:
    from .publish import publish

    sums = publish(args.data_root, args.output)
    print(f"wrote {safe(str(args.output))}: {len(sums)} files and SHA256SUMS; serve the folder and give "
          "participants `tpugraphs-data download --base-url URL` (docs/prepare.md)")
    return EXIT_OK


def _info(args) -> int:
    root = data_root(args.data_root)
    print(f"data root: {root.label}")
    notice(root)
    print(f"{'collection':<20}" + "".join(f"{s:>8}" for s in SPLITS) + "   (real dataset: train/valid/test)")
    for coll in COLLECTIONS:
        counts = [str(len(list_graphs(root, coll, split))) if (root.path / coll.split_dir(split)).is_dir() else "—"
                  for split in SPLITS]
        real = "/".join(str(REAL_GRAPH_COUNTS[coll.name][s]) for s in SPLITS)
        print(f"{coll.name:<20}" + "".join(f"{c:>8}" for c in counts) + f"   ({real})")
    return EXIT_OK


def _list(args) -> int:
    root = data_root(args.data_root)
    names = list_graphs(root, collection(args.collection), args.split)
    if not names:
        raise KitError("NO_GRAPHS", f"{root.label} has no {args.collection} {args.split} graphs")
    for name in names:
        print(name)
    return EXIT_OK


def _urls(args) -> int:
    for archive in archives(args.collections, args.splits, args.base_url):
        print(archive.url)
    return EXIT_OK


def _download(args) -> int:
    if args.data_root == "demo":
        raise UsageError("the demo data is generated, not downloaded: pass --data-root DIR")
    root = Path(args.data_root or os.environ.get("TPUGRAPHS_DATA") or "~/data/tpugraphs").expanduser()
    if args.retries < 0 or not args.timeout > 0 or not (args.deadline is None or args.deadline > 0):
        raise UsageError("--retries must be >= 0, --timeout and --deadline > 0")
    failures = []
    try:
        results = download(root, args.collections, args.splits, base_url=args.base_url,
                           keep_archives=args.keep_archives, force=args.force, retries=args.retries,
                           timeout=args.timeout, deadline=args.deadline, progress=False if args.no_progress else None)
    except DownloadFailures as err:  # every archive was attempted: report each failure, keep the successes
        results, failures = err.results, err.errors
    for result in results:
        if result.status == "skipped":
            print(f"{result.archive.name}: already installed (use --force to download it again)")
        else:
            checked = ("size checked" if result.size_checked
                       else "no Content-Length: checked by reading the tar to its end-of-archive marker")
            sha = ", sha256 checked" if result.sha256_checked else ""
            print(f"{result.archive.name}: {result.files} files extracted, {checked}{sha}")
    for err in failures:
        print(f"tpugraphs-data: error: [{err.code}] {safe(err.args[0])}", file=sys.stderr)
    if failures:
        print(f"tpugraphs-data: {len(failures)} of {len(results) + len(failures)} archive(s) failed", file=sys.stderr)
        return EXIT_USAGE_OR_DATA
    print(f"data root: {root} (use --data-root {root} with tpugraphs-eval and tpugraphs-baseline)")
    return EXIT_OK


def _folds(args) -> int:
    from tpugraphs_eval.outputs import refuse_output_is_input, write_stream
    from tpugraphs_eval.prepare.folds import fold_rows, folds_csv
    from tpugraphs_eval.truth.npzread import scan_catalog

    root = data_root(args.data_root)
    if args.output != "-":
        refuse_output_is_input([("-o", Path(args.output))], [], data_root=root.path)
    rows = fold_rows(scan_catalog(root, args.split), args.k, args.seed)
    write_stream(args.output, folds_csv(rows), "the fold file")
    if args.output != "-":
        counts = [sum(1 for _, f in rows if f == k) for k in range(args.k)]
        print(f"wrote {args.output}: {len(rows)} graphs of {root.label} {args.split} in {args.k} folds "
              f"({', '.join(map(str, counts))} graphs)")
    return EXIT_OK


def _noise(args) -> int:
    from tpugraphs_eval.outputs import write_stream
    from tpugraphs_eval.scoring.noisefile import build_noise, default_noise_path
    from tpugraphs_eval.truth.npzread import load_ground_truth

    root = data_root(args.data_root)
    print("| file | configs | in duplicate groups (groups) | relative sd | max/min runtime | noise ceiling | "
          "two measurements |\n|---|---|---|---|---|---|---|")
    for split in args.splits:
        truth = load_ground_truth(root, split)
        noise = build_noise(root, truth)
        target = Path(args.output_dir) / f"{split}.json" if args.output_dir else default_noise_path(root, split)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise UsageError(f"cannot make {target.parent} ({err.strerror}): pass -o DIR", code="OUTPUT_WRITE_FAILED") from None
        write_stream(str(target), json.dumps(noise, indent=1) + "\n", "the noise file")
        for name, t in truth.collections.items():
            metric = "score" if t.graphs.collection.kind == "tile" else "kendall_tau"
            for graph, y in zip(t.graphs.names, t.runtimes):
                g = noise["collections"][name]["graphs"][graph]
                cells = [f"{g[k][metric][0]:.3f} ± {g[k][metric][1]:.3f}" if k in g else "no estimate"
                         for k in ("ceiling", "two_measurements")]
                sd = "—" if g["sd"] is None else f"{g['sd']:.3g}" + (" (pooled)" if g["sd_source"] == "pooled" else "")
                print(f"| {t.graphs.collection.split_dir(split)}/{graph} | {g['configs']} | {g['duplicate_configs']} "
                      f"({g['groups']}) | {sd} | {y.max() / y.min():.4f} | {cells[0]} | {cells[1]} |")
        print(f"wrote {target}", file=sys.stderr)
    return EXIT_OK


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    commands = {"info": _info, "list": _list, "urls": _urls, "download": _download, "codes": print_codes,
                "folds": _folds, "noise": _noise, "publish": _publish}
    return commands[args.command](args)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``tpugraphs-data``; returns the exit code."""
    return guarded_main("tpugraphs-data", _main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
