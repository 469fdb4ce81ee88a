"""Which data root a command means: an explicit path, the word ``demo``, ``$TPUGRAPHS_DATA``, ``~/data/tpugraphs``.

The one place where the word ``demo`` becomes the bundled synthetic demo dataset (:mod:`tpugraphs_eval.demo.dataset`,
built into the user cache at first use), so that ``truth/`` does not import ``demo/``: the demo is made from
the ground truth's format, not the other way round.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import DataError
from .truth.dataroot import DEFAULT_ROOT, DEMO, ENV_VAR, DataRoot, data_root_at

if TYPE_CHECKING:
    from .defaults import TileRuntime
    from .truth.groundtruth import GroundTruth, SplitCatalog


def resolve_data_root(arg: DataRoot | str | os.PathLike[str] | None = None) -> DataRoot:
    """The data root named by ``arg`` (a :class:`DataRoot`, returned as it is; a path; ``"demo"``), else
    ``$TPUGRAPHS_DATA``, else ``~/data/tpugraphs``.

    Raises:
        DataError: the folder does not exist, cannot be read, or holds neither ``npz/`` nor ``npz_all/npz/``.
    """
    if isinstance(arg, DataRoot):
        return arg
    if arg is None:
        arg = os.environ.get(ENV_VAR) or DEFAULT_ROOT
    if str(arg) == DEMO:
        from .demo.dataset import demo_data_root

        return DataRoot(demo_data_root(), synthetic=True)
    path = Path(arg).expanduser()
    try:
        return data_root_at(path)
    except PermissionError:
        raise DataError(f"data root {path} cannot be read: permission denied") from None


def scan_catalog(root: DataRoot | str | os.PathLike[str] | None, split: str, *, progress: bool = False) -> SplitCatalog:
    """The graphs of ``split`` and their config counts (:func:`.truth.npzread.scan_catalog`) from the data root
    ``root`` names (a :class:`DataRoot`, a path, ``"demo"``, None: :func:`resolve_data_root`).

    Raises:
        DataError, UsageError: as :func:`resolve_data_root` and :func:`.truth.npzread.scan_catalog`.
    """
    from .truth import npzread

    return npzread.scan_catalog(resolve_data_root(root), split, progress=progress)


def load_ground_truth(root: DataRoot | str | os.PathLike[str] | None, split: str, *,
                      tile_runtime: TileRuntime = "normalized", progress: bool = False) -> GroundTruth:
    """The catalog and runtimes of ``split`` (:func:`.truth.npzread.load_ground_truth`) from the data root ``root``
    names (a :class:`DataRoot`, a path, ``"demo"``, None: :func:`resolve_data_root`).

    Raises:
        DataError, UsageError: as :func:`resolve_data_root` and :func:`.truth.npzread.load_ground_truth`.
    """
    from .truth import npzread

    return npzread.load_ground_truth(resolve_data_root(root), split, tile_runtime=tile_runtime, progress=progress)
