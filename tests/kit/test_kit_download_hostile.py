"""Hostile archives, servers and data roots against ``tpugraphs-data download`` (issue 7, item 1).

One test (or parametrised case) per kind of attack or fault in what is downloaded: links in archives
(including links chained across members and across archives), other member types, names outside ``npz/``,
pre-existing links in the data root, forged done-markers, failures after part of an archive was written,
truncated tars, compressed or empty archives and tar bombs. Hostile servers (short bodies, missing
Content-Length, trickles, stalls, size limits) are in test_kit_download_servers.py. Every case runs in a
temporary folder holding the data root ``root/`` and a sibling ``outside/``; the listing of ``outside/``
(names, types, bytes) must be identical after each one. Servers are the loopback server of
``download_helpers``.
"""

from __future__ import annotations

import errno
import gzip
import io
import tarfile
from pathlib import Path

import pytest
from download_helpers import (
    LAYOUT_TAR,
    TILE_TAR,
    assert_nothing_installed,
    fails_instead_of_hanging,
    listing,
    npz_bytes,
    official,
    run_download,
    tar_bytes,
)

import tpugraphs_kit.extract as extract_module
from tpugraphs_eval.dataset import REAL_GRAPH_COUNTS
from tpugraphs_kit.cli_data import main as data_main
from tpugraphs_kit.download import download
from tpugraphs_kit.errors import DownloadError
from tpugraphs_kit.extract import MAX_BYTES, MAX_MEMBERS, safe_extract

