"""The measured costs' data file: the measuring tool's runs, each with its date, machine, settings and rows.

``costs_measured.json``, beside this module and shipped with the package, holds for each table of
:data:`TABLES` the runs of :mod:`harness.execution.cost_measurement` that wrote it, oldest first, as
pytest-benchmark stores its runs: when (``datetime``), on what machine (``machine``), how (``settings``), a
``note`` where a run needs one, and its ``rows``.  A table is the union of its runs' rows, a later run's row
replacing an earlier one's (:func:`read`); writing a run (:func:`add_run`) drops the earlier runs whose every row it
replaces.  The cost model (:mod:`harness.execution.costs`) reads the tables; nothing edits the file by hand.

Rows, by table:

- ``seconds`` and ``alone_seconds``: metric or variant name -> {sample size: median CPU seconds per call}.  Their runs
  record ``settings["reference_seconds"]``, what a fixed workload (:mod:`harness.execution.reference_workload`) took
  during the run; :func:`read` scales each run's rows to the reference of the latest ``seconds`` run that records one
  (:attr:`MeasuredCosts.reference_seconds`), so that rows measured on other days or machines read as if measured in
  that run (a run without a reference is read as is).  A
  ``seconds`` run also lists ``after_sibling`` (its variant rows measured after another variant of their metric on
  the same draw, which hold only what they add to it) and ``like_their_metric`` (variants it measured within the
  tool's tolerance of their metric's cost, left without a row of their own).
- ``width_factors``: name -> {number of codes: cost relative to the first}, at the sample size of the run's
  ``settings["n_samples"]``; the table holds each name's row at each measured sample size.
- ``wide_codes``: name -> {number of codes: one call on ``settings["n_factors"]`` factors at ``settings["n_samples"]``
  samples (the wide-code measurement, issue 42), as ``cpu_seconds`` (absent where the call exceeded its time),
  ``peak_bytes`` (what the call allocated above its inputs; for a stopped call, what it held when stopped, a lower
  bound) and ``exceeded`` (``"time"`` or ``"memory"``, absent within the limits of the run's settings)}; keyed, as
  ``width_factors``, by name and sample size.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import os
import platform
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.outputs import atomic_write

#: The tables of the file, each written by one mode of the measuring tool.
TABLES = ("seconds", "alone_seconds", "width_factors", "wide_codes")

#: The tables whose rows are keyed by name and the run's sample size (``settings["n_samples"]``).
BY_SAMPLE_SIZE = ("width_factors", "wide_codes")

#: The data file the cost model reads and the measuring tool writes.
DATA_FILE = Path(__file__).with_name("costs_measured.json")

#: Address space a wide call may take beyond its inputs and its memory limit (shared libraries mapped by a lazy import,
#: thread stacks; :func:`harness.execution.cost_measurement.wide.wide_call`): past it an allocation fails with
#: ``MemoryError``.  A call stopped so tried to take more than its limit and this: the least it needs
#: (:attr:`WideCall.needed_bytes`).
WIDE_ADDRESS_SLACK = 2**30

#: The setting in which a ``seconds`` or ``alone_seconds`` run records what the fixed workload took during it
#: (:func:`harness.execution.reference_workload.reference_seconds`).
REFERENCE_SETTING = "reference_seconds"

#: Libraries whose versions a run records: a metric call's cost follows theirs.
LIBRARIES = ("numpy", "scipy", "scikit-learn")

Row = Mapping[int, float]


@dataclass(frozen=True)
class WideCall:
    """One measured call of the ``wide_codes`` table.

    Attributes
    ----------
    n_factors : int
        Factors of the draw it ran on.
    cpu_seconds : float or None
        CPU seconds of the call; None where it exceeded its time.
    peak_bytes : float or None
        What the call allocated above its inputs (a lower bound where it was stopped); None where unknown.
    exceeded : str
        ``"time"`` or ``"memory"``: the limit that stopped it (the run's ``cpu_limit_seconds``,
        ``memory_limit_bytes``); ``""`` within both.
    cpu_limit_seconds, memory_limit_bytes : float
        The run's limits.
    """

    n_factors: int
    cpu_seconds: float | None
    peak_bytes: float | None
    exceeded: str
    cpu_limit_seconds: float
    memory_limit_bytes: float

    @property
    def needed_bytes(self) -> float | None:
        """What the call needs above its inputs, as far as it is known: its peak (for a call stopped by the time
        limit, what it held then: most calls allocate their copies and tables first); for a call stopped by the memory
        limit, at least the limit and :data:`WIDE_ADDRESS_SLACK` (the address space it tried to pass)."""
        if self.exceeded == "memory":
            return max(self.peak_bytes or 0.0, self.memory_limit_bytes + WIDE_ADDRESS_SLACK)
        return self.peak_bytes


@dataclass(frozen=True)
class MeasuredCosts:
    """The file's tables, each the union of its runs' rows (a later run's row replacing an earlier one's).

    Attributes
    ----------
    seconds : dict
        Name -> {sample size: median CPU seconds per call, as a task runs the metrics of a draw}.
    alone_seconds : dict
        Name -> {sample size: median CPU seconds per call with nothing shared}.
    width_factors : dict
        Name -> {sample size: {number of codes: cost relative to the first number}}.
    after_sibling : frozenset of str
        The variant rows of ``seconds`` measured after another variant of their metric on the same draw.
    like_their_metric : frozenset of str
        Variants measured within the tool's tolerance of their metric's cost, which have no row of their own.
    wide_calls : dict
        Name -> {sample size: {number of codes: :class:`WideCall`}}.
    wide_runs : tuple of dict
        The ``wide_codes`` runs without their rows (``datetime``, ``machine``, ``settings``, ``note``): what the
        guides state with the table.
    reference_seconds : float or None
        What the fixed workload took in the latest ``seconds`` run that timed it: ``seconds`` and ``alone_seconds``
        are at that run's speed (None: no run timed it, the rows are read as measured).
    """

    seconds: dict[str, Row]
    alone_seconds: dict[str, Row]
    width_factors: dict[str, dict[int, Row]]
    after_sibling: frozenset[str]
    like_their_metric: frozenset[str]
    wide_calls: dict[str, dict[int, dict[int, WideCall]]] = field(default_factory=dict)
    wide_runs: tuple[dict[str, Any], ...] = ()
    reference_seconds: float | None = None


def read(path: Path = DATA_FILE) -> MeasuredCosts:
    """The tables of the data file at ``path`` (a table the file lacks reads as empty)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    reference = next((run["settings"][REFERENCE_SETTING] for run in reversed(document.get("seconds", []))
                      if REFERENCE_SETTING in run["settings"]), None)
    seconds = _latest(document.get("seconds", []), "seconds", reference)
    widths: dict[str, dict[int, Row]] = {}
    for (name, n_samples), (_, row) in sorted(_latest(document.get("width_factors", []), "width_factors").items(),
                                              key=lambda item: (item[0][0], item[0][1])):
        widths.setdefault(name, {})[n_samples] = row
    return MeasuredCosts(
        seconds={name: row for (name, _), (_, row) in seconds.items() if row is not None},
        alone_seconds={name: row for (name, _), (_, row)
                       in _latest(document.get("alone_seconds", []), "alone_seconds", reference).items()},
        width_factors=widths,
        after_sibling=frozenset(name for (name, _), (run, _) in seconds.items() if name in run.get("after_sibling", ())),
        like_their_metric=frozenset(name for (name, _), (_, row) in seconds.items() if row is None),
        wide_calls=_wide_calls(document.get("wide_codes", [])),
        wide_runs=tuple({key: value for key, value in run.items() if key != "rows"} for run in document.get("wide_codes", [])),
        reference_seconds=reference,
    )


