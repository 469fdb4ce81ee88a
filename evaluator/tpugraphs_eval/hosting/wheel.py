"""The installed package as a wheel file, for the folders an export writes (the Codabench starting kit, the
MLE-bench competition): what their install line installs ships beside it, since the name ``tpugraphs-eval``
resolves in no package index.

The wheel (PEP 427, PEP 491) is pure Python (``py3-none-any``: the numpy kernel, no C extension) with the installed
distribution's metadata; its bytes depend only on the files (fixed timestamps, sorted members).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import importlib.resources
import zipfile
from pathlib import Path

from .._version import __version__
from ..atomicfile import ZIP_DATE
from ..errors import UsageError

DISTRIBUTION = "tpugraphs-eval"
PACKAGES = ("tpugraphs_eval", "tpugraphs_kit", "tpugraphs_kit.notebooks")
_SHIPPED_SUFFIXES = (".py", ".typed", ".json", ".md", ".ipynb")
"""Source and package data; not compiled files, the C source (no build here) or what a notebook run left behind."""

WHEEL_NAME = f"tpugraphs_eval-{__version__}-py3-none-any.whl"
"""The file name an export writes (and its install line names: ``pip install ./<WHEEL_NAME>``)."""


def _package_files() -> list[tuple[str, bytes]]:
    """(path in the wheel, bytes) of every file of :data:`PACKAGES`, sorted; subpackages listed on their own."""
    files = {}
    for package in PACKAGES:
        root = Path(str(importlib.resources.files(package)))
        prefix = package.replace(".", "/")
        for path in root.rglob("*"):
            relative = path.relative_to(root).as_posix()
            if path.is_file() and "__pycache__" not in path.parts and path.name.endswith(_SHIPPED_SUFFIXES):
                files[f"{prefix}/{relative}"] = path.read_bytes()
    return sorted(files.items())


def _dist_info() -> list[tuple[str, bytes]]:
    """METADATA, WHEEL and entry_points.txt of the installed distribution, in a ``.dist-info`` folder."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise UsageError(f"the export ships the installed package as a wheel, but {DISTRIBUTION} is not installed "
                         "(pip install . in the checkout)") from None
    info = f"tpugraphs_eval-{__version__}.dist-info"
    scripts = "".join(f"{e.name} = {e.value}\n" for e in sorted(dist.entry_points, key=lambda e: e.name)
                      if e.group == "console_scripts")
    wheel = "Wheel-Version: 1.0\nGenerator: tpugraphs-eval export\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    return [(f"{info}/METADATA", dist.metadata.as_string().encode()), (f"{info}/WHEEL", wheel.encode()),
            (f"{info}/entry_points.txt", f"[console_scripts]\n{scripts}".encode())]


def write_wheel(folder: Path) -> Path:
    """Write :data:`WHEEL_NAME` into ``folder`` and return its path.

    Raises:
        UsageError: the package is not installed (no distribution metadata to copy).
        OSError: the file cannot be written.
    """
    members = _package_files() + _dist_info()
    record_name = f"tpugraphs_eval-{__version__}.dist-info/RECORD"
    record = "".join(f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
                     f"{len(data)}\n" for name, data in members) + f"{record_name},,\n"
    path = Path(folder) / WHEEL_NAME
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in [*members, (record_name, record.encode())]:
            wheel.writestr(zipfile.ZipInfo(name, ZIP_DATE), data, zipfile.ZIP_DEFLATED)
    return path
