"""Publishing a prepared competition's public data (issue 24 item 6): ``tpugraphs-data publish`` writes the
archives in the official layout with ``SHA256SUMS``; served over HTTP on 127.0.0.1 (and as a ``file://``
folder), ``tpugraphs-data download --base-url`` installs byte-identical files, verified against the checksums,
and the sample submission validates against the downloaded data root. A changed archive is refused."""

from __future__ import annotations

import functools
import hashlib
import threading
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.prepare import prepare_dir
from tpugraphs_kit.cli_data import main as data_main


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> tuple[Path, Path]:
    """(the prepared public folder, its published site)."""
    work = tmp_path_factory.mktemp("publish")
    prepare_dir("demo", work / "comp", seed="publish-test-seed-0123456789", max_configs=100)
    assert data_main(["publish", "--data-root", str(work / "comp/public"), "-o", str(work / "site")]) == 0
    return work / "comp/public", work / "site"


@pytest.fixture()
def http_base(site):
    """``site`` served by the standard library's HTTP server on 127.0.0.1 (a course bucket's stand-in)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site[1])))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=10)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "npz").rglob("*.npz"))}


def test_the_site_holds_the_official_archives_and_their_sha256(site):
    public, out = site
    lines = (out / "SHA256SUMS").read_text().splitlines()
    listed = dict(line.split("  ")[::-1] for line in lines)
    assert sorted(listed) == sorted(p.name for p in out.iterdir() if p.name != "SHA256SUMS")
    assert {"npz_tile_xla_test.tar", "npz_layout_nlp_random_train.tar", "sample_submission.csv"} <= set(listed)
    assert len([n for n in listed if n.endswith(".tar")]) == 15  # 5 collections x train, valid, test
    for name, digest in listed.items():  # hashlib on the written bytes
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest


def test_export_serve_download_validate(site, http_base, tmp_path, capsys):
    public, _ = site
    root = tmp_path / "participant"
    assert data_main(["download", "--data-root", str(root), "--base-url", http_base, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.count("sha256 checked") == 15
    assert _files(root) == _files(public)  # byte for byte what the organiser prepared
    sample = tmp_path / "sample_submission.csv"
    sample.write_bytes(urllib.request.urlopen(http_base + "sample_submission.csv").read())
    assert cli.main(["validate", str(sample), "--data-root", str(root), "--split", "test"]) == 0


def test_a_file_url_works_too(site, tmp_path, capsys):
    assert data_main(["download", "--data-root", str(tmp_path / "d"), "--base-url", site[1].as_uri() + "/",
                      "--collections", "tile:xla", "--splits", "test", "--no-progress"]) == 0
    assert "sha256 checked" in capsys.readouterr().out


def test_a_changed_archive_is_refused(site, tmp_path, capsys):
    """An archive whose bytes differ from SHA256SUMS (a damaged or swapped copy) installs nothing."""
    changed = tmp_path / "site"
    changed.mkdir()
    for p in site[1].iterdir():
        (changed / p.name).write_bytes(p.read_bytes())
    tar = changed / "npz_tile_xla_valid.tar"
    tar.write_bytes(tar.read_bytes()[:-1] + b"\1")  # the last byte of the tar's zero padding
    root = tmp_path / "participant"
    assert data_main(["download", "--data-root", str(root), "--base-url", changed.as_uri() + "/", "--collections",
                      "tile:xla", "--splits", "valid,test", "--no-progress"]) == 2
    assert "[CHECKSUM_MISMATCH]" in capsys.readouterr().err
    assert not (root / "npz/tile/xla/valid").exists() and (root / "npz/tile/xla/test").is_dir()
