"""The guard every call into a user's code runs under: a metric, a scenario, the import of their file.

A user's code may end in ways an ``except Exception`` does not catch: ``sys.exit(3)``
(``SystemExit``) ended the whole study with status 3 and no message, and a
``KeyboardInterrupt`` it raised itself stopped the study as if Ctrl-C had been pressed.
Inside :func:`user_code` both become a :class:`UserCodeExit`, an ordinary exception: the
cell fails with it (run, evaluate, validate, axioms, stress), or the file's import is a
one-line usage error naming the file.

A real Ctrl-C or SIGTERM must still stop the run (exit status 130 or 143): while the code
runs in the main thread, the handlers of those two signals are wrapped to note that one
arrived, and a ``KeyboardInterrupt`` that follows a noted signal is passed on unchanged.
Signals are only ever handled in the main thread, so a ``KeyboardInterrupt`` in any other
thread (a Dask or threading worker) was raised by the code itself.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: The signals that stop a run (:mod:`harness.cli`: Ctrl-C, and SIGTERM raised as a KeyboardInterrupt).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class UserCodeExit(Exception):
    """A user's code called ``sys.exit`` or raised ``KeyboardInterrupt`` itself (no stop signal arrived)."""


@contextmanager
def user_code(what: str) -> Iterator[None]:
    """Run a user's code; its ``SystemExit`` and its own ``KeyboardInterrupt`` become a :class:`UserCodeExit`.

    Parameters
    ----------
    what : str
        The code, as the message names it: ``metric 'mine'``, ``scenario 'leaky'``, ``metric file 'm.py'``.

    Raises
    ------
    UserCodeExit
        "metric 'mine' called sys.exit(3) (...)" or "metric 'mine' raised KeyboardInterrupt itself (...)".
    KeyboardInterrupt
        Unchanged, when Ctrl-C or SIGTERM arrived while the code ran (the run stops as it should).
    """
    with _noting_stop_signals() as arrived:
        try:
            yield
        except SystemExit as stop:
            raise UserCodeExit(f"{what} called sys.exit({stop.code!r}) (code the harness runs must not end the "
                               "process: raise an exception instead)") from None
        except KeyboardInterrupt:
            if arrived:
                raise
            raise UserCodeExit(f"{what} raised KeyboardInterrupt itself (no Ctrl-C or SIGTERM arrived)") from None


@contextmanager
def _noting_stop_signals() -> Iterator[list[int]]:
    """While the block runs, each Python handler of :data:`STOP_SIGNALS` first notes its signal in the list yielded.

    Handlers that are not Python functions (``SIG_IGN``, ``SIG_DFL``) raise nothing and are left alone; so is every
    handler outside the main thread, where Python neither runs nor installs them.
    """
    arrived: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield arrived
        return
    wrapped: dict[int, Any] = {}
    for number in STOP_SIGNALS:
        handler = signal.getsignal(number)
        if callable(handler):
            wrapped[number] = signal.signal(number, _noting(handler, arrived))
    try:
        yield arrived
    finally:
        for number, handler in wrapped.items():
            signal.signal(number, handler)


def _noting(handler: Callable[[int, Any], Any], arrived: list[int]) -> Callable[[int, Any], Any]:
    def note(number: int, frame: Any) -> Any:
        arrived.append(number)
        return handler(number, frame)

    return note
