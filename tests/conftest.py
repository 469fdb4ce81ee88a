"""Shared fixtures: the real files in ../shared/realdata (skipped when absent) and the demo data root."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
REALDATA = Path(os.environ.get("TPUGRAPHS_REALDATA", REPO.parent / "shared" / "realdata"))
"""The real files: ``../shared/realdata`` next to the repository, or ``$TPUGRAPHS_REALDATA``."""

_TEST_CACHE = Path(tempfile.mkdtemp(prefix="tpugraphs-eval-tests-cache-"))
os.environ["XDG_CACHE_HOME"] = str(_TEST_CACHE)
"""The tests' own user cache folder (the demo data when ``$TPUGRAPHS_DEMO_CACHE`` is
not set), for this session and its subprocesses: the tests never read or fill the real ``~/.cache``."""


def pytest_unconfigure(config) -> None:
    shutil.rmtree(_TEST_CACHE, ignore_errors=True)



@pytest.fixture(scope="session")
def realdata() -> Path:
    """``../shared/realdata`` (real TpuGraphs files and Kaggle submissions); skips the test when absent."""
    if not (REALDATA / "tpugraphs" / "npz").is_dir():
        pytest.skip(f"real data folder {REALDATA} is absent (it is not part of the repository)")
    return REALDATA


@pytest.fixture(scope="session")
def demo_root():
    """The synthetic demo data root (built into the user cache at first use)."""
    from tpugraphs_eval import resolve_data_root

    return resolve_data_root("demo")


@pytest.fixture(scope="session")
def tiny_root(tmp_path_factory) -> Path:
    """The tiny data root of the bad-input tests (see ``badinput.py``)."""
    from badinput import build_tiny_root

    return build_tiny_root(tmp_path_factory.mktemp("tiny") / "root")


@pytest.fixture(scope="session")
def catalog(tiny_root: Path):
    """The tiny data root's test-split catalog."""
    from tpugraphs_eval import resolve_data_root, scan_catalog

    return scan_catalog(resolve_data_root(tiny_root), "test")


@pytest.fixture(scope="session")
def tiny_bundle(tiny_root, tmp_path_factory) -> Path:
    """The Codabench bundle (``export codabench``, strict) of the tiny data root's test split: real-data
    manifest (not synthetic), Usage drawn with public fraction 0.5."""
    from tpugraphs_eval import resolve_data_root
    from tpugraphs_eval.hosting.codabench import write_bundle
    from tpugraphs_eval.truth.solution import build_solution

    work = tmp_path_factory.mktemp("tiny-bundle")
    build_solution(resolve_data_root(tiny_root), "test", work / "test.parquet", public_fraction=0.5)
    write_bundle(work / "bundle", work / "test.parquet")
    return work / "bundle"


@pytest.fixture(scope="session")
def demo_solution(demo_root, tmp_path_factory) -> Path:
    """The demo's test solution file (default seeded Usage: 10 of 40 tile graphs and 1 of 3 per layout
    collection public)."""
    from tpugraphs_eval.truth.solution import build_solution

    path = tmp_path_factory.mktemp("demo-solution") / "test.parquet"
    build_solution(demo_root, "test", path)
    return path


@pytest.fixture(scope="module", params=["c", "numpy"])
def kernel(request):
    """Runs a module's tests once with each kernel of the hot loops (tpugraphs_eval.kernels): the C extension
    (skipped where it was not built) and the numpy fallback; subprocesses get it through TPUGRAPHS_KERNEL.
    Modules opt in with ``pytestmark = pytest.mark.usefixtures("kernel")``."""
    from tpugraphs_eval import kernels

    if request.param == "c" and kernels._native is None:
        pytest.skip("the C extension tpugraphs_eval._native was not built")
    previous = kernels.use(request.param)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(kernels.ENV_VAR, request.param)
        yield kernels.active()
    kernels.use(previous)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the browser tests; skipped, with the reason, when no binary is found."""
    from chromium import Browser, chromium_binary

    binary = chromium_binary()
    if binary is None:
        pytest.skip("no Chromium binary (/usr/bin/chromium, chromium on PATH or $CHROMIUM): `apt-get install "
                    "chromium` to run the browser test (.ci/run installs it)")
    instance = Browser(binary)
    yield instance
    instance.close()


@pytest.fixture()
def server():
    """The download tests' loopback HTTP server (``download_helpers.serve``: ``.base_url``, ``.files``,
    ``.modes``, ``.requests``), stopped after the test."""
    from download_helpers import serve

    with serve() as httpd:
        yield httpd


@pytest.fixture()
def sandbox(tmp_path):
    """``tmp/root`` (the data root, not yet created) and ``tmp/outside`` holding a file and a folder
    (``download_helpers.make_sandbox``)."""
    from download_helpers import make_sandbox

    return make_sandbox(tmp_path)
