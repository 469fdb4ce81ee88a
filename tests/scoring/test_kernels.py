"""The two kernels of the hot loops (tpugraphs_eval.kernels): the C extension and its numpy fallback give
identical outputs, byte for byte, on hand-worked, random and adversarial inputs and on whole reports
(demo and real data); the kernel in use is named by ``tpugraphs-eval --version``; an install without a C
compiler works and uses the fallback.

Expected values: worked by hand in the comments, or counted by brute force over all pairs here. The metric
and scoring modules themselves run with each kernel too (the ``kernel`` fixture of conftest.py).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from project_copy import copy_project_source

from tpugraphs_eval import (
    Options,
    UsageError,
    __version__,
    kernels,
    load_ground_truth,
    resolve_data_root,
    scan_catalog,
    score_submission,
    validation_report,
)
from tpugraphs_eval.commands import evaluate as cli
from tpugraphs_eval.kernels_numpy import inversions, scan_indices

REPO = Path(__file__).resolve().parents[2]
C = kernels._native
needs_c = pytest.mark.skipif(C is None, reason="the C extension tpugraphs_eval._native was not built")


@pytest.fixture
def restore_kernel():
    """Whatever a test sets with kernels.use() is undone after it."""
    previous = kernels.use(None)
    yield
    kernels.use(previous)


def values(scanned) -> tuple[list[int], int, int]:
    return np.frombuffer(scanned[0], dtype=np.int32).tolist(), scanned[1], scanned[2]


# --- scan_indices --------------------------------------------------------------------------------

@pytest.mark.parametrize("field, n_configs, expected", [
    (b"3;0;17", 20, ([3, 0, 17], 3, 0)),                   # clean
    (b"3;0;17", 17, ([3, 0, 17], 3, 2)),                   # 17 >= 17: out of range
    (b"3;0;17", -1, ([3, 0, 17], 3, 0)),                   # c unknown: no range or repeat check
    (b"5;1;5", 6, ([5, 1, 5], 3, 4)),                      # 5 twice: duplicate
    (b"5;1;5", 5, ([5, 1, 5], 3, 2)),                      # out-of-range values are not checked for repeats
    (b"1;;2", 5, ([1, -1, 2], 3, 1)),                      # empty token: bad, value -1
    (b"", 5, ([-1], 1, 1)),                                # one empty token
    (b";", 5, ([-1, -1], 2, 1)),
    (b"1; 2;3.0;-4;+5;6e0", 9, ([1, -1, -1, -1, -1, -1], 6, 1)),
    (b"123456789;0", 10**9, ([123456789, 0], 2, 0)),       # 9 digits: the longest clean token
    (b"1234567890;0", 10**10, ([-1, 0], 2, 1)),            # 10 digits: bad
    (b"000000007;7", 8, ([7, 7], 2, 4)),                   # leading zeros are digits; 7 twice
    (b"0;0", 0, ([0, 0], 2, 2)),                           # c = 0: every value is out of range
    (b"1;\xff2;3", 4, ([1, -1, 3], 3, 1)),                 # a non-ASCII byte
])
def test_scan_indices_by_hand(field, n_configs, expected):
    assert values(scan_indices(field, n_configs)) == expected
    assert values(scan_indices(memoryview(field), n_configs)) == expected
    if C is not None:
        assert values(C.scan_indices(field, n_configs)) == expected


FIELD_BYTES = st.lists(st.sampled_from(list(b"0123456789;;;; -+.eA\x00\xff\r")), max_size=60).map(bytes)
INDEX_LISTS = st.lists(st.integers(0, 40), max_size=30).map(lambda v: ";".join(map(str, v)).encode())


@needs_c
@settings(max_examples=1500, deadline=None)
@given(field=st.one_of(FIELD_BYTES, INDEX_LISTS), n_configs=st.sampled_from([-1, 0, 1, 2, 5, 17, 41, 8192, 10**9]))
def test_scan_indices_same_as_c(field, n_configs):
    assert scan_indices(field, n_configs) == C.scan_indices(field, n_configs)
    assert scan_indices(memoryview(field), n_configs) == C.scan_indices(memoryview(field), n_configs)


@needs_c
def test_scan_indices_same_as_c_on_long_fields():
    rng = np.random.default_rng(5)
    permutation = ";".join(map(str, rng.permutation(100_000))).encode()  # as long as the longest real rows
    for field, n_configs in ((permutation, 100_000), (permutation, 99_999), (permutation + b";5", 100_000),
                             (permutation + b";x", 100_000), (permutation, -1)):
        assert scan_indices(field, n_configs) == C.scan_indices(field, n_configs)


# --- inversions ----------------------------------------------------------------------------------

def brute_force(segments: list[np.ndarray]) -> list[int]:
    return [sum(int(a > b) for a, b in itertools.combinations(s.tolist(), 2)) for s in segments]


def packed(segments: list[np.ndarray], bounds: list[int]):
    ranks = np.concatenate(segments).astype(np.int32) if segments else np.empty(0, np.int32)
    return ranks, np.array([s.size for s in segments], np.int64), np.array(bounds, np.int64)


def test_inversions_by_hand():
    # [2,0,1]: (2,0) (2,1) -> 2; [1,1,0]: (1,0) twice, the tie (1,1) does not count -> 2; []: 0; [3]: 0
    segments = [np.array([2, 0, 1]), np.array([1, 1, 0]), np.array([], int), np.array([3])]
    assert np.frombuffer(inversions(*packed(segments, [3, 2, 1, 4])), np.int64).tolist() == [2, 2, 0, 0]


def test_inversions_equal_brute_force_and_c():
    rng = np.random.default_rng(7)
    for _ in range(300):
        bounds = rng.integers(1, 30, size=int(rng.integers(0, 6))).tolist()
        segments = [rng.integers(0, m, size=int(rng.integers(0, 60))) for m in bounds]
        args = packed(segments, [m + int(rng.integers(0, 3)) for m in bounds])  # bounds need not be tight
        got = inversions(*args)
        assert np.frombuffer(got, np.int64).tolist() == brute_force(segments)
        if C is not None:
            assert got == C.inversions(*args)


@needs_c
def test_inversions_same_as_c_on_large_rankings():
    rng = np.random.default_rng(8)
    segments = [rng.permutation(100_000), rng.integers(0, 7, 50_000), np.arange(3000)[::-1], np.arange(4097)]
    args = packed(segments, [100_000, 7, 3000, 4097])
    got = inversions(*args)
    assert got == C.inversions(*args)
    assert np.frombuffer(got, np.int64)[2:].tolist() == [3000 * 2999 // 2, 0]  # reversed: every pair; sorted: none


@pytest.mark.parametrize("ranks, lengths, bounds, message", [
    ([0, 1], [3], [3], "inversions: lengths, n_values and ranks do not match"),
    ([0, 1], [2], [3, 3], "inversions: lengths, n_values and ranks do not match"),
    ([0, -1], [2], [3], "inversions: negative rank"),
    ([0, 3], [2], [3], "inversions: a rank is not below its segment's n_values"),
])
def test_inversions_refuse_bad_input_as_c_does(ranks, lengths, bounds, message):
    args = np.array(ranks, np.int32), np.array(lengths, np.int64), np.array(bounds, np.int64)
    implementations = [inversions] + ([C.inversions] if C is not None else [])
    for implementation in implementations:
        with pytest.raises(ValueError) as raised:
            implementation(*args)
        assert str(raised.value) == message


@needs_c
@pytest.mark.parametrize("portable", [False, True])
def test_both_bit_counting_variants_of_c_equal_brute_force(portable):
    """The C kernel has a popcnt-instruction build and a portable one; both must count the same pairs."""
    C.use_portable_popcount(portable)
    try:
        rng = np.random.default_rng(11)
        for n in (3, 63, 64, 65, 1000, 2048, 2049, 5000):  # around the 64-bit word and 32-word boundaries
            y = rng.integers(0, max(2, n // 3), n)
            args = packed([y], [n])
            assert C.inversions(*args) == inversions(*args)
            if n <= 1000:
                assert np.frombuffer(C.inversions(*args), np.int64).tolist() == brute_force([y])
    finally:
        C.use_portable_popcount(False)


# --- whole reports -------------------------------------------------------------------------------

def reports(kernel: str, score) -> list[str]:
    previous = kernels.use(kernel)
    try:
        return score()
    finally:
        kernels.use(previous)


@needs_c
def test_demo_reports_identical_with_both_kernels(demo_root):
    samples = sorted((REPO / "sample_submissions").glob("*.csv"))

    def score():
        truth = load_ground_truth(demo_root, "test")  # fresh: the references are cached in the truth
        valid = load_ground_truth(demo_root, "valid")
        out = [score_submission(p, truth, Options(mode=m)).to_json() for p in samples for m in ("strict", "lenient")]
        random_valid = REPO / "sample_submissions" / "demo_random_test.csv"  # invalid on valid: problems only
        out.append(score_submission(random_valid, valid, Options(configs="official")).to_json())
        return out

    c, fallback = reports("c", score), reports("numpy", score)
    assert len(c) == 2 * len(samples) + 1 and all('"overall"' in r for r in c)
    assert c == fallback


@needs_c
def test_real_data_reports_identical_with_both_kernels(realdata):
    root = resolve_data_root(realdata / "tpugraphs")
    submissions = sorted((realdata / "submissions").glob("*.csv")) + [realdata / "kaggle" / "sample_submission.csv"]

    def score():
        catalog = scan_catalog(root, "test")
        out = [validation_report(p, catalog, Options(mode=m)).to_json()
               for p in submissions for m in ("strict", "lenient")]
        truth = load_ground_truth(root, "valid")
        rng = np.random.default_rng(3)
        rows = [f"{name}:{g},{';'.join(map(str, rng.permutation(y.size)[:5 if name == 'tile:xla' else None]))}"
                for name, ct in truth.collections.items() for g, y in zip(ct.graphs.names, ct.runtimes)]
        data = ("ID,TopConfigs\n" + "\n".join(rows) + "\n").encode()  # a random ranking of every real valid graph
        for configs in ("all", "official"):
            out.append(score_submission(data, truth, Options(configs=configs),
                                        eval_indices_dir=realdata / "eval_indices").to_json())
        return out

    c, fallback = reports("c", score), reports("numpy", score)
    assert sum('"scored": true' in r for r in c) == 2  # the random rankings of the valid graphs, both protocols
    assert c == fallback


# --- which kernel, and saying so -----------------------------------------------------------------

def version_line(capsys) -> str:
    """The --version line with the source digest (64 hex digits, checked here) written as SHA."""
    assert cli.main(["--version"]) == 0
    return without_digest(capsys.readouterr().out.strip())


def without_digest(line: str) -> str:
    return re.sub(r"\(source sha256 [0-9a-f]{64}; ", "(source sha256 SHA; ", line)


def test_version_names_the_kernel(capsys, monkeypatch, restore_kernel):
    monkeypatch.setenv(kernels.ENV_VAR, "python")
    kernels.use(None)  # read the variable again
    assert version_line(capsys) == f"tpugraphs-eval {__version__} (source sha256 SHA; kernel: numpy fallback — TPUGRAPHS_KERNEL=python)"
    monkeypatch.delenv(kernels.ENV_VAR)
    kernels.use(None)
    expected = "C extension" if C is not None else "numpy fallback — the C extension was not built"
    assert version_line(capsys) == f"tpugraphs-eval {__version__} (source sha256 SHA; kernel: {expected})"


def test_unknown_kernel_choice_is_a_usage_error(capsys, monkeypatch, restore_kernel):
    monkeypatch.setenv(kernels.ENV_VAR, "fortran")
    kernels.use(None)
    assert cli.main(["--version"]) == 2
    assert capsys.readouterr().err.strip() == ("tpugraphs-eval: error: [USAGE_ERROR] TPUGRAPHS_KERNEL must be one "
                                              "of auto, c, numpy (or python), not 'fortran'")



def test_without_the_c_extension_auto_means_numpy_and_c_is_refused(monkeypatch):
    monkeypatch.setattr(kernels, "_native", None)  # as when the build was skipped
    chosen = kernels.select("auto")
    assert (chosen.name, chosen.description) == ("numpy", "numpy fallback — the C extension was not built")
    assert chosen.inversions is inversions and chosen.scan_indices is scan_indices
    with pytest.raises(UsageError, match="TPUGRAPHS_KERNEL=c, but the C extension"):
        kernels.select("c")

# --- an install without a C compiler -------------------------------------------------------------

def _venv_usable() -> str | None:
    """Why ``python -m venv`` cannot make a venv with pip here, or None when it can."""
    try:
        import ensurepip  # noqa: F401  (Debian's python3.x without python3.x-venv lacks it)
    except ImportError:
        return f"{sys.executable} -m venv cannot install pip (no ensurepip module)"
    return None


@pytest.mark.slow
@pytest.mark.skipif(_venv_usable() is not None, reason=str(_venv_usable()))
def test_install_without_a_c_compiler_uses_the_fallback(tmp_path):
    """A fresh venv, the project copied without any built module, ``pip install`` with CC=/bin/false: the
    optional extension's build fails, the install does not; the fallback scores the demo (about a minute)."""
    source = copy_project_source(tmp_path / "project")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    env = {k: v for k, v in os.environ.items() if k != kernels.ENV_VAR} | {"CC": "/bin/false", "CXX": "/bin/false"}
    install = subprocess.run([env_dir / "bin" / "python", "-m", "pip", "install", "-q", str(source)], env=env,
                             capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stderr[-3000:]
    site = subprocess.run([env_dir / "bin" / "python", "-c", "import tpugraphs_eval, pathlib; "
                           "print(*sorted(p.name for p in pathlib.Path(tpugraphs_eval.__file__).parent.iterdir()))"],
                          env=env, capture_output=True, text=True, check=True).stdout
    assert "kernels_numpy.py" in site and ".so" not in site  # nothing compiled was installed

    version = subprocess.run([env_dir / "bin" / "tpugraphs-eval", "--version"], env=env, capture_output=True,
                             text=True)
    assert without_digest(version.stdout.strip()) == (f"tpugraphs-eval {__version__} (source sha256 SHA; kernel: numpy fallback "
                                                      "— the C extension was not built)")
    samples = REPO / "sample_submissions"
    scored = subprocess.run([env_dir / "bin" / "tpugraphs-eval", samples / "demo_random_test.csv",
                             samples / "demo_identity_test.csv", "--data-root", "demo", "--split", "test", "--json", "-",
                             "--quiet"], env=env, capture_output=True, text=True)
    assert scored.returncode == 0, scored.stderr
    expected = [score_submission(p, load_ground_truth(resolve_data_root("demo"), "test")).overall
                for p in (samples / "demo_random_test.csv", samples / "demo_identity_test.csv")]
    assert [r["overall"] for r in json.loads(scored.stdout)] == expected
