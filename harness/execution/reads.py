"""What a metric or a scenario read while it ran: the modules it imported and the files it opened, recorded as it
reads them.

:mod:`harness.execution.provenance` finds the code a cell runs by reading its source's import statements; what the
code reaches only at run time escapes it: a helper loaded with ``importlib.import_module("labhelp")``, a
``weights.json`` opened at call time.  So the worker that runs a cell records (:func:`harness.execution.read_audit.recording`), while the metric (its
file's import included) and the scenario run:

* the **files opened for reading**, from Python's audit hooks (PEP 578: :func:`sys.addaudithook`, the ``open``
  event of :func:`open`, :func:`io.open_code` and :func:`os.open`), leaving out code (``.py``, ``.pyc``, extension
  modules: the modules record them), files opened for writing and the kernel's ``/proc``, ``/sys`` and ``/dev``;
* the **modules imported**, as the names that entered :data:`sys.modules` meanwhile (``importlib.import_module``
  raises no ``import`` audit event, and ``__import__`` statements inside a function would be missed once cached),
  a library's named by its top-level package.

What a worker records for a reference (``labmetric.py:score``, ``noise``) accumulates over the process: a module is
imported and a file cached once per process, and every later cell of the reference carries what the first one
read.  The record reaches the store with the cell (:func:`harness.execution.store.record_of`), which keeps the
recorded names (:class:`Reads`) and, in ``DIR/provenance.json``, what they held (:func:`reads_provenance`): the
content hashes of the files and of the modules' source with the source it imports, and the libraries' versions,
less what the cell's key already covers.  Before reusing a stored cell, a run hashes the recorded files again
(:meth:`harness.execution.store.ResultStore.reusable_records`).

Environment variables cannot be audited: a metric declares those it reads (``describe_metric(env=...)``), and their
values are part of its provenance (:func:`harness.execution.provenance.metric_provenance`).
"""

from __future__ import annotations

import functools
import hashlib
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from harness.execution import provenance
from harness.execution.provenance import PROJECT_ROOT, Provenance, union
from harness.execution.read_audit import RECORDED

#: The hash of a recorded file that is gone.
MISSING = "missing"


@dataclass(frozen=True)
class Reads:
    """The names of what a cell read beyond its static imports: ``modules`` (imported at run time) and ``paths``
    (absolute paths of the data files it opened for reading), each sorted."""

    modules: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.modules or self.paths)

    def __or__(self, other: Reads) -> Reads:
        return Reads(tuple(sorted({*self.modules, *other.modules})), tuple(sorted({*self.paths, *other.paths})))

    def to_json(self) -> dict[str, list[str]]:
        """``{"modules": [...], "paths": [...]}``."""
        return {"modules": list(self.modules), "paths": list(self.paths)}

    @classmethod
    def from_json(cls, data: Any) -> Reads | None:
        """The reads :meth:`to_json` wrote, or None for anything else (a damaged record)."""
        if not isinstance(data, Mapping):
            return None
        parts = [data.get("modules"), data.get("paths")]
        if not all(isinstance(part, list) and all(isinstance(name, str) for name in part) for part in parts):
            return None
        return cls(tuple(parts[0]), tuple(parts[1]))


#: A cell that read nothing beyond its imports.
NOTHING_READ = Reads()

def recorded(*references: str) -> Reads:
    """What this process recorded for each of ``references``, together."""
    modules: set[str] = set()
    paths: set[str] = set()
    for reference in references:
        found = RECORDED.get(reference)
        if found is not None:
            modules |= found[0]
            paths |= found[1]
    return Reads(tuple(sorted(_module_names(modules))), tuple(sorted(paths)))


def reference_parts(reference: str) -> tuple[str, ...]:
    """The recording names of a metric's or scenario's reference: itself and, for ``module:name`` or
    ``file.py:name``, its module part (recorded as it is loaded, :func:`harness.execution.metric_refs.load_attribute`)."""
    module_part = reference.rpartition(":")[0]
    return (reference, module_part) if module_part else (reference,)


def _module_names(imported: Iterable[str]) -> set[str]:
    """Imported module names as recorded: a library's by its top-level package, the rest by their own, each by the
    name its spec gives it (:func:`_imported_as`)."""
    names = set()
    for key in imported:
        name = _imported_as(key)
        if name is None:
            continue
        found = provenance.classified(name)
        if found is None:
            continue
        names.add(name.partition(".")[0] if found[0] == "libraries" else name)
    return names


def _imported_as(key: str) -> str | None:
    """The name of the module entered in :data:`sys.modules` under ``key``, as its spec gives it; None for a module
    without one.

    A compiled extension may enter itself under a bare name besides its own: importing ``scipy.stats`` enters
    ``scipy.ndimage._ni_label`` as ``_ni_label`` too, a name no other process can import, so that recording it made a
    later run find it "not installed" and compute the cell again.  A module without a spec is made at run time by
    compiled code (Cython's ``cython_runtime``), no source or library of its own: nothing to record.
    """
    module = sys.modules.get(key)
    if module is None:
        return key  # gone again: recorded as imported
    return getattr(getattr(module, "__spec__", None), "name", None)


# --------------------------------------------------------------------------- what the reads held, where they are stored


@functools.cache
def _root_provenance(kind: str, name: str) -> Provenance:
    """What one recorded module (its source and what it imports, or its library's version) or data file (its content
    hash, or its library's version for a file of an installed library) holds now (once per process)."""
    if kind == "module":
        return provenance.module_provenance(name)
    library = provenance.library_of(Path(name))
    if library is not None:
        return Provenance(MappingProxyType({}), MappingProxyType(library))
    try:
        digest = hashlib.sha256(Path(name).read_bytes()).hexdigest()[:16]
    except OSError:
        digest = MISSING
    return Provenance(MappingProxyType({data_label(name): digest}), MappingProxyType({}))


def data_label(path: str) -> str:
    """A data file's label in a provenance: its path within the project (``metrics/data/x.json``), else its absolute
    path (shown relative to the working directory, :func:`harness.execution.provenance.shown`)."""
    resolved = Path(path)
    return resolved.relative_to(PROJECT_ROOT).as_posix() if resolved.is_relative_to(PROJECT_ROOT) else path


def reads_provenance(reads: Reads, covered: Provenance) -> tuple[Reads, Provenance]:
    """The recorded names that add something to ``covered`` (the provenance a cell's key holds), and what they hold
    beyond it: every file and library whose hash or version ``covered`` does not already hold."""
    kept_modules, kept_paths, parts = [], [], []
    for kind, names, kept in (("module", reads.modules, kept_modules), ("file", reads.paths, kept_paths)):
        for name in names:
            beyond = _beyond(_root_provenance(kind, name), covered)
            if beyond.files or beyond.libraries:
                kept.append(name)
                parts.append(beyond)
    return Reads(tuple(kept_modules), tuple(kept_paths)), union(*parts)


def _beyond(found: Provenance, covered: Provenance) -> Provenance:
    files = {label: digest for label, digest in found.files.items() if covered.files.get(label) != digest}
    libraries = {name: version for name, version in found.libraries.items() if covered.libraries.get(name) != version}
    return Provenance(MappingProxyType(files), MappingProxyType(libraries))
