"""The starter notebooks, shipped as package data of ``tpugraphs_kit.notebooks`` (``python -m tpugraphs_kit notebooks
DIR`` copies them out of an installed wheel; docs/kit.md)."""
