"""The bundled SYNTHETIC demo: a small data root in the official layout made by code, and a demo
leaderboard built from it (no real TpuGraphs numbers)."""
