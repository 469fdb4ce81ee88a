"""One archive per folder (issue 16 item 2): each official archive may write only its own collection and split
folder, which its name says (``npz_tile_xla_valid.tar`` → ``npz/tile/xla/valid/``); a member anywhere else
refuses the whole archive (``ARCHIVE_OUTSIDE_ITS_FOLDER``) and installs none of it.

On the old code each of these archives was installed (exit 0): it overwrote another archive's installed graph,
planted graphs in another split, or blocked a later archive's install.
"""

from __future__ import annotations

import tarfile
from pathlib import PurePosixPath

import pytest
from download_helpers import LAYOUT_TAR, TILE_TAR, listing, npz_bytes, official, run_download, tar_bytes

from tpugraphs_eval import load_ground_truth, resolve_data_root
from tpugraphs_kit.errors import DownloadError
from tpugraphs_kit.extract import safe_extract

TILE_GRAPH = ("npz/tile/xla/valid/g9.npz", npz_bytes([7, 8, 9], True), {})
PLANTS = {
    "another collection's graph": [TILE_GRAPH, ("npz/layout/xla/default/valid/unet_3d.4x4.bf16.npz",
                                                npz_bytes([1, 2, 3], False), {})],
    "a graph in another split": [TILE_GRAPH, ("npz/tile/xla/test/planted.npz", npz_bytes([1, 2], True), {})],
    "a file where another archive's folder goes": [TILE_GRAPH, ("npz/layout/xla/random", b"in the way", {})],
    "a folder of another collection": [TILE_GRAPH, ("npz/layout/nlp", None, {"type": tarfile.DIRTYPE})],
    "a file beside the collections": [TILE_GRAPH, ("npz/tile/readme.txt", b"hello", {})],
    "the split folder itself as a file": [("npz/tile/xla/valid", b"not a folder", {})],
}


@pytest.mark.parametrize("case", PLANTS)
def test_an_archive_writing_outside_its_folder_installs_nothing(sandbox, server, capsys, case):
    """The tile archive (downloaded second) plants into what the layout archive installed first: refused whole."""
    root, _ = sandbox
    official(server)
    assert run_download(server, root, "layout:xla:default") == 0
    installed = listing(root / "npz")
    server.files[TILE_TAR] = tar_bytes(PLANTS[case])
    assert run_download(server, root, "tile:xla") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "[ARCHIVE_OUTSIDE_ITS_FOLDER]" in err and f"{TILE_TAR}: refused, nothing extracted" in err, err
    assert "may write only under npz/tile/xla/valid/" in err and "Traceback" not in err
    assert listing(root / "npz") == installed  # not even its own graph g9 is installed
    assert not (root / ".downloads" / f"{TILE_TAR}.done").exists()
    assert not (root / ".downloads" / TILE_TAR).exists() and not list(root.glob(".extract-*"))


def test_the_official_layout_installs_and_the_folders_on_the_way_are_allowed(sandbox, server):
    """Folder members npz/, npz/layout/... on the way to the archive's folder are what tar writes: allowed."""
    root, _ = sandbox
    official(server)
    server.files[LAYOUT_TAR] = tar_bytes(
        [(folder, None, {"type": tarfile.DIRTYPE}) for folder in ("npz", "npz/layout", "npz/layout/xla",
                                                                   "npz/layout/xla/default",
                                                                   "npz/layout/xla/default/valid")]
        + [("./npz/layout/xla/default/valid/unet_3d.4x4.bf16.npz", npz_bytes([300, 100, 200], False), {})])
    assert run_download(server, root, "tile:xla", "layout:xla:default") == 0
    truth = load_ground_truth(resolve_data_root(root), "valid")
    assert truth.collections["layout:xla:default"].values.tolist() == [300, 100, 200]
    assert truth.catalog.collections["tile:xla"].names == ("g1", "g2")


def test_every_member_outside_is_named_in_one_message(tmp_path):
    tar = tmp_path / "npz_tile_xla_valid.tar"
    tar.write_bytes(tar_bytes([TILE_GRAPH] + [(f"npz/tile/xla/train/p{k}.npz", b"x", {}) for k in range(12)]))
    with pytest.raises(DownloadError) as caught:
        safe_extract(tar, tmp_path / "root", folder=PurePosixPath("npz/tile/xla/valid"))
    message = str(caught.value)
    assert caught.value.code == "ARCHIVE_OUTSIDE_ITS_FOLDER" and "12 member(s) lie elsewhere" in message
    assert "'npz/tile/xla/train/p0.npz'" in message and "; and 2 more" in message
    assert not (tmp_path / "root").exists()  # refused before the destination is created
    assert len(safe_extract(tar, tmp_path / "root")) == 13  # without a folder (the API's default), all of it
