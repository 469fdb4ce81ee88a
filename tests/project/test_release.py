"""A package people can install, type-check and cite (issue 23): the version moves with what it changes, the core
needs numpy and rich only, the public API type-checks, the documentation site builds without a warning, and the
wheel and sdist built from the checkout hold what they promise.

The fingerprint of a version (release_fingerprints.json beside this file) is the demo's scores, the code tables
and the file-format numbers: when one of them changes, the version must change (and stand in CHANGELOG.md) and
the new version gets its fingerprint (``python tests/project/test_release.py`` prints the current one)."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

import tpugraphs_eval as te

REPO = Path(__file__).resolve().parents[2]
FINGERPRINTS = Path(__file__).with_name("release_fingerprints.json")
SAMPLES = ("demo_identity_test.csv", "demo_random_test.csv", "demo_kaggle_sample_test.csv")


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def fingerprint() -> dict[str, object]:
    """What a version promises not to change: the demo's scores, the code tables and the file-format numbers."""
    from tpugraphs_eval.demo.dataset import DEMO_VERSION
    from tpugraphs_eval.errors import ERROR_CODES
    from tpugraphs_eval.leaderboard.assemble import LEADERBOARD_FORMAT
    from tpugraphs_eval.leaderboard.codes import LEADERBOARD_CODES
    from tpugraphs_eval.prepare.run import PREPARE_FORMAT
    from tpugraphs_eval.report.report import REPORT_FORMAT
    from tpugraphs_eval.scoring.compare import COMPARE_FORMAT
    from tpugraphs_eval.truth.solution import SOLUTION_FORMAT
    from tpugraphs_kit.errors import KIT_ERROR_CODES

    scores = {}
    for name in SAMPLES:
        for mode in ("strict", "lenient"):
            report = te.evaluate(REPO / "sample_submissions" / name, split="test", data_root="demo",
                                 options=te.Options(mode=mode))
            scores[f"{name} {mode}"] = {"overall": report.overall, "problems": dict(report.validation.counts),
                                        "graphs_sha256": _digest(report.graph_metrics())}
    codes = {"problems": [[c.name, str(c.strict), str(c.lenient)] for c in te.CODES.values()],
             "errors": sorted(ERROR_CODES), "kit": sorted(KIT_ERROR_CODES), "leaderboard": sorted(LEADERBOARD_CODES)}
    formats = {"report": REPORT_FORMAT, "solution": SOLUTION_FORMAT, "prepare": PREPARE_FORMAT,
               "compare": COMPARE_FORMAT, "leaderboard": LEADERBOARD_FORMAT, "demo": DEMO_VERSION}
    return {"demo_scores": scores, "codes_sha256": _digest(codes), "formats": formats}


def test_the_version_is_semantic_and_stands_in_the_changelog():
    assert re.fullmatch(r"[1-9]\d*\.\d+\.\d+", te.__version__)  # 1.0.0 and later
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(te.__version__)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.MULTILINE)


def test_a_change_of_scores_codes_or_formats_changes_the_version():
    known = json.loads(FINGERPRINTS.read_text(encoding="utf-8"))
    current = fingerprint()
    assert te.__version__ in known, f"version {te.__version__} has no fingerprint: add {json.dumps(current)}"
    assert current == known[te.__version__], (
        "the demo's scores, the codes or a file format changed, the version did not: bump _version.py, add a "
        f"CHANGELOG.md entry and the new fingerprint {json.dumps(current)}")


def test_the_citation_names_this_version_and_the_paper():
    yaml = pytest.importorskip("yaml")
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["version"] == te.__version__ and citation["license"] == "Apache-2.0"
    paper = citation["preferred-citation"]
    assert paper["authors"][0]["family-names"] == "Phothilimthana" and paper["year"] == 2023
    assert paper["url"] == "https://arxiv.org/abs/2308.13490"


def test_the_core_requirements_are_what_scoring_needs():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert [re.split(r"[<>=]", d)[0] for d in project["dependencies"]] == ["numpy", "rich"]
    extras = project["optional-dependencies"]
    assert {re.split(r"[<>=]", d)[0] for d in extras["organiser"]} == {"polars", "pandas", "scipy"}  # exports: scipy
    assert extras["all"] == ["tpugraphs-eval[kit,organiser]"] and "tpugraphs-eval[all]" in extras["test"]
    assert project["license"] == "Apache-2.0" and "Typing :: Typed" in project["classifiers"]
    assert "Operating System :: POSIX" in project["classifiers"]
    backend = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    assert re.fullmatch(r"setuptools>=\d+,<\d+", backend[0])  # pinned below the next major