def _wide_calls(runs: Iterable[Mapping[str, Any]]) -> dict[str, dict[int, dict[int, WideCall]]]:
    """The ``wide_codes`` table: each (name, sample size)'s calls from the last run that measured it."""
    calls: dict[str, dict[int, dict[int, WideCall]]] = {}
    for run in runs:
        settings = run["settings"]
        for name, row in run.get("rows", {}).items():
            calls.setdefault(name, {})[int(settings["n_samples"])] = {
                int(width): WideCall(int(settings["n_factors"]), call.get("cpu_seconds"), call.get("peak_bytes"),
                                     call.get("exceeded", ""), float(settings["cpu_limit_seconds"]),
                                     float(settings["memory_limit_bytes"]))
                for width, call in sorted(row.items(), key=lambda item: int(item[0]))}
    return {name: dict(sorted(by_size.items())) for name, by_size in sorted(calls.items())}


def add_run(table: str, run: Mapping[str, Any], path: Path = DATA_FILE, *, whole: bool = False) -> None:
    """Append ``run`` (:func:`new_run`) to ``table`` of the data file at ``path`` (created if missing), drop the earlier
    runs whose every row a later one replaces (every earlier run of the table when the run measured it ``whole``: a row
    it lacks, such as a variant no preset sweeps any more, is no longer measured), and write the file whole (a
    temporary file renamed over it)."""
    if table not in TABLES:
        raise ValueError(f"unknown cost table {table!r}; one of {', '.join(TABLES)}")
    document = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    runs = [run] if whole else [*document.get(table, []), run]
    kept = [earlier for index, earlier in enumerate(runs)
            if not _keys(earlier, table) <= {key for later in runs[index + 1:] for key in _keys(later, table)}]
    document = {name: kept if name == table else document.get(name, []) for name in TABLES}
    atomic_write(path, lambda written: Path(written).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8"))


def new_run(rows: Mapping[str, Row], settings: Mapping[str, Any], note: str = "", **names: Iterable[str]) -> dict[str, Any]:
    """A run as :func:`add_run` stores it: the date and time now (UTC), :func:`machine_description`, ``settings``, a
    ``note`` where one is given, the rows (by name, then by size), and the name lists of a ``seconds`` run
    (``after_sibling``, ``like_their_metric``) given as keywords."""
    run: dict[str, Any] = {"datetime": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                           "machine": machine_description(), "settings": dict(settings)}
    if note:
        run["note"] = note
    run["rows"] = {name: {size: float(rows[name][size]) for size in sorted(rows[name])} for name in sorted(rows)}
    return {**run, **{key: sorted(values) for key, values in names.items()}}


def new_wide_run(calls: Mapping[str, Mapping[int, Mapping[str, Any]]], settings: Mapping[str, Any],
                 note: str = "") -> dict[str, Any]:
    """A ``wide_codes`` run as :func:`add_run` stores it: :func:`new_run`'s fields, its rows each call's record
    (``cpu_seconds``, ``peak_bytes``, ``exceeded``, where known) by name, then by number of codes."""
    run = new_run({}, settings, note)
    run["rows"] = {name: {width: {key: value if isinstance(value, str) else float(value)
                                  for key, value in calls[name][width].items()}
                          for width in sorted(calls[name])} for name in sorted(calls)}
    return run


def machine_description() -> dict[str, Any]:
    """What a run is measured on: the machine, its CPU and load (the 1-minute load average when the run is stored),
    Python's and the numerical libraries' versions."""
    return {
        "node": platform.node(), "system": platform.system(), "release": platform.release(),
        "machine": platform.machine(), "cpu": _cpu_model(), "cpu_count": os.cpu_count(),
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        **{library: importlib.metadata.version(library) for library in LIBRARIES},
    }


def _cpu_model() -> str:
    """The CPU's model name (Linux's ``/proc/cpuinfo``), else what :func:`platform.processor` says."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    return platform.processor()


def _keys(run: Mapping[str, Any], table: str) -> set[tuple[str, int | None]]:
    """What a run's rows are keyed by in ``table``: the name, and in ``width_factors`` the sample size too."""
    n_samples = int(run["settings"]["n_samples"]) if table in BY_SAMPLE_SIZE else None
    return {(name, n_samples) for name in (*run.get("rows", {}), *run.get("like_their_metric", ()))}


def _latest(runs: Iterable[Mapping[str, Any]], table: str,
            reference: float | None = None) -> dict[tuple[str, int | None], tuple[Mapping[str, Any], Row | None]]:
    """Each key of ``table`` (:func:`_keys`) -> the last run that gives it and its row (None for a variant that run
    measured like its metric), sizes read back as integers; with a ``reference``, each row scaled by it over its run's
    ``settings["reference_seconds"]`` (a run without one as it is)."""
    latest: dict[tuple[str, int | None], tuple[Mapping[str, Any], Row | None]] = {}
    for run in runs:
        rows = run.get("rows", {})
        own = run["settings"].get(REFERENCE_SETTING)
        scale = reference / own if reference is not None and own is not None else 1.0
        for key in sorted(_keys(run, table)):
            row = rows.get(key[0])
            latest[key] = (run, None if row is None else {int(size): scale * float(value) for size, value in row.items()})
    return latest
