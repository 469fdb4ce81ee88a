"""``python -m tpugraphs_kit COMMAND [ARGS]``: the kit's commands without their console scripts.

``baseline ...`` is ``tpugraphs-baseline ...``, ``data ...`` is ``tpugraphs-data ...``, and ``notebooks`` prints
the folder of the starter notebooks shipped with the package (``cp -r "$(python -m tpugraphs_kit notebooks)"
my-notebooks``). Exit codes: those of the command; 2 for an unknown one (``USAGE_ERROR``).
"""

from __future__ import annotations

import importlib.resources
import sys

USAGE = "usage: python -m tpugraphs_kit {baseline,data,notebooks} [ARGS]"


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv[0]`` (default: ``sys.argv[1:]``) with the rest of ``argv``; its exit code."""
    args = sys.argv[1:] if argv is None else argv
    command, rest = (args[0], args[1:]) if args else ("", [])
    if command == "baseline":
        from .cli_baseline import main as run
    elif command == "data":
        from .cli_data import main as run
    elif command == "notebooks" and not rest:
        print(importlib.resources.files("tpugraphs_kit.notebooks"))
        return 0
    elif command in ("-h", "--help"):
        print(f"{USAGE}\n\n{__doc__.split(chr(10) + chr(10))[1]}")
        return 0
    else:
        print(f"{USAGE}\npython -m tpugraphs_kit: error: [USAGE_ERROR] unknown command {command!r}", file=sys.stderr)
        return 2
    return run(rest)


if __name__ == "__main__":
    sys.exit(main())
