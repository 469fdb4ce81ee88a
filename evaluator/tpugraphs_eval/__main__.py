"""``python -m tpugraphs_eval``: the same as the ``tpugraphs-eval`` command."""

from .commands.evaluate import main

main()
