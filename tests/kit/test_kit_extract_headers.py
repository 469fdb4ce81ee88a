"""Pax extended headers and GNU long-name headers are bounded before ``tarfile`` reads them (kit extraction).

``tarfile`` (Python 3.11 to 3.13) reads such a header's data whole, in one ``read``, to learn the next
member's name or size; it does so inside ``tarfile.open`` and its member iteration, before
``check_archive`` sees any member. So the old code read a 2 MiB pax header into memory and extracted
the archive, and a 1 KiB archive whose header declared 1 TiB asked ``read`` for 1 TiB. Now each header block's
declared size is checked first (``extract._BoundedTarInfo``): over ``MAX_HEADER_BYTES`` (1 MiB) the archive
is refused with ``ARCHIVE_TOO_LARGE`` naming the header, before its data is read.

The archives are built here: a header block written by hand (``TarInfo.tobuf`` in GNU format, which holds
any size) followed by a small good tar from ``download_helpers.tar_bytes``.
"""

from __future__ import annotations

import io
import tarfile

import pytest
from download_helpers import TILE_TAR, assert_nothing_installed, run_download, tar_bytes

import tpugraphs_kit.extract as extract_module
from tpugraphs_kit.errors import DownloadError
from tpugraphs_kit.extract import MAX_HEADER_BYTES, safe_extract

GOOD = ("npz/tile/xla/valid/g1.npz", b"data", {})


def _header_block(name: str, kind: bytes, size: int) -> bytes:
    """One 512-byte tar header of type ``kind`` declaring ``size`` bytes of data (none of which follow)."""
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    block = info.tobuf(tarfile.GNU_FORMAT, "utf-8", "surrogateescape")
    assert len(block) == tarfile.BLOCKSIZE
    return block


def _pax_comment(record_bytes: int) -> dict:
    """Extra TarInfo fields giving a member a pax header of exactly ``record_bytes`` bytes: one ``comment``
    record, ``"<length> comment=<text>\\n"`` (POSIX pax format), its length counting its own digits."""
    text = record_bytes - len(str(record_bytes)) - len(" comment=\n")
    return {"pax_headers": {"comment": "x" * text}}


def _extract(tmp_path, body: bytes) -> list:
    archive = tmp_path / "headers.tar"
    archive.write_bytes(body)
    return safe_extract(archive, tmp_path / "root")


def test_a_pax_header_at_the_cap_is_read_and_one_byte_more_is_refused(tmp_path):
    """The old code extracted both archives: the 1 MiB + 1 header was read into memory like any other."""
    at_cap = tar_bytes([("npz/tile/xla/valid/g1.npz", b"data", _pax_comment(MAX_HEADER_BYTES))])
    header = tarfile.TarInfo.frombuf(at_cap[:tarfile.BLOCKSIZE], "utf-8", "surrogateescape")
    assert (header.type, header.size) == (tarfile.XHDTYPE, MAX_HEADER_BYTES)  # the archive is what it says
    placed = _extract(tmp_path, at_cap)
    assert [p.relative_to(tmp_path / "root").as_posix() for p in placed] == ["npz/tile/xla/valid/g1.npz"]
    over = tar_bytes([("npz/tile/xla/valid/g2.npz", b"data", _pax_comment(MAX_HEADER_BYTES + 1))])
    with pytest.raises(DownloadError) as err:
        _extract(tmp_path, over)
    assert err.value.code == "ARCHIVE_TOO_LARGE"
    assert (f"the pax extended header '././@PaxHeader' at byte 0 declares {MAX_HEADER_BYTES + 1:,} bytes, more "
            f"than the limit of {MAX_HEADER_BYTES:,}") in str(err.value)
    assert not (tmp_path / "root/npz/tile/xla/valid/g2.npz").exists()


