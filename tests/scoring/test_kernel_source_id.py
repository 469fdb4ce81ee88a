"""A built C extension that does not match the ``_native.c`` beside it is not used (tpugraphs_eval.kernels,
the Decision in its docstring and docs/options.md): before, a no-compiler editable install in a tree holding an
old build silently ran the old C code. The module carries SOURCE_ID, the sha256 of its source with that line's
digits zeroed (recomputed here with hashlib on the file's bytes).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from tpugraphs_eval import UsageError, __version__, kernels

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "evaluator" / "tpugraphs_eval" / "_native.c"
C = kernels._native


def test_the_source_id_written_in_native_c_is_current():
    """When this fails after an edit of _native.c, put the printed id into its `#define SOURCE_ID` line."""
    text = SOURCE.read_bytes()
    declared = re.findall(rb'^#define SOURCE_ID "([0-9a-f]{64})"$', text, flags=re.MULTILINE)
    zeroed = re.sub(rb'^(#define SOURCE_ID ")[0-9a-f]{64}"$', rb'\g<1>' + b"0" * 64 + b'"', text, flags=re.MULTILINE)
    assert [d.decode() for d in declared] == [hashlib.sha256(zeroed).hexdigest()] == [kernels.source_id(text)]


@pytest.mark.skipif(C is None, reason="the C extension tpugraphs_eval._native was not built")
def test_the_built_module_matches_its_source():
    assert C.SOURCE_ID == kernels.source_id(SOURCE.read_bytes()) and kernels.native_mismatch() is None


def test_a_module_built_from_other_source_is_not_used(monkeypatch):
    for old in (types.SimpleNamespace(__file__="/x/_native.cpython-311-x86_64-linux-gnu.so", SOURCE_ID="0" * 64),
                types.SimpleNamespace(__file__="/x/_native.cpython-311-x86_64-linux-gnu.so")):  # built before ids
        monkeypatch.setattr(kernels, "_native", old)
        chosen = kernels.select("auto")
        assert chosen.name == "numpy" and chosen.description == (
            "numpy fallback — the built C extension _native.cpython-311-x86_64-linux-gnu.so does not match "
            "_native.c (a stale build): rebuild it (`pip install -e .` with a C compiler) or delete it")
        with pytest.raises(UsageError, match="TPUGRAPHS_KERNEL=c, but the built C extension _native.cpython-311"):
            kernels.select("c")
        assert kernels.select("numpy").description == "numpy fallback — TPUGRAPHS_KERNEL=numpy"


@pytest.mark.skipif(C is None, reason="the C extension tpugraphs_eval._native was not built")
def test_version_names_a_stale_module_in_a_tree(tmp_path):
    """The package copied with its built module, then its _native.c edited (a pull after the build): the
    interpreter imports the copy, which runs the numpy fallback and says why."""
    package = tmp_path / "tpugraphs_eval"
    shutil.copytree(Path(kernels.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    with open(package / "_native.c", "a", encoding="utf-8") as source:
        source.write("/* a later change */\n")
    env = {k: v for k, v in os.environ.items() if k != kernels.ENV_VAR} | {"PYTHONPATH": str(tmp_path)}
    script = ("import sys, tpugraphs_eval; assert tpugraphs_eval.__file__.startswith(sys.argv[1]); "
              "from tpugraphs_eval.commands.evaluate import main; main(['--version'])")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    line = re.sub(r"\(source sha256 [0-9a-f]{64}; ", "(", " ".join(done.stdout.split()))  # argparse may wrap it
    assert line == (
        f"tpugraphs-eval {__version__} (kernel: numpy fallback — the built C extension {Path(C.__file__).name} does not "
        "match _native.c (a stale build): rebuild it (`pip install -e .` with a C compiler) or delete it)")
