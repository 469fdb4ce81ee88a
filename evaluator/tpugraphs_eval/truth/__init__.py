"""The ground truth: where it lives (data root, solution file), what a split holds (graphs and
config counts), and the runtimes the metrics need (docs/data.md)."""
