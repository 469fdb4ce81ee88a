"""Downloading the real data (tpugraphs_kit.download, tpugraphs_kit.extract, ``tpugraphs-data download``).

Everything runs against an HTTP server on 127.0.0.1 started here, serving small tars built here in the
official layout (``npz/tile/xla/valid/*.npz``, ...), plus malicious ones; no test touches the internet.
The server can cut a response short, ignore Range requests, omit Content-Length or answer 404, and it
records every request's Range header so resume behaviour is checked from the wire.
"""

from __future__ import annotations

import io
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from tpugraphs_eval import load_ground_truth, resolve_data_root
from tpugraphs_kit.cli_data import main as data_main
from tpugraphs_kit.download import archive_name, archives, fetch
from tpugraphs_kit.errors import DownloadError
from tpugraphs_kit.extract import safe_extract


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):  # noqa: N802 (http.server's name)
        server = self.server
        name = self.path.rsplit("/", 1)[-1]
        server.requests.append((name, self.headers.get("Range")))
        body = server.files.get(name)
        if body is None:
            self.send_error(404, "Not Found")
            return
        mode = server.modes.get(name, {})
        start = 0
        ranged = self.headers.get("Range")
        if ranged and not mode.get("ignore_range"):
            start = int(ranged.removeprefix("bytes=").rstrip("-"))
            if start >= len(body):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(body)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        if not mode.get("no_length"):
            self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        cut = mode.get("cut")  # send only this many bytes of each response (while cuts remain), then hang up
        if cut and mode.get("cuts", 0) > 0:
            mode["cuts"] -= 1
            self.wfile.write(body[start:start + cut])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body[start:])


@pytest.fixture()
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.files, httpd.modes, httpd.requests = {}, {}, []
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    httpd.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/tpu_graphs/v0/"
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