@pytest.mark.parametrize("kind, name, words", [
    (tarfile.XHDTYPE, "././@PaxHeader", "pax extended header"),
    (tarfile.XGLTYPE, "pax_global_header", "pax global header"),
    (tarfile.SOLARIS_XHDTYPE, "PaxHeaders/g1.npz", "pax extended header"),
    (tarfile.GNUTYPE_LONGNAME, "././@LongLink", "GNU long-name header"),
    (tarfile.GNUTYPE_LONGLINK, "././@LongLink", "GNU long-link header"),
])
def test_a_header_declaring_a_terabyte_is_refused_unread(tmp_path, monkeypatch, kind, name, words):
    """A 1.5 KiB archive whose first header declares 1 TiB: refused from the header block alone. The old code
    asked ``read`` for the whole TiB (recorded here: the largest read must stay at one block)."""
    reads: list[int] = []

    class RecordingFile(io.FileIO):
        def read(self, size=-1):
            reads.append(size)
            return super().read(size)

    monkeypatch.setattr(extract_module, "FileIO", RecordingFile)  # what safe_extract opens the archive with
    with pytest.raises(DownloadError) as err:
        _extract(tmp_path, _header_block(name, kind, 1 << 40) + tar_bytes([GOOD]))
    assert err.value.code == "ARCHIVE_TOO_LARGE"
    assert f"the {words} {name!r} at byte 0 declares 1,099,511,627,776 bytes" in str(err.value)
    assert max(reads) <= tarfile.BLOCKSIZE
    assert not (tmp_path / "root").exists()


def test_a_header_chained_after_a_good_one_is_checked_too(tmp_path):
    """tarfile reads a pax header, then the next header block for the same member: that one is bounded too."""
    good_pax = tar_bytes([("npz/tile/xla/valid/g1.npz", b"data", _pax_comment(100))])
    first_block = good_pax[:2 * tarfile.BLOCKSIZE]  # the pax header block and its 100 bytes, padded
    body = first_block + _header_block("././@LongLink", tarfile.GNUTYPE_LONGNAME, 3 << 20) + tar_bytes([GOOD])
    with pytest.raises(DownloadError) as err:
        _extract(tmp_path, body)
    assert err.value.code == "ARCHIVE_TOO_LARGE"
    assert f"GNU long-name header '././@LongLink' at byte 1024 declares {3 << 20:,} bytes" in str(err.value)


def test_a_gnu_sparse_member_is_refused_before_its_extension_blocks_are_read(tmp_path):
    """A GNU sparse header whose "extended" flag (byte 482) promises another block, at the end of the file: the
    old code's tarfile read on past the end and raised IndexError (exit 3, a traceback)."""
    block = bytearray(_header_block("npz/tile/xla/valid/g1.npz", tarfile.GNUTYPE_SPARSE, 0))
    block[482] = 1
    block[148:156] = b" " * 8  # the checksum counts its own field as spaces (POSIX ustar)
    block[148:156] = b"%06o\0 " % sum(block)
    with pytest.raises(DownloadError) as err:
        _extract(tmp_path, bytes(block))
    assert err.value.code == "UNSAFE_ARCHIVE"
    assert "'npz/tile/xla/valid/g1.npz' at byte 0 is a sparse file" in str(err.value)


@pytest.mark.parametrize("fmt", [tarfile.GNU_FORMAT, tarfile.PAX_FORMAT])
def test_long_names_in_either_format_still_extract(tmp_path, fmt):
    """A 200-character name needs a GNU long-name header or a pax header: both are small and read as before."""
    name = "npz/tile/xla/valid/" + "g" * 200 + ".npz"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as tar:
        info = tarfile.TarInfo(name)
        info.size = 4
        tar.addfile(info, io.BytesIO(b"data"))
    placed = _extract(tmp_path, buffer.getvalue())
    assert [p.read_bytes() for p in placed] == [b"data"] and placed[0].name == "g" * 200 + ".npz"


def test_the_download_command_refuses_it_with_exit_2(sandbox, server, capsys):
    root, _ = sandbox
    server.files[TILE_TAR] = _header_block("././@PaxHeader", tarfile.XHDTYPE, 1 << 40) + tar_bytes([GOOD])
    assert run_download(server, root) == 2
    err = capsys.readouterr().err
    assert "[ARCHIVE_TOO_LARGE]" in err and "pax extended header" in err and "Traceback" not in err
    assert_nothing_installed(root)
