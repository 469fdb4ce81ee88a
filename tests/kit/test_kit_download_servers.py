"""Hostile servers against ``tpugraphs-data download`` (issue 7, item 1): what the server sends, not what it holds.

One test (or parametrised case) per fault: a body shorter than its Content-Length, no Content-Length and
a cut connection, a download over the size limit, servers that trickle or stall (in the body, in the
headers, in a TLS handshake), a steady download longer than the deadline, and a bad deadline option.
Hostile archives are in test_kit_download_hostile.py. Servers are the loopback server of
``download_helpers``; no timing is asserted, only the coded error (the stall cases pass a 1 or 2 s timeout).
"""

from __future__ import annotations

import socket
import threading
import urllib.error

import pytest
from download_helpers import TILE_TAR, assert_nothing_installed, official, run_download

from tpugraphs_kit.cli_data import main as data_main
from tpugraphs_kit.download import fetch
from tpugraphs_kit.errors import DownloadError
from tpugraphs_kit.watchdog import Watchdog


def test_short_body_with_content_length_installs_nothing(sandbox, server, capsys):
    root, _ = sandbox
    official(server)
    server.modes[TILE_TAR] = {"cut": 1000, "cuts": 5}
    assert run_download(server, root) == 2
    assert "[DOWNLOAD_FAILED]" in capsys.readouterr().err
    assert [p.name for p in (root / ".downloads").iterdir()] == [f"{TILE_TAR}.part"] and not (root / "npz").exists()


def test_missing_content_length_is_checked_by_the_tar_end(sandbox, server, capsys):
    """No Content-Length and a cut connection: the download looks complete, the tar check refuses it."""
    root, _ = sandbox
    official(server)
    server.modes[TILE_TAR] = {"no_length": True, "cut": 1500, "cuts": 1}
    assert run_download(server, root) == 2
    assert "[TRUNCATED_ARCHIVE]" in capsys.readouterr().err
    assert_nothing_installed(root)
    assert run_download(server, root) == 0  # the whole body, still without Content-Length: installed
    assert "checked by reading the tar to its end-of-archive marker" in capsys.readouterr().out
    assert sorted(p.name for p in (root / "npz/tile/xla/valid").iterdir()) == ["g1.npz", "g2.npz"]


def test_download_size_limit(tmp_path, server):
    official(server)
    with pytest.raises(DownloadError) as err:  # announced: refused before the body is read
        fetch(server.base_url + TILE_TAR, tmp_path / TILE_TAR, max_bytes=1000, progress=False)
    assert err.value.code == "ARCHIVE_TOO_LARGE" and not list(tmp_path.iterdir())
    server.modes[TILE_TAR] = {"no_length": True}
    with pytest.raises(DownloadError) as err:  # not announced: stopped once over the limit
        fetch(server.base_url + TILE_TAR, tmp_path / TILE_TAR, max_bytes=1000, progress=False)
    assert err.value.code == "ARCHIVE_TOO_LARGE" and not list(tmp_path.iterdir())


def test_a_resume_answered_for_other_bytes_starts_again_from_the_first_byte(tmp_path, server):
    """A 206 whose Content-Range does not start where the partial file ends: the partial file is deleted and the
    next attempt asks for the whole file (as after a 416 of unknown size); it was kept, unnamed, and every rerun,
    --force too, resumed into the same answer. Without a further attempt: DOWNLOAD_FAILED, the partial file gone."""
    official(server)
    server.modes[TILE_TAR] = {"bad_range": True}
    (tmp_path / f"{TILE_TAR}.part").write_bytes(server.files[TILE_TAR][:700])
    with pytest.raises(DownloadError) as err:
        fetch(server.base_url + TILE_TAR, tmp_path / TILE_TAR, retries=0, progress=False)
    assert err.value.code == "DOWNLOAD_FAILED" and "wrong Content-Range" in str(err.value)
    assert "Nothing was downloaded" in str(err.value) and not list(tmp_path.iterdir())
    (tmp_path / f"{TILE_TAR}.part").write_bytes(server.files[TILE_TAR][:700])
    server.requests.clear()
    path, _ = fetch(server.base_url + TILE_TAR, tmp_path / TILE_TAR, progress=False)
    assert path.read_bytes() == server.files[TILE_TAR]
    assert server.requests == [(TILE_TAR, "bytes=700-"), (TILE_TAR, None)]


