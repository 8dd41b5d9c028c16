"""The command line: ``python -m harness COMMAND``.

One module per command (``run``, ``list`` in ``listing``, ``report``, ``validate``, ``baseline``,
``evaluate``, ``plot``, ``estimators``, ``stress``), each with an ``add_command(commands)`` that
registers its parser; the shared parser class and argument types are in
:mod:`harness.cli._args`.  No command module imports another.

Errors: a problem with what the user typed, supplied or installed (a :class:`~harness.errors.UsageError`,
an unknown name, a missing or unreadable file, a library the harness needs that is not installed) prints one line
and exits with status 2.  Anything else is a bug: its traceback is printed and the exit status is 1.  ``--debug``
(or ``HARNESS_DEBUG=1`` in the environment) prints the traceback of usage errors too.
Ctrl-C, and SIGTERM, stop a command in one line (exit status 130, 143), its workers with it; the line says that
finished cells are saved only for a command that saves them (:data:`RESUMABLE_COMMANDS`).
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from harness.cli import baseline, estimators, evaluate, listing, plot, report, run, stress, validate
from harness.cli._args import Parser
from harness.errors import UsageError

EXIT_USAGE = 2
EXIT_BUG = 1
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM
#: A command whose output's reader left (``| head``) before the command could say how it ended: what a shell reports
#: for a process killed by SIGPIPE, never 0 (a gate read through a pipe must not pass on an unknown outcome).
EXIT_BROKEN_PIPE = 128 + 13
DEBUG_ENVIRONMENT_VARIABLE = "HARNESS_DEBUG"

COMMANDS = (run, listing, report, validate, baseline, evaluate, plot, estimators, stress)
"""The command modules, in the order ``--help`` lists them."""

RESUMABLE_COMMANDS = frozenset({"run", "validate", "stress", "estimators"})
"""The commands that store each finished cell as it finishes, so that rerunning one resumes where it stopped; the
others (``evaluate``, ``report``, ``plot``, ``baseline``, ``list``) keep nothing of an interrupted command."""

#: The project's own top-level packages: a module of theirs that cannot be imported is a bug, not an installation.
PROJECT_PACKAGES = frozenset({"harness", "metrics", "reports", "scenarios"})

_USER_FILE_ERRORS = (FileNotFoundError, FileExistsError, PermissionError, IsADirectoryError, NotADirectoryError)
"""A path the user named that cannot be read or written (``FileExistsError``: an output under a plain file)."""


def build_parser() -> Parser:
    """The argument parser of every command."""
    parser = Parser(
        prog="python -m harness",
        description="A benchmark harness for disentanglement metrics: scenarios with exactly known properties, "
        "every metric, and reports of calibration, linearity, robustness and cost.",
    )
    parser.add_argument("--version", action="version", version=_version(),
                        help="print the harness's version (the one every results row records) and exit")
    parser.add_argument(
        "--debug", action="store_true",
        help=f"print the traceback of usage errors too (also: {DEBUG_ENVIRONMENT_VARIABLE}=1)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    for command in COMMANDS:
        command.add_command(commands)
    for command_parser in commands.choices.values():  # so that a command's stray arguments are its parser's error
        command_parser.set_defaults(command_parser=command_parser)
    return parser


def _version() -> str:
    from harness.version import __version__

    return f"%(prog)s {__version__}"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that a command stops as on Ctrl-C (workers stopped, finished cells kept)."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated


@contextmanager
def _sigterm_stops_like_ctrl_c() -> Iterator[None]:
    """While a command runs, SIGTERM (``kill PID``, ``timeout``, a batch system's time limit) unwinds it as Ctrl-C does.

    Left to Python's default, SIGTERM ended the run process at once and its local worker processes (loky's) ran on,
    orphaned, for minutes.  Only the main thread can install a handler; elsewhere nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _LeavingReaderStdout:
    """``sys.stdout`` while a command runs: writes go to the real stream until its reader leaves (``| head`` read what
    it wanted and closed the pipe), then nowhere, and the command goes on to its own end and exit status.  Stopping at
    the first write that failed (as Python does, and this module did until 2026-12-01, with status 0) made a failing
    ``baseline check ... | head`` or ``validate --fail-on ... | tee`` whose reader left early exit 0, and stopped a
    run midway."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.left = False

    def write(self, text: str) -> int:
        if not self.left:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._leave()
        return len(text)

    def flush(self) -> None:
        if not self.left:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._leave()

    def _leave(self) -> None:
        self.left = True
        _discard_stdout(self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _discard_stdout(stream: Any = None) -> None:
    """Point the standard output's file descriptor at the null device, so that the interpreter's last flush of what
    is still buffered for the departed reader does not fail again (Python's documented remedy for SIGPIPE)."""
    stream = sys.stdout if stream is None else stream
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture): nothing will flush to it
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)


