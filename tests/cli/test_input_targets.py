"""Hostile input paths other than the submission, archives that unpack too far, and solution files that are not.

- a usage file, an eval-indices JSON file or a solution file that is a FIFO, a device (``/dev/zero``) or a folder
  is refused with ``INPUT_NOT_A_FILE`` (exit 2) before a byte is read: the old code read ``/dev/zero`` until
  memory ran out and waited for ever on a FIFO. These run the console script in a subprocess with a timeout
  and an address-space limit, so old code fails the test instead of hanging or exhausting the machine;
- a gzip or zip submission is unpacked in chunks and unpacking stops once the cap is passed;
- a solution file that cannot be read says why in words (folder, too short, not Parquet, cut off, damaged
  footer, no manifest), not only the Parquet reader's exception name.
"""

from __future__ import annotations

import gzip
import io
import os
import resource
import subprocess
import threading
import zipfile
from pathlib import Path

import pytest
from badinput import CONSOLE_SCRIPT, VALID_LAYOUT, VALID_TILE, csv

from tpugraphs_eval.errors import DataError, UsageError
from tpugraphs_eval.safeopen import CHUNK_BYTES, InputRefused, read_regular_file
from tpugraphs_eval.submission import compressed
from tpugraphs_eval.submission.problems import ProblemLog
from tpugraphs_eval.truth.solution import build_solution, load_solution, read_manifest
from tpugraphs_kit.errors import KitError

VALID_SPLIT_CSV = csv(f"tile:xla:{VALID_TILE},1;3;2;0", f"layout:xla:default:{VALID_LAYOUT},1;3;2;0")
_ADDRESS_SPACE = 1536 << 20  # 1.5 GiB: enough for the CLI and polars, far short of /dev/zero read to its end


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_ADDRESS_SPACE, _ADDRESS_SPACE))


def _run(*argv: object) -> subprocess.CompletedProcess[str]:
    """The console script run on ``argv`` with a 60 s timeout and a 1.5 GiB address space; a timeout fails."""
    if not CONSOLE_SCRIPT.exists():
        pytest.skip(f"console script {CONSOLE_SCRIPT} is not installed")
    try:
        return subprocess.run([str(CONSOLE_SCRIPT), *map(str, argv)], capture_output=True, text=True, timeout=60,
                              preexec_fn=_limit_memory, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"blocked for 60 s: {' '.join(map(str, argv))}")


def _target(tmp_path: Path, kind: str) -> Path:
    """A path that is not a regular file: a FIFO nobody writes to, /dev/zero, or a folder."""
    if kind == "fifo":
        path = tmp_path / "target"
        os.mkfifo(path)
        return path
    if kind == "device":
        if not Path("/dev/zero").exists():
            pytest.skip("/dev/zero is absent")
        return Path("/dev/zero")
    path = tmp_path / "target.d"
    path.mkdir()
    return path


WHAT = {"fifo": "is a FIFO (named pipe)", "device": "is a character device", "folder": "is a folder"}
KINDS = list(WHAT)


@pytest.mark.parametrize("kind", KINDS)
def test_usage_file_that_is_not_a_file_is_refused(kind, tiny_root, tmp_path):
    usage = _target(tmp_path, kind)
    done = _run("solution", "build", "--data-root", tiny_root, "--split", "test", "-o", tmp_path / "s.parquet",
                "--usage-file", usage)
    assert done.returncode == 2, done.stderr
    assert f"[INPUT_NOT_A_FILE] usage file {usage} {WHAT[kind]}, not a regular file" in done.stderr
    assert not (tmp_path / "s.parquet").exists()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_eval_indices_file_that_is_not_a_file_is_refused(kind, tiny_root, tmp_path):
    """``xla_default.json`` as a FIFO, or as a symbolic link to /dev/zero (links are followed; the target is checked)."""
    folder = tmp_path / "eval_indices"
    folder.mkdir()
    json_file = folder / "xla_default.json"
    if kind == "fifo":
        os.mkfifo(json_file)
    else:
        json_file.symlink_to(_target(tmp_path, "device"))
    submission = tmp_path / "sub.csv"
    submission.write_bytes(VALID_SPLIT_CSV)
    done = _run(submission, "--data-root", tiny_root, "--split", "valid", "--configs", "official",
                "--eval-indices", folder, "--no-progress")
    assert done.returncode == 2, done.stderr
    assert "[INPUT_NOT_A_FILE] cannot use the eval indices" in done.stderr
    assert f"{json_file} {WHAT[kind]}, not a regular file" in " ".join(done.stderr.split())


@pytest.mark.parametrize("kind", KINDS)
def test_solution_that_is_not_a_file_is_refused(kind, tmp_path):
    solution = _target(tmp_path, kind)
    done = _run(tmp_path / "none.csv", "--solution", solution)
    assert done.returncode == 2, done.stderr
    assert f"[INPUT_NOT_A_FILE] solution file {solution} {WHAT[kind]}, not a regular file" in done.stderr


