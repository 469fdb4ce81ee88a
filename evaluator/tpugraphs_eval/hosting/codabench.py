"""``tpugraphs-eval export codabench``: a Codabench competition bundle (competition.yaml version 2).

``scoring_program/`` holds ``score.py`` (:mod:`.codabench_program`), ``tpugraphs_metric.py`` (:mod:`.metric_file`)
and :data:`BUNDLED_RULES`. The layout and the **Decision**s on it (worker image: the program vendors the metric
file, so the stock image runs it; phases: Public on the Public graphs, Final on the Private ones from the day after,
its output hidden; the board keeps the last submission, ``Force_Last``): docs/hosting.md, "Codabench bundle".
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._version import __version__
from ..atomicfile import ZIP_DATE, umask, write_atomically
from ..dataset import COLLECTIONS, TILE_TOP_K
from ..errors import UsageError
from ..roots import resolve_data_root
from ..rules import csvshape, public_rule, sniff
from ..truth.solution import build_solution, read_manifest
from . import codabench_program
from .codabench_pages import logo_png, pages, validate_command
from .kaggle_metric import solution_frame
from .metric_file import metric_source
from .wheel import write_wheel

DOCKER_IMAGE = "codalab/codalab-legacy:py39"
COMMAND = "python3 /app/program/score.py /app/input /app/output"
"""The scoring program's command (metadata.yaml): the worker mounts the program at /app/program (its
working directory), the input (ref/, res/) at /app/input and the output at /app/output."""
PHASE_USAGES = ("Public", "Private")
BUNDLED_RULES = (csvshape, sniff, public_rule)
"""The modules of ``rules/`` that score.py imports, copied beside it unchanged (the others, ``codes.py`` and
``topconfigs.py``, are in ``tpugraphs_metric.py``)."""


def _scalar(value: Any) -> str:
    """A date as a YAML date (as Codabench's examples write them); anything else as JSON, which YAML reads alike
    (``null``, ``true``, numbers, ``{}`` and ``[]``: to_yaml writes the others as blocks; strings double-quoted)."""
    if isinstance(value, dt.date):
        return value.isoformat()
    plain = value is None or isinstance(value, (bool, int, float)) or (isinstance(value, (dict, list)) and not value)
    return json.dumps(value if plain else str(value))


def to_yaml(value: Any, indent: int = 0) -> str:
    """Block-style YAML of dicts, lists and scalars (strings double-quoted), read back by ``yaml.safe_load``."""
    pad = " " * indent
    if isinstance(value, dict):
        return "\n".join(f"{pad}{key}:\n{to_yaml(item, indent + 2)}" if isinstance(item, (dict, list)) and item
                         else f"{pad}{key}: {_scalar(item)}" for key, item in value.items())
    return "\n".join(f"{pad}- {to_yaml(item, indent + 2)[indent + 2:]}" if isinstance(item, dict)
                     else f"{pad}- {_scalar(item)}" for item in value)


SYNTHETIC_TITLE = " (SYNTHETIC demo data)"
"""Appended to the title of a bundle made from the synthetic demo (unless the title says synthetic already)."""
PUBLIC_DAYS = 90
"""Length of the Public phase (days): it ends at 00:00 UTC of day ``start + PUBLIC_DAYS``."""
FINAL_DAYS = 14
"""Length of the Final (results) phase (days)."""


FINAL_PHASE_LIMITS = {"max_submissions": 1, "max_submissions_per_day": 1, "hide_output": True,
                      "hide_score_output": True}
"""The Final phase's secrecy settings (docs/hosting.md, "no private value before the end")."""


def competition(title: str, start: dt.date, synthetic: bool = False,
                collections: Sequence[str] | None = None) -> dict[str, Any]:
    """The competition.yaml content (Codabench v2: pages, phases, tasks, solutions, leaderboards).

    ``start``: the Public phase's first day (a date: Codabench reads it as 00:00 UTC). ``synthetic``: the
    solution is the bundled synthetic demo; the description and the leaderboard's title say so (the caller
    labels ``title``). ``collections``: those the solution holds (default all), one leaderboard column each.
    """
    public_end = start + dt.timedelta(days=PUBLIC_DAYS)
    final = public_end + dt.timedelta(days=1)  # the day after, as Codabench's unpacker (_validate_phase_ordering) wants
    end = final + dt.timedelta(days=FINAL_DAYS)
    columns = [{"title": "Overall", "key": "overall", "index": 0, "sorting": "desc", "precision": 5}]
    columns += [{"title": c.name, "key": codabench_program.leaderboard_key(c.name), "index": i, "sorting": "desc",
                 "precision": 5} for i, c in enumerate(
                    [c for c in COLLECTIONS if collections is None or c.name in collections], start=1)]
    phase = {"max_submissions_per_day": 5, "max_submissions": 100, "execution_time_limit": 600}
    return {
        "version": 2,
        "title": title,
        "description": ("SYNTHETIC demo data, not TpuGraphs measurements: a trial run of the hosting. " if synthetic
                        else "") + "Rank the compilation configurations of XLA programs on TPUs by runtime (TpuGraphs).",
        "image": "logo.png",
        "registration_auto_approve": True,
        "docker_image": DOCKER_IMAGE,
        "make_programs_available": True,
        "enable_detailed_results": True,  # detailed_results.html: the submission's public view (score.py)
        "terms": "pages/terms.md",
        "pages": [{"title": name.capitalize(), "file": f"pages/{name}.md"}
                  for name in ("overview", "evaluation", "data", "terms")],
        "phases": [
            {"index": 0, "name": "Public", "description": "Scored on the Public graphs (public leaderboard).",
             "start": start, "end": public_end, "tasks": [0], "solutions": [0], **phase},
            {"index": 1, "name": "Final", "description": "Results: every Public submission re-scored on the Private "
             "graphs (private leaderboard); no new submission once yours are migrated.",
             "start": final, "end": end, "tasks": [1], "solutions": [0],
             "auto_migrate_to_this_phase": True, **phase, **FINAL_PHASE_LIMITS},
        ],
        "tasks": [{"index": i, "name": f"TpuGraphs {usage.lower()} leaderboard",
                   "description": f"Scores the {usage} graphs of the solution.", "is_public": False,
                   "scoring_program": "scoring_program", "reference_data": f"reference_data_{usage.lower()}"}
                  for i, usage in enumerate(PHASE_USAGES)],
        "solutions": [{"index": 0, "tasks": [0, 1], "path": "sample_submission"}],
        "leaderboards": [{"index": 0, "title": "Results (SYNTHETIC data)" if synthetic else "Results", "key": "main", "submission_rule": "Force_Last",
                          "columns": columns}],
    }


def _sample_submission(frame) -> str:
    """A valid submission: every graph's configs in index order (tile: the first min(5, c))."""
    lines = ["ID,TopConfigs"]
    for graph_id, runtimes in zip(frame.ID.tolist(), frame.runtimes.tolist(), strict=True):
        n = runtimes.count(";") + 1
        listed = min(n, TILE_TOP_K) if graph_id.startswith("tile:") else n
        lines.append(f"{graph_id},{';'.join(map(str, range(listed)))}")
    return "\n".join(lines) + "\n"


PUBLIC_DATA_MAX_BYTES = 300 * 1000**2
"""Largest prepared public tree carried in the bundle's ``public_data/`` (bytes): above it the folder holds a
download note (``DOWNLOAD.md``) instead, and the organiser hosts the tree elsewhere (docs/hosting.md)."""
PUBLIC_DATA = "public_data"
"""The bundle's folder of public data, and the name the pages and the starting kit give to the unzipped public
data (``--data-root``)."""
STARTING_KIT = "starting_kit"


def _write_participant_files(out: Path, prepared: Path, split: str, synthetic: bool,
                             notebooks: Sequence[Path] = ()) -> None:
    """``public_data/`` (the prepared public tree, or a download note above :data:`PUBLIC_DATA_MAX_BYTES`) and
    ``starting_kit/`` (the starter notebooks, the sample submission and a README with the validate command)."""
    public = prepared / "public"
    size = sum(p.stat().st_size for p in public.rglob("*") if p.is_file())
    target = out / PUBLIC_DATA
    if size <= PUBLIC_DATA_MAX_BYTES:
        shutil.copytree(public, target, copy_function=shutil.copyfile)  # prepare's hard links become files
    else:
        target.mkdir()
        (target / "DOWNLOAD.md").write_text(
            f"# Public data\n\nThe prepared public data ({size} bytes) is larger than a bundle carries "
            f"({PUBLIC_DATA_MAX_BYTES} bytes): the organisers publish it for download (the `public/` folder of "
            "`tpugraphs-eval prepare`; docs/hosting.md). Unzip it into a folder `public_data/`.\n", encoding="utf-8")
    kit = out / STARTING_KIT
    kit.mkdir()
    names = [notebook.name for notebook in notebooks]
    for notebook in notebooks:
        shutil.copyfile(notebook, kit / notebook.name)
    shutil.copyfile(out / "sample_submission" / "submission.csv", kit / "sample_submission.csv")
    wheel = write_wheel(kit).name
    command = validate_command(split, data_root=PUBLIC_DATA, submission="sample_submission.csv")
    (kit / "README.md").write_text(
        "# Starting kit\n\n"
        + ("SYNTHETIC demo data: scores on it say nothing about real TPU programs.\n\n" if synthetic else "")
        + f"1. `pip install './{wheel}[kit]'` (the wheel in this folder: the evaluator and the kit, "
        "`tpugraphs-eval`, `tpugraphs-data`, `tpugraphs-baseline`; `[kit]` adds scipy for the learned baseline).\n"
        f"2. Download this phase's public data and unzip it into `{PUBLIC_DATA}/` next to this folder's files.\n"
        f"3. Check a submission before uploading it (here the sample, a valid one):\n\n   `{command}`\n\n"
        "4. Zip the CSV file itself and submit the zip.\n\n"
        + (f"Notebooks ({', '.join(names)}): set `TPUGRAPHS_DATA={PUBLIC_DATA}` before starting Jupyter so that "
           "they read the public data.\n" if names else "") , encoding="utf-8")


def write_bundle(out: Path, solution_file: Path, *, title: str = "TpuGraphs: predict AI model runtime",
                 mode: str = "strict", tile_runtime: str = "normalized", start: dt.date | None = None,
                 zip_path: Path | None = None, prepared: Path | None = None,
                 notebooks: Sequence[Path] = ()) -> dict[str, Any]:
    """Write the bundle into the folder ``out`` (new or empty), and its zip to ``zip_path`` if given.

    Args:
        solution_file: the organiser's solution file (``tpugraphs-eval solution build``); its Usage makes
            the two phases.
        title: the competition's title; a solution of the synthetic demo (its manifest's ``synthetic``) gets
            :data:`SYNTHETIC_TITLE` appended, and its pages, leaderboard and scoring output say SYNTHETIC.
        mode, tile_runtime: the validation mode and tile runtime the scoring program uses.
        prepared: a folder of ``tpugraphs-eval prepare`` (``solution_file`` is its ``private/solution.parquet``):
            the bundle also carries ``public_data/`` and ``starting_kit/``, and the pages' validate command reads it.
        notebooks: the kit's starter notebooks, copied into ``starting_kit/`` with ``prepared`` (hosting does not
            import the kit: the caller finds them).
        start: the Public phase's first day (default today; the others: :func:`competition`).

    Returns:
        The competition.yaml content.

    Raises:
        UsageError: ``out`` is a non-empty folder or a file; ``OUTPUT_WRITE_FAILED``: a write failed (a full
            disk, a zip path that is a device or a FIFO; :func:`publish_folder` leaves no partial bundle).
        DataError: not a solution file.
    """
    out = Path(out)
    refuse_nonempty(out, "bundle")
    frame = solution_frame(solution_file)
    manifest = read_manifest(solution_file)
    synthetic = bool(manifest.get("synthetic"))
    if synthetic and "synthetic" not in title.lower():
        title += SYNTHETIC_TITLE
    if set(frame.Usage) != set(PHASE_USAGES):
        raise UsageError(f"{solution_file} needs Public and Private graphs for the two phases (it has "
                         f"{', '.join(sorted(set(frame.Usage)))})")
    counts = {name: (len(part), int((part.Usage == "Public").sum()), int(part.runtimes.str.count(";").sum()) + len(part))
              for name, part in frame.groupby(frame.ID.str.rsplit(":", n=1).str[0], sort=False)}  # graphs, public, configs
    config = competition(title, start or dt.date.today(), synthetic, list(counts))
    if prepared is not None:
        for phase in config["phases"]:
            phase.update(public_data=PUBLIC_DATA, starting_kit=STARTING_KIT)
    settings = {"mode": mode, "tile_runtime": tile_runtime, "synthetic": synthetic}
    publish_folder(out, lambda staging: _write_files(staging, config, frame, counts, settings, manifest["split"],
                                                     prepared, notebooks), zip_path=zip_path)
    return config


def refuse_nonempty(out: Path, what: str) -> None:
    """Refuse, before any work, an ``out`` that exists and is not an empty folder: :func:`publish_folder` renames
    the finished ``what`` onto a missing path or an empty folder only.

    Raises:
        UsageError: ``out`` is a file or a non-empty folder.
    """
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out} exists and is not an empty folder: choose a new one for the {what}")


