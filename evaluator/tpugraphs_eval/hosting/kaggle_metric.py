"""The metric in Kaggle's convention, ``score(solution, submission, row_id_column_name) -> float``, and the solution
table it reads.

``score`` and :class:`ParticipantVisibleError` are :mod:`.standalone_metric`'s (one implementation: the function
``tpugraphs-eval export kaggle-metric`` writes into a file that does not import this package); the columns of the
solution table (:func:`solution_frame` makes it) are in that module's docstring.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..truth.solution import read_solution
from .standalone_metric import ParticipantVisibleError, score  # noqa: F401 (re-exported: the one implementation)

if TYPE_CHECKING:
    import pandas as pd


def solution_frame(solution_file: Path, row_id_column_name: str = "ID") -> pd.DataFrame:
    """The solution table (with ``Usage``) of a solution file (``tpugraphs-eval solution build``), to upload.

    Raises:
        DataError: ``solution_file`` is not a solution file.
    """
    import pandas as pd

    _, read, public = read_solution(solution_file)
    rows = []
    for collection, graphs in read.items():
        for (name, arrays), is_public in zip(graphs, public[collection.name].tolist(), strict=True):
            rows.append({row_id_column_name: f"{collection.name}:{name}",
                         "runtimes": ";".join(map(str, arrays.runtime.tolist())),
                         "normalizers": "" if arrays.normalizer is None else ";".join(map(str, arrays.normalizer.tolist())),
                         "Usage": "Public" if is_public else "Private"})
    return pd.DataFrame(rows)
