"""Downloading the real data (tpugraphs_kit.download, tpugraphs_kit.extract, ``tpugraphs-data download``).

Everything runs against the loopback HTTP server of ``download_helpers``, serving small tars built there
in the official layout (``npz/tile/xla/valid/*.npz``, ...); no test touches the internet. The server can
cut a response short, ignore Range requests, omit Content-Length or answer 404, and it records every
request's Range header so resume behaviour is checked from the wire. Hostile archives, hostile servers
and hostile data roots are in ``test_kit_download_hostile.py``.
"""

from __future__ import annotations

import tarfile

import numpy as np
import pytest
from download_helpers import LAYOUT, official, tar_bytes

from tpugraphs_eval import load_ground_truth, resolve_data_root
from tpugraphs_kit.cli_data import main as data_main
from tpugraphs_kit.download import archive_name, archives, fetch
from tpugraphs_kit.errors import DownloadError
from tpugraphs_kit.extract import safe_extract


def test_archive_names_follow_the_official_script():
    """Names and URL from tpu_graphs/echo_download_commands.py."""
    assert archive_name("tile:xla", "train") == "npz_tile_xla_train.tar"
    assert archive_name("layout:nlp:random", "test") == "npz_layout_nlp_random_test.tar"
    urls = [a.url for a in archives()]
    assert len(urls) == 15 and urls[0] == "http://download.tensorflow.org/data/tpu_graphs/v0/npz_tile_xla_train.tar"


def test_download_installs_the_official_layout(tmp_path, server, capsys):
    official(server)
    root = tmp_path / "data"
    args = ["download", "--collections", "tile:xla,layout:xla:default", "--splits", "valid",
            "--data-root", str(root), "--base-url", server.base_url, "--no-progress"]
    assert data_main(args) == 0
    assert "size checked" in capsys.readouterr().out
    truth = load_ground_truth(resolve_data_root(root), "valid")  # the evaluator reads what was installed
    assert truth.catalog.collections["tile:xla"].names == ("g1", "g2")
    np.testing.assert_array_equal(truth.collections["layout:xla:default"].values, LAYOUT["unet_3d.4x4.bf16"])
    assert sorted(p.name for p in (root / ".downloads").iterdir()) == [
        "npz_layout_xla_default_valid.tar.done", "npz_tile_xla_valid.tar.done"]  # tars removed after extraction
    assert not list(root.glob(".extract-*"))
    n_requests = len(server.requests)
    assert data_main(args) == 0  # a second run skips what is installed, without a request
    assert len(server.requests) == n_requests and "already installed" in capsys.readouterr().out


def test_cut_connection_is_resumed_with_range(tmp_path, server):
    official(server)
    name = archive_name("tile:xla", "valid")
    server.modes[name] = {"cut": 700, "cuts": 2}
    path, total = fetch(server.base_url + name, tmp_path / name, retries=3, progress=False)
    assert path.read_bytes() == server.files[name] and total == len(server.files[name])
    assert [r for n, r in server.requests if n == name] == [None, "bytes=700-", "bytes=1400-"]


def test_partial_file_is_resumed_by_the_next_run(tmp_path, server, capsys):
    official(server)
    name = archive_name("tile:xla", "valid")
    server.modes[name] = {"cut": 1000, "cuts": 1}
    root = tmp_path / "data"
    args = ["download", "--collections", "tile:xla", "--splits", "valid", "--data-root", str(root),
            "--base-url", server.base_url, "--retries", "0", "--no-progress"]
    assert data_main(args) == 2
    err = capsys.readouterr().err
    part = root / ".downloads" / f"{name}.part"
    assert "[DOWNLOAD_FAILED]" in err and "Traceback" not in err
    assert f"The partial file {part} (1,000 bytes) is kept: run the same command again to resume." in err
    assert part.stat().st_size == 1000 and not (root / "npz").exists()
    assert data_main(args) == 0
    assert server.requests[-1] == (name, "bytes=1000-")
    assert sorted(p.name for p in (root / "npz/tile/xla/valid").iterdir()) == ["g1.npz", "g2.npz"]