def publish_folder(out: Path, fill: Callable[[Path], None], what: str = "bundle", zip_path: Path | None = None) -> None:
    """Fill a staging folder beside ``out`` (``fill``), zip it to ``zip_path`` if given, and rename it to ``out``:
    a failure leaves no partial ``what`` (the bundle, or :mod:`.mlebench`'s competition).

    Raises:
        UsageError: ``OUTPUT_WRITE_FAILED``: a write failed (a full disk, a zip path that is a device or a FIFO).
    """
    staging = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".staging", dir=out.parent))
        fill(staging)
        if zip_path is not None:
            write_atomically(Path(zip_path), lambda tmp: _zip(staging, tmp))
        os.chmod(staging, 0o777 & ~umask())
        os.replace(staging, out)  # a rename: onto a missing path or an empty folder
    except OSError as err:
        raise UsageError(f"cannot write the {what} {out}" + (f" or {zip_path}" if zip_path is not None else "")
                         + f": {err.strerror or err} (nothing was left behind)", code="OUTPUT_WRITE_FAILED") from None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _write_files(out: Path, config: dict[str, Any], frame, counts: dict[str, tuple[int, int, int]],
                 settings: dict[str, Any], split: str, prepared: Path | None, notebooks: Sequence[Path]) -> None:
    """Fill the (staging) folder ``out`` with the bundle's files (OSError on a failed write). ``settings``:
    ``mode``, ``tile_runtime`` and ``synthetic`` (each task's settings.json); ``split``: the solution's split, which
    the pages name; ``prepared``, ``notebooks``: as for :func:`write_bundle`."""
    (out / "competition.yaml").write_text(f"# Written by tpugraphs-eval {__version__} export codabench.\n"
                                          + to_yaml(config) + "\n", encoding="utf-8")
    (out / "logo.png").write_bytes(logo_png())
    (out / "pages").mkdir()
    command = validate_command(split, settings["synthetic"], PUBLIC_DATA if prepared is not None else None)
    for name, text in pages(config["title"], counts, settings["mode"], settings["tile_runtime"],
                            settings["synthetic"], split, command).items():
        (out / "pages" / name).write_text(text, encoding="utf-8")
    program = out / "scoring_program"
    program.mkdir()
    (program / "metadata.yaml").write_text(to_yaml({"command": COMMAND}) + "\n", encoding="utf-8")
    shutil.copyfile(codabench_program.__file__, program / "score.py")
    (program / "tpugraphs_metric.py").write_text(metric_source(), encoding="utf-8")
    for rule in BUNDLED_RULES:  # the rules score.py imports, byte for byte
        shutil.copyfile(rule.__file__, program / Path(rule.__file__).name)
    for usage in PHASE_USAGES:
        ref = out / f"reference_data_{usage.lower()}"
        ref.mkdir()
        frame.to_csv(ref / "solution.csv", index=False)
        task = {"usage": usage, **settings, "evaluator": __version__}
        (ref / "settings.json").write_text(json.dumps(task, indent=2) + "\n", encoding="utf-8")
    (out / "sample_submission").mkdir()
    (out / "sample_submission" / "submission.csv").write_text(_sample_submission(frame), encoding="utf-8")
    if prepared is not None:
        _write_participant_files(out, Path(prepared), split, settings["synthetic"], notebooks)


