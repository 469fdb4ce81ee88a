"""Where the ground truth lives: a data root in the official layout (docs/data.md), or the bundled synthetic demo.
Which one a command means is chosen by :func:`tpugraphs_eval.roots.resolve_data_root`, outside this package.

Entries whose name starts with a dot are never graphs (macOS writes ``._<name>.npz`` beside every file copied to
a non-Apple disk, and ``.DS_Store``): they are ignored, and reports name them (:meth:`DataRoot.ignored_files`).
"""

from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass
from pathlib import Path

from ..dataset import COLLECTIONS, SPLITS, Collection
from ..errors import DataError, UsageError
from ..safeopen import file_type_in_words

ENV_VAR = "TPUGRAPHS_DATA"
"""The environment variable naming the data root when no path is given."""
DEFAULT_ROOT = "~/data/tpugraphs"
"""The data root when neither a path nor :data:`ENV_VAR` is given (the official download's place)."""
DEMO = "demo"
"""The ``--data-root`` word for the bundled synthetic demo dataset (:func:`tpugraphs_eval.roots.resolve_data_root`)."""
SYNTHETIC_MARKER = "SYNTHETIC.txt"
"""The file beside ``npz/`` that marks synthetic data: the demo writes it, and a copy of the demo keeps it
(:func:`data_root_at` labels such a data root synthetic)."""


@dataclass(frozen=True)
class DataRoot:
    """A resolved data root.

    Attributes:
        path: the folder holding ``npz/``.
        synthetic: True for the bundled demo dataset or a copy of it (:data:`SYNTHETIC_MARKER`): its numbers are not
            TpuGraphs measurements.
        noun: what messages call it: ``"data root"``, or ``"solution"`` when ``path`` is a solution file
            (:func:`tpugraphs_eval.truth.solution.load_solution`).
    """

    path: Path
    synthetic: bool = False
    noun: str = "data root"

    @property
    def label(self) -> str:
        """How reports name this data root; the demo is always labelled synthetic."""
        return f"demo (SYNTHETIC data) at {self.path}" if self.synthetic else str(self.path)

    @property
    def option(self) -> str:
        """The ``--data-root`` value that names this data root again in a hint (``demo`` for the demo)."""
        return DEMO if self.synthetic else str(self.path)

    def graph_files(self, collection: Collection, split: str) -> list[Path] | None:
        """The ``.npz`` files of ``collection`` in ``split``, sorted by name; None if the folder is absent.

        Raises:
            DataError: the folder cannot be listed, holds no ``.npz`` file, or holds an entry named
                ``*.npz`` that is not a readable file (a folder, a FIFO, a link that leads nowhere: code
                ``INPUT_NOT_A_FILE``).
        """
        folder = self.path / collection.split_dir(split)
        if (entries := _npz_entries(folder)) is None:
            return None
        if broken := [p for p in entries if not p.is_file()]:
            raise DataError(f"{folder} holds entries named *.npz that are not regular files: "
                            f"{', '.join(f'{p.name} ({_kind(p)})' for p in broken[:5])}", code="INPUT_NOT_A_FILE")
        if not entries:
            raise DataError(f"{folder} holds no .npz files: an empty {collection.name} {split} collection "
                            "(an interrupted download or extraction?)")
        return entries

    def ignored_files(self, split: str) -> list[str]:
        """Dot files (``._*.npz``, ``.DS_Store``, …) in the split's collection folders, ignored when reading:
        their paths relative to the data root, sorted; [] where a folder is absent or cannot be listed."""
        return list(_dot_files(self.path, split))

    def graph_names(self, collection: Collection, split: str) -> list[str]:
        """Graph IDs of ``collection`` in ``split`` (file names without ``.npz``); [] if absent or unreadable."""
        try:
            entries = _npz_entries(self.path / collection.split_dir(split))
        except DataError:
            return []
        return [p.stem for p in entries or [] if p.is_file()]