def test_the_helper_refuses_at_once_and_reads_a_regular_file(tmp_path):
    """In-process: opening a FIFO without O_NONBLOCK would block here; the helper raises before any read."""
    fifo = _target(tmp_path, "fifo")
    with pytest.raises(InputRefused) as refused:
        read_regular_file(fifo, 100)
    assert refused.value.kind == "not_a_file"
    small = tmp_path / "small.txt"
    small.write_bytes(b"0123456789")
    assert read_regular_file(small, 10) == b"0123456789"
    with pytest.raises(InputRefused) as refused:
        read_regular_file(small, 9)
    assert refused.value.kind == "too_large" and "10 bytes, more than the limit of 9" in refused.value.reason
    with pytest.raises(InputRefused) as refused:
        read_regular_file(tmp_path / "absent", 9)
    assert refused.value.kind == "missing"


# --- archives: unpacked in chunks, stopped at the cap ---------------------------------------------------------

def _record_reads(monkeypatch, cls) -> list[tuple[int, int]]:
    """(size asked, bytes returned) of every ``cls.read`` call from now on."""
    calls: list[tuple[int, int]] = []
    original = cls.read

    def read(self, size=-1):
        out = original(self, size)
        calls.append((size, len(out)))
        return out

    monkeypatch.setattr(cls, "read", read)
    return calls


def test_gzip_bomb_stops_unpacking_once_past_the_cap(monkeypatch):
    """64 MiB of zeros (about 64 KB gzipped) against a 4 MiB cap: refused after about 4 MiB came out (by the
    counting pass; no second pass), asked for 1 MiB at a time (the old code asked for the whole cap + 1 in one
    read, one allocation of up to 1 GiB)."""
    cap = 4 << 20
    monkeypatch.setattr(compressed, "MAX_UNPACKED_BYTES", cap)
    bomb = gzip.compress(bytes(64 << 20), compresslevel=9)
    calls = _record_reads(monkeypatch, gzip.GzipFile)
    log = ProblemLog("strict")
    assert compressed.unpack(bomb, log) is None
    assert [p.code for p in log.problems] == ["ARCHIVE_TOO_LARGE"]
    assert "4,194,304 bytes" in log.problems[0].message
    produced = sum(n for _, n in calls)
    assert cap < produced <= cap + CHUNK_BYTES  # stopped at the first chunk past the cap, not 64 MiB
    assert max(size for size, _ in calls) == CHUNK_BYTES


def test_gzip_under_the_cap_is_read_whole_in_chunks(monkeypatch):
    monkeypatch.setattr(compressed, "MAX_UNPACKED_BYTES", 4 << 20)
    body = b"ID,TopConfigs\n" + b"tile:xla:g,0;1;2\n" * 200_000  # 3.4 MB: 4 chunks
    calls = _record_reads(monkeypatch, gzip.GzipFile)
    log = ProblemLog("strict")
    assert compressed.unpack(gzip.compress(body), log) == body
    assert [p.code for p in log.problems] == ["COMPRESSED"]
    assert len(calls) >= 4 and max(size for size, _ in calls) == CHUNK_BYTES


