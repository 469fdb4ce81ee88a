"""Secrets derived from the organiser's seed: opaque test names and the seeds of every draw. **Decision**
(docs/prepare.md, "Decision: opaque names"): a name is the first 32 hex digits of HMAC-SHA256 (RFC 2104) of
``"<stratum>:<graph name>"``, keyed by SHA-256 of a fixed label and the seed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from ..errors import UsageError

_LABEL = b"tpugraphs-eval prepare v1\0"


MIN_SEED_CHARS = 16
"""The shortest seed ``prepare`` accepts without ``--insecure-seed`` (a 16-character secret; ``new_seed`` has 32)."""


def new_seed() -> str:
    """A fresh 128-bit seed (32 hex digits, ``secrets.token_hex``) for an organiser who gives none."""
    return secrets.token_hex(16)


def check_seed(seed: str | int | None, insecure: bool = False) -> str:
    """The seed as text (``seed`` None: a fresh one, :func:`new_seed`).

    Raises:
        UsageError: ``PREPARE_WEAK_SEED``: a seed shorter than :data:`MIN_SEED_CHARS` characters (``""``, ``1``:
            every opaque name could be mapped back by trying seeds), unless ``insecure`` (a throwaway run).
    """
    if seed is None:
        return new_seed()
    text = str(seed)
    if len(text) < MIN_SEED_CHARS and not insecure:
        raise UsageError(f"the seed has {len(text)} character(s): a secret of at least {MIN_SEED_CHARS} is needed "
                         "(opaque test names and every draw derive from it, and a short one can be guessed); leave "
                         "--seed out for a random one, or give --insecure-seed for a throwaway run",
                         code="PREPARE_WEAK_SEED")
    return text


def _key(seed: str, purpose: str) -> bytes:
    return hashlib.sha256(_LABEL + purpose.encode() + b"\0" + seed.encode()).digest()


def opaque_name(seed: str, stratum: str, name: str) -> str:
    """32 lower-case hex digits naming graph ``name`` of ``stratum`` (``layout:xla``, ``tile:xla``) in the
    public test split."""
    return hmac.new(_key(seed, "names"), f"{stratum}:{name}".encode(), hashlib.sha256).hexdigest()[:32]


def seeded_int(seed: str, *parts: str) -> int:
    """A 63-bit integer for one draw (``parts`` say which: ``"held-out", "layout:xla"``), from the seed."""
    digest = hmac.new(_key(seed, "draws"), "\0".join(parts).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1
