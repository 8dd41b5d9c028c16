"""Recording what a metric or a scenario reads while it runs, in the worker: the files it opens for reading (an
audit hook, :func:`sys.addaudithook`) and the modules that enter :data:`sys.modules` meanwhile.

This module holds the recording only, and imports nothing of the harness, so that loading a user's code
(:func:`harness.execution.metric_refs.load_attribute`) can be recorded without an import cycle; what the records
mean, and what the files and modules they name hold, is :mod:`harness.execution.reads`.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: Files never recorded: the kernel's views of the process and the devices.
SYSTEM_PREFIXES = ("/proc/", "/sys/", "/dev/")
#: Suffixes of code files: what importing a module reads, recorded as the module instead.
CODE_SUFFIXES = frozenset((*importlib.machinery.all_suffixes(), ".pyc"))

#: Reference -> (the modules imported, the data files opened) this process recorded for it.
RECORDED: dict[str, tuple[set[str], set[str]]] = {}
_local = threading.local()  # .opened: the paths set of the recording running on this thread, or None
_hook_lock = threading.Lock()
_hooked = False


def _audit(event: str, arguments: tuple[Any, ...]) -> None:
    """The audit hook: note a file opened for reading while a recording runs on this thread."""
    if event != "open":
        return
    opened = getattr(_local, "opened", None)
    if opened is None:
        return
    path, mode, flags = arguments
    if isinstance(path, int) or (mode is not None and any(char in mode for char in "wax+")):
        return
    if mode is None and flags & (os.O_WRONLY | os.O_RDWR):
        return
    opened.add(os.path.abspath(os.fsdecode(path)))


def _install() -> None:
    """Add the audit hook, once per process (a hook cannot be removed; it does nothing while nothing records)."""
    global _hooked
    with _hook_lock:
        if not _hooked:
            sys.addaudithook(_audit)
            _hooked = True


@contextmanager
def recording(reference: str) -> Iterator[None]:
    """Record what the block reads into what this process recorded for ``reference`` (a metric's or scenario's
    reference, or the module part of one being loaded).  Nested recordings each keep what their own block read."""
    _install()
    modules, paths = RECORDED.setdefault(reference, (set(), set()))
    outer = getattr(_local, "opened", None)
    before = set(sys.modules)
    opened: set[str] = set()
    _local.opened = opened
    try:
        yield
    finally:
        _local.opened = outer
        if outer is not None:
            outer.update(opened)
        modules.update(set(sys.modules) - before)  # as imported: classified when read (harness.execution.reads)
        paths.update(path for path in opened if _is_data(path))


#: Folders of installation metadata (a package's ``entry_points.txt``, ``METADATA``): what scikit-learn reads on its
#: first call, wherever the package is installed (an editable install keeps its ``.egg-info`` in the checkout).
METADATA_SUFFIXES = (".egg-info", ".dist-info")


def _is_data(path: str) -> bool:
    """Whether an opened path is a data file to record (not code, installation metadata, a system view, a folder or
    gone)."""
    if path.startswith(SYSTEM_PREFIXES) or "__pycache__" in path or Path(path).suffix in CODE_SUFFIXES:
        return False
    if any(part.endswith(METADATA_SUFFIXES) for part in Path(path).parent.parts):
        return False
    return os.path.isfile(path)
