"""Which data root a command means: an explicit path, the word ``demo``, ``$TPUGRAPHS_DATA``, ``~/data/tpugraphs``.

The one place where the word ``demo`` becomes the bundled synthetic demo dataset (:mod:`tpugraphs_eval.demo.dataset`,
built into the user cache at first use), so that ``truth/`` does not import ``demo/``: the demo is made from
the ground truth's format, not the other way round.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import DataError
from .truth.dataroot import DEFAULT_ROOT, DEMO, ENV_VAR, DataRoot, data_root_at


def resolve_data_root(arg: str | os.PathLike[str] | None = None) -> DataRoot:
    """The data root named by ``arg`` (a path or ``"demo"``), else ``$TPUGRAPHS_DATA``, else ``~/data/tpugraphs``.

    Raises:
        DataError: the folder does not exist, cannot be read, or does not hold ``npz/``.
    """
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
