"""The scores: metric definitions as pure functions (:mod:`.metrics`), per-graph metrics of
tile and layout collections, collection and overall values, random and oracle references (docs/metrics.md)."""
