"""Is a submission CSV text at all? Its first bytes tell (NUL bytes, UTF-16, UTF-32, mostly not UTF-8).

Standard library only, and Python 3.9 syntax: the Codabench scoring program carries this very file beside its
``score.py``, so it and the validator (:mod:`..submission.csvfile`) refuse the same files with the same words.
"""

from __future__ import annotations

UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
"""Checked before :data:`UTF16_BOMS`: UTF-32's little-endian mark starts with UTF-16's."""
_UTF8_BOM = b"\xef\xbb\xbf"
SNIFF_BYTES = 8192
"""Bytes of the file's start that are looked at."""
_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\r\n")


def looks_binary(head: bytes) -> str | None:
    """Why the first bytes of a file are not CSV text (words that follow "this is not a CSV text file: "), or
    None if they could be: UTF-32 (a byte-order mark, or three bytes of every four NUL), UTF-16 (a byte-order
    mark, or every other byte NUL), NUL bytes, or more than 5% of the characters (CR not counted, so that a
    file's verdict does not depend on its line ends) undecodable as UTF-8 or control characters other than tab,
    CR and LF."""
    if head.startswith(UTF32_BOMS):
        return "it is UTF-32 text (save it as UTF-8)"
    if head.startswith(UTF16_BOMS):
        return "it is UTF-16 text (save it as UTF-8)"
    if b"\x00" in head:
        quarters = [head[k::4] for k in range(4)]
        rest = head.replace(b"\x00", b"")
        if sum(q.count(0) > 0.9 * len(q) for q in quarters if q) >= 3 and len(head) >= 8 and rest and rest.isascii():
            return "it is UTF-32 text (save it as UTF-8)"
        halves = head[0::2], head[1::2]
        if any(half.count(0) > 0.9 * len(half) for half in halves if half) and rest.isascii():
            return "it is UTF-16 text (save it as UTF-8)"
        return "it contains NUL bytes (binary data)"
    text = head.decode("utf-8", errors="replace")
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    counted = len(text) - text.count("\r")  # CR of CRLF or CR CR LF line ends: judged as the same file with LF
    if counted and text.count("\ufffd") + controls > 0.05 * counted:
        return "most of it is not UTF-8 text (binary data)"
    return None


def refusal(data):
    """``(code, message, line)`` when a whole file (``data``, its bytes) holds nothing to read line by line: empty
    or only blank, a byte-order mark aside (EMPTY_FILE), or not CSV text by :func:`looks_binary` on its first
    :data:`SNIFF_BYTES` (NOT_TEXT; ``line``: the 1-based line of the first NUL byte, None when the reason is not
    NUL bytes); None for a file to read."""
    body = data[len(_UTF8_BOM):] if data.startswith(_UTF8_BOM) else data
    if not body or body.isspace():
        what = ("is empty" if not data else "holds only a UTF-8 byte-order mark" if data == _UTF8_BOM
                else "holds only blank lines and spaces")
        return "EMPTY_FILE", f"the file {what}; it must start with the header `ID,TopConfigs`.", 1 if data else None
    why = looks_binary(data[:SNIFF_BYTES])
    if why is None:
        return None
    nul = data.find(b"\x00", 0, SNIFF_BYTES)
    line = data.count(b"\n", 0, nul) + 1 if nul >= 0 and "NUL" in why else None
    return "NOT_TEXT", f"this is not a CSV text file: {why}.", line
