"""The Markdown pages of the Codabench bundle (overview, evaluation, data, terms) and its logo."""

from __future__ import annotations

import struct
import zlib

from ..dataset import TILE_TOP_K

_EVALUATION = """# Evaluation

Submissions are scored by the metric of the 2023 Kaggle competition "Google - Fast or Slow? Predict AI Model
Runtime", as `tpugraphs-eval` computes it (definitions: the TpuGraphs paper, arXiv 2308.13490).

- **tile:xla**, per graph: `2 - min(runtime of the first {k} listed configs) / min(runtime of all configs)`
  (1 when the fastest config is listed; {tile_runtime}).
- **layout:\\***, per graph: Kendall's tau-b between your ranking and the true runtimes (ties in runtime
  handled by tau-b; a graph with constant runtimes is left out).
- A collection's value is the unweighted mean over its graphs; the **overall** score (the ranking column)
  is {mean}. A collection's value is shown as a column too when
  the phase holds at least 2 of its graphs (one graph's value is never shown), and none is when the
  collections left out hold a single graph between them.

Validation is **{mode}**. {mode_text} Every problem of an invalid submission is listed, with its CSV line and
code, in the scoring program's error log (stderr); an invalid submission gets no score.

The **Public** phase scores {public} graphs (the public leaderboard). The **Final** phase, which opens the
day after the Public phase ends, scores the other {private} graphs (the private leaderboard): your Public
submissions are moved to it when it opens and the board keeps your last one, so submit the file you choose
last. It takes no new submission once yours are moved.
"""

_TILE_RUNTIME_TEXT = {"normalized": "runtimes divided by `config_runtime_normalizers`",
                      "raw": "raw `config_runtime`, not divided by the normalizers"}
_MODE_TEXT = {
    "strict": "Each row must list distinct valid indices: a tile row the top min(5, c) to 10 configs (the "
              "first 5 are scored), a layout row all c configs.",
    "lenient": "As Kaggle accepted: duplicate and out-of-range indices are dropped, only the first 5 tile indices "
               "count, and a layout row that lists only some configs ranks the others tied last.",
}


SYNTHETIC_NOTE = ("> **SYNTHETIC demo data.** This competition scores the synthetic demo dataset made by "
                  "`tpugraphs-eval`, not TpuGraphs measurements: its scores say nothing about real TPU programs.\n\n")
"""Put under the heading of every page of a bundle made from the synthetic demo (docs/kit.md: the demo is
labelled SYNTHETIC wherever it is shown)."""


def collection_mean_text(names: list[str]) -> str:
    """What the overall averages: the competition's collections (``names``), counted and named."""
    if len(names) == 1:
        return f"the value of its one collection, `{names[0]}`"
    return f"the unweighted mean of the {len(names)} collection values ({', '.join(f'`{n}`' for n in names)})"


def validate_command(split: str, synthetic: bool = False, data_root: str | None = None,
                     submission: str = "submission.csv") -> str:
    """The ``tpugraphs-eval validate`` command that checks a submission for the solution's ``split``, as the pages
    and the starting kit give it; ``data_root``: the participants' folder of graphs (default the demo for a
    synthetic bundle, else the option left out: ``$TPUGRAPHS_DATA`` or ``~/data/tpugraphs``)."""
    root = data_root if data_root is not None else ("demo" if synthetic else None)
    return f"tpugraphs-eval validate {submission}" + (f" --data-root {root}" if root else "") + f" --split {split}"


_OVERVIEW = """# {title}

Predict which compilation configurations of an XLA tensor program run fastest on a TPU. For every graph
of the {split} split, submit configuration indices, fastest first (TpuGraphs, arXiv 2308.13490).

Submit a zip holding one CSV file with the header `ID,TopConfigs`, one row per graph:

```
ID,TopConfigs
tile:xla:<graph>,3;0;7;1;5
layout:xla:default:<graph>,12;4;0;…
```

`ID` is the collection and the graph's file name without `.npz`; `TopConfigs` are configuration indices
joined by `;`: the top {k} for a tile graph (fewer when it has fewer configs; up to 10 are accepted,
the first {k} are scored), all of them for a layout graph. Check a file before submitting: `{validate}`.
"""


def pages(title: str, counts: dict[str, tuple[int, int, int]], mode: str, tile_runtime: str,
          synthetic: bool = False, split: str = "test", validate: str | None = None) -> dict[str, str]:
    """File name → Markdown text of the four pages.

    Args:
        title: the competition's title.
        counts: collection → (graphs, public graphs, configurations) of the split.
        mode: ``strict`` or ``lenient``; tile_runtime: ``normalized`` or ``raw``.
        synthetic: the solution is the synthetic demo: every page says so (:data:`SYNTHETIC_NOTE`) and the
            data and terms pages name the demo, not the TpuGraphs dataset.
        split: the solution's split (its manifest's), named where the pages say which graphs to submit.
        validate: the check command to give (default :func:`validate_command` of ``split``).
    """
    validate = validate or validate_command(split, synthetic)
    rows = "\n".join(f"| `{name}` | {graphs} | {public} | {configs} |" for name, (graphs, public, configs)
                     in counts.items())
    n_graphs = sum(c[0] for c in counts.values())
    n_public = sum(c[1] for c in counts.values())
    dataset = ("The synthetic demo dataset of `tpugraphs-eval` (made-up runtimes in the layout of TpuGraphs: "
               if synthetic else "The TpuGraphs dataset (")
    source = ("the synthetic demo data (no TpuGraphs measurements)" if synthetic
              else "the TpuGraphs dataset (Apache-2.0 / CC BY 4.0, see its repository)")
    texts = {
        "overview.md": _OVERVIEW.format(title=title, split=split, k=TILE_TOP_K, validate=validate),
        "evaluation.md": _EVALUATION.format(k=TILE_TOP_K, mean=collection_mean_text(list(counts)),
                                            tile_runtime=_TILE_RUNTIME_TEXT[tile_runtime], mode=mode,
                                            mode_text=_MODE_TEXT[mode], public=n_public,
                                            private=n_graphs - n_public),
        "data.md": f"""# Data

{dataset}`npz/tile/xla/…`, `npz/layout/{{xla,nlp}}/{{default,random}}/…`). This competition
scores the graphs below; their runtimes are hidden (the reference data of the scoring program).

| collection | graphs | on the public leaderboard | configurations |
|---|---|---|---|
{rows}
""",
        "terms.md": f"""# Terms

- One account per participant; no sharing of code or predictions outside teams.
- The runtimes of the {split} graphs are not to be measured, looked up or reconstructed.
- The final ranking is the Final phase's (private leaderboard); the organisers' decision on the rules is final.
- {title} uses {source} and `tpugraphs-eval`.
""",
    }
    if not synthetic:
        return texts
    return {name: text.replace("\n\n", "\n\n" + SYNTHETIC_NOTE, 1) for name, text in texts.items()}


def logo_png(size: int = 64) -> bytes:
    """A plain square PNG (RGB, one colour) for the bundle's required ``image``."""
    row = b"\x00" + bytes((66, 133, 244)) * size  # filter byte 0, then the pixels

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * size))
            + chunk(b"IEND", b""))
