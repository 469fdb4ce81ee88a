"""Features of the learned baseline: one row per configuration of a graph, from its arrays alone.

- Tile (``config_feat`` (c, 24), the tile sizes of the kernel): ``[x, log1p(max(x, 0))]``, 48 columns.
- Layout (``node_config_feat`` (c, nc, 18), the layout of each configurable node's output, inputs and
  kernel, values -1 … 5): for each of the 18 slots, the share of configurable nodes holding each value
  -1 … 5: 7 × 18 = 126 columns. (Weighting the nodes by output size did worse on the demo.)
- Graph aggregates (the same for every configuration of a graph): ``log1p`` of the node count, of the
  mean and of the sum of node output sizes (``node_feat`` column 28, the product of the output
  dimensions in the official featurizer, ``tpu_graphs/process_data/xla/featurizers.h``). The model uses them as
  interactions (config features × aggregates), since alone they cannot change a ranking within a graph.

Every function returns float64 and reads only the keys it needs; layout features read
``node_config_feat`` a block of configurations at a time (:meth:`tpugraphs_kit.data.Graph.iter_rows`).
"""

from __future__ import annotations

import numpy as np

from .data import Graph

LAYOUT_VALUES = np.arange(-1, 6)
"""The values a ``node_config_feat`` entry takes (-1 = no dimension)."""
SIZE_COLUMN = 28
"""``node_feat`` column: product of the output shape's dimensions (official featurizer)."""


def graph_aggregates(graph: Graph) -> np.ndarray:
    """(3,) ``log1p`` of: node count n, mean output size, total output size (``node_feat[:, 28]``)."""
    node_feat = graph["node_feat"]
    sizes = np.maximum(node_feat[:, SIZE_COLUMN].astype(np.float64), 0.0) if node_feat.shape[1] > SIZE_COLUMN \
        else np.zeros(node_feat.shape[0])
    return np.log1p([node_feat.shape[0], sizes.mean() if sizes.size else 0.0, sizes.sum()])


def tile_features(graph: Graph, rows: np.ndarray | None = None) -> np.ndarray:
    """(c, 48) or (len(rows), 48): ``[config_feat, log1p(max(config_feat, 0))]`` of the configs ``rows`` (all)."""
    x = graph["config_feat"].astype(np.float64)
    if rows is not None:
        x = x[rows]
    return np.hstack([x, np.log1p(np.maximum(x, 0.0))])


def layout_features(graph: Graph, rows: np.ndarray | None = None, *, block_rows: int = 512) -> np.ndarray:
    """(c, 126) or (len(rows), 126) layout features of the configs ``rows`` (sorted indices; all when None).

    Reads ``node_config_feat`` ``block_rows`` configurations at a time, so memory stays bounded for
    graphs with 100k configurations.
    """
    parts = []
    for start, block in graph.iter_rows("node_config_feat", block_rows):
        if rows is not None:
            local = rows[(rows >= start) & (rows < start + len(block))] - start
            if not local.size:
                continue
            block = block[local]
        nc = max(block.shape[1], 1)  # (b, nc, 18) → (b, 126): per slot and value, the share of nodes holding it
        parts.append(np.hstack([(block == value).sum(axis=1, dtype=np.float64) / nc for value in LAYOUT_VALUES]))
    return np.vstack(parts) if parts else np.zeros((0, LAYOUT_VALUES.size * 18))


def design(graph: Graph, rows: np.ndarray | None = None) -> np.ndarray:
    """The model's input: config features centred within the graph, then × [1, graph aggregates].

    Returns:
        (k, d × 4) float64, k = c or len(rows), d = 48 (tile) or 126 (layout). Centering within the graph
        (a per-graph intercept) leaves only what can change the ranking of its configurations. A column
        that is constant within the graph is exactly 0 after centering (a floating-point mean would leave
        noise of about 1e-17 there, which the model's feature scaling would amplify).
    """
    x = tile_features(graph, rows) if graph.kind == "tile" else layout_features(graph, rows)
    constant = (x == x[:1]).all(axis=0)
    x = x - x.mean(axis=0, keepdims=True)
    x[:, constant] = 0.0
    g = graph_aggregates(graph)
    return np.hstack([x] + [x * a for a in g])
