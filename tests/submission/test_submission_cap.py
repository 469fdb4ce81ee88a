"""The submission size cap holds for every source the API takes: a path, bytes and a binary file object.

A path was always refused past ``MAX_SUBMISSION_BYTES`` (256 MiB) with ``SUBMISSION_TOO_LARGE``; the old code
took bytes of any size and read a file object with one ``read()`` to its end, so an endless stream filled
memory. Now bytes are refused by their length, and a file object is read in chunks of at most
``safeopen.CHUNK_BYTES`` and never past cap + 1 bytes, with the same code and the same words as a path.
The cap is lowered here (to the length of the tiny valid submission) so that the tests hold kilobytes, not
256 MiB; the code reads it at each call.
"""

from __future__ import annotations

import io

import pytest
from badinput import VALID

from tpugraphs_eval.api import Evaluator
from tpugraphs_eval.errors import UsageError
from tpugraphs_eval.safeopen import CHUNK_BYTES
from tpugraphs_eval.submission import csvfile

CAP = len(VALID)  # the valid tiny submission is exactly at the cap: accepted; one more byte is refused
OVER = VALID + b"\n"  # CAP + 1 bytes (a trailing blank line)


@pytest.fixture()
def evaluator(catalog, monkeypatch):
    """A validation-only evaluator over the tiny test split, with the submission cap lowered to ``CAP``."""
    monkeypatch.setattr(csvfile, "MAX_SUBMISSION_BYTES", CAP)
    return Evaluator.over(catalog, None)


class Endless(io.RawIOBase):
    """A binary stream of zero bytes that never ends; records every size asked. ``read()`` to the end (the old
    code's call) fails the test instead of hanging."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            raise AssertionError("the whole of an endless stream was asked for")
        self.asked.append(size)
        return bytes(size)


def _refusal(evaluator: Evaluator, source) -> UsageError:
    with pytest.raises(UsageError) as raised:
        evaluator.evaluate(source)
    return raised.value


def test_bytes_at_the_cap_are_read_and_one_more_byte_is_refused(evaluator):
    assert evaluator.evaluate(VALID).valid
    for source in (OVER, bytearray(OVER), memoryview(OVER)):
        error = _refusal(evaluator, source)
        assert error.code == "SUBMISSION_TOO_LARGE"
        assert str(error) == (f"the submission given as bytes holds {CAP + 1:,} bytes, more than the limit of "
                              f"{CAP:,}; it is not read")


def test_a_file_object_over_the_cap_is_refused_like_a_path(evaluator, tmp_path):
    """Same code, same words after the name: "holds ... more than the limit of ...; it is not read"."""
    path = tmp_path / "over.csv"
    path.write_bytes(OVER)
    by_path = _refusal(evaluator, path)
    assert by_path.code == "SUBMISSION_TOO_LARGE"
    assert str(by_path) == (f"submission file {path} holds {CAP + 1:,} bytes, more than the limit of {CAP:,}; "
                            "it is not read")
    for source in (io.BytesIO(OVER), open(path, "rb")):
        with source:
            error = _refusal(evaluator, source)
        assert error.code == "SUBMISSION_TOO_LARGE"
        assert str(error) == f"the submission file object holds more than the limit of {CAP:,} bytes; it is not read"
    assert evaluator.evaluate(io.BytesIO(VALID)).valid  # at the cap: read whole


def test_an_endless_stream_is_read_in_chunks_and_no_further_than_the_cap(evaluator, monkeypatch):
    """The old code called ``read()`` once, to the end (here: an AssertionError; on a real endless stream, memory
    ran out)."""
    stream = Endless()
    assert _refusal(evaluator, stream).code == "SUBMISSION_TOO_LARGE"
    assert sum(stream.asked) == CAP + 1 and max(stream.asked) <= CHUNK_BYTES
    cap = 3 * CHUNK_BYTES + 5  # a cap of several chunks: 1 MiB at a time, then the 6 bytes that pass it
    monkeypatch.setattr(csvfile, "MAX_SUBMISSION_BYTES", cap)
    stream = Endless()
    assert _refusal(evaluator, stream).code == "SUBMISSION_TOO_LARGE"
    assert stream.asked == [CHUNK_BYTES] * 3 + [6]


class _Failing(io.RawIOBase):
    """A stream whose ``read`` returns ``result`` (None: a non-blocking stream with no data) or raises it."""

    def __init__(self, result) -> None:
        self.result = result

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1):
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result


@pytest.mark.parametrize("result, code, words", [
    (None, "SUBMISSION_UNREADABLE", "the submission file object had no data ready (a non-blocking stream); it is "
                                    "not read"),
    (OSError(5, "Input/output error"), "SUBMISSION_UNREADABLE", "the submission file object cannot be read: "
                                                                "Input/output error"),
    ("ID,TopConfigs\n", None, "the submission file object is in text mode (read() returned str, not bytes): open "
                              "it in binary mode ('rb')"),
])
def test_a_file_object_that_cannot_be_read_is_a_coded_usage_error(evaluator, result, code, words):
    error = _refusal(evaluator, _Failing(result))
    assert (error.code, str(error)) == (code, words)
