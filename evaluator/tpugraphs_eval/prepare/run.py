"""``prepare``: turn the labelled splits of a data root into a competition with a labelled test split (docs/prepare.md).

Read the source splits' runtimes → hold out whole programs (:mod:`.selection`) → write the public data root
(:mod:`.npzwrite` for the held-out graphs), the sample submission, the solution file and the two ``prepare.json``
into temporary siblings → check the public side → move the finished folders into place.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..dataset import BY_NAME, COLLECTIONS, SPLITS, TILE_TOP_K, Collection
from ..defaults import DEFAULT_MAX_CONFIGS, DEFAULT_TEST_FRACTION
from ..errors import DataError, UsageError
from ..file_digest import file_hexdigest
from ..outputs import refuse_output_is_input
from ..roots import resolve_data_root
from ..scoring.noisefile import held_out_noise
from ..truth.dataroot import DataRoot
from ..truth.groundtruth import GraphsRead, build_ground_truth
from ..truth.npzread import read_split
from ..truth.solution import DEFAULT_PUBLIC_FRACTION, build_solution
from .grouping import program_of, stratum
from .naming import check_seed, opaque_name, seeded_int
from .npzwrite import write_public_test_file
from .selection import Graph, select_held_out

PREPARE_FORMAT = 1
LABELLED_SPLITS = ("train", "valid")


@dataclass(frozen=True)
class PrepareOptions:
    """The options of :func:`prepare` (all but the seed are written to ``public/prepare.json``).

    Attributes:
        from_splits: the labelled splits held-out graphs are drawn from (``train`` by default).
        test_fraction: share of each collection's source graphs held out (at least 2 per collection).
        public_fraction: share of each collection's held-out graphs on the public leaderboard.
        max_configs: layout held-out graphs keep a seeded sample of at most this many configs.
        collections: the collections prepared (None: every collection present); the others are left out.
    """

    from_splits: tuple[str, ...] = ("train",)
    test_fraction: float = DEFAULT_TEST_FRACTION
    public_fraction: float = DEFAULT_PUBLIC_FRACTION
    max_configs: int = DEFAULT_MAX_CONFIGS
    collections: tuple[str, ...] | None = None

    def check(self) -> None:
        """Raises :class:`UsageError` for a value out of range, an unknown split or collection."""
        splits = set(self.from_splits)
        if not splits or not splits <= set(SPLITS) or len(splits) != len(self.from_splits):
            raise UsageError(f"--from takes distinct splits among train, valid, test, not {','.join(self.from_splits)}")
        if not 0.0 < self.test_fraction < 1.0:
            raise UsageError(f"--test-fraction must be between 0 and 1 (exclusive), not {self.test_fraction}")
        if not 0.0 <= self.public_fraction <= 1.0:
            raise UsageError(f"--public-fraction must be between 0 and 1, not {self.public_fraction}")
        if self.max_configs < 2:
            raise UsageError(f"--max-configs must be 2 or more, not {self.max_configs}")
        if unknown := [c for c in self.collections or () if c not in BY_NAME]:
            raise UsageError(f"unknown collection(s) {', '.join(unknown)}; the collections are "
                             f"{', '.join(c.name for c in COLLECTIONS)}")

    @classmethod
    def given(cls, **options: Any) -> PrepareOptions:
        """The options given (the fields' names; the others keep their defaults), the splits and collections put in
        the package's order (splits train, valid, test; collections as :data:`..dataset.COLLECTIONS`), unknown or
        repeated names kept for :meth:`check`: any order prepares the same bytes.

        Raises:
            TypeError: an unknown option.
        """
        def in_order(given: Sequence[str], order: Sequence[str]) -> tuple[str, ...]:
            return tuple(sorted(given, key=lambda name: order.index(name) if name in order else len(order)))

        made = cls(**options)
        collections = None if made.collections is None else in_order(made.collections, [c.name for c in COLLECTIONS])
        return replace(made, from_splits=in_order(made.from_splits, SPLITS), collections=collections)

    def to_dict(self) -> dict[str, Any]:
        return {"from": list(self.from_splits), "test_fraction": self.test_fraction,
                "public_fraction": self.public_fraction, "max_configs": self.max_configs,
                "collections": list(self.collections) if self.collections is not None else None}


@dataclass
class _Plan:
    root: DataRoot
    options: PrepareOptions
    seed: str
    collections: list[Collection]
    source: list[Graph] = field(default_factory=list)
    runtimes: dict[tuple[str, str, str], Any] = field(default_factory=dict)
    held: list[Graph] = field(default_factory=list)
    programs: list[str] = field(default_factory=list)
    copied: list[Graph] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)


def _checked_split(root: DataRoot, split: str, wanted: set[str] | None, progress: bool) -> dict[Collection, list]:
    """The wanted collections' graphs of a labelled ``split``, each checked as a scored file is, whatever the seed
    will choose.

    Raises:
        DataError: ``PREPARE_NO_RUNTIMES`` (every runtime 0: the public test files); a coded fault per bad file
            (``NPZ_*``, ``INPUT_NOT_A_FILE``, ``RUNTIME_NOT_POSITIVE``, ...), each naming the source file.
    """
    read = read_split(root, split, with_runtimes=True, progress=progress)
    if not any(np.any(g.runtime != 0) for graphs in read.values() for _, g in graphs):
        raise DataError(f"the {split} split of {root.label} holds no runtimes (every config_runtime is 0: the "
                        "public test files): held-out graphs need ground truth; use --from train or valid",
                        code="PREPARE_NO_RUNTIMES")
    read = {c: graphs for c, graphs in read.items() if wanted is None or c.name in wanted}
    if read:
        build_ground_truth(root, split, read, where=lambda c, name: str(root.path / c.split_dir(split) / f"{name}.npz"))
    return read


def _plan(raw: str | os.PathLike[str] | DataRoot, options: PrepareOptions, seed: str, progress: bool) -> _Plan:
    options.check()
    root = raw if isinstance(raw, DataRoot) else resolve_data_root(raw)
    wanted = set(options.collections) if options.collections is not None else None
    plan = _Plan(root, options, seed, [])
    for split in options.from_splits:
        if split == "test":  # labelled (the demo) or not, the prepared test split takes its place
            _checked_split(root, split, wanted, progress)
            raise UsageError(f"--from test: the test split of {root.label} holds runtimes, but the prepared test "
                             "split takes its place (its remaining graphs would have nowhere to go): draw from "
                             "train or valid")
        for c, graphs in _checked_split(root, split, wanted, progress).items():
            for name, arrays in graphs:
                plan.source.append((c, split, name))
                plan.runtimes[(c.name, split, name)] = arrays
    present = {c for c, _, _ in plan.source}
    plan.collections = [c for c in COLLECTIONS if c in present]
    plan.left_out = {c.name: "not in --collections" if wanted is not None and c.name not in wanted  # and why
                     else f"no graph in the source split(s) {', '.join(options.from_splits)}"
                     for c in COLLECTIONS if c not in present}
    missing = sorted(wanted - {c.name for c in present}) if wanted is not None else []
    if missing or not plan.collections:
        raise DataError(f"the source split(s) {', '.join(options.from_splits)} of {root.label} hold no "
                        f"{', '.join(missing) or 'graphs'}", code="PREPARE_TOO_FEW_GRAPHS")
    held = select_held_out(plan.source, options.test_fraction, seed, where=f"the {'+'.join(options.from_splits)} split(s) of {root.label}")
    plan.held, plan.programs = held.graphs, held.programs
    held_set = set(plan.held)
    plan.copied = [g for g in plan.source if g not in held_set]
    names = {c.name for c in plan.collections}
    for split in LABELLED_SPLITS:  # the labelled splits not drawn from are copied whole, checked as scored files
        if split not in options.from_splits and any((root.path / c.split_dir(split)).exists() for c in COLLECTIONS):
            read = _checked_split(root, split, names, progress)
            plan.copied += [(c, split, name) for c, graphs in read.items() for name, _ in graphs]
    return plan


def _link_or_copy(source: Path, target: Path) -> None:
    """A hard link to ``source`` (a symbolic link's final target: a link is never published) where the file system
    allows it, else a byte-identical copy."""
    target.parent.mkdir(parents=True, exist_ok=True)
    source = source.resolve()
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _write(plan: _Plan, public: Path, private: Path, progress: bool) -> dict[str, Any]:
    from ..progress import progress_bar

    root = plan.root.path
    sources = {g: root / g[0].split_dir(g[1]) / f"{g[2]}.npz" for g in plan.source + plan.copied}
    bar = progress_bar("preparing", transfer=True) if progress else None
    task = bar.add_task("preparing", total=sum(p.stat().st_size for p in sources.values())) if bar else None
    with bar or nullcontext():
        hashes = {}
        for g in sorted(plan.copied, key=lambda g: (g[0].name, g[1], g[2])):
            c, split, name = g
            _link_or_copy(sources[g], public / c.split_dir(split) / f"{name}.npz")
            hashes[f"{c.split_dir(split)}/{name}.npz"] = file_hexdigest(sources[g])
            if bar:
                bar.advance(task, sources[g].stat().st_size)
        names, truth_root = [], private / ".truth"
        for g in sorted(plan.held, key=lambda g: (g[0].name, g[1], g[2])):
            c, split, name = g
            hashes[f"{c.split_dir(split)}/{name}.npz"] = file_hexdigest(sources[g])
            runtimes, keep = plan.runtimes[(c.name, split, name)], None
            if c.kind == "layout" and runtimes.runtime.size > plan.options.max_configs:  # a seeded sample of configs
                rng = np.random.default_rng(seeded_int(plan.seed, "configs", c.name, split, name))
                keep = np.sort(rng.choice(runtimes.runtime.size, plan.options.max_configs, replace=False))
            opaque = opaque_name(plan.seed, stratum(c), name)
            target = public / c.split_dir("test") / f"{opaque}.npz"
            if target.exists():
                raise DataError(f"two held-out {c.name} graphs of {plan.root.label} get the opaque name {opaque} (the "
                                f"same name in two source splits, or a collision): rename one or choose another seed",
                                code="PREPARE_NAME_CLASH")
            target.parent.mkdir(parents=True, exist_ok=True)
            write_public_test_file(sources[g], target, keep)
            if bar:
                bar.advance(task, sources[g].stat().st_size)
            truth = truth_root / c.split_dir("test") / f"{opaque}.npz"  # its ground truth only, for build_solution
            truth.parent.mkdir(parents=True, exist_ok=True)
            np.savez(truth, config_runtime=runtimes.runtime if keep is None else runtimes.runtime[keep],
                     **({} if runtimes.normalizer is None else {"config_runtime_normalizers": runtimes.normalizer}))
            names.append({"collection": c.name, "split": split, "graph": name, "program": program_of(c, name),
                          "test_graph": opaque, "configs": int(runtimes.runtime.size),
                          "kept_configs": keep.tolist() if keep is not None else None})
    return {"names": names, "hashes": dict(sorted(hashes.items()))}


def _sample_submission(public_test: GraphsRead, collections: list[Collection]) -> str:
    """``ID,TopConfigs`` of every public test graph (tile 0..min(5,c)-1, layout 0..c-1), sorted by ID."""
    rows = ["ID,TopConfigs"]
    for c in collections:
        for name, arrays in sorted(public_test.get(c, [])):
            n = arrays.runtime.size
            rows.append(f"{c.name}:{name}," + ";".join(map(str, range(min(TILE_TOP_K, n) if c.kind == "tile" else n))))
    return "\n".join(rows) + "\n"


def check_public(public: Path, held_programs: Sequence[str], source: str = "the source") -> GraphsRead:
    """Refuse a public data root that leaks ground truth (``source`` names the data root it was prepared from).

    Returns:
        Its test split as read (:func:`..truth.npzread.read_split`, with the zero runtimes).

    Raises:
        DataError: ``PREPARE_PUBLIC_RUNTIME`` (a public test file with a non-zero runtime or a tile normalizer
            other than 1, files named); ``PREPARE_PROGRAM_LEAK`` (a held-out program still has a graph in a
            public split, graphs named).
    """
    root = DataRoot(public)
    test = read_split(root, "test", with_runtimes=True, progress=False)
    if bad := [f"{c.name}:{name}" for c, graphs in test.items() for name, arrays in graphs
               if np.any(arrays.runtime != 0) or (arrays.normalizer is not None and np.any(arrays.normalizer != 1))]:
        raise DataError(f"prepared from {source}: {len(bad)} public test file(s) hold a runtime other than 0 or a normalizer other than 1: "
                        + ", ".join(bad[:5]), code="PREPARE_PUBLIC_RUNTIME")
    held = set(held_programs)
    if leaks := [f"{split}/{c.name}:{name}" for split in LABELLED_SPLITS for c in COLLECTIONS
                 for name in root.graph_names(c, split) if program_of(c, name) in held]:
        raise DataError(f"prepared from {source}: {len(leaks)} graph(s) of held-out programs are in a public split (a program must be on "
                        "one side only): " + ", ".join(leaks[:5]), code="PREPARE_PROGRAM_LEAK")
    return test


def _refuse_nonempty(path: Path, option: str) -> None:
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise UsageError(f"{option} {path} exists and is not a folder: prepare writes a new folder",
                         code="PREPARE_OUTPUT_NOT_EMPTY")
    if path.is_dir() and any(path.iterdir()):
        raise UsageError(f"{option} {path} is not empty: prepare writes into a new or empty folder only",
                         code="PREPARE_OUTPUT_NOT_EMPTY")
    if not path.parent.is_dir():
        raise UsageError(f"{option} {path}: its parent folder {path.parent} does not exist",
                         code="OUTPUT_WRITE_FAILED")


def _fill(plan: _Plan, public: Path, private: Path, progress: bool) -> dict[str, Any]:
    """Write everything into ``public`` and ``private`` (new folders), then check the public side."""
    public.mkdir()
    private.mkdir()
    written = _write(plan, public, private, progress)
    public_test = check_public(public, plan.programs, plan.root.label)
    (public / "sample_submission.csv").write_text(_sample_submission(public_test, plan.collections), encoding="utf-8")
    truth_root = private / ".truth"
    manifest = build_solution(DataRoot(truth_root, synthetic=plan.root.synthetic), "test", private / "solution.parquet",
                              public_fraction=plan.options.public_fraction, seed=seeded_int(plan.seed, "usage"),
                              source=f"tpugraphs-eval prepare of {source_name(plan.root)}")
    shutil.rmtree(truth_root)
    counts = {c.name: {s: len(DataRoot(public).graph_names(c, s)) for s in (*LABELLED_SPLITS, "test")}
              for c in plan.collections}
    public_json = {"format": PREPARE_FORMAT, "evaluator_version": __version__, "synthetic": plan.root.synthetic,
                   "collections": counts, "left_out": plan.left_out, "options": plan.options.to_dict(),
                   "test_public_graphs": {n: v["public_graphs"] for n, v in manifest["counts"].items()},
                   "grouping": "a program is on one side only: layout default and random graphs with the same "
                               "file name; tile graphs with the same name before the trailing _<hex> kernel id "
                               "(docs/prepare.md)"}
    private_json = {**public_json, "source": source_name(plan.root), "source_sha256": written["hashes"],
                    "seed": plan.seed, "held_out_programs": plan.programs, "names": written["names"],
                    "solution_sha256": file_hexdigest(private / "solution.parquet"),
                    "ground_truth_sha256": manifest["ground_truth_sha256"],
                    "held_out_noise": held_out_noise(plan.root, written["names"], plan.runtimes)}
    for folder, content in ((public, public_json), (private, private_json)):
        (folder / "prepare.json").write_text(json.dumps(content, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return private_json


def prepare(raw: str | os.PathLike[str] | DataRoot, public: str | os.PathLike[str], private: str | os.PathLike[str],
            *, seed: str | int | None = None, insecure_seed: bool = False, from_splits: Sequence[str] = ("train",),
            test_fraction: float = DEFAULT_TEST_FRACTION, public_fraction: float = DEFAULT_PUBLIC_FRACTION,
            max_configs: int = DEFAULT_MAX_CONFIGS, collections: Sequence[str] | None = None,
            progress: bool = False) -> dict[str, Any]:
    """Prepare a competition from the labelled splits of ``raw`` (MLE-bench's ``prepare(raw, public, private)``):
    ``public`` becomes a data root with the held-out graphs as split ``test``, ``private`` gets ``solution.parquet``
    and ``prepare.json`` (docs/prepare.md, "What it writes").

    Args:
        raw: the source data root (a path, ``"demo"`` or a :class:`DataRoot`).
        public, private: the folders to write, new or empty, whose parents exist (filled in temporary siblings and
            renamed into place at the end).
        seed: the organiser's secret (text or int, at least 16 characters); None draws one (``secrets``).
        insecure_seed: accept a shorter seed (a throwaway run).
        from_splits, test_fraction, public_fraction, max_configs, collections: see :class:`PrepareOptions`.
        progress: draw a progress bar on stderr.

    Returns:
        the content of ``private/prepare.json``.

    Raises:
        UsageError: ``PREPARE_OUTPUT_NOT_EMPTY``, ``PREPARE_WEAK_SEED``, ``SAME_OUTPUT_TWICE`` (``public`` and
            ``private`` are one folder, or one is inside the other), a bad option. DataError: ``PREPARE_NO_RUNTIMES``,
            ``PREPARE_TOO_FEW_GRAPHS``, ``PREPARE_PUBLIC_RUNTIME``, ``PREPARE_PROGRAM_LEAK``, an unreadable data
            root. On any error nothing is left in ``public`` or ``private``.
    """
    options = PrepareOptions.given(from_splits=from_splits, test_fraction=test_fraction, public_fraction=public_fraction,
                                   max_configs=max_configs, collections=collections)
    seed = check_seed(seed, insecure_seed)
    public, private = Path(public), Path(private)
    # one folder, or one inside the other, would publish the private solution: refused before any work
    refuse_output_is_input([("public", public), ("private", private)], [], folders=["public", "private"])
    for path, option in ((public, "public"), (private, "private")):
        _refuse_nonempty(path, option)
    plan = _plan(raw, options, seed, progress)
    remove_stale_work(public), remove_stale_work(private)
    with tempfile.TemporaryDirectory(prefix=f".{public.name}.prepare-", dir=public.parent) as tmp_public, \
            tempfile.TemporaryDirectory(prefix=f".{private.name}.prepare-", dir=private.parent) as tmp_private:
        work_public, work_private = Path(tmp_public) / "out", Path(tmp_private) / "out"
        result = _fill(plan, work_public, work_private, progress)
        for work, final in ((work_private, private), (work_public, public)):
            _move_into_place(work, final)
    return result


def prepare_dir(raw: str | os.PathLike[str] | DataRoot, out: str | os.PathLike[str], *,
                seed: str | int | None = None, insecure_seed: bool = False, progress: bool = False,
                **options: Any) -> dict[str, Any]:
    """:func:`prepare` into ``out/public`` and ``out/private`` (``tpugraphs-eval prepare -o DIR``): ``out`` must be
    new or empty; the whole folder is written as a temporary sibling and renamed at the end. ``options``: those of
    :class:`PrepareOptions`, as for :func:`prepare`.

    Raises:
        as :func:`prepare`; TypeError: an unknown option.
    """
    seed = check_seed(seed, insecure_seed)
    out = Path(out)
    _refuse_nonempty(out, "-o")
    plan = _plan(raw, PrepareOptions.given(**options), seed, progress)
    remove_stale_work(out)
    with tempfile.TemporaryDirectory(prefix=f".{out.name}.prepare-", dir=out.parent) as tmp:
        work = Path(tmp) / "out"
        work.mkdir()
        result = _fill(plan, work / "public", work / "private", progress)
        _move_into_place(work, out)
    return result


def remove_stale_work(final: Path) -> list[Path]:
    """Delete the work folders a killed run into ``final`` left beside it (``.<name>.prepare-*``: they may hold
    the held-out runtimes) and return them; two runs into one folder at the same time are not supported."""
    final = Path(final)
    stale = sorted(p for p in final.parent.glob(f".{glob.escape(final.name)}.prepare-*")
                   if p.is_dir() and not p.is_symlink())
    for path in stale:
        shutil.rmtree(path)
    return stale


def _move_into_place(work: Path, final: Path) -> None:
    """Rename the finished ``work`` folder to ``final`` (an empty ``final`` is replaced)."""
    try:
        if final.is_dir():
            final.rmdir()  # empty: checked before any work
        os.replace(work, final)
    except OSError as err:
        raise UsageError(f"cannot move the prepared folder into place at {final}: {err.strerror or err}",
                         code="OUTPUT_WRITE_FAILED") from None


def source_name(root: DataRoot) -> str:
    """How the written files name their source: the demo, or a data root, never by its path, so that the same data
    and seed give the same bytes wherever the data lie (docs/prepare.md, "What it writes")."""
    return "the demo data (SYNTHETIC)" if root.synthetic else "a data root (its files: source_sha256)"

