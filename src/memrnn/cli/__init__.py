"""The ``memrnn`` command line: the only package that parses arguments or prints for
people. ``main`` runs a command and turns every error a person can cause into one line
and exit status 2."""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import warnings
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext

from memrnn.cli.parser import build_parser
from memrnn.errors import UserError, one_line_warning

__all__ = ["build_parser", "main"]


def _on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds like Ctrl-C: runs marked interrupted, pool ended


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` (default: ``sys.argv``) and return its exit status: 0 done,
    1 some run failed, 2 a mistake in what was asked for or a damaged file (one line on
    stderr, the traceback with --debug), 130 interrupted."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    seeds = getattr(args, "seeds", None)
    if seeds is not None and len(set(seeds)) < len(seeds):
        parser.error(f"--seeds: a seed is given twice in {' '.join(map(str, seeds))}")
    warnings.formatwarning = one_line_warning
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        with _seed_set(seeds):
            code: int = args.handler(args)
        sys.stdout.flush()  # here, where a closed pipe can still be caught
    except (UserError, ValueError, TypeError, OSError, sqlite3.Error, ArithmeticError,
            MemoryError, RuntimeError) as error:  # fmt: skip
        if args.debug or (isinstance(error, RuntimeError) and not _out_of_memory(error)):
            raise
        if isinstance(error, BrokenPipeError):  # `memrnn list --json | head`
            return _quiet_broken_pipe()
        print(f"memrnn: error: {_one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        again = (
            "the same command with --resume continues"
            if hasattr(args, "resume")
            else "the same command again runs what is missing"
        )
        print(f"memrnn: interrupted; finished runs are stored, {again}", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    return code


def _seed_set(seeds: Sequence[int] | None) -> AbstractContextManager[None]:
    """The runs' seeds replaced by ``--seeds``, where it is given."""
    if seeds is None:
        return nullcontext()
    from memrnn.experiments.grid import other_seeds

    return other_seeds(seeds)


def _out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is an allocation that failed (torch raises a RuntimeError)."""
    text = str(error)
    return isinstance(error, MemoryError) or "allocate" in text or "out of memory" in text


def _one_line(error: BaseException) -> str:
    """The error as a person reads it: its own words for ours, the kind and words for the
    rest (an OSError names its file)."""
    if isinstance(error, UserError):
        return str(error)
    text = " ".join(str(error).split()) or "no message"
    if _out_of_memory(error):
        text = (f"out of memory ({text[:200]}); a size in --option or --set (hidden_size, "
                "batch_size, ...) is likely too large")  # fmt: skip
    return f"{type(error).__name__}: {text} (--debug shows where)"


def _quiet_broken_pipe() -> int:
    """The reader of our output went away: stop without a second error when Python
    flushes stdout at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 141  # 128 + SIGPIPE, as the shell reports a command its pipe ended