GOOD = ("npz/tile/xla/valid/g1.npz", b"data", {})
SYM, LNK = tarfile.SYMTYPE, tarfile.LNKTYPE
HOSTILE = {
    # links of every kind are refused, wherever they point (the official archives hold none)
    "chained links, one archive": [("npz/e", None, {"type": SYM, "linkname": "d/.."}),
                                   ("npz/d", None, {"type": SYM, "linkname": ".."}),
                                   ("npz/e/outside/keep.txt", b"evil", {})],
    "symlink chain via '.'": [("npz/a", None, {"type": SYM, "linkname": "."}),
                              ("npz/a/b", None, {"type": SYM, "linkname": "../.."}),
                              ("npz/a/b/outside/keep.txt", b"evil", {})],
    "symlink out": [GOOD, ("npz/link", None, {"type": SYM, "linkname": "../../outside"})],
    "absolute symlink": [("npz/link", None, {"type": SYM, "linkname": "/etc"})],
    "symlink inside": [GOOD, ("npz/alias", None, {"type": SYM, "linkname": "tile/xla"})],
    "hard link out": [GOOD, ("npz/hard", None, {"type": LNK, "linkname": "../outside/keep.txt"})],
    "hard link inside": [GOOD, ("npz/copy.npz", None, {"type": LNK, "linkname": "npz/tile/xla/valid/g1.npz"})],
    # other non-regular members
    "fifo": [GOOD, ("npz/fifo", None, {"type": tarfile.FIFOTYPE})],
    "character device": [GOOD, ("npz/dev", None, {"type": tarfile.CHRTYPE, "devmajor": 1, "devminor": 3})],
    "block device": [GOOD, ("npz/blk", None, {"type": tarfile.BLKTYPE, "devmajor": 8, "devminor": 0})],
    "unknown type": [GOOD, ("npz/odd", b"x", {"type": b"Z"})],
    # names
    "absolute path": [GOOD, ("/tmp/tpugraphs-kit-evil.txt", b"evil", {})],
    "dot-dot": [GOOD, ("npz/../../outside/keep.txt", b"evil", {})],
    "backslash": [GOOD, ("npz\\..\\..\\outside\\keep.txt", b"evil", {})],
    "outside npz/": [GOOD, ("evil.txt", b"evil", {})],
    "another archive's done-marker": [GOOD, (f".downloads/{LAYOUT_TAR}.done", b"http://x/" + LAYOUT_TAR.encode(), {})],
    "file given twice": [GOOD, ("npz/tile/xla/valid/g1.npz", b"other", {})],
    "file and folder": [GOOD, ("npz/tile/xla/valid/g1.npz/x.npz", b"other", {})],
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_archives_are_refused_whole(sandbox, server, capsys, case):
    """Through the CLI: exit 2 with [UNSAFE_ARCHIVE]; nothing installed or marked; outside/ untouched."""
    root, outside = sandbox
    before = listing(outside)
    server.files[TILE_TAR] = tar_bytes(HOSTILE[case])
    assert run_download(server, root) == 2
    err = capsys.readouterr().err
    assert "[UNSAFE_ARCHIVE]" in err and "nothing extracted" in err and "Traceback" not in err
    assert_nothing_installed(root)
    assert sorted(p.name for p in root.parent.iterdir()) == ["outside", "root"]  # nothing beside the root
    assert listing(outside) == before
    assert not Path("/tmp/tpugraphs-kit-evil.txt").exists()


def test_every_refused_member_is_named_in_one_message(tmp_path):
    tar = tmp_path / "a.tar"
    tar.write_bytes(tar_bytes([GOOD, ("npz/l1", None, {"type": SYM, "linkname": "x"}), ("/abs", b"", {}),
                               ("npz/f", None, {"type": tarfile.FIFOTYPE})]))
    with pytest.raises(DownloadError) as err:
        safe_extract(tar, tmp_path / "root")
    message = str(err.value)
    assert "3 refused member(s)" in message
    assert "'npz/l1' is a symbolic link" in message and "'/abs' has an absolute path" in message
    assert "'npz/f' is a FIFO" in message
    assert not (tmp_path / "root").exists()  # refused before the destination is even created


def test_links_chained_across_archives_cannot_escape(sandbox, server, capsys):
    """The issue's attack: archive 1 plants npz/e -> d/.. and npz/d -> .., archive 2 writes npz/e/outside/...

    Archive 1 is refused (links); archive 2 is refused too (issue 16 item 2: npz/e/ is not its folder, where the
    old code installed its file as a plain file under root/npz/e/); outside/ is untouched.
    """
    root, outside = sandbox
    before = listing(outside)
    server.files[TILE_TAR] = tar_bytes([("npz/e", None, {"type": SYM, "linkname": "d/.."}),
                                        ("npz/d", None, {"type": SYM, "linkname": ".."})])
    server.files[LAYOUT_TAR] = tar_bytes([("npz/e/outside/keep.txt", b"evil", {})])
    assert run_download(server, root, "tile:xla", "layout:xla:default") == 2
    err = capsys.readouterr().err
    assert "[UNSAFE_ARCHIVE]" in err and "[ARCHIVE_OUTSIDE_ITS_FOLDER]" in err  # both attempted, both refused
    assert not (root / ".downloads" / f"{TILE_TAR}.done").exists()
    assert not (root / "npz").exists()
    assert listing(outside) == before


def test_a_link_already_in_the_data_root_is_not_written_through(sandbox, server, capsys):
    """root/npz/tile -> ../../outside: the archive's npz/tile/xla/... is refused, not written into outside/."""
    root, outside = sandbox
    official(server)
    (root / "npz").mkdir(parents=True)
    (root / "npz" / "tile").symlink_to(Path("..", "..", "outside"))
    before = listing(outside)
    assert run_download(server, root) == 2
    err = capsys.readouterr().err
    assert "[UNSAFE_TARGET]" in err and str(root / "npz" / "tile") in err and "Traceback" not in err
    assert listing(outside) == before
    assert (root / "npz" / "tile").is_symlink()  # left as it was
    assert not (root / ".downloads" / f"{TILE_TAR}.done").exists()
    assert not list(root.glob(".extract-*")) and not (root / ".downloads" / TILE_TAR).exists()


def test_a_link_at_a_file_place_is_replaced_not_followed(sandbox, server):
    root, outside = sandbox
    official(server)
    folder = root / "npz" / "tile" / "xla" / "valid"
    folder.mkdir(parents=True)
    (folder / "g1.npz").symlink_to(outside / "keep.txt")
    before = listing(outside)
    assert run_download(server, root) == 0
    assert not (folder / "g1.npz").is_symlink() and (folder / "g1.npz").read_bytes()[:2] == b"PK"
    assert listing(outside) == before


def test_downloads_folder_or_partial_file_as_links(sandbox, server, capsys):
    root, outside = sandbox
    official(server)
    root.mkdir()
    (root / ".downloads").symlink_to(outside)
    before = listing(outside)
    assert run_download(server, root) == 2
    assert "[UNSAFE_TARGET]" in capsys.readouterr().err and listing(outside) == before
    (root / ".downloads").unlink()
    (root / ".downloads").mkdir()
    (root / ".downloads" / f"{TILE_TAR}.part").symlink_to(outside / "keep.txt")  # must not be appended to
    assert run_download(server, root) == 0
    assert listing(outside) == before and (root / "npz/tile/xla/valid/g2.npz").is_file()


def test_forged_or_linked_markers_do_not_skip_an_archive(sandbox, server):
    root, outside = sandbox
    official(server)
    (root / ".downloads").mkdir(parents=True)
    good_marker = outside / "marker"
    good_marker.write_text(f"{server.base_url}{TILE_TAR}\n")
    (root / ".downloads" / f"{TILE_TAR}.done").symlink_to(good_marker)  # a link is not a marker
    (root / ".downloads" / f"{LAYOUT_TAR}.done").write_text("anything\n")  # not this archive's URL
    assert run_download(server, root, "tile:xla", "layout:xla:default") == 0
    assert {name for name, _ in server.requests} == {TILE_TAR, LAYOUT_TAR}  # both downloaded
    assert (root / "npz/tile/xla/valid/g1.npz").is_file() and (root / "npz/layout/xla/default/valid").is_dir()
    assert not (root / ".downloads" / f"{TILE_TAR}.done").is_symlink()
    assert good_marker.read_text() == f"{server.base_url}{TILE_TAR}\n"


def test_refused_archive_cannot_mark_another_done(sandbox, server, capsys):
    root, _ = sandbox
    official(server)
    layout = server.files[LAYOUT_TAR]
    server.files[TILE_TAR] = tar_bytes(HOSTILE["another archive's done-marker"])
    assert run_download(server, root, "tile:xla") == 2
    assert "[UNSAFE_ARCHIVE]" in capsys.readouterr().err
    server.files[LAYOUT_TAR] = layout
    assert run_download(server, root, "layout:xla:default") == 0
    assert (LAYOUT_TAR, None) in server.requests  # downloaded, not skipped


def test_failed_forced_download_keeps_the_previous_installation(sandbox, server):
    root, _ = sandbox
    official(server)
    assert run_download(server, root) == 0
    installed = listing(root)
    server.files[TILE_TAR] = tar_bytes([("npz/tile/xla/valid/g1.npz", b"new", {}),
                                        ("npz/fifo", None, {"type": tarfile.FIFOTYPE})])
    assert run_download(server, root, extra=("--force",)) == 2
    assert listing(root) == installed  # files and marker as they were


def test_truncated_archives_install_nothing(sandbox, server, capsys):
    """Cut at a header boundary (where tarfile alone sees a clean end), inside member data, or garbage after a member."""
    root, _ = sandbox
    official(server)
    whole = server.files[TILE_TAR]
    first = tarfile.open(fileobj=io.BytesIO(whole)).getmembers()
    boundary = first[1].offset  # the second member's header starts here
    for body in (whole[:boundary], whole[:boundary - 100], whole[:boundary] + b"\x01" * 2048):
        server.files[TILE_TAR] = body  # served with a matching Content-Length: the archive itself is short
        assert run_download(server, root) == 2
        err = capsys.readouterr().err
        assert "[TRUNCATED_ARCHIVE]" in err and "Traceback" not in err
        assert_nothing_installed(root)


def test_compressed_empty_or_unreadable_archives(tmp_path):
    good = tar_bytes([GOOD])
    cases = {"gzip": (gzip.compress(good), "BAD_ARCHIVE"), "empty": (tar_bytes([]), "BAD_ARCHIVE"),
             "folders only": (tar_bytes([("npz/tile", None, {"type": tarfile.DIRTYPE})]), "BAD_ARCHIVE"),
             "not a tar": (b"this is not a tar archive" * 40, "BAD_ARCHIVE")}
    for name, (body, code) in cases.items():
        tar = tmp_path / f"{name}.tar"
        tar.write_bytes(body)
        with pytest.raises(DownloadError) as err:
            safe_extract(tar, tmp_path / "root")
        assert err.value.code == code, name
        assert not (tmp_path / "root").exists()


def test_tar_bomb_stops_at_the_first_header_over_a_limit(tmp_path):
    many = tmp_path / "many.tar"
    many.write_bytes(tar_bytes([(f"npz/f{i}", b"x", {}) for i in range(6)])[:6 * 1024] + b"\x01" * 4096)
    with pytest.raises(DownloadError) as err:  # over 5 members: refused before the garbage is reached
        safe_extract(many, tmp_path / "root", max_members=5)
    assert err.value.code == "ARCHIVE_TOO_LARGE" and "more than 5 members" in str(err.value)
    big = tmp_path / "big.tar"
    header = tar_bytes([("npz/huge.npz", None, {"size": 10**13})])  # declares 10 TB, holds no data at all
    big.write_bytes(header)
    with pytest.raises(DownloadError) as err:
        safe_extract(big, tmp_path / "root")  # default limit, reached at the header (not TRUNCATED_ARCHIVE)
    assert err.value.code == "ARCHIVE_TOO_LARGE" and "'npz/huge.npz'" in str(err.value)
    small = tmp_path / "small.tar"
    small.write_bytes(tar_bytes([("npz/a", b"x" * 600, {}), ("npz/b", b"x" * 600, {})]))
    with pytest.raises(DownloadError) as err:
        safe_extract(small, tmp_path / "root", max_bytes=1000)
    assert err.value.code == "ARCHIVE_TOO_LARGE" and "'npz/b'" in str(err.value)
    assert not (tmp_path / "root").exists()
    assert len(safe_extract(small, tmp_path / "root", max_bytes=1200)) == 2  # at the limit: accepted


def test_default_limits_are_far_above_the_real_archives():
    """Real counts from tpugraphs_eval.dataset (the paper's Table 1): the largest split has 5709 tile graphs."""
    largest = max(max(counts.values()) for counts in REAL_GRAPH_COUNTS.values())
    assert MAX_MEMBERS >= 10 * (largest + 10)  # a member per graph, plus a few folders
    assert MAX_BYTES >= 200 * 10**9  # the largest official tar is tens of GB


def test_download_api_reports_codes(sandbox, server):
    """The library call raises the same coded errors the CLI prints."""
    root, _ = sandbox
    server.files[TILE_TAR] = tar_bytes(HOSTILE["chained links, one archive"])
    with pytest.raises(DownloadError) as err:
        download(root, ["tile:xla"], ["valid"], base_url=server.base_url, progress=False)
    assert err.value.code == "UNSAFE_ARCHIVE" and "the downloaded file was deleted" in str(err.value)
    server.files[TILE_TAR] = npz_bytes([1, 2], True)  # a file that is not a tar at all
    with pytest.raises(DownloadError) as err:
        download(root, ["tile:xla"], ["valid"], base_url=server.base_url, progress=False)
    assert err.value.code == "BAD_ARCHIVE"


def test_a_write_failure_midway_installs_nothing(sandbox, server, capsys, monkeypatch):
    """The disk fills up at the second file: the first one, already staged, is not installed either."""
    root, _ = sandbox
    official(server)
    written = []

    def write_then_fail(*args):
        if written:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(args)
        real_write(*args)

    real_write = extract_module._write_file
    monkeypatch.setattr(extract_module, "_write_file", write_then_fail)
    assert run_download(server, root) == 2
    err = capsys.readouterr().err
    assert "[BAD_ARCHIVE]" in err and "No space left" in err and len(written) == 1
    assert_nothing_installed(root)


def test_a_folder_where_a_file_goes_is_refused_before_moving(sandbox, server, capsys):
    root, _ = sandbox
    official(server)
    (root / "npz/tile/xla/valid/g2.npz").mkdir(parents=True)
    assert run_download(server, root) == 2
    assert "[UNSAFE_TARGET]" in capsys.readouterr().err
    assert not (root / "npz/tile/xla/valid/g1.npz").exists()  # g1 comes first in the archive: not moved either


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_special_partial_file_is_refused_at_once(sandbox, server, capsys, kind):
    """A FIFO or a folder at the partial-file path: one UNSAFE_TARGET naming it, no request, no retry, no resume
    advice, and the FIFO never opened (opening it would block: the alarm turns a hang into a failure)."""
    import os

    root, _ = sandbox
    official(server)
    part = root / ".downloads" / f"{TILE_TAR}.part"
    part.parent.mkdir(parents=True)
    os.mkfifo(part) if kind == "fifo" else part.mkdir()

    with fails_instead_of_hanging():
        assert run_download(server, root) == 2
    err = capsys.readouterr().err
    words = "a FIFO (named pipe)" if kind == "fifo" else "a folder"
    assert f"[UNSAFE_TARGET] {part} is {words}, not a regular file" in err
    assert "attempt" not in err and "resume" not in err and server.requests == []
    assert_nothing_installed(root)


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_an_archive_that_is_not_a_regular_file_is_not_opened(tmp_path, kind):
    """``safe_extract`` of a FIFO or a folder: BAD_ARCHIVE naming what it is, the FIFO never opened (the alarm
    turns a blocked open into a failure)."""
    import os

    archive = tmp_path / "a.tar"
    os.mkfifo(archive) if kind == "fifo" else archive.mkdir()

    with fails_instead_of_hanging(), pytest.raises(DownloadError) as caught:
        safe_extract(archive, tmp_path / "root")
    words = "a FIFO (named pipe)" if kind == "fifo" else "a folder"
    assert caught.value.code == "BAD_ARCHIVE" and f"{archive} is {words}, not a regular file" in str(caught.value)
    assert not (tmp_path / "root").exists()


def test_fifos_at_the_downloads_folder_or_marker_are_never_opened(sandbox, server, capsys):
    """A FIFO as ``.downloads``: UNSAFE_TARGET naming it. A FIFO as the done-marker: not taken for a marker, not
    opened for reading (it would block) nor replaced (OUTPUT_WRITE_FAILED). The alarm turns a hang into a failure."""
    import os

    root, _ = sandbox
    official(server)
    root.mkdir()
    os.mkfifo(root / ".downloads")

    with fails_instead_of_hanging():
        assert run_download(server, root) == 2
        assert f"[UNSAFE_TARGET] {root / '.downloads'} is a FIFO (named pipe), not a folder" in capsys.readouterr().err
        (root / ".downloads").unlink()
        (root / ".downloads").mkdir()
        marker = root / ".downloads" / f"{TILE_TAR}.done"
        os.mkfifo(marker)
        assert run_download(server, root) == 2
    assert "[OUTPUT_WRITE_FAILED]" in capsys.readouterr().err and server.requests != []
    assert os.path.exists(marker) and not os.path.isfile(marker)


def test_every_archive_is_attempted_and_every_failure_reported(sandbox, server, capsys):
    """--splits train,valid,test where only valid exists: train and test each get a DOWNLOAD_FAILED (HTTP 404),
    valid is installed and marked done, exit 2. (Before: the download stopped at train.)"""
    root, _ = sandbox
    official(server)
    code = data_main(["download", "--collections", "tile:xla", "--splits", "train,valid,test", "--data-root",
                      str(root), "--base-url", server.base_url, "--no-progress", "--retries", "0"])
    out, err = capsys.readouterr()
    assert code == 2
    failed = [line for line in err.splitlines() if "[DOWNLOAD_FAILED]" in line]
    assert len(failed) == 2 and "npz_tile_xla_train.tar" in failed[0] and "npz_tile_xla_test.tar" in failed[1]
    assert "2 of 3 archive(s) failed" in err and f"{TILE_TAR}: 2 files extracted" in out
    assert (root / ".downloads" / f"{TILE_TAR}.done").is_file() and (root / "npz/tile/xla/valid/g2.npz").is_file()
