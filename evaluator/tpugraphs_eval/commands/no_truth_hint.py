"""What each ``tpugraphs-eval`` command can do instead when the split has no runtimes (``NO_GROUND_TRUTH``:
the public test files, every ``config_runtime`` 0).

:class:`..errors.NoGroundTruthError` states the fact; the command that met it adds a hint that fits it:
only ``score`` has ``--validate-only``; ``compare`` gets the ``validate`` command for its two files; the
organiser tools (``solution build``, ``export codabench --data-root``) need the labelled files.
"""

from __future__ import annotations

import argparse
import shlex

ORGANISER_HINT = ("A solution needs the split's runtimes: build it from the organisers' labelled {split} files "
                  "(their config_runtime), not from the public ones. Participants check a submission against "
                  "the public files with `tpugraphs-eval validate`.")


def no_truth_hint(args: argparse.Namespace) -> str:
    """The hint of ``NO_GROUND_TRUTH`` for the command ``args`` were parsed for (see the module docstring)."""
    if args.command == "score":
        return "Validation still works: add --validate-only."
    if args.command == "compare":  # `validate` of both files with the validation options of compare's
        words = ["tpugraphs-eval", "validate", str(args.a), str(args.b)]
        for option, value in (("--split", args.split), ("--data-root", args.data_root), ("--solution", args.solution),
                              ("--collections", ",".join(args.collections or []))):
            if value:
                words += [option, str(value)]
        words += [option for option, on in (("--public-only", args.public_only), ("--lenient", args.lenient)) if on]
        return f"compare needs runtimes; validation still works: `{shlex.join(words)}`."
    return ORGANISER_HINT.format(split=args.split)