def test_missing_file_source_is_final_and_no_partial_file_is_claimed(tmp_path, monkeypatch, capsys):
    """A ``file://`` archive that does not exist is tried once, like an HTTP 404 (the old code tried it 4 times),
    and the message claims no partial file when there is none (the old one named a ``.part`` that did not
    exist)."""
    from tpugraphs_kit import download as download_module

    calls = []
    attempt = download_module._attempt
    monkeypatch.setattr(download_module, "_attempt", lambda *a: calls.append(a[0]) or attempt(*a))
    root = tmp_path / "d"
    assert data_main(["download", "--data-root", str(root), "--collections", "tile:xla", "--splits", "valid",
                      "--base-url", (tmp_path / "nowhere").as_uri() + "/", "--no-progress"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    url = (tmp_path / "nowhere" / "npz_tile_xla_valid.tar").as_uri()
    assert f"[DOWNLOAD_FAILED] {url}: no such file (not retried). Nothing was downloaded." in err
    assert ".part" not in err and "attempt" not in err
    assert calls == [(tmp_path / "nowhere" / "SHA256SUMS").as_uri(), url]  # no checksum file here: none checked
    assert list((root / ".downloads").iterdir()) == []


def test_http_404_is_tried_once_and_names_no_partial_file(tmp_path, server):
    with pytest.raises(DownloadError) as err:
        fetch(server.base_url + "missing.tar", tmp_path / "missing.tar", retries=3, progress=False)
    assert str(err.value) == (f"[DOWNLOAD_FAILED] {server.base_url}missing.tar: HTTP 404 Not Found. "
                              "Nothing was downloaded.")
    assert [n for n, _ in server.requests] == ["missing.tar"]


def test_server_ignoring_range_restarts_from_the_start(tmp_path, server):
    official(server)
    name = archive_name("tile:xla", "valid")
    server.modes[name] = {"ignore_range": True}
    (tmp_path / f"{name}.part").write_bytes(b"x" * 500)  # stale partial bytes must not survive
    path, _ = fetch(server.base_url + name, tmp_path / name, progress=False)
    assert path.read_bytes() == server.files[name]


def test_size_checks(tmp_path, server):
    official(server)
    name = archive_name("tile:xla", "valid")
    (tmp_path / f"{name}.part").write_bytes(b"x" * (len(server.files[name]) + 10))  # longer than the file
    with pytest.raises(DownloadError) as err:
        fetch(server.base_url + name, tmp_path / name, progress=False)
    assert err.value.code == "SIZE_MISMATCH" and not (tmp_path / f"{name}.part").exists()
    server.modes[name] = {"no_length": True}
    path, total = fetch(server.base_url + name, tmp_path / name, progress=False)
    assert total is None and path.read_bytes() == server.files[name]
    with pytest.raises(DownloadError) as err:
        fetch(server.base_url + "missing.tar", tmp_path / "missing.tar", progress=False)
    assert err.value.code == "DOWNLOAD_FAILED" and "404" in str(err.value)


def test_progress_bar_download(tmp_path, server):
    official(server)
    name = archive_name("tile:xla", "valid")
    path, _ = fetch(server.base_url + name, tmp_path / name, progress=True)
    assert path.read_bytes() == server.files[name]


def test_download_refuses_demo_and_bad_names(capsys):
    assert data_main(["download", "--data-root", "demo"]) == 2
    assert data_main(["download", "--collections", "tile"]) == 2  # argparse: unknown collection
    assert "Traceback" not in capsys.readouterr().err


def test_dot_slash_names_as_gnu_tar_writes_them(tmp_path):
    """``tar cf x.tar .`` names members ``./``, ``./npz/...``: accepted, the ``./`` folder is the destination."""
    tar = tmp_path / "dot.tar"
    tar.write_bytes(tar_bytes([("./", None, {"type": tarfile.DIRTYPE}), ("./npz", None, {"type": tarfile.DIRTYPE}),
                               ("./npz/tile/xla/valid/g1.npz", b"data", {})]))
    placed = safe_extract(tar, tmp_path / "root")
    assert placed == [tmp_path / "root/npz/tile/xla/valid/g1.npz"] and placed[0].read_bytes() == b"data"
    assert sorted(p.name for p in (tmp_path / "root").iterdir()) == ["npz"]  # no staging left