def _kind(path: Path) -> str:
    """What an entry that :meth:`Path.is_file` refused is, in words (through a link: what it leads to)."""
    try:
        return file_type_in_words(path.stat().st_mode) or "a regular file"
    except FileNotFoundError:
        return "a link that leads nowhere"
    except OSError as err:
        return f"not readable: {err.strerror}"


def _npz_entries(folder: Path) -> list[Path] | None:
    """Entries named ``*.npz`` in ``folder`` (dot files left out), sorted; None if there is no such folder.

    Raises:
        DataError: the folder exists but cannot be listed (permissions).
    """
    if not folder.is_dir():
        return None
    try:
        with os.scandir(folder) as entries:  # names sorted as strings: the order of sorted paths, without pathlib's cost
            names = sorted(e.name for e in entries if e.name.endswith(".npz") and not e.name.startswith("."))
        return [folder / name for name in names]
    except OSError as err:
        raise DataError(f"cannot list {folder}: {err.strerror}") from None


KAGGLE_FOLDER = "npz_all"
"""The folder of Kaggle's competition download that holds ``npz/`` (``predict-ai-model-runtime/npz_all/npz``)."""


def data_root_at(path: Path) -> DataRoot:
    """The data root at ``path`` (a folder holding ``npz/``, or Kaggle's folder holding ``npz_all/npz/``: then
    ``path/npz_all``), checked; synthetic when it holds :data:`SYNTHETIC_MARKER` (a copy of the demo).

    Raises:
        DataError: the folder does not exist, is not a folder, or holds no ``npz/`` (the message says which,
            and what to pass instead).
        PermissionError: it cannot be read.
    """
    if not path.exists():
        raise DataError(f"data root {path} does not exist. Pass --data-root DIR (the folder holding npz/), "
                        f"set ${ENV_VAR}, or use --data-root demo for the bundled synthetic demo data.")
    if not path.is_dir():
        raise DataError(f"data root {path} is not a folder")
    if (path / "npz").is_dir():
        return DataRoot(path, synthetic=(path / SYNTHETIC_MARKER).is_file())
    if (path / KAGGLE_FOLDER / "npz").is_dir():
        return DataRoot(path / KAGGLE_FOLDER)
    if path.name == "npz" or (path / "tile").is_dir() or (path / "layout").is_dir():
        raise DataError(f"data root {path} looks like the npz/ folder itself; pass its parent {path.parent}")
    raise DataError(f"data root {path} holds no npz/ folder (expected npz/tile/xla/{{split}}/*.npz and "
                    "npz/layout/{xla,nlp}/{default,random}/{split}/*.npz, or Kaggle's npz_all/npz/)")


def check_split(split: str) -> str:
    """``split`` itself if it is train, valid or test. Raises :class:`UsageError` otherwise."""
    if split not in SPLITS:
        raise UsageError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    return split


def present_collections(root: DataRoot, split: str) -> dict[Collection, list[Path]]:
    """Collections of ``split`` that have a folder under ``root``, with their files.

    Raises:
        DataError: no collection of the split is present, or a present folder is empty.
    """
    found = {c: files for c in COLLECTIONS if (files := root.graph_files(c, split)) is not None}
    if not found:
        raise DataError(f"{root.label} has no {split} graphs: none of npz/tile/xla/{split}/, "
                        f"npz/layout/{{xla,nlp}}/{{default,random}}/{split}/ exists")
    return found


@functools.lru_cache(maxsize=64)
def _dot_files(root: Path, split: str) -> tuple[str, ...]:
    """:meth:`DataRoot.ignored_files`, listed once per data root and split."""
    found = []
    for collection in COLLECTIONS:
        with contextlib.suppress(OSError):
            found += [str(p.relative_to(root)) for p in (root / collection.split_dir(split)).iterdir()
                      if p.name.startswith(".")]
    return tuple(sorted(found))