def _zip(folder: Path, target: str) -> None:
    """Write every folder and file under ``folder`` into the zip ``target`` (paths relative to ``folder``),
    reproducibly: members sorted by path, each with :data:`ZIP_DATE` and fixed Unix permissions (docs/hosting.md)."""
    members = sorted((path.relative_to(folder).as_posix() + ("/" if path.is_dir() else ""), path)
                     for path in folder.rglob("*"))
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, path in members:
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.create_system = 3  # Unix, so that external_attr holds the permissions
            if path.is_dir():
                info.external_attr = (0o40755 << 16) | 0x10  # a folder (and MS-DOS's directory bit)
                archive.writestr(info, b"")
            else:
                info.external_attr = 0o100644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, path.read_bytes())


def write_bundle_from_prepared(out: Path, prepared: Path, **options: Any) -> dict[str, Any]:
    """:func:`write_bundle` of a ``tpugraphs-eval prepare`` folder: its ``private/solution.parquet`` and its
    ``public/`` tree (UsageError when ``prepared`` has neither)."""
    prepared = Path(prepared)
    solution = prepared / "private" / "solution.parquet"
    if not solution.is_file() or not (prepared / "public" / "npz").is_dir():
        raise UsageError(f"{prepared} is not a folder of `tpugraphs-eval prepare` (it needs private/solution.parquet "
                         "and public/npz/)")
    return write_bundle(out, solution, prepared=prepared, **options)


def write_bundle_from_data_root(out: Path, data_root: str | None, split: str, **options: Any) -> dict[str, Any]:
    """:func:`write_bundle` with a solution built from ``data_root``'s ``split`` (default seeded Usage)."""
    with tempfile.TemporaryDirectory() as tmp:
        solution_file = Path(tmp) / f"{split}.parquet"
        build_solution(resolve_data_root(data_root), split, solution_file)
        return write_bundle(out, solution_file, **options)
