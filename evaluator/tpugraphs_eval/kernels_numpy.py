"""The numpy fallback of the C extension (``_native.c``, chosen by :mod:`kernels`): the same two functions,
taking and returning exactly what their C twins do, bytes for bytes (tests/scoring/test_kernels.py). Both are
vectorised: a fixed number of numpy passes per TopConfigs field, O(log n) passes per set of rankings.
"""

from __future__ import annotations

import numpy as np

FLAG_BAD_TOKEN = 1
"""An empty token, a non-digit, or more than :data:`MAX_DIGITS` digits."""
FLAG_OUT_OF_RANGE = 2
"""A value >= n_configs."""
FLAG_DUPLICATE = 4
"""A value (below n_configs) listed twice."""
MAX_DIGITS = 9
"""999,999,999 < 2**31: a clean value fits int32."""
_SEMICOLON, _ZERO = ord(";"), ord("0")
_POWERS_OF_TEN = 10 ** np.arange(MAX_DIGITS, dtype=np.int64)


def scan_indices(field: bytes | memoryview, n_configs: int) -> tuple[bytes, int, int]:
    """Parse a TopConfigs field such as ``b"3;0;17"`` and flag whether it is clean (``_native.scan_indices``).

    Args:
        field: the raw field, tokens separated by ``;``.
        n_configs: the graph's number of configurations c; -1 when unknown (no range or repeat check).

    Returns:
        ``(values, n_tokens, flags)``: ``values`` the tokens as packed native int32 (-1 for a bad token),
        ``n_tokens`` = number of ``;`` + 1, and ``flags`` the OR of :data:`FLAG_BAD_TOKEN`,
        :data:`FLAG_OUT_OF_RANGE` (only when n_configs >= 0) and :data:`FLAG_DUPLICATE` (values below
        c, only when c > 0). A field with any flag set is re-read by :func:`tpugraphs_eval.submission.topconfigs.diagnose`.
    """
    data = np.frombuffer(field, dtype=np.uint8)
    is_separator = data == _SEMICOLON
    separators = np.flatnonzero(is_separator)
    n_tokens = separators.size + 1
    ends = np.append(separators, data.size)  # (n_tokens,) one past each token's last byte
    lengths = ends - np.concatenate(([0], separators + 1))
    token_of_byte = np.cumsum(is_separator)  # a ';' counts with the token after it; only digits are used below
    is_digit = (data - _ZERO) <= 9  # uint8: bytes below '0' wrap to large values
    bad = (lengths == 0) | (lengths > MAX_DIGITS)
    strays = ~is_digit & ~is_separator
    if strays.any():
        bad[token_of_byte[strays]] = True
    digits = np.flatnonzero(is_digit & ~bad[token_of_byte])  # the bytes of clean tokens
    tokens = token_of_byte[digits]
    place_values = _POWERS_OF_TEN[ends[tokens] - 1 - digits] * (data[digits] - _ZERO)
    # bincount sums in float64: exact here, every partial sum is an integer below 10**9
    values = np.bincount(tokens, weights=place_values, minlength=n_tokens).astype(np.int64)
    values[bad] = -1

    flags = FLAG_BAD_TOKEN if bad.any() else 0
    if n_configs >= 0:
        clean = values[~bad]
        if (clean >= n_configs).any():
            flags |= FLAG_OUT_OF_RANGE
        in_range = np.sort(clean[clean < n_configs])
        if (in_range[1:] == in_range[:-1]).any():
            flags |= FLAG_DUPLICATE
    return values.astype(np.int32).tobytes(), n_tokens, flags


def inversions(ranks, lengths, n_values) -> bytes:
    """Discordant pairs of strict rankings stored back to back (``_native.inversions``).

    Args:
        ranks: int32 buffer, (sum(lengths),) the values of every segment, segments back to back.
        lengths: int64 buffer, (S,) each segment's length.
        n_values: int64 buffer, (S,) each segment's exclusive bound on its values (0 <= value < n_values[s]).

    Returns:
        (S,) packed native int64: per segment the pairs i < j with ranks[i] > ranks[j] (equal values never
        count).

    Raises:
        ValueError: the buffers' sizes do not match, a value is negative, or one is not below its
        segment's bound (the C extension's messages).

    Method: ties are broken by position, making every value distinct; the segments then become one
    permutation P of 0..N-1 (segment s's values all below segment s+1's, so no pair across segments is
    an inversion). Its inversions are counted bit by bit from the top, as in a wavelet tree: a pair is
    counted at the highest bit where its two values differ, where the earlier element has a 1 and the
    later a 0. At each bit the elements stay ordered by (higher bits, position), and every run of equal
    higher bits is a contiguous block whose start is known from the bit alone (P is a permutation), so a
    level is a few O(N) numpy passes: O(N log N) in all, like the C extension's Fenwick tree. At every
    level the sequence's places [start_s, start_s + length_s) hold segment s's values (blocks follow the
    values, and a block's elements their positions), and every pair counted lies within one segment, so
    the counts are summed by place.
    """
    r = np.frombuffer(ranks, dtype=np.int32)
    length = np.frombuffer(lengths, dtype=np.int64)
    bound = np.frombuffer(n_values, dtype=np.int64)
    if bound.size != length.size or int(length.sum()) != r.size:
        raise ValueError("inversions: lengths, n_values and ranks do not match")
    if (r < 0).any():
        raise ValueError("inversions: negative rank")
    segment = np.repeat(np.arange(length.size), length)
    if (r >= bound[segment]).any():
        raise ValueError("inversions: a rank is not below its segment's n_values")
    n = r.size
    index = np.int32 if n < 2**30 else np.int64  # half the memory traffic where it fits
    # P: each value's place among all values ordered by (segment, value, position)
    value_offsets = np.concatenate(([0], np.cumsum(bound)[:-1]))
    order = np.argsort(value_offsets[segment] + r, kind="stable")
    sequence = np.empty(n, dtype=index)  # P, ordered by (the bits above the current one, position)
    sequence[order] = np.arange(n, dtype=index)
    totals = np.concatenate(([0], np.cumsum(_inversions_by_place(sequence))))
    ends = np.cumsum(length)
    return (totals[ends] - totals[ends - length]).astype(np.int64).tobytes()


def _inversions_by_place(sequence: np.ndarray) -> np.ndarray:
    """(N,) int64: the inversions of the permutation ``sequence`` of 0..N-1 counted at each place, bit by bit from
    the top (:func:`inversions`' method; ``sequence`` is reordered in place)."""
    n, index = sequence.size, sequence.dtype
    counted = np.zeros(n, dtype=np.int64)  # per place in the sequence: the inversions found there
    places = np.arange(n, dtype=index)
    moved = np.empty_like(sequence)
    for bit in range(max(n - 1, 0).bit_length() - 1, -1, -1):
        block = 1 << (bit + 1)  # places [k * block, (k + 1) * block) hold one run of equal higher bits
        ones = (sequence >> bit) & 1
        ones_seen = np.cumsum(ones, dtype=index)
        ones_seen -= ones  # ones strictly before each place
        ones_before = ones_seen - np.repeat(ones_seen[::block], block)[:n]  # … in its block: earlier, larger
        zeros_before = (places & (block - 1)) - ones_before
        zeros = 1 - ones
        counted += ones_before * zeros  # a 0 after a 1 of the same block: an inversion
        target = zeros_before + ones * (ones_before - zeros_before)  # stable: 0s, then 1s, of each block
        target += sequence >> bit << bit
        moved[target] = sequence
        sequence, moved = moved, sequence
    return counted
