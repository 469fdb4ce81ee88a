"""Secrets derived from the organiser's seed: opaque test names and the seeds of every draw.

An opaque name is the first 32 hex digits of HMAC-SHA256 (RFC 2104) of ``"<stratum>:<graph name>"``, keyed
by a secret derived from the seed (SHA-256 of a fixed label and the seed). Layout ``default`` and ``random``
graphs of one program share their file name and stratum, so they get the same opaque name, as in the real
test split. Without the seed the name cannot be computed from the original name (a short or guessable seed
can be guessed: use a long random one, e.g. ``python -c "import secrets; print(secrets.token_hex(16))"``).
"""

from __future__ import annotations

import hashlib
import hmac

_LABEL = b"tpugraphs-eval prepare v1\0"


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
