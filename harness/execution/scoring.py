"""Running a task: generate one data draw, score every cell of it, capture warnings and failures.

Everything here runs on a worker (a local process, a thread or a Dask worker).  BLAS and
OpenMP threads are pinned to one for the whole task, so scores are bit-identical whatever
the number of workers or the backend.  Estimates that several metrics need on the same
data (k-NN and histogram estimates) are shared inside the task through
:func:`metrics.shared_estimates`.

A cell whose metric raises, exits (:mod:`harness.execution.user_code`) or runs past the cell
time limit becomes a failed cell (a failure record instead of rows); the other cells of the
task still run.

A cell with ``null_permutations`` B > 0 then scores its metric's permutation null
(:func:`metrics.permutation_null`: the same call on B row permutations of the codes), seeded by
the draw (``identity_seed("null", *seed_identity)``), so every metric of a draw, and every value
of its sweep, is scored on the same row orders and the information metrics share each
permutation's tables.  A stochastic metric keeps its random state for every permutation.  Its
time goes to ``null_seconds``, not ``seconds``; warnings raised inside it are not recorded (the
``warnings`` column is about the call on the representation).  With a cell time limit the null
runs in a forked child of its own, under the same limit for its B calls together, so that a
metric whose call fits its limit never loses its score to its null.  A null that fails or runs
past its limit leaves the score as it is, without a null (NaN, ``null_permutations`` 0), and is
recorded as one of the cell's warnings (``permutation null not computed: ...``).  A draw the scenario fails to generate (it raises, or returns arrays of the
wrong shape, at this value) fails every cell of its task, with the scenario named.

While the scenario generates and the metric is called (in the forked child too), the worker records the modules
they import and the files they open (:func:`harness.execution.read_audit.recording`); each cell's outcome carries what
its metric and scenario read in this process, for the store to keep with its record.
"""

from __future__ import annotations

import ctypes
import math
import multiprocessing
import numbers
import os
import signal
import sys
import sysconfig
import time
import traceback
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np
from threadpoolctl import threadpool_limits

import metrics
from harness.errors import UsageError
from harness.execution.plan import Cell, Task
from harness.execution.read_audit import recording
from harness.execution.reads import Reads, recorded, reference_parts
from harness.execution.rows import NO_NULL, closed_form_values, result_row
from harness.execution.seeds import identity_int, identity_seed
from harness.execution.store import TIMED_OUT
from harness.execution.user_code import user_code
from scenarios.base import holistic_ideal, value_label

Outcome = tuple[str, list[dict[str, Any]], dict[str, Any] | None, Reads]
"""What a finished cell gives back: its key, its rows, a failure record or None, and what its metric and scenario
read beyond their imports (:class:`harness.execution.reads.Reads`)."""

T = TypeVar("T")


class CellTimeout(Exception):
    """A metric call ran past the cell time limit and was stopped."""


def run_task(task: Task, cell_timeout: float | None = None) -> list[Outcome]:
    """Generate the task's data draw once and score each of its cells.

    Parameters
    ----------
    task : Task
        Cells sharing one data draw.
    cell_timeout : float, optional
        Seconds a metric call may take; past it the call is stopped (it runs in a forked
        child process) and the cell recorded as failed.  None: no limit, in process.
        Each child fills and discards its own copy of the shared estimates, so with a
        limit the metrics of a draw no longer share them (slower, same scores).

    Returns
    -------
    list of Outcome
        One ``(key, rows, failure, reads)`` per cell, in the task's order.
    """
    with threadpool_limits(limits=1), metrics.shared_estimates():
        first = task.cells[0]
        try:
            data = generate_draw(first)
        except Exception as error:  # a scenario, a user's above all, may fail at any one value: its cells fail
            text = error_text(error)
            if _draw_place(first) not in text:
                text = f"{_draw_place(first)} failed: {text}"
            rows = first.definition.rows_at(first.value, first.n_samples)
            return [_failed(cell, rows, text) for cell in task.cells]
        if cell_timeout is not None:
            # the registry imports every built-in metric's module at its first lookup: here, once, rather than in each
            # forked child, which discards them (0.5 CPU-s a cell, and a second or more of its time limit, in a
            # process worker that had not looked a metric up yet)
            metrics.available(population=None)
        return [_score_cell(cell, data, cell_timeout) for cell in task.cells]


def generate_draw(cell: Cell) -> Any:
    """The representation (or population) a cell scores, seeded by its seed identity."""
    with user_code(_draw_place(cell)), recording(cell.scenario):
        return cell.definition.generate(cell.value, n=cell.n_samples, seed=identity_seed("data", *cell.seed_identity))


def _draw_place(cell: Cell) -> str:
    """``scenario 'noise' at alpha = 0.2``, as :meth:`scenarios.Scenario.generate` names its errors' place."""
    scenario = cell.definition
    return f"scenario {scenario.name!r} at {scenario.parameter} = {scenario.label(cell.value)}"


