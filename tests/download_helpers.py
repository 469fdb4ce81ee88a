"""Shared by the download tests: a loopback HTTP server with faults on demand, and small tars built here.

The server (``serve()``) serves ``server.files[name]`` for any path ending in ``name``; ``server.modes[name]``
makes it misbehave: ``ignore_range``, ``bad_range`` (a 206 whose Content-Range starts 10 bytes later than asked),
``no_length`` (no Content-Length), ``cut``/``cuts`` (send only ``cut``
bytes of the next ``cuts`` responses, then hang up), ``trickle_body`` (headers, then 1 byte per second),
``trickle_headers`` (the status line 1 byte per 0.2 s), ``silent`` (headers, then nothing), ``steady``
(4 KiB every 0.1 s: 40 KiB/s, above the kit's stall speed). It records every archive request's Range header in
``server.requests`` (not the request for a checksum file, ``SHA256SUMS``, which it never holds: 404). No test touches the internet.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

from tpugraphs_kit.cli_data import main as data_main
from tpugraphs_kit.download import archive_name


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def _drip(self, data: bytes, size: int, every: float) -> None:
        """Send ``data`` ``size`` bytes at a time, one piece per ``every`` seconds, until done or the client left."""
        for i in range(0, len(data), size):
            try:
                self.wfile.write(data[i:i + size])
                self.wfile.flush()
            except OSError:  # the client hung up: what the test wanted
                return
            if self.server.stop.wait(every):
                return

    def do_GET(self):
        server = self.server
        name = self.path.rsplit("/", 1)[-1]
        if name != "SHA256SUMS":  # asked for first by a download from any address but the official one
            server.requests.append((name, self.headers.get("Range")))
        body = server.files.get(name)
        if body is None:
            self.send_error(404, "Not Found")
            return
        mode = server.modes.get(name, {})
        if mode.get("trickle_headers"):
            self._drip(f"HTTP/1.0 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body, 1, 0.2)
            self.close_connection = True
            return
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
            shown = start + 10 if mode.get("bad_range") else start
            self.send_header("Content-Range", f"bytes {shown}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        if not mode.get("no_length"):
            self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        self.wfile.flush()
        if mode.get("trickle_body"):
            self._drip(body[start:], 1, 1.0)
        elif mode.get("steady"):
            self._drip(body[start:], 4096, 0.1)
        elif mode.get("silent"):
            server.stop.wait(10)
        elif mode.get("cut") and mode.get("cuts", 0) > 0:  # send only this many bytes, then hang up
            mode["cuts"] -= 1
            self.wfile.write(body[start:start + mode["cut"]])
            self.wfile.flush()
        else:
            self.wfile.write(body[start:])
            return
        self.close_connection = True


@contextlib.contextmanager
def serve():
    """An HTTP server on 127.0.0.1 (``.base_url``, ``.files``, ``.modes``, ``.requests``), stopped on exit."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.files, httpd.modes, httpd.requests, httpd.stop = {}, {}, [], threading.Event()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    httpd.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/tpu_graphs/v0/"
    try:
        yield httpd
    finally:
        httpd.stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def npz_bytes(runtime: list[int], tile: bool) -> bytes:
    """A small .npz graph file with the official arrays (tile or layout)."""
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


def tar_bytes(members: list[tuple[str, bytes | None, dict]]) -> bytes:
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
            elif info.isreg() and info.size:  # a header that declares data it does not hold (Python 3.13's
                tar.fileobj.write(info.tobuf(tar.format, tar.encoding, tar.errors))  # addfile refuses that)
                tar.offset += tarfile.BLOCKSIZE
            else:
                tar.addfile(info)
    return buffer.getvalue()


TILE = {"g1": [30, 10, 20, 40, 50, 60], "g2": [5, 4, 3]}
LAYOUT = {"unet_3d.4x4.bf16": [300, 100, 200]}
TILE_TAR = archive_name("tile:xla", "valid")
LAYOUT_TAR = archive_name("layout:xla:default", "valid")


def official(server) -> None:
    """Serve the tile:xla and layout:xla:default valid archives in the official layout."""
    server.files[TILE_TAR] = tar_bytes(
        [(f"npz/tile/xla/valid/{n}.npz", npz_bytes(y, True), {}) for n, y in TILE.items()])
    server.files[LAYOUT_TAR] = tar_bytes(
        [("npz/layout/xla/default/valid", None, {"type": tarfile.DIRTYPE})]
        + [(f"npz/layout/xla/default/valid/{n}.npz", npz_bytes(y, False), {}) for n, y in LAYOUT.items()])


def make_sandbox(tmp_path: Path) -> tuple[Path, Path]:
    """``tmp/root`` (the data root, not yet created) and ``tmp/outside`` holding a file and a folder."""
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "keep.txt").write_bytes(b"keep me")
    (outside / "sub" / "g1.npz").write_bytes(b"not a graph")
    return tmp_path / "root", outside


def listing(folder: Path) -> dict[str, object]:
    """Every path under ``folder`` (links not followed) → its kind and bytes (files) or target (links)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path))
        elif path.is_dir():
            out[rel] = ("folder",)
        else:
            out[rel] = ("file", path.read_bytes())
    return out


def run_download(server, root: Path, *collections: str, extra: tuple[str, ...] = ()) -> int:
    """``tpugraphs-data download`` of the valid split of ``collections`` into ``root``; its exit code."""
    return data_main(["download", "--collections", ",".join(collections or ("tile:xla",)), "--splits", "valid",
                      "--data-root", str(root), "--base-url", server.base_url, "--no-progress", "--retries", "0",
                      *extra])


def assert_nothing_installed(root: Path) -> None:
    """Only ``.downloads/`` in the root, holding no marker, no tar and no staging left-over."""
    assert sorted(p.name for p in root.iterdir()) == [".downloads"]
    assert [p.name for p in (root / ".downloads").iterdir() if not p.name.endswith(".part")] == []


@contextlib.contextmanager
def fails_instead_of_hanging(seconds: int = 20):
    """Turn a blocked call (e.g. opening a FIFO) into an ``AssertionError`` after ``seconds`` (SIGALRM): a guard
    against a hung test, not a timing assertion."""
    def hung(*_):
        raise AssertionError(f"blocked for {seconds} s (a FIFO opened?)")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