@pytest.mark.parametrize(("mode", "timeout", "why"), [
    ("trickle_body", 2.0, "slower than 1024 bytes/s"),  # 1 byte/s: every read returns within the 2 s idle limit
    ("trickle_headers", 1.0, "no response within 1 s"),  # 5 bytes/s of status line: the watchdog ends it
    ("silent", 1.0, "timed out"),  # headers, then nothing: the socket's idle timeout
])
def test_timeout_bounds_a_stalling_server(tmp_path, server, mode, timeout, why):
    """A trickle in the body or the headers, or silence after the headers: a coded TIMED_OUT saying which."""
    official(server)
    server.modes[TILE_TAR] = {mode: True}
    with pytest.raises(DownloadError) as err:
        fetch(server.base_url + TILE_TAR, tmp_path / TILE_TAR, retries=0, timeout=timeout, progress=False)
    assert err.value.code == "TIMED_OUT" and why in str(err.value)
    part = tmp_path / (TILE_TAR + ".part")  # the message speaks of a kept partial file only when there is one
    if part.exists():
        assert f"The partial file {part} ({part.stat().st_size:,} bytes) is kept" in str(err.value)
    else:
        assert "Nothing was downloaded." in str(err.value) and ".part" not in str(err.value)
    assert not (tmp_path / TILE_TAR).exists()


def test_deadline_bounds_a_steady_but_long_download(tmp_path, server):
    """40 KiB/s is no stall (above 1 KiB/s), but a 1 MB body takes 25 s: the 1 s deadline stops it."""
    server.files["big.tar"] = b"\0" * 10**6
    server.modes["big.tar"] = {"steady": True}
    with pytest.raises(DownloadError) as err:
        fetch(server.base_url + "big.tar", tmp_path / "big.tar", retries=3, timeout=30.0, deadline=1.0,
              progress=False)
    assert err.value.code == "TIMED_OUT" and "deadline of 1 s" in str(err.value)


def test_trickling_server_through_the_cli(sandbox, server, capsys):
    root, _ = sandbox
    official(server)
    server.modes[TILE_TAR] = {"trickle_body": True}
    assert run_download(server, root, extra=("--timeout", "2")) == 2  # 1 byte/s: below 1 KiB/s over 2 s
    err = capsys.readouterr().err
    assert "[TIMED_OUT]" in err and "slower than 1024 bytes/s" in err and "Traceback" not in err
    assert not (root / "npz").exists() and not (root / ".downloads" / f"{TILE_TAR}.done").exists()


def test_watchdog_ends_a_stalled_tls_handshake():
    """A TCP server that accepts and never answers: with a 30 s socket timeout, the 0.5 s watchdog ends the
    HTTPS handshake (an EOF from the shut-down socket, not a socket timeout)."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted = []
    threading.Thread(target=lambda: accepted.append(listener.accept()), daemon=True).start()
    watchdog = Watchdog()
    watchdog.arm(0.5, "headers")
    try:
        with pytest.raises(urllib.error.URLError) as err:
            watchdog.opener().open(f"https://127.0.0.1:{listener.getsockname()[1]}/x.tar", timeout=30)
    finally:
        watchdog.close()
        listener.close()
        for connection, _ in accepted:
            connection.close()
    assert watchdog.fired == "headers" and "timed out" not in str(err.value)


def test_odd_deadline_is_a_usage_error(tmp_path, capsys):
    assert data_main(["download", "--data-root", str(tmp_path), "--deadline", "0"]) == 2
    assert "[USAGE_ERROR]" in capsys.readouterr().err
