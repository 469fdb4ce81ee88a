"""The binary-file check (rules/sniff.py) gives a file the same verdict whatever its line ends: CRLF and CR CR LF
add CR characters, which are not counted in the share of undecodable characters (found by
tests/submission/test_fuzz.py's CRLF property: before, the added CRs pulled a file just over the 5% mark under it).
The case is hand-made: 1 undecodable byte among 18 characters (5.6%) with LF, 20 with CRLF (5.0%, not over 5%)."""

from __future__ import annotations

import pytest

from tpugraphs_eval.rules.sniff import refusal

LF = b"ID,TopConfigs\nab\xbf\n"


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r\r\n"])
def test_the_verdict_does_not_depend_on_line_ends(end):
    found = refusal(LF.replace(b"\n", end))
    assert found is not None and found[0] == "NOT_TEXT" and "most of it is not UTF-8" in found[1]


def test_below_the_mark_is_text_with_any_line_ends():
    text = b"ID,TopConfigs\nabcdefgh\xbf\n"  # 1 of 24 characters: 4.2%
    assert [refusal(text.replace(b"\n", end)) for end in (b"\n", b"\r\n", b"\r\r\n")] == [None, None, None]