def _npz(runtime: list[int], tile: bool) -> bytes:
    buffer = io.BytesIO()
    arrays = {"config_runtime": np.array(runtime, dtype=np.int64), "node_feat": np.zeros((3, 140), np.float32),
              "node_opcode": np.zeros(3, np.uint8), "edge_index": np.zeros((2, 2), np.int64)}
    if tile:
        arrays |= {"config_feat": np.ones((len(runtime), 24), np.float32),
                   "config_runtime_normalizers": np.full(len(runtime), runtime[0], np.int64)}
    else:
        arrays |= {"node_config_feat": np.zeros((len(runtime), 2, 18), np.float32),
                   "node_config_ids": np.array([0, 1]), "node_splits": np.array([[0, 3]])}
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _tar(members: list[tuple[str, bytes | None, dict]]) -> bytes:
    """A tar of (name, data, extra TarInfo fields): data None with a ``type`` in extras makes links etc."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, data, extra in members:
            info = tarfile.TarInfo(name)
            for key, value in extra.items():
                setattr(info, key, value)
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return buffer.getvalue()


TILE = {"g1": [30, 10, 20, 40, 50, 60], "g2": [5, 4, 3]}
LAYOUT = {"unet_3d.4x4.bf16": [300, 100, 200]}


def _official(server) -> None:
    server.files[archive_name("tile:xla", "valid")] = _tar(
        [(f"npz/tile/xla/valid/{n}.npz", _npz(y, True), {}) for n, y in TILE.items()])
    server.files[archive_name("layout:xla:default", "valid")] = _tar(
        [("npz/layout/xla/default/valid", None, {"type": tarfile.DIRTYPE})]
        + [(f"npz/layout/xla/default/valid/{n}.npz", _npz(y, False), {}) for n, y in LAYOUT.items()])


def test_archive_names_follow_the_official_script():
    """Names and URL from tpu_graphs/echo_download_commands.py."""
    assert archive_name("tile:xla", "train") == "npz_tiles_tile_train.tar"
    assert archive_name("layout:nlp:random", "test") == "npz_layout_nlp_random_test.tar"
    urls = [a.url for a in archives()]
    assert len(urls) == 15 and urls[0] == "http://download.tensorflow.org/data/tpu_graphs/v0/npz_tiles_tile_train.tar"


def test_download_installs_the_official_layout(tmp_path, server, capsys):
    _official(server)
    root = tmp_path / "data"
    args = ["download", "--collections", "tile:xla,layout:xla:default", "--splits", "valid",
            "--data-root", str(root), "--base-url", server.base_url, "--no-progress"]
    assert data_main(args) == 0
    assert "size checked" in capsys.readouterr().out
    truth = load_ground_truth(resolve_data_root(root), "valid")  # the evaluator reads what was installed
    assert truth.catalog.collections["tile:xla"].names == ("g1", "g2")
    np.testing.assert_array_equal(truth.collections["layout:xla:default"].values, LAYOUT["unet_3d.4x4.bf16"])
    assert sorted(p.name for p in (root / ".downloads").iterdir()) == [
        "npz_layout_xla_default_valid.tar.done", "npz_tiles_tile_valid.tar.done"]  # tars removed after extraction
    assert not list(root.glob(".extract-*"))
    n_requests = len(server.requests)
    assert data_main(args) == 0  # a second run skips what is installed, without a request
    assert len(server.requests) == n_requests and "already installed" in capsys.readouterr().out


def test_cut_connection_is_resumed_with_range(tmp_path, server):
    _official(server)
    name = archive_name("tile:xla", "valid")
    server.modes[name] = {"cut": 700, "cuts": 2}
    path, total = fetch(server.base_url + name, tmp_path / name, retries=3, progress=False)
    assert path.read_bytes() == server.files[name] and total == len(server.files[name])
    assert [r for n, r in server.requests if n == name] == [None, "bytes=700-", "bytes=1400-"]


def test_partial_file_is_resumed_by_the_next_run(tmp_path, server, capsys):
    _official(server)
    name = archive_name("tile:xla", "valid")
    server.modes[name] = {"cut": 1000, "cuts": 1}
    root = tmp_path / "data"
    args = ["download", "--collections", "tile:xla", "--splits", "valid", "--data-root", str(root),
            "--base-url", server.base_url, "--retries", "0", "--no-progress"]
    assert data_main(args) == 2
    err = capsys.readouterr().err
    assert "[DOWNLOAD_FAILED]" in err and "resume" in err and "Traceback" not in err
    assert (root / ".downloads" / f"{name}.part").stat().st_size == 1000 and not (root / "npz").exists()
    assert data_main(args) == 0
    assert server.requests[-1] == (name, "bytes=1000-")
    assert sorted(p.name for p in (root / "npz/tile/xla/valid").iterdir()) == ["g1.npz", "g2.npz"]


def test_server_ignoring_range_restarts_from_the_start(tmp_path, server):
    _official(server)
    name = archive_name("tile:xla", "valid")
    server.modes[name] = {"ignore_range": True}
    (tmp_path / f"{name}.part").write_bytes(b"x" * 500)  # stale partial bytes must not survive
    path, _ = fetch(server.base_url + name, tmp_path / name, progress=False)
    assert path.read_bytes() == server.files[name]


def test_size_checks(tmp_path, server):
    _official(server)
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
    _official(server)
    name = archive_name("tile:xla", "valid")
    path, _ = fetch(server.base_url + name, tmp_path / name, progress=True)
    assert path.read_bytes() == server.files[name]


GOOD = ("npz/tile/xla/valid/g1.npz", b"data", {})
MALICIOUS = {
    "absolute path": [GOOD, ("/tmp/tpugraphs-kit-evil.txt", b"evil", {})],
    "dot-dot": [GOOD, ("npz/../../outside/evil.txt", b"evil", {})],
    "symlink out": [GOOD, ("npz/link", None, {"type": tarfile.SYMTYPE, "linkname": "../../outside"})],
    "absolute symlink": [("npz/link", None, {"type": tarfile.SYMTYPE, "linkname": "/etc"})],
    "symlink chain": [("npz/a", None, {"type": tarfile.SYMTYPE, "linkname": "."}),
                      ("npz/a/b", None, {"type": tarfile.SYMTYPE, "linkname": "../.."}),  # lexically inside
                      ("npz/a/b/evil.txt", b"evil", {})],
    "hard link out": [GOOD, ("npz/hard", None, {"type": tarfile.LNKTYPE, "linkname": "../../outside/secret"})],
    "fifo": [GOOD, ("npz/fifo", None, {"type": tarfile.FIFOTYPE})],
    "device": [GOOD, ("npz/dev", None, {"type": tarfile.CHRTYPE, "devmajor": 1, "devminor": 3})],
}


@pytest.mark.parametrize("case", list(MALICIOUS))
def test_malicious_archives_are_refused_whole(tmp_path, server, capsys, case):
    name = archive_name("tile:xla", "valid")
    server.files[name] = _tar(MALICIOUS[case])
    root = tmp_path / "sandbox" / "data"
    args = ["download", "--collections", "tile:xla", "--splits", "valid", "--data-root", str(root),
            "--base-url", server.base_url, "--no-progress"]
    assert data_main(args) == 2
    err = capsys.readouterr().err
    assert "[UNSAFE_ARCHIVE]" in err and "Traceback" not in err
    assert sorted(p.name for p in root.iterdir()) == [".downloads"]  # nothing extracted, no staging left
    assert list((tmp_path / "sandbox").iterdir()) == [root]  # nothing next to the data root either
    assert not (tmp_path / "outside").exists()


def test_links_inside_the_destination_are_kept(tmp_path):
    tar = tmp_path / "ok.tar"
    tar.write_bytes(_tar([("npz/tile/xla/valid/g1.npz", b"data", {}),
                          ("npz/alias", None, {"type": tarfile.SYMTYPE, "linkname": "tile/xla"}),
                          ("npz/alias/valid/g2.npz", b"more", {}),
                          ("npz/copy.npz", None, {"type": tarfile.LNKTYPE, "linkname": "npz/tile/xla/valid/g1.npz"})]))
    safe_extract(tar, tmp_path / "root")
    assert (tmp_path / "root/npz/tile/xla/valid/g2.npz").read_bytes() == b"more"  # written through the inner link
    assert (tmp_path / "root/npz/alias").is_symlink() and (tmp_path / "root/npz/copy.npz").read_bytes() == b"data"


def test_corrupt_archive(tmp_path):
    tar = tmp_path / "bad.tar"
    tar.write_bytes(b"this is not a tar archive" * 40)
    with pytest.raises(DownloadError) as err:
        safe_extract(tar, tmp_path / "root")
    assert err.value.code == "BAD_ARCHIVE" and list((tmp_path / "root").iterdir()) == []


def test_download_refuses_demo_and_bad_names(capsys):
    assert data_main(["download", "--data-root", "demo"]) == 2
    assert data_main(["download", "--collections", "tile"]) == 2  # argparse: unknown collection
    assert "Traceback" not in capsys.readouterr().err