def _score_cell(cell: Cell, data: Any, cell_timeout: float | None) -> Outcome:
    try:
        if cell.kind == "population":
            rows, read = _population_rows(cell, data, cell_timeout)
        else:
            rows, read = _representation_rows(cell, data, cell_timeout)
    except Exception as error:  # any metric, built-in or the user's, may fail on some data
        # n_samples: the rows the metric saw, as its rows would say (sample_size: a prefix)
        return _failed(cell, data.factors.shape[0], error_text(error))
    return cell.key, rows, None, read | recorded(*reference_parts(cell.scenario))


def _recorded_call(cell: Cell, call: Callable[[], T]) -> Callable[[], tuple[T, Reads]]:
    """``call`` recording what it reads as the cell's metric's, returning its result and all that the metric read in
    this process (a forked child sends it back with the result)."""
    def recorded_call() -> tuple[T, Reads]:
        with recording(cell.metric.target):
            result = call()
        return result, recorded(*reference_parts(cell.metric.target))

    return recorded_call


def error_text(error: Exception) -> str:
    """A failed call as its failure records say it: ``Type: message (at FILE:LINE in FUNCTION)``."""
    return str(error) if isinstance(error, CellTimeout) else f"{type(error).__name__}: {error}{raised_at(error)}"


#: Where the project's packages lie (harness, metrics, scenarios, reports): a failure names the line outside them and
#: outside the libraries, in a user's file (wherever it lies, the project's folder included), that raised.
_PROJECT_PACKAGES = tuple(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                       package) + os.sep for package in ("harness", "metrics", "scenarios", "reports"))
#: Where the interpreter's standard library and installed packages lie.
_LIBRARY_DIRS = tuple({os.path.abspath(path) for path in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
                                                            sysconfig.get_paths()["platlib"])})


#: The attribute on an exception a forked child sends back holding :func:`raised_at` as the child found it: a traceback
#: is not pickled with its exception (unless a library such as tblib makes it so), and a failure's text must not
#: depend on which libraries a process imported.
_RAISED_AT = "harness_raised_at"


def raised_at(error: BaseException) -> str:
    """`` (at FILE:LINE in FUNCTION)``: the innermost frame of ``error``'s traceback in a user's code (neither the
    project's nor a library's: a metric or scenario file of theirs), so that a failure names the line to look at; ""
    where there is none (an error of a built-in metric, or of the harness's checks of what user code returned)."""
    if isinstance(getattr(error, _RAISED_AT, None), str):  # found where it was raised, in a forked child
        return getattr(error, _RAISED_AT)
    frames = traceback.StackSummary.extract(traceback.walk_tb(error.__traceback__), lookup_lines=False)  # no file read
    for frame in reversed(frames):
        path = os.path.abspath(frame.filename)
        if frame.filename.startswith("<") or path.startswith(_PROJECT_PACKAGES) or path.startswith(_LIBRARY_DIRS):
            continue
        return f" (at {os.path.basename(path)}:{frame.lineno} in {frame.name})"
    return ""


def _failed(cell: Cell, n_samples: int, error: str) -> Outcome:
    """A failed cell's outcome: no rows, and its failure record (:data:`reports.results.schema.FAILURE_COLUMNS`)."""
    failure = {
        "scenario": cell.definition.name,
        "value_label": value_label(cell.value),
        "seed": cell.seed,
        "n_samples": int(n_samples),
        "metric": cell.metric.name,
        "error": error,
    }
    return cell.key, [], failure, recorded(*reference_parts(cell.metric.target), *reference_parts(cell.scenario))


def _metric_random_state(cell: Cell) -> int:
    return identity_int("metric", *cell.data_identity, cell.metric.variant_of or cell.metric.name)


def _row_ideal(ideal: Mapping[str, float], prop: str) -> float:
    """A row's ideal: its property's, a holistic score's the three properties' common one
    (:func:`scenarios.base.holistic_ideal`)."""
    return holistic_ideal(ideal) if prop == "holistic" else ideal.get(prop, np.nan)


