"""The console entry points' common shell (the evaluator's commands and the kit's): exit codes for every
outcome, and never a traceback for bad input."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from .display import safe
from .errors import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE_OR_DATA, TpuGraphsEvalError, missing_extra


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors (an unknown option, an invalid choice, a missing argument) start
    with a code, as every other error does: ``PROG: error: [USAGE_ERROR] message`` after the usage line, exit
    code 2. Sub-command parsers made with ``add_subparsers`` are of the same class (argparse's ``parser_class``)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE_OR_DATA, f"{self.prog}: error: [USAGE_ERROR] {safe(message)}\n")


def int_at_least(minimum: int, at_most: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``minimum`` and, when given, at most ``at_most`` (else argparse's
    usage error, exit 2)."""

    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more")
        if at_most is not None and value > at_most:
            raise argparse.ArgumentTypeError(f"must be {at_most:,} or less")
        return value

    parse.__name__ = "integer"  # argparse names the type in its messages
    return parse


def error_code(err: BaseException) -> str:
    """The stable code of an error: its ``code`` attribute, else its class name in upper snake case
    (``DataError`` → ``DATA_ERROR``)."""
    return getattr(err, "code", None) or re.sub(r"(?<!^)(?=[A-Z])", "_", type(err).__name__).upper()


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null, so that nothing more (not even the flush at exit) hits the closed pipe."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


@contextmanager
def stop_at_closed_pipe() -> Iterator[None]:
    """Around a command's output to stdout: when the reader goes away (``| head``), stop writing quietly, so
    that the command still returns its own exit code (0 valid, 1 invalid) rather than a pipe's."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()


def os_error_message(err: OSError) -> str:
    """The coded message of an ``OSError`` no command turned into its own error: without a file name it comes
    from writing stdout (a full device, a closed terminal), ``[OUTPUT_WRITE_FAILED]``, and stdout is pointed at
    /dev/null so that the interpreter's exit does not fail on it again; with one, ``[DATA_ERROR]`` naming it."""
    reason = err.strerror or err
    if err.filename is None:
        with suppress(OSError, ValueError):  # no stdout file descriptor (an embedded interpreter, a test capture)
            _stdout_to_devnull()
        return f"[OUTPUT_WRITE_FAILED] cannot write to standard output: {reason}"
    return f"[DATA_ERROR] cannot read or write {safe(str(err.filename))}: {reason}"


def _usable_streams() -> None:
    """A console script's standard streams made safe to write to. A closed one (``>&-``: Python then has None)
    goes to ``os.devnull``, as the output of a reader that went away does (the exit code stands); one whose
    encoding cannot hold every character (``PYTHONIOENCODING=ascii``, a C locale) writes ``?`` for those it
    cannot, instead of the run ending in an encoding error."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # open as long as the process
        elif (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "") != "utf8" \
                and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


def guarded_main(program: str, run: Callable[[list[str]], int], argv: list[str] | None, *,
                 interrupted: str = "interrupted", bugs: tuple[type[BaseException], ...] = ()) -> int:
    """Run ``run(argv)`` and turn whatever it raises into a message on stderr and an exit code: a coded
    ``program: error: [CODE] message`` and 2 for a :class:`TpuGraphsEvalError` (its ``exit_code``), a missing
    extra, an ``OSError`` or a ``MemoryError``; argparse's own code; 130 for Ctrl-C; 0 for a broken pipe (the
    reader went away); 3 with a one-line message for ``bugs`` and any other exception (``TPUGRAPHS_EVAL_DEBUG=1``
    re-raises it). With ``argv`` None (the console script) the standard streams are made safe to write first
    (:func:`_usable_streams`) and the process exits with the code.
    """
    if argv is None:
        _usable_streams()
    try:
        code = run(sys.argv[1:] if argv is None else argv)
        sys.stdout.flush()  # a full or closed stdout fails here, not in the interpreter's exit (exit code 120)
    except BrokenPipeError:
        _stdout_to_devnull()
        code = EXIT_OK
    except SystemExit as exit_:  # argparse: usage errors (2), --help and --version (0)
        code = exit_.code if isinstance(exit_.code, int) else EXIT_USAGE_OR_DATA
    except TpuGraphsEvalError as err:
        message = str(err)
        prefix = "" if message.startswith("[") else f"[{error_code(err)}] "
        print(f"{program}: error: {prefix}{safe(message)}", file=sys.stderr)
        code = err.exit_code
    except KeyboardInterrupt:
        print(f"{program}: {interrupted}", file=sys.stderr)
        code = 130
    except MemoryError:  # a data problem (an input this machine cannot hold), not a bug
        print(f"{program}: error: [OUT_OF_MEMORY] out of memory: the input is larger than this machine can hold "
              "(docs/options.md, size limits); nothing was written", file=sys.stderr)
        code = EXIT_USAGE_OR_DATA
    except ModuleNotFoundError as err:  # an optional dependency (errors.EXTRAS): which extra installs it; else a bug
        if (message := missing_extra(err)) is None and os.environ.get("TPUGRAPHS_EVAL_DEBUG"):
            raise
        print(f"{program}: error: {message}" if message else f"{program}: internal error (ModuleNotFoundError: "
              f"{safe(str(err))}). This is a bug; please report it.", file=sys.stderr)
        code = EXIT_USAGE_OR_DATA if message else EXIT_INTERNAL
    except bugs as err:
        print(f"{program}: internal error: {safe(str(err))}. This is a bug; please report it.", file=sys.stderr)
        code = EXIT_INTERNAL
    except OSError as err:
        print(f"{program}: error: {os_error_message(err)}", file=sys.stderr)
        code = EXIT_USAGE_OR_DATA
    except Exception as err:  # a bug: say so briefly
        if os.environ.get("TPUGRAPHS_EVAL_DEBUG"):
            raise
        print(f"{program}: internal error ({type(err).__name__}: {safe(str(err))}). This is a bug; please report "
              "it with the command and input. Set TPUGRAPHS_EVAL_DEBUG=1 for the traceback.", file=sys.stderr)
        code = EXIT_INTERNAL
    if argv is None:
        sys.exit(code)
    return code
