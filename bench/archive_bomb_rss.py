"""Peak RSS of refusing a gzip bomb: our chunked unpacking against a naive one-read reference, same run.

    python bench/archive_bomb_rss.py [--gib 3]

Writes a gzip file of ``--gib`` GiB of ``0`` bytes (about 1 MB compressed per GiB, zlib level 9) to a
temporary folder, then in a fresh interpreter each (``rss_probe.measure``: the rise of VmHWM over VmRSS):

- ours: ``submission.compressed.unpack`` (1 MiB chunks, stops once past ``MAX_UNPACKED_BYTES``);
- naive: ``gzip.GzipFile.read(MAX_UNPACKED_BYTES + 1)`` on the same bytes, one read up to the cap, as the
  unpacking was before chunking (there with a 1 GiB cap: ``--naive-cap-mib 1024`` reproduces it).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _write_bomb(path: Path, gib: int) -> None:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: a gzip header and trailer
    block = b"0" * (64 << 20)
    with open(path, "wb") as out:
        for _ in range(gib * 16):
            out.write(packer.compress(block))
        out.write(packer.flush())


def _probe(kind: str, bomb: Path, naive_cap: int) -> None:
    import gzip
    import io

    sys.path.insert(0, str(HERE))
    from rss_probe import measure

    from tpugraphs_eval.submission import compressed
    from tpugraphs_eval.submission.problems import ProblemLog

    data = bomb.read_bytes()
    if kind == "ours":
        log = ProblemLog("strict")
        out = measure(lambda: (compressed.unpack(data, log), [p.code for p in log.problems])[1])
    else:
        out = measure(lambda: len(gzip.GzipFile(fileobj=io.BytesIO(data)).read(naive_cap + 1)))
    print(json.dumps({**out, "cap_bytes": compressed.MAX_UNPACKED_BYTES if kind == "ours" else naive_cap}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=int, default=3)
    parser.add_argument("--naive-cap-mib", type=int, default=None, help="default: our cap")
    parser.add_argument("--probe", nargs=2, metavar=("KIND", "BOMB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    from tpugraphs_eval.submission.compressed import MAX_UNPACKED_BYTES

    naive_cap = MAX_UNPACKED_BYTES if args.naive_cap_mib is None else args.naive_cap_mib << 20
    if args.probe:
        _probe(args.probe[0], Path(args.probe[1]), naive_cap)
        return
    with tempfile.TemporaryDirectory() as folder:
        bomb = Path(folder) / "bomb.csv.gz"
        _write_bomb(bomb, args.gib)
        print(f"gzip bomb: {bomb.stat().st_size:,} bytes unpacking to {args.gib} GiB")
        rises = {}
        for kind in ("ours", "naive"):
            done = subprocess.run([sys.executable, __file__, "--gib", str(args.gib), "--naive-cap-mib",
                                   str(naive_cap >> 20), "--probe", kind, str(bomb)],
                                  capture_output=True, text=True, check=True)
            result = json.loads(done.stdout)
            rises[kind] = result["rise_kb"]
            print(f"{kind:5}: cap {result['cap_bytes'] >> 20} MiB, peak RSS rise {result['rise_kb'] / 1024:.0f} MiB, "
                  f"{result['seconds']:.2f} s, result {result['result']} ({result['method']})")
        print(f"peak RSS rise ours / naive: {rises['ours'] / max(rises['naive'], 1):.2f}")


if __name__ == "__main__":
    main()
