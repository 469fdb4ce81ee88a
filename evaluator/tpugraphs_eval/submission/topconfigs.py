"""Validation of one field: what exactly is wrong with one TopConfigs field.

The rules are :mod:`..rules.topconfigs` (shared with the exported Kaggle metric). Every row first gets the fast check
``scan_indices`` (:mod:`..kernels`, see :mod:`.validation`); only fields it does not pass as clean come to
:func:`diagnose`, which takes the scan's values when the field has no bad token (an accelerator: the rules' own
tokenizer runs otherwise; tests/submission/test_fuzz.py holds both equal).
"""

from __future__ import annotations

import numpy as np

from ..dataset import Kind
from ..kernels import FLAG_BAD_TOKEN, Scanned
from ..rules.topconfigs import Checked, check_field, check_values


def diagnose(configs: bytes | memoryview, kind: Kind, n_configs: int | None,
             scanned: Scanned | None = None) -> Checked:
    """Every problem of a TopConfigs field of a graph with ``n_configs`` configurations (None: ID unknown).

    Args:
        configs: the raw field.
        kind: ``tile`` or ``layout``.
        n_configs: the graph's number of configurations c, or None when the ID is unknown (then only
            the syntax is checked).
        scanned: ``scan_indices(configs, ...)``'s result (:class:`..kernels.Scanned`) when already computed:
            a field without bad tokens is then checked with numpy on its values, whatever its length.

    Returns:
        A :class:`..rules.topconfigs.Checked`: ``problems`` ((code, message) pairs: EMPTY_CONFIGS, EMPTY_TOKEN,
        NON_INTEGER, NEGATIVE_INDEX, INDEX_OUT_OF_RANGE, DUPLICATE_INDEX, TILE_TOO_MANY, TILE_TOO_FEW,
        LAYOUT_NOT_PERMUTATION, NO_USABLE_CONFIGS), ``usable`` ((u,) int64, what lenient mode scores) and
        ``one_past_end``.
    """
    if scanned is not None and not scanned.flags & FLAG_BAD_TOKEN and n_configs is not None:
        values = np.frombuffer(scanned.values, dtype=np.int32).astype(np.int64)
        return check_values(values, None, scanned.n_tokens, kind, n_configs)
    return check_field(configs, kind, n_configs)