def test_the_public_api_type_checks_under_mypy(tmp_path):
    """pyproject's [tool.mypy]: a user's script (tests/typing/user_script.py: assert_type on the top-level names)
    and the two package __init__ modules. Before: every lazy name was Any, evaluate declared the wrong type."""
    api = pytest.importorskip("mypy.api")
    out, err, status = api.run(["--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(tmp_path)])
    assert status == 0, out + err


def test_a_type_checker_sees_every_lazy_name():
    """The ``if TYPE_CHECKING:`` imports of tpugraphs_eval/__init__.py name exactly the lazily imported exports, each
    from the module that defines it at run time."""
    import ast

    tree = ast.parse((REPO / "evaluator/tpugraphs_eval/__init__.py").read_text(encoding="utf-8"))
    (block,) = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"]
    seen = {alias.name: "." * node.level + node.module for node in block.body for alias in node.names}
    assert seen == te._EXPORTS


def test_the_documentation_site_builds_without_a_warning(tmp_path):
    pytest.importorskip("mkdocstrings")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert "tile_score" in api and "Kendall" in api  # the reference is made from the docstrings


def test_python_m_tpugraphs_kit_runs_the_kit_commands(tmp_path):
    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tpugraphs_kit", *argv], capture_output=True, text=True,
                              cwd=tmp_path, timeout=300)

    folder = run("notebooks")
    assert folder.returncode == 0 and (Path(folder.stdout.strip()) / "01_quickstart.ipynb").is_file()
    done = run("baseline", "random", "--split", "valid", "--data-root", "demo", "-o", "r.csv")
    assert done.returncode == 0 and (tmp_path / "r.csv").is_file(), done.stderr
    assert run("data", "--version").returncode == 0
    bad = run("nonsense")
    assert bad.returncode == 2 and "[USAGE_ERROR]" in bad.stderr


# --- the wheel and sdist of a clean checkout, installed where nothing else is ----------------------------------

def _fresh_venv(where: Path) -> Path:
    """A venv without pip whose dependencies come from this interpreter's site-packages (a .pth line), as
    tests/leaderboard/test_leaderboard_demo_installed.py; returns its python."""
    import sysconfig

    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    ours = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    Path(site, "dependencies.pth").write_text("".join(f"{p}\n" for p in ours), encoding="utf-8")
    return python


@pytest.mark.slow
def test_the_wheel_and_sdist_hold_what_they_promise(tmp_path):
    pytest.importorskip("build")
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    checkout = tmp_path / "checkout"  # a clean checkout: the committed files only
    for name in filter(None, files.decode().split("\0")):
        if (REPO / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            (checkout / name).write_bytes((REPO / name).read_bytes())
    done = subprocess.run([sys.executable, "-m", "build", "-o", str(tmp_path / "dist"), str(checkout)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "deprecat" not in (done.stdout + done.stderr).lower()  # the table-form licence warned until 2027-02-18
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    (sdist,) = (tmp_path / "dist").glob("*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"tpugraphs_eval-{te.__version__}.dist-info/METADATA").decode()
    assert {"tpugraphs_eval/py.typed", "tpugraphs_kit/py.typed", "tpugraphs_kit/notebooks/01_quickstart.ipynb",
            "tpugraphs_kit/notebooks/02_learned_baseline.ipynb", "tpugraphs_eval/truth/official_indices/NOTICE.md",
            *(f"tpugraphs_eval/truth/official_indices/{c}.json" for c in
              ("xla_default", "xla_random", "nlp_default", "nlp_random")),
            f"tpugraphs_eval-{te.__version__}.dist-info/licenses/LICENSE"} <= names
    assert "License-Expression: Apache-2.0" in metadata
    core = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert core == ["Requires-Dist: numpy>=1.26", "Requires-Dist: rich>=13.7"]
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name}
        archive.extractall(tmp_path / "sdist", filter="data")
    assert {"tests/conftest.py", "docs/metrics.md", "sample_submissions/demo_identity_test.csv", "LICENSE",
            "CHANGELOG.md", "CITATION.cff", "mkdocs.yml", "kit/notebooks/01_quickstart.ipynb"} <= members

    python = _fresh_venv(tmp_path / "venv")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                              str(wheel)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-3000:]
    # a user's mypy sees the installed package's types (py.typed): not Any
    script = tmp_path / "user.py"
    script.write_text("import tpugraphs_eval\nreveal_type(tpugraphs_eval.evaluate)\n", encoding="utf-8")
    api = pytest.importorskip("mypy.api")
    out, err, _ = api.run(["--python-executable", str(python), "--cache-dir", str(tmp_path / "mypy"),
                           "--follow-imports=silent", str(script)])
    assert 'Revealed type is "def (source: ' in out and "-> tpugraphs_eval.report.report.Report" in out, out + err
    # pytest from the unpacked sdist, against the installed wheel
    unpacked = tmp_path / "sdist" / f"tpugraphs_eval-{te.__version__}"
    done = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/scoring/test_metrics.py",
                           "tests/project/test_docs.py", "tests/cli/test_top_level_api.py"], cwd=unpacked,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and " passed" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]
    where = subprocess.run([python, "-c", "import tpugraphs_eval; print(tpugraphs_eval.__file__)"], cwd=unpacked,
                           capture_output=True, text=True, check=True).stdout
    assert str(tmp_path / "venv") in where  # the wheel's copy was tested, not the checkout's


if __name__ == "__main__":
    print(json.dumps({te.__version__: fingerprint()}, indent=1))