def _representation_rows(cell: Cell, data: Any, cell_timeout: float | None) -> tuple[list[dict[str, Any]], Reads]:
    entry = cell.metric
    arguments = {"discrete": data.discrete,
                 "random_state": _metric_random_state(cell) if entry.stochastic or not entry.registered else None,
                 **dict(entry.options)}

    def call() -> Mapping[str, float]:
        return metrics.evaluate(entry.callable(), data.factors, data.codes, **arguments)

    (scores, read), seconds, caught = _timed(_recorded_call(cell, call), cell_timeout, f"metric {entry.name!r}")
    nulls, failure = _null_columns(cell, data, scores, arguments, cell_timeout)
    if failure:
        caught = (caught[0] + 1, caught[1] or failure)
    exact = closed_form_values(entry, data.exact, data.discrete)
    return [
        result_row(
            cell,
            n_samples=data.factors.shape[0],
            sub_score=sub_score,
            ideal=_row_ideal(data.ideal, entry.property_of(sub_score)),
            score=score,
            seconds=seconds,
            warnings=caught,
            exact=exact.get(sub_score, np.nan),
            null=nulls[sub_score],
            scenario_ideals=data.ideal,
        )
        for sub_score, score in scores.items()
    ], read


def _null_columns(cell: Cell, data: Any, scores: Mapping[str, float], arguments: Mapping[str, Any],
                  cell_timeout: float | None) -> tuple[dict[str, Mapping[str, float | int]], str]:
    """Each sub-score's null columns (:data:`reports.results.schema.NULL_COLUMNS`) from the cell's permutation null, and
    ``""``; or :data:`~harness.execution.rows.NO_NULL` for each and why there is no null when it failed."""
    if not cell.null_permutations:
        return {sub_score: NO_NULL for sub_score in scores}, ""
    entry = cell.metric

    def null() -> dict[str, dict[str, float | int]]:  # plain dicts: they come back from a forked child
        distribution = metrics.permutation_null(
            entry.callable(), data.factors, data.codes, permutations=cell.null_permutations,
            seed=identity_seed("null", *cell.seed_identity), observed=scores,
            higher_is_better={sub_score: entry.higher_is_better_for(sub_score) for sub_score in scores}, **arguments)
        return {sub_score: distribution.columns(sub_score) for sub_score in scores}

    try:
        columns, seconds, _ = _timed(null, cell_timeout, f"the permutation null of metric {entry.name!r}")
    except Exception as error:  # the score stands; the metric may fail on some permutation, or run out of time
        return {sub_score: NO_NULL for sub_score in scores}, f"permutation null not computed: {error_text(error)}"
    return {sub_score: {**columns[sub_score], "null_seconds": seconds} for sub_score in scores}, ""


def _population_rows(cell: Cell, population: Any, cell_timeout: float | None) -> tuple[list[dict[str, Any]], Reads]:
    """A population metric's scores summarised as tidy rows.

    ``separation``
        The probability that a disentangled member scores above an entangled one
        (the area under the ROC curve of the scores as a detector of disentangled
        members; ties count one half).  Ideal 1.  Only written when the population
        holds both kinds.
    ``disentangled_mean``, ``entangled_mean``
        Mean score of each kind (no ideal: population metrics are not calibrated on an
        absolute scale).  Only written when that kind is present.
    """
    entry = cell.metric

    def call() -> list[float]:
        return list(metrics.evaluate_population(
            entry.target, list(population.members), random_state=_metric_random_state(cell), **dict(entry.options)
        ))

    (scores, read), seconds, caught = _timed(_recorded_call(cell, call), cell_timeout, f"metric {entry.name!r}")
    flags = np.asarray(population.disentangled, dtype=bool)
    values = np.asarray(scores, dtype=np.float64)
    summaries: list[tuple[str, float, float]] = []
    if flags.any() and (~flags).any():
        summaries.append(("separation", separation(values, flags), 1.0))
    if flags.any():
        summaries.append(("disentangled_mean", float(values[flags].mean()), np.nan))
    if (~flags).any():
        summaries.append(("entangled_mean", float(values[~flags].mean()), np.nan))
    return [
        result_row(cell, n_samples=population.factors.shape[0], sub_score=sub_score, ideal=ideal, score=score,
                   seconds=seconds, warnings=caught)
        for sub_score, score, ideal in summaries
    ], read


def separation(scores: Any, disentangled: Any) -> float:
    """P(score of a disentangled member > score of an entangled one), ties counting 1/2."""
    values = np.asarray(scores, dtype=np.float64)
    flags = np.asarray(disentangled, dtype=bool)
    good, bad = values[flags], values[~flags]
    if good.size == 0 or bad.size == 0:
        raise ValueError("separation needs both disentangled and entangled members")
    greater = (good[:, None] > bad[None, :]).mean()
    ties = (good[:, None] == bad[None, :]).mean()
    return float(greater + 0.5 * ties)


def _timed(call: Callable[[], Any], cell_timeout: float | None, what: str) -> tuple[Any, float, tuple[int, str]]:
    """Run ``call`` (``what``'s code, under :func:`~harness.execution.user_code.user_code`) with warnings recorded;
    return its result, wall seconds and (warning count, first warning).  With ``cell_timeout``, in a forked child
    stopped after that many seconds."""
    def guarded() -> tuple[Any, float, tuple[int, str]]:
        with user_code(what):
            return _call_recording_warnings(call)

    return guarded() if cell_timeout is None else call_with_time_limit(guarded, cell_timeout)