def _zipped(body: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("sub.csv", body)
    return out.getvalue()


def test_zip_member_is_read_in_chunks_and_a_large_one_not_at_all(monkeypatch):
    monkeypatch.setattr(compressed, "MAX_UNPACKED_BYTES", 4 << 20)
    calls = _record_reads(monkeypatch, zipfile.ZipExtFile)
    body = b"ID,TopConfigs\n" + b"tile:xla:g,0;1;2\n" * 200_000
    assert compressed.unpack(_zipped(body), ProblemLog("strict")) == body
    assert max(size for size, _ in calls) == CHUNK_BYTES  # not the cap + 1 at once
    calls.clear()
    log = ProblemLog("strict")
    assert compressed.unpack(_zipped(bytes(8 << 20)), log) is None  # declares 8 MiB: refused unread
    assert [p.code for p in log.problems] == ["ARCHIVE_TOO_LARGE"] and calls == []


def test_zip_member_lying_about_its_size_yields_no_more_than_it_declares(monkeypatch):
    """A member of 8 MiB whose headers declare 1 MiB (cap 4 MiB): zipfile stops at the declared size and the CRC
    fails, so the lie costs at most the declared size."""
    monkeypatch.setattr(compressed, "MAX_UNPACKED_BYTES", 4 << 20)
    real, declared = (8 << 20).to_bytes(4, "little"), (1 << 20).to_bytes(4, "little")
    lying = _zipped(bytes(8 << 20)).replace(real, declared)  # the local header's and the central directory's
    calls = _record_reads(monkeypatch, zipfile.ZipExtFile)
    log = ProblemLog("strict")
    assert compressed.unpack(lying, log) is None
    assert [p.code for p in log.problems] == ["ARCHIVE_UNREADABLE"] and "Bad CRC-32" in log.problems[0].message
    assert sum(n for _, n in calls) <= 1 << 20


def test_the_cap_is_in_proportion_to_real_submissions():
    """A real test submission is about 10 MB, at most about 41 MB (SPEC §2); the leaderboard caps files at 64 MiB."""
    assert compressed.MAX_UNPACKED_BYTES == 256 << 20


# --- a solution file that is not one says why ------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_solution(tiny_root, tmp_path_factory) -> Path:
    from tpugraphs_eval import resolve_data_root

    path = tmp_path_factory.mktemp("targets") / "test.parquet"
    build_solution(resolve_data_root(tiny_root), "test", path)
    return path


def _damaged(data: bytes) -> dict[str, bytes]:
    start = len(data) - 8 - int.from_bytes(data[-8:-4], "little")  # where the footer (thrift FileMetaData) starts
    return {
        "is too short to be a Parquet file (5 bytes": b"PAR1x",
        "is not a Parquet file (it starts with b'ID,T'": b"ID,TopConfigs\n" + b"x" * 20,
        "is cut off: it starts as a Parquet file but does not end with the magic bytes PAR1": data[: len(data) // 2],
        "has a damaged footer: its length field says 4,294,967,295 bytes": data[:-8] + b"\xff\xff\xff\xffPAR1",
        "has a damaged Parquet footer that cannot be decoded": data[:start] + b"\xff" * 16 + data[start + 16:],
    }


@pytest.mark.parametrize("phrase", list(_damaged(b"PAR1" + bytes(4) + b"\x00\x00\x00\x00PAR1")))
def test_unreadable_solution_says_what_is_wrong(phrase, tiny_solution, tmp_path):
    path = tmp_path / "odd.parquet"
    path.write_bytes(_damaged(tiny_solution.read_bytes())[phrase])
    for read in (read_manifest, load_solution):
        with pytest.raises(DataError) as raised:
            read(path)
        assert raised.value.code == "SOLUTION_UNREADABLE"
        assert str(raised.value).startswith(f"{path} {phrase}"), str(raised.value)


def test_parquet_without_manifest_and_a_folder_say_so(tmp_path):
    import polars as pl

    plain = tmp_path / "plain.parquet"
    pl.DataFrame({"a": [1, 2]}).write_parquet(plain)
    with pytest.raises(DataError, match="is a Parquet file without a tpugraphs-eval manifest") as raised:
        load_solution(plain)
    assert raised.value.code == "SOLUTION_UNREADABLE"
    with pytest.raises(DataError, match="is a folder, not a regular file") as raised:
        read_manifest(tmp_path)
    assert raised.value.code == "INPUT_NOT_A_FILE"


# --- the kit: graph files and combine inputs -------------------------------------------------------------------

def _in_thread(call, fifo: Path):
    """``call()`` on a daemon thread; fails if it is still blocked after 30 s (a writer is then opened on ``fifo``
    so that old code blocked in open() returns and the test process can end)."""
    outcome: dict[str, object] = {}

    def run():
        try:
            outcome["value"] = call()
        except (KitError, UsageError) as err:  # the refusal expected, returned for the test to check
            outcome["error"] = err

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():
        with open(fifo, "wb"):
            pass
        worker.join(5)
        pytest.fail(f"blocked on the FIFO {fifo}")
    return outcome


def test_kit_graph_file_swapped_for_a_fifo_is_refused(tiny_root, tmp_path):
    """A graph listed as a file, then replaced by a FIFO: the kit refuses it (old code: np.load blocked)."""
    from tpugraphs_kit.data import Graph, collection, data_root

    root = tmp_path / "root"
    folder = root / "npz/tile/xla/test"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "g.npz")
    graph = Graph(data_root(root), collection("tile:xla"), "test", "g")
    outcome = _in_thread(lambda: graph.keys(), graph.path)
    error = outcome.get("error")
    assert isinstance(error, KitError) and error.code == "UNREADABLE_GRAPH", outcome
    assert f"graph file {graph.path} is a FIFO (named pipe), not a regular file" in str(error)


def test_kit_combine_refuses_a_fifo_input(tiny_root, tmp_path):
    from tpugraphs_eval import resolve_data_root, scan_catalog
    from tpugraphs_kit.combine import combine_submissions

    fifo = _target(tmp_path, "fifo")
    outcome = _in_thread(lambda: combine_submissions([fifo], tmp_path / "out.csv", scan_catalog(resolve_data_root(tiny_root), "test")),
                         fifo)
    error = outcome.get("error")
    assert isinstance(error, UsageError) and error.code == "SUBMISSION_NOT_A_FILE", outcome
    assert not (tmp_path / "out.csv").exists()
