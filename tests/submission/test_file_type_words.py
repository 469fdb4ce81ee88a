"""One wording of file types: an input that is refused (safeopen) and an output that is refused (atomicfile) name
the same kind of file with the same words, from one helper, ``safeopen.file_type_in_words``.

The old code had two tables: safeopen called ``/dev/zero`` "a device" where atomicfile called ``/dev/null`` "a
character device"; a block device was "a device" on one side and "a block device" on the other.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from tpugraphs_eval.atomicfile import refuse_special, special_kind
from tpugraphs_eval.safeopen import InputRefused, file_type_in_words, open_regular_file

_UNKNOWN_TYPE = 0o150000  # S_IFDOOR (Solaris): no test of the stat module is true for it on Linux


@pytest.mark.parametrize("mode, words", [
    (stat.S_IFREG | 0o644, None),
    (stat.S_IFDIR | 0o755, "a folder"),
    (stat.S_IFCHR | 0o666, "a character device"),
    (stat.S_IFBLK | 0o660, "a block device"),
    (stat.S_IFIFO | 0o600, "a FIFO (named pipe)"),
    (stat.S_IFSOCK | 0o755, "a socket"),
    (stat.S_IFLNK | 0o777, "a symbolic link"),
    (_UNKNOWN_TYPE, "a special file"),
])
def test_every_file_type_has_its_words(mode, words):
    assert file_type_in_words(mode) == words


def _node(tmp_path: Path, kind: str) -> Path:
    """A path of ``kind``: /dev/null (a character device), a FIFO, a socket or a folder in ``tmp_path``."""
    if kind == "device":
        if not Path("/dev/null").exists():
            pytest.skip("/dev/null is absent")
        return Path("/dev/null")
    path = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(path))
        listener.close()  # the socket file stays until it is removed
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize("kind, words", [("device", "a character device"), ("fifo", "a FIFO (named pipe)"),
                                         ("socket", "a socket"), ("folder", "a folder")])
def test_input_and_output_refusals_use_the_same_words(tmp_path, kind, words):
    path = _node(tmp_path, kind)
    assert special_kind(path) == words
    with pytest.raises(OSError) as output:
        refuse_special(path)
    assert output.value.strerror == f"it exists and is {words}, not a regular file"
    if kind == "socket":  # a socket file cannot be opened at all: refused as unreadable, before fstat
        return
    with pytest.raises(InputRefused) as refused:
        open_regular_file(path, 1 << 20)
    assert (refused.value.kind, refused.value.reason) == ("not_a_file", f"is {words}, not a regular file; it is "
                                                                        "not read")