def _call_recording_warnings(call: Callable[[], Any]) -> tuple[Any, float, tuple[int, str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        started = time.perf_counter()
        result = call()
        seconds = time.perf_counter() - started
    first = f"{caught[0].category.__name__}: {caught[0].message}" if caught else ""
    return result, seconds, (len(caught), " ".join(first.split()))


def check_time_limit(seconds: float | None, argument: str = "cell_timeout") -> None:
    """Refuse a time limit that is not None or a finite number of seconds > 0 (``argument`` names it in the message).

    Raises
    ------
    harness.errors.UsageError
        For zero, a negative number, NaN, infinity, a bool or anything not a number.
    """
    if seconds is None:
        return
    if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or not 0 < seconds < math.inf:
        raise UsageError(f"{argument} must be a finite number of seconds > 0, got {seconds!r}")


def call_with_time_limit(call: Callable[[], T], seconds: float) -> T:
    """Run ``call`` in a forked child and return its result; stop it after ``seconds``.

    The child inherits the data (fork, no copy until written) and sends back the result
    or the exception, which is raised here unchanged (as a ``RuntimeError`` with its text
    when it cannot be pickled).  Used for the battery's cells (:func:`run_task`) and for
    the axiom checks' calls (:func:`harness.workflows.axioms.check_axioms`).

    The child never outlives the wait for it: whatever ends the wait early (Ctrl-C,
    SIGTERM raised as a ``KeyboardInterrupt`` by :mod:`harness.cli`) kills it before it
    propagates, and on Linux the child is also killed by the system when its parent dies
    (a worker process stopped with its run).

    Raises
    ------
    CellTimeout
        "timed out after S s", when the child is still running after ``seconds`` (it is killed).
    RuntimeError
        When the child dies without answering (killed for memory, a crash in C code).
    """
    receiver, sender = multiprocessing.Pipe(duplex=False)
    parent = os.getpid()
    # os.fork, not multiprocessing's Process: a Dask worker is a daemonic process, which multiprocessing refuses to
    # give children ("daemonic processes are not allowed to have children": every cell of a Dask run failed so)
    child = os.fork()
    if child == 0:  # the child: answer, then leave at once (no cleanup of the parent's state, no atexit handler)
        code = 0
        try:
            receiver.close()
            _die_with(parent)
            _answer(sender, call)
        except BaseException:  # noqa: BLE001 - nothing could be sent: the parent reads the pipe's end
            code = 1
        finally:
            os._exit(code)
    sender.close()
    ended = False
    try:
        if not receiver.poll(seconds):
            raise CellTimeout(f"{TIMED_OUT}{seconds:g} s")
        try:
            status, payload = receiver.recv()
        except EOFError:
            code = _reap(child)
            ended = True
            raise RuntimeError(f"the metric's process died (exit code {code})") from None
    except BaseException:  # the time limit, Ctrl-C, SIGTERM: the call must not outlive the wait for it
        if not ended:
            os.kill(child, signal.SIGKILL)
        raise
    finally:
        receiver.close()
        if not ended:
            _reap(child)
    if status == "error":
        raise payload
    return payload


def _reap(child: int) -> int | None:
    """Wait for the forked ``child`` to end; its exit code (negative: the signal that ended it), or None where
    something else reaped it first."""
    try:
        _, status = os.waitpid(child, 0)
    except ChildProcessError:
        return None
    return os.waitstatus_to_exitcode(status)


def _answer(sender: Any, call: Callable[[], T]) -> None:
    """In :func:`call_with_time_limit`'s child: send ``call``'s result, or the exception it raised (with where it was
    raised; as a ``RuntimeError`` with its text when it cannot be pickled)."""
    try:
        sender.send(("ok", call()))
    except BaseException as error:  # noqa: BLE001 - everything goes back to the parent
        try:
            setattr(error, _RAISED_AT, raised_at(error))
            sender.send(("error", error))
        except Exception:  # an exception that cannot be pickled
            sender.send(("error", RuntimeError(f"{type(error).__name__}: {error}{raised_at(error)}")))


#: ``prctl(PR_SET_PDEATHSIG, ...)``: Linux's request to be sent a signal when the parent dies.
_PR_SET_PDEATHSIG = 1


def _die_with(parent: int) -> None:
    """In a forked child: ask Linux to kill this process when ``parent`` dies (elsewhere, nothing).

    A worker process stopped with its run (killed by joblib or Dask) cannot kill its forked
    metric call itself, which would otherwise run on, orphaned, for as long as the metric takes.
    SIGTERM's handler, inherited from the parent, is reset to the default: the parent's
    ``process.kill()`` needs none, and a SIGTERM sent to the child ends it at once.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)
