"""The platforms' own code in ``../shared/clients`` (its README.md): Codabench's bundle unpacker and
MLE-bench's grader, run in a subprocess of this interpreter (the test extra holds their dependencies:
django, pyyaml, python-dateutil; pandas, pyyaml, appdirs, tqdm). Tests skip with a reason when the folder is
absent, as for ``../shared/realdata``."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CLIENTS = Path(os.environ.get("TPUGRAPHS_CLIENTS", REPO.parent / "shared" / "clients"))
"""``../shared/clients`` next to the repository, or ``$TPUGRAPHS_CLIENTS``."""
CHECK_BUNDLE = CLIENTS / "codabench" / "check_bundle.py"
GRADE_COMPETITION = CLIENTS / "mle-bench" / "grade_competition.py"


def _needs(script: Path, modules: tuple[str, ...]) -> None:
    if not script.is_file():
        pytest.skip(f"{script} is absent (the platforms' code in ../shared/clients is not part of the repository)")
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed: pip install -e '.[test]'")


def check_codabench_bundle(bundle: Path) -> str:
    """Run Codabench's unpacker (``check_bundle.py``) on a bundle zip or folder; asserts its last line is
    ``UNPACK OK`` and returns its output. Skips when ../shared/clients is absent."""
    _needs(CHECK_BUNDLE, ("django", "yaml", "dateutil"))
    done = subprocess.run([sys.executable, str(CHECK_BUNDLE), str(bundle)], capture_output=True, text=True,
                          timeout=300)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines and lines[-1] == "UNPACK OK", (done.stdout, done.stderr)
    return done.stdout


_WITHOUT = """
import runpy, sys
script, blocked, *argv = sys.argv[1:]
for name in filter(None, blocked.split(",")):
    sys.modules[name] = None  # `import name` raises ModuleNotFoundError, as where it is not installed
sys.argv = [script, *argv]
runpy.run_path(script, run_name="__main__")
"""


def grade_competition(competition: Path, data_dir: Path, *args: str,
                      blocked: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """Run MLE-bench's registry, prepare call and ``grade_csv`` (``grade_competition.py``) on a competition
    folder, the modules ``blocked`` made unimportable (as in an environment without them). Skips when
    ../shared/clients is absent."""
    _needs(GRADE_COMPETITION, ("pandas", "yaml", "appdirs", "tqdm"))
    return subprocess.run([sys.executable, "-c", _WITHOUT, str(GRADE_COMPETITION), ",".join(blocked),
                           str(competition), str(data_dir), *args], capture_output=True, text=True, timeout=600)


_DOWNLOAD_AND_PREPARE = """
import importlib.util, json, sys, tempfile, types
from pathlib import Path

script, competition_dir, data_dir, dataset_zip = sys.argv[1:5]
# MLE-bench memoises its MD5s in a diskcache.Cache; a dict is that cache without the files (the runner's own
# stand-in, None, is enough for grading but not for checksums)
sys.modules.setdefault("diskcache", types.SimpleNamespace(Cache=lambda *args, **kwargs: {}))
spec = importlib.util.spec_from_file_location("grade_competition", script)
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)
with tempfile.TemporaryDirectory() as tmp:
    grade, registry, data = runner._load_mlebench(Path(competition_dir), Path(tmp))
    competition = registry.Registry(Path(data_dir)).get_competition(Path(competition_dir).name)
    data.download_dataset = lambda **kwargs: Path(dataset_zip)  # Kaggle's download, stood in for
    data.download_and_prepare_dataset(competition)  # MLE-bench's defaults: every checksum verified
    import yaml
    print(json.dumps(yaml.safe_load(competition.checksums.read_text())))
"""


def mlebench_download_and_prepare(competition: Path, data_dir: Path, dataset_zip: Path) -> subprocess.CompletedProcess:
    """Run MLE-bench's own ``download_and_prepare_dataset`` (what ``mlebench prepare`` calls, verification on) on a
    competition folder, with Kaggle's download stood in for by ``dataset_zip``: it checks the zip's MD5, extracts
    it into ``raw``, calls the folder's ``prepare`` and checks the prepared files' MD5s; on success stdout is the
    JSON of the ``checksums.yaml`` then in force (the folder's own, or the one MLE-bench wrote). Skips when
    ../shared/clients is absent."""
    _needs(GRADE_COMPETITION, ("pandas", "yaml", "appdirs", "tqdm"))
    return subprocess.run([sys.executable, "-c", _DOWNLOAD_AND_PREPARE, str(GRADE_COMPETITION), str(competition),
                           str(data_dir), str(dataset_zip)], capture_output=True, text=True, timeout=600,
                          cwd=data_dir.parent)
