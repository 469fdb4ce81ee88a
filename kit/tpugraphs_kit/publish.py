"""The organiser's half of a download: a data root (``prepare``'s ``comp/public``) as archives in the official
layout, for ``tpugraphs-data download --base-url``: one tar per collection and split present, named as the official
ones (:func:`.download.archive_name`), written in name order with fixed metadata (mtime 0, owner 0, mode 0644) so
that the same data give the same bytes; the public files beside them, and :data:`CHECKSUMS` (docs/prepare.md,
"Publishing the public data").
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

from tpugraphs_eval.dataset import COLLECTIONS, SPLITS
from tpugraphs_eval.file_digest import file_hexdigest
from tpugraphs_eval.truth.dataroot import DataRoot

from .download import CHECKSUMS, archive_name
from .errors import KitError

EXTRA_FILES = ("sample_submission.csv", "prepare.json")
"""Files of the data root published beside the archives when present (participants' copies)."""


def _tar(archive: Path, files: list[Path], root: Path) -> None:
    """Write ``files`` (paths under ``root``) into the tar ``archive``, by name, with fixed metadata."""
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(files):
            info = tarfile.TarInfo(path.relative_to(root).as_posix())
            info.size, info.mode, info.mtime = path.stat().st_size, 0o644, 0
            with open(path, "rb") as handle:
                tar.addfile(info, handle)


def publish(data_root: str | os.PathLike[str], out: str | os.PathLike[str]) -> dict[str, str]:
    """Write the archives of ``data_root`` (every collection and split present), its public files and
    :data:`CHECKSUMS` into the new or empty folder ``out``. Links are followed (their target's bytes are written).

    Returns:
        file name → sha256 (hex), as written to :data:`CHECKSUMS`.

    Raises:
        KitError: ``USAGE_ERROR`` (``out`` is not a new or empty folder, or ``data_root`` holds no graph files);
            ``OUTPUT_WRITE_FAILED`` (a failed write).
    """
    root, out = DataRoot(Path(data_root)), Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise KitError("USAGE_ERROR", f"{out} exists and is not an empty folder: publish writes into a new one")
    sums: dict[str, str] = {}
    try:
        out.mkdir(parents=True, exist_ok=True)
        for c in COLLECTIONS:
            for split in SPLITS:
                files = root.graph_files(c, split)
                if files:
                    name = archive_name(c.name, split)
                    _tar(out / name, files, root.path)
                    sums[name] = file_hexdigest(out / name)
        if not sums:
            raise KitError("USAGE_ERROR", f"{root.path} holds no npz/ graph files to publish")
        for extra in EXTRA_FILES:
            if (root.path / extra).is_file():
                (out / extra).write_bytes((root.path / extra).read_bytes())
                sums[extra] = file_hexdigest(out / extra)
        (out / CHECKSUMS).write_text("".join(f"{digest}  {name}\n" for name, digest in sums.items()), encoding="utf-8")
    except OSError as err:
        raise KitError("OUTPUT_WRITE_FAILED", f"cannot write {out}: {err.strerror or err}") from None
    return sums
