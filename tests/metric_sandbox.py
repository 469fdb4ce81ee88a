"""The start of every subprocess driver that runs the exported Kaggle metric file (tests/hosting/test_export_kaggle_metric.py,
tests/hosting/test_kaggle_split_free.py): tpugraphs_eval and tpugraphs_kit are made unimportable, then the file
given as argv[1] is loaded as ``metric`` and pandas as ``pd``; the driver appended after it scores its cases."""

LOAD_EXPORTED_METRIC = r"""
import importlib.abc, importlib.util, json, math, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tpugraphs_eval", "tpugraphs_kit"):
            raise ImportError(f"{name} is blocked: the metric file must be self-contained")
        return None

sys.meta_path.insert(0, Block())
try:
    import tpugraphs_eval  # noqa: F401
    sys.exit("tpugraphs_eval is importable in the sandbox")
except ImportError:
    pass
import pandas as pd
spec = importlib.util.spec_from_file_location("metric", sys.argv[1])
metric = importlib.util.module_from_spec(spec)
spec.loader.exec_module(metric)
"""
