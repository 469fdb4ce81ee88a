"""The options that change a number, recorded in every report (docs/metrics.md, overall)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .dataset import TILE_TOP_K
from .defaults import CONFIG_PROTOCOLS, TILE_RUNTIMES, ConfigProtocol, TileRuntime
from .errors import UsageError
from .rules.metric_table import ks
from .submission.problems import MODES, Mode


@dataclass(frozen=True)
class Options:
    """How a submission is validated and scored.

    Attributes:
        mode: ``strict`` (default) or ``lenient`` (Kaggle-compatible), docs/codes.md.
        tile_runtime: ``normalized`` (runtime / normalizer, default) or ``raw``, docs/metrics.md **Decision**.
        configs: ``all`` configs of each layout graph (Kaggle test protocol, default) or the
            ``official`` 1000 sampled validation configs (paper protocol, valid split only).
    """

    mode: Mode = "strict"
    tile_runtime: TileRuntime = "normalized"
    configs: ConfigProtocol = "all"

    def __post_init__(self) -> None:
        for name, value, allowed in (("mode", self.mode, MODES), ("tile_runtime", self.tile_runtime, TILE_RUNTIMES),
                                     ("configs", self.configs, CONFIG_PROTOCOLS)):
            if value not in allowed:
                raise UsageError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")

    def to_dict(self) -> dict[str, object]:
        """Every option plus the fixed K values (:data:`..rules.metric_table.METRICS`), for the JSON report."""
        return {**asdict(self), "tile_score_k": TILE_TOP_K, "top_k_errors": list(ks("top_k_error")),
                "slowdown_ks": list(ks("slowdown")), "kendall_tau_variant": "b"}