@contextmanager
def _reader_may_leave() -> Iterator[None]:
    """Run a command with :class:`_LeavingReaderStdout` as ``sys.stdout``."""
    real = sys.stdout
    sys.stdout = _LeavingReaderStdout(real)
    try:
        yield
    finally:
        sys.stdout = real


#: A value that starts with a minus sign and a number: ``-1,1``, ``-0.5``, ``-1e-3,2``.
_NEGATIVE_VALUE = re.compile(r"-\.?\d[\d.eE+-]*(,[-+]?\.?\d[\d.eE+-]*)*")


def _negative_values_attached(arguments: list[str]) -> list[str]:
    """``--option -1,1`` as ``--option=-1,1``: argparse reads a value starting with ``-`` as an option unless it is a
    lone number, so ``--score-range -1,1`` failed with "expected one argument"."""
    attached: list[str] = []
    for argument in arguments:
        previous = attached[-1] if attached else ""
        if _NEGATIVE_VALUE.fullmatch(argument) and previous.startswith("--") and "=" not in previous:
            attached[-1] = f"{previous}={argument}"
        else:
            attached.append(argument)
    return attached


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    arguments = _negative_values_attached(list(sys.argv[1:] if argv is None else argv))
    debug = "--debug" in arguments or os.environ.get(DEBUG_ENVIRONMENT_VARIABLE, "") not in ("", "0")
    command = ""
    try:
        args, stray = build_parser().parse_known_args(arguments)
        command = args.command
        if stray:  # named with the command, whose --help lists what it takes (argparse names the top level)
            args.command_parser.error(f"unrecognized arguments: {' '.join(stray)}")
        with _sigterm_stops_like_ctrl_c(), _reader_may_leave():
            return args.handler(args)
    except (UsageError, *_USER_FILE_ERRORS) as error:
        if debug:
            traceback.print_exc()
        print(f"error: {' '.join(str(error).split())}", file=sys.stderr)  # always one line
        return EXIT_USAGE
    except BrokenPipeError:  # a write that went round :func:`_reader_may_leave`: how the command ended is unknown
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt as stop:
        kept = ("finished cells are saved, rerun the same command to resume" if command in RESUMABLE_COMMANDS else
                f"{command or 'the command'} stopped before it finished, rerun the same command")
        print(f"{'terminated' if isinstance(stop, Terminated) else 'interrupted'}; {kept}", file=sys.stderr)
        return EXIT_TERMINATED if isinstance(stop, Terminated) else EXIT_INTERRUPTED
    except Exception as error:  # a bug, not the user's input (unless a library is missing): keep the evidence
        missing = missing_library(error)
        if missing is not None:
            if debug:
                traceback.print_exc()
            print(f"error: {missing}", file=sys.stderr)
            return EXIT_USAGE
        traceback.print_exc()
        print("error: an internal error occurred (traceback above); please report it", file=sys.stderr)
        return EXIT_BUG


def missing_library(error: BaseException) -> str | None:
    """The one-line message for ``error`` when it is a library the harness needs that is not installed (run from a
    checkout without ``pip install -e .``, or from another Python), or None: a module of the project's own that cannot
    be imported (:data:`PROJECT_PACKAGES`) is a bug."""
    if not isinstance(error, ModuleNotFoundError) or not error.name:
        return None
    library = error.name.partition(".")[0]
    if library in PROJECT_PACKAGES:
        return None
    return (f"the Python package {library!r} is not installed in this environment ({sys.executable}): install the "
            "harness with its dependencies, `pip install -e .` in the repository (README.md, Quick start); with --debug, "
            "where it was imported")
