"""``python -m tpugraphs_eval``: the same as the ``tpugraphs-eval`` command."""

from .commands.launch import evaluate

evaluate()
