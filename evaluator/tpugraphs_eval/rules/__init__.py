"""The submission and public-view rules, written once: standard library and numpy only (Python >= 3.9), importing
nothing else of the package, so that the Codabench scoring program and the exported Kaggle metric carry these
files unchanged and run them where the package is not installed."""
