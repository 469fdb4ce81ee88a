"""What rules/sniff.py refuses before any line is read.

The binary-file check gives a file the same verdict whatever its line ends: CRLF and CR CR LF add CR characters,
which are not counted in the share of undecodable characters (found by tests/submission/test_fuzz.py's CRLF
property: before, the added CRs pulled a file just over the 5% mark under it). The case is hand-made: 1
undecodable byte among 18 characters (5.6%) with LF, 20 with CRLF (5.0%, not over 5%). A file of a byte-order
mark and blanks is empty."""

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


@pytest.mark.parametrize("data, says", [(b"\xef\xbb\xbf", "holds only a UTF-8 byte-order mark"),
                                        (b"\xef\xbb\xbf\n\r\n ", "holds only blank lines and spaces"),
                                        (b"", "is empty")])
def test_a_file_of_a_byte_order_mark_and_blanks_is_empty(data, says):
    """Before, a lone BOM gave BOM, BLANK_LINE, NO_FINAL_NEWLINE and MISSING_IDS, but not EMPTY_FILE."""
    code, message, _ = refusal(data)
    assert code == "EMPTY_FILE" and says in message
