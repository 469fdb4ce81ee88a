"""``python -m tpugraphs_eval``: the same as the ``tpugraphs-eval`` command."""

from .cli import main

main()
