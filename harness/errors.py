"""Errors about what a user typed or supplied, as distinct from bugs.

The command line turns a :class:`UsageError` (and a missing or unreadable file the user
named) into one line and exit status 2; anything else is a bug and keeps its traceback
(exit status 1).  Both classes derive from the built-in exceptions that callers of the
Python API already catch (``ValueError``; ``KeyError`` for unknown names).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any


def did_you_mean(names: Iterable[str], known: Iterable[str]) -> str:
    """`` (did you mean X or Y?)``: the names of ``known`` closest to any of ``names`` (closest first), or "" when none is close."""
    known = sorted(known)
    by_lower = {}  # compared in lower case: "MIG" had nothing close to "mig"
    for name in known:
        by_lower.setdefault(name.lower(), name)
    close = dict.fromkeys(by_lower[match] for name in names
                          for match in difflib.get_close_matches(name.lower(), list(by_lower), n=3, cutoff=0.6))
    return f" (did you mean {' or '.join(close)}?)" if close else ""


class UsageError(ValueError):
    """A problem with the user's input (a bad option value, file or name), not a bug."""


class UnknownNameError(UsageError, KeyError):
    """A name (metric, scenario, preset, ...) that is not registered; the message suggests the closest ones."""

    def __init__(self, kind: str, name: str, known: Iterable[str]) -> None:
        known = sorted(known)
        super().__init__(f"unknown {kind} {name!r}{did_you_mean([name], known)}; known {kind}s: {', '.join(known)}")
        self.kind, self.name = kind, name

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def check_one_source_per_name(kind: str, named: Iterable[tuple[str, str]], *,
                              advice: str = "give one of them another name") -> None:
    """Refuse two sources under one name, in one line naming both: results are keyed by name, so two metrics (or
    scenarios) of one name would mix their rows (averaged as if they were seeds of one).

    Parameters
    ----------
    kind : str
        ``"metric"`` or ``"scenario"``.
    named : iterable of (name, source)
        Each item's name and where it comes from (a reference as the user wrote it), in the order given.
    advice : str
        What the user should do, ending the message.

    Raises
    ------
    UsageError
        For a source listed twice, or two sources of one name.
    """
    first: dict[str, str] = {}
    for name, source in named:
        if name not in first:
            first[name] = source
            continue
        earlier = first[name]
        raise UsageError(f"{kind} {source!r} is listed twice" if earlier == source else
                         f"{kind}s {earlier!r} and {source!r} are both named {name!r}, so their results would mix; {advice}")


def listed(given: Any, argument: str, noun: str = "values") -> list[Any]:
    """``given`` as a list, when it is a sequence (a tuple, a list, an array); a lone string or number is a
    :class:`UsageError` saying how to write it (``set("mig")`` would read the metrics 'm', 'i' and 'g')."""
    import numpy as np  # imported here: the command line's start imports this module and must stay light

    if isinstance(given, (str, bytes)) or not isinstance(given, (Sequence, np.ndarray)):
        split = [part.strip() for part in given.split(",")] if isinstance(given, str) and "," in given else [given]
        raise UsageError(f"{argument} must be a list of {noun}, got {given!r}; write {split!r}")  # not ['mig,sap']
    return list(given)


def listed_names(given: Any, argument: str) -> list[str] | None:
    """``given`` (None or a list of names or references) as a list of text, or a UsageError naming ``argument``: a
    function among them is told to go in a file (``'file.py:function'``), rather than failing deep inside the name
    resolution ("argument of type 'function' is not iterable")."""
    names = None if given is None else listed(given, argument, "names")
    for name in names or ():
        if not isinstance(name, str):
            raise UsageError(f"{argument} holds names or 'module:name' / 'file.py:name' references (text), got {name!r}"
                             + ("; put the function in a file and pass 'file.py:function'" if callable(name) else ""))
    return names
