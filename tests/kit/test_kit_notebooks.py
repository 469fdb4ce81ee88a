"""The starter notebooks (kit/notebooks) run end to end in a real Jupyter kernel, on the demo data.

The kernel is this interpreter (``sys.executable -m ipykernel_launcher``), declared by a kernelspec written to a
temporary ``$JUPYTER_PATH`` folder, so the test uses the installed project and its test extras (nbclient,
ipykernel) and never a kernel installed elsewhere on the machine. A cell error fails the test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="notebook tests need the test extras: pip install -e '.[test]'")
nbclient = pytest.importorskip("nbclient", reason="notebook tests need the test extras: pip install -e '.[test]'")
pytest.importorskip("ipykernel", reason="notebook tests need the test extras: pip install -e '.[test]'")

from tpugraphs_eval import scan_catalog, validate_submission  # noqa: E402 (after the importorskip lines)

NOTEBOOKS = Path(__file__).resolve().parents[2] / "kit" / "notebooks"
KERNEL = "tpugraphs-kit-test"


@pytest.fixture()
def kernel_env(tmp_path, monkeypatch):
    """A kernelspec running this interpreter, found through $JUPYTER_PATH; the demo data; no $TPUGRAPHS_DATA."""
    spec = tmp_path / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    spec.joinpath("kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "tpugraphs-kit test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    monkeypatch.delenv("TPUGRAPHS_DATA", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    return work


def _run(name: str, work: Path):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(notebook, kernel_name=KERNEL, timeout=120,
                                     resources={"metadata": {"path": str(work)}})
    client.execute()  # raises CellExecutionError when a cell fails
    return notebook


def _outputs(notebook) -> str:
    return "\n".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.outputs)


@pytest.mark.parametrize("name", ["01_quickstart.ipynb", "02_learned_baseline.ipynb"])
def test_notebooks_are_stored_without_outputs(name):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    assert "parameters" in code[0].metadata.get("tags", [])  # papermill-style parameters cell
    assert 'os.environ.get("TPUGRAPHS_DATA", "demo")' in code[0].source


def test_quickstart_runs(kernel_env, demo_root):
    notebook = _run("01_quickstart.ipynb", kernel_env)
    text = _outputs(notebook)
    assert "SYNTHETIC" in text and "valid: True" in text
    images = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1  # the one plot
    for split in ("valid", "test"):
        path = kernel_env / "submissions" / f"random_{split}.csv"
        assert validate_submission(path, scan_catalog(demo_root, split)).valid


def test_learned_baseline_runs(kernel_env, demo_root):
    notebook = _run("02_learned_baseline.ipynb", kernel_env)
    text = _outputs(notebook)
    assert "SYNTHETIC" in text and "trained 5 models" in text and "valid: True" in text
    assert validate_submission(kernel_env / "submissions" / "learned_test.csv", scan_catalog(demo_root, "test")).valid


@pytest.mark.parametrize("name", ["01_quickstart.ipynb", "02_learned_baseline.ipynb"])
def test_notebooks_run_on_real_files(kernel_env, monkeypatch, realdata, name):
    """$TPUGRAPHS_DATA points the notebooks at real files (the sample in ../shared/realdata: no nlp train/valid)."""
    monkeypatch.setenv("TPUGRAPHS_DATA", str(realdata / "tpugraphs"))
    text = _outputs(_run(name, kernel_env))
    assert "SYNTHETIC" not in text and "valid: True" in text


@pytest.mark.parametrize("name", ["01_quickstart.ipynb", "02_learned_baseline.ipynb"])
def test_notebooks_run_on_a_prepared_public_folder(kernel_env, monkeypatch, tmp_path, name):
    """$TPUGRAPHS_DATA points the notebooks at `tpugraphs-eval prepare`'s DIR/public (test runtimes all 0)."""
    from tpugraphs_eval import resolve_data_root
    from tpugraphs_eval.prepare import prepare_dir

    prepare_dir("demo", tmp_path / "comp", seed="notebook seed 0123456789", max_configs=100)
    public = tmp_path / "comp" / "public"
    monkeypatch.setenv("TPUGRAPHS_DATA", str(public))
    text = _outputs(_run(name, kernel_env))
    assert "valid: True" in text
    written = sorted((kernel_env / "submissions").glob("*test.csv"))
    assert written and all(validate_submission(p, scan_catalog(resolve_data_root(public), "test")).valid
                               for p in written)
