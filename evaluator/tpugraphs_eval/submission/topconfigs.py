"""What exactly is wrong with one TopConfigs field, by the rules of :mod:`..rules.topconfigs` (shared with the exported
Kaggle metric), for the fields the fast row scan (``scan_indices``, :mod:`.validation`) does not pass as clean
(tests/submission/test_fuzz.py holds the scan and the rules equal).
"""

from __future__ import annotations

import numpy as np

from ..dataset import Kind
from ..kernels import FLAG_BAD_TOKEN, Scanned
from ..rules.topconfigs import Checked, check_field, check_values


def diagnose(configs: bytes | memoryview, kind: Kind, n_configs: int | None, scanned: Scanned) -> Checked:
    """Every problem of a TopConfigs field of a graph with ``n_configs`` configurations (None: ID unknown, only the
    syntax is checked), given ``scan_indices(configs, ...)``'s result (:class:`..kernels.Scanned`): a field without
    bad tokens is checked with numpy on the scan's values, whatever its length.

    Returns:
        A :class:`..rules.topconfigs.Checked`: ``problems`` ((code, message) pairs), ``usable`` ((u,) int64, what
        lenient mode scores) and ``one_past_end``.
    """
    if not scanned.flags & FLAG_BAD_TOKEN and n_configs is not None:
        values = np.frombuffer(scanned.values, dtype=np.int32).astype(np.int64)
        return check_values(values, None, scanned.n_tokens, kind, n_configs)
    return check_field(configs, kind, n_configs)
