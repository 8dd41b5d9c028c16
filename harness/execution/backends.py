"""Execution backends: where tasks run, yielding each task's finished cells as it completes.

``loky`` (local worker processes, the default), ``threading`` and ``sequential`` run
tasks through joblib.  ``dask`` submits them natively to a ``dask.distributed`` cluster
(``client.submit`` and ``as_completed``, longest task first): an existing one, given by
its scheduler address, or a :class:`~dask.distributed.LocalCluster` started for the run
and closed after it.  The project must be installed on the cluster's workers.

Scores do not depend on the backend: every draw's and metric's seed derives from the
cell's identity (:mod:`harness.execution.seeds`) and every task pins BLAS/OpenMP threads
to 1 while it runs (:func:`harness.execution.scoring.run_task`); the workers of a local
cluster are also started with ``OMP_NUM_THREADS=MKL_NUM_THREADS=OPENBLAS_NUM_THREADS=1``.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from harness.errors import UsageError
from harness.execution.run_estimate import figure_estimates, pool_pays

if TYPE_CHECKING:
    import pandas as pd

BACKENDS = ("loky", "threading", "sequential", "dask")
"""Backend names accepted by :func:`execute` and ``run --backend``."""

SINGLE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
"""Environment of local (and batch) Dask workers: one BLAS/OpenMP thread each."""

CONNECT_TIMEOUT = "10s"
"""Default wait for an existing scheduler to answer before giving up."""

WORKER_START_TIMEOUT = 120
"""Seconds a local cluster may take to bring up its first worker."""

_UNGUARDED_SCRIPT = (
    "a script that runs a study on a local Dask cluster must do it under 'if __name__ == \"__main__\":' "
    "(each worker process imports the script again, and would start the study again)")

LOCAL_CLUSTER_CONFIG = {
    # Dask's sampling profiler wakes each worker every 10 ms to read the running task's stack (for the dashboard,
    # which a local cluster here does not serve).
    "distributed.worker.profile.enabled": False,
    # Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_=65536, which also fixes glibc's mmap threshold at
    # 128 KiB: every array of more than 16,384 floats is then mapped and unmapped afresh (fresh zeroed pages) instead
    # of reusing freed memory, as it is in a loky worker.  (None unsets a variable of that setting.)
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
}
"""Dask settings of a local cluster's workers (and of a batch cluster's, :mod:`harness.execution.batch`): two defaults
that slowed every metric call.  The default study's cells took 16 % more time on local Dask workers than on loky's
(2 workers, same study); 5 % with these."""


def local_workers(jobs: int, tasks: int) -> int:
    """Worker processes for a local pool: ``jobs`` (``-1``: all cores), never more than ``tasks``."""
    wanted = (os.cpu_count() or 1) if jobs == -1 else jobs
    return max(1, min(wanted, tasks))


def task_workers(estimates: Sequence[float], jobs: int, backend: str) -> int:
    """The local worker processes :func:`execute` runs tasks of ``estimates`` seconds on (1: none, the tasks run in
    this process): :func:`local_workers`, none with ``backend="sequential"``, and with ``backend="loky"`` and
    ``jobs=-1`` (the default) none where starting them would not pay (:func:`harness.execution.run_estimate.pool_pays`);
    an explicit ``jobs`` is kept."""
    if backend == "sequential":
        return 1
    workers = local_workers(jobs, len(estimates))
    return 1 if backend == "loky" and jobs == -1 and not pool_pays(estimates, workers) else workers


def figure_jobs(results: pd.DataFrame, jobs: int) -> int:
    """The ``jobs`` a report of ``results`` draws its figures with (:func:`reports.write_report`'s): ``jobs``, but 1
    (this process) where ``jobs=-1`` (the default) and the figures' estimate would not repay starting workers: the
    cells' rule, :func:`task_workers`, given :func:`harness.execution.run_estimate.figure_estimates`.  A study of a
    few small figures (``run --preset quick --scenarios noise,mixing --metrics mig,sap --seeds 1 --n-samples 200``: 7
    figures, 2.4 CPU-s of drawing) took 9.5 to 9.9 s and about 10 CPU-s, its report included, against 8.5 to 10.5 s
    and 13 to 16 CPU-s with two workers started for its figures; an explicit ``jobs`` is kept."""
    lines = results[["scenario", "metric", "sub_score"]].drop_duplicates()
    pooled = task_workers(figure_estimates(lines.groupby("scenario").size().tolist()), jobs, "loky") > 1
    return jobs if pooled or jobs != -1 else 1


def leave_ctrl_c_to_the_run() -> None:
    """A loky worker's initializer: the worker ignores Ctrl-C, which the run process handles.

    Ctrl-C in a terminal interrupts the whole foreground process group, the workers included.  A worker interrupted
    inside a task or while waiting for one sends the interruption back quietly, but one interrupted while it sends a
    result back (or starts) let ``KeyboardInterrupt`` escape and printed ``Process LokyProcess-1:`` and its traceback
    above the run's one-line message (seen once in the slow tier's Ctrl-C test on 2026-11-29, after the metrics got
    faster and sending results became a larger share of a worker's time).  As the local Dask workers do (:func:`dask_setup`), the
    worker leaves it to the run process, which stops the pool (joblib terminates its workers).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def local_pool(backend: str, workers: int) -> dict[str, Any]:
    """``joblib.parallel_config`` arguments of a local pool of ``workers`` (loky's workers leave Ctrl-C to the run:
    :func:`leave_ctrl_c_to_the_run`; threads never see signals)."""
    options: dict[str, Any] = {"backend": backend, "n_jobs": workers}
    if backend == "loky":
        options["initializer"] = leave_ctrl_c_to_the_run
    return options


@contextmanager
def report_workers(jobs: int, imports: Sequence[str] = ()) -> Iterator[None]:
    """Where a report run by the harness draws its figures: the loky workers of :func:`local_pool`, started at once.

    :func:`reports.write_report` draws on joblib's loky workers, and loky keeps one pool for calls whose options are
    equal: given the cells' options (their initializer included), the report reuses the workers that ran the cells
    instead of starting new ones (about 2.6 CPU-s of imports each), and its workers too leave Ctrl-C to the run.
    With ``jobs`` other than 1, each worker is given the modules ``imports`` (those drawing a report's figures needs:
    ``reports.report``, named by the caller, as execution imports no analysis) to import on entry, so that they start,
    or import what the cells did not, while this process reads the results and computes what the figures need
    (``python -m harness report``: about 1.5 s of a 20 s report, which otherwise waited for them); the context waits
    for those imports on exit.
    """
    from joblib import Parallel, delayed, effective_n_jobs, parallel_config

    # a report stopped early (Ctrl-C, SIGTERM, an error) closes its figures' generator: joblib's warning of the tasks
    # it cancelled would precede the one line that says what happened
    with parallel_config(**local_pool("loky", jobs)), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_EARLY_EXIT_WARNING, category=UserWarning)
        warming = (Parallel(return_as="generator_unordered")(delayed(_import)(tuple(imports))
                                                              for _ in range(effective_n_jobs(jobs)))
                   if jobs != 1 and imports else None)
        try:
            yield
        finally:  # imports only, over long before the figures are (closing the generator early instead, on an
            for _ in warming or ():  # error, can upset loky's queue while it hands them out)
                pass


def _import(modules: tuple[str, ...]) -> None:
    """A worker's first task under :func:`report_workers`: import ``modules``."""
    import importlib

    for module in modules:
        importlib.import_module(module)


#: joblib's warning when a result generator is closed before its end (the tasks left are cancelled, as intended).
_EARLY_EXIT_WARNING = r".*(tasks which were still being processed by the workers have been cancelled|tasks have been successfully executed +but not used)"


def check_backend(backend: str, scheduler: str | None = None) -> None:
    """Refuse an unknown ``backend``, or a ``scheduler`` address given to a backend other than ``dask``.

    Raises
    ------
    harness.errors.UsageError
        Naming the backends, or saying that only ``dask`` uses a scheduler.
    """
    if backend not in BACKENDS:
        raise UsageError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise UsageError(f"a scheduler address is only used by backend 'dask', not {backend!r}")


def execute(
    tasks: Sequence[Any],
    *,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    cell_timeout: float | None = None,
    log: Callable[[str], None] | None = None,
) -> Iterator[Any]:
    """Run tasks, yielding each task's list of ``(key, rows, failure)``, one per cell, as it finishes.

    Parameters
    ----------
    tasks : sequence of harness.execution.plan.Task
        The tasks to run, in the order to start them (longest first).
    jobs : int, default 1
        Local workers (``-1``: all cores; with ``backend="loky"`` none, the tasks run in this process, where their
        estimated time would not repay starting the workers: :func:`task_workers`).
        With ``backend="dask"`` and a ``scheduler``, the cluster's own workers are used and ``jobs`` is ignored.
    backend : {"loky", "threading", "sequential", "dask"}
        Where the tasks run.
    scheduler : str, optional
        Dask scheduler address (``backend="dask"`` only); without it a local cluster
        of ``jobs`` worker processes is started and closed afterwards.
    cell_timeout : float, optional
        Seconds one metric call may take (see :func:`harness.execution.scoring.run_task`).
    log : callable, optional
        Where a one-line note goes (a scheduler with no workers yet, see :func:`dask_client`).
    """
    from harness.execution.scoring import run_task

    check_backend(backend, scheduler)
    if not tasks:
        return
    if backend == "dask":
        from dask.distributed import as_completed

        with _quiet_once_stopped() as stopping, \
                dask_client(scheduler, workers=local_workers(jobs, len(tasks)), log=log) as client:
            futures = [
                client.submit(run_task, task, cell_timeout, pure=False, priority=len(tasks) - index)
                for index, task in enumerate(tasks)
            ]
            try:
                for future in as_completed(futures, loop=client.loop):
                    yield future.result()
                    future.release()
            except BaseException:  # Ctrl-C, SIGTERM, a failure, the consumer closing the generator
                stopping.set()
                raise
        return
    workers = task_workers([task.estimated_seconds for task in tasks], jobs, backend)
    if workers == 1:
        for task in tasks:
            yield run_task(task, cell_timeout)
        return
    from joblib import Parallel, delayed, parallel_config

    with parallel_config(**local_pool(backend, workers)):
        results = Parallel(return_as="generator_unordered", batch_size=1, pre_dispatch="n_jobs")(
            delayed(run_task)(task, cell_timeout) for task in tasks
        )
        try:
            for outcomes in results:  # noqa: UP028 - not ``yield from``: it would close ``results`` itself, outside the filter below
                yield outcomes
        finally:  # stopped early (Ctrl-C, SIGTERM, a failure): joblib's warning of cancelled tasks would precede
            with warnings.catch_warnings():  # the one line that says how to resume
                warnings.filterwarnings("ignore", message=_EARLY_EXIT_WARNING, category=UserWarning)
                results.close()


#: What the run process's Dask loggers say, once the run is stopping, of the stop itself: the scheduler cannot gather
#: a result whose task closing the cluster cancelled, and a nanny kills a worker still busy in a cell (a metric call
#: cannot be interrupted) 4 s after asking it to close.
_LINES_OF_A_STOP = {
    "distributed.scheduler": "Couldn't gather keys",
    "distributed.nanny": "Worker process still alive after",
}
#: What the client's event loop logs only because Ctrl-C interrupted the run: ``distributed.utils.sync`` schedules its
#: ``cancel`` callback only when the waiting thread gets ``KeyboardInterrupt``, and that callback can fail (it reads
#: the awaited future before the loop has made it), which tornado logs with its traceback.  Dropped at any time: the
#: interruption may come before the run has marked itself stopping.
_LINES_OF_AN_INTERRUPTION = {
    "tornado.application": "Exception in callback functools.partial(<function sync.<locals>.cancel",
}


@contextmanager
def _quiet_once_stopped() -> Iterator[threading.Event]:
    """Drop the local cluster's log lines about its own stopping, once the run is stopping.

    Ctrl-C while the run waits on a result leaves that request to the client's event loop;
    closing the cluster then cancels its task, and a local scheduler (in this process) logs
    ``Couldn't gather keys: {...: 'forgotten'}``.  A worker busy in a metric call does not
    stop when asked, and its nanny (in this process too) kills it after 4 s, logging
    ``Worker process still alive after 4.0 seconds, killing``.  Both came over the run's
    one-line message.  Set the event this yields when the run stops early: from then on,
    and only then, those lines (:data:`_LINES_OF_A_STOP`) are dropped.  While the run goes
    on, the same lines are real errors and are kept.  The client's own failure to cancel an
    interrupted wait (:data:`_LINES_OF_AN_INTERRUPTION`, logged by tornado over the one line
    in 1 of 3 CI runs of 2026-11-30) happens only on Ctrl-C, and is dropped whenever it comes.
    """
    stopping = threading.Event()

    def keep(record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message.startswith(_LINES_OF_AN_INTERRUPTION.get(record.name, "\0")):
            return False
        return not (stopping.is_set() and message.startswith(_LINES_OF_A_STOP.get(record.name, "\0")))

    loggers = [logging.getLogger(name) for name in (*_LINES_OF_A_STOP, *_LINES_OF_AN_INTERRUPTION)]
    for logger in loggers:
        logger.addFilter(keep)
    try:
        yield stopping
    finally:
        for logger in loggers:
            logger.removeFilter(keep)


@contextmanager
def dask_client(scheduler: str | None = None, *, workers: int = 1, timeout: str = CONNECT_TIMEOUT,
                log: Callable[[str], None] | None = None) -> Iterator[Any]:
    """A ``dask.distributed`` client, closed (with any cluster it started) on exit.

    Parameters
    ----------
    scheduler : str, optional
        Address of a running scheduler, e.g. ``tcp://10.0.0.5:8786``.  The cluster is
        left running on exit; only the client is closed.  Without it a
        ``LocalCluster`` is started on the loopback interface with ``workers``
        single-threaded worker processes and no dashboard, and shut down on exit;
        it is yielded once its first worker is up (the others join as they start).
    workers : int, default 1
        Worker processes of the local cluster (ignored with ``scheduler``).
    timeout : str, default "10s"
        How long to wait for ``scheduler`` to answer.
    log : callable, optional
        Told in one line when ``scheduler`` has no workers yet: tasks then wait, with no other sign, until
        workers join it (they may be on their way, from a batch queue).

    Yields
    ------
    dask.distributed.Client

    Raises
    ------
    harness.errors.UsageError
        When ``dask.distributed`` is not installed, or ``scheduler`` is not the address of a
        Dask scheduler that answers within ``timeout`` (:func:`check_scheduler`).
    """
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise UsageError(
            "backend 'dask' needs dask.distributed; install it with pip install 'disentanglement-harness[dask]'"
        ) from None
    if scheduler is not None:
        check_scheduler(scheduler, timeout)  # a Client on a wrong address can hang for ever, then 20 s in __del__
        try:
            client = Client(scheduler, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as error:
            raise UsageError(f"cannot connect to the Dask scheduler at {scheduler!r}: {error}") from None
        with client:
            if log is not None and not client.nthreads():
                log(f"note: the Dask scheduler at {scheduler!r} has no workers yet; cells start when workers join it "
                    f"(dask worker {scheduler} --nthreads 1)")
            yield client
        return
    import dask

    if getattr(multiprocessing.current_process(), "_inheriting", False):  # what multiprocessing itself checks
        raise UsageError(_UNGUARDED_SCRIPT)
    with dask.config.set(LOCAL_CLUSTER_CONFIG), LocalCluster(
        n_workers=0,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # health routes only, on a free loopback port
        env=SINGLE_THREAD_ENV,
        preload=[*dask.config.get("distributed.worker.preload"), __name__],  # dask_setup below: Ctrl-C is the run's
    ) as cluster, Client(cluster, set_as_default=False) as client:
        # Workers are asked for without waiting for all of them, so that each starts on the queued tasks as soon
        # as it is up, as a local process pool's do: waiting for 16 workers held every task back by 4-5 s, most of
        # Dask's extra wall time over loky on the default study.  One worker must come up, or the start failed.
        cluster.scale(workers)
        _wait_for_a_worker(cluster, client)
        yield client


def _wait_for_a_worker(cluster: Any, client: Any) -> None:
    """Return once a worker of the local ``cluster`` is up; raise as soon as every worker failed to start."""
    from distributed.core import Status

    deadline = time.monotonic() + WORKER_START_TIMEOUT
    while not client.nthreads():
        starts = list(cluster.workers.values())
        if starts and all(getattr(start, "status", None) == Status.failed for start in starts):
            raise RuntimeError("every worker of the local Dask cluster failed to start (Dask's errors above say why); "
                               + _UNGUARDED_SCRIPT)
        if time.monotonic() > deadline:
            raise RuntimeError(f"no worker of the local Dask cluster started within {WORKER_START_TIMEOUT} s")
        time.sleep(0.1)


_HEARTBEAT_FAILED = "Failed to communicate with scheduler during heartbeat."


def dask_setup(worker: Any) -> None:
    """Dask's preload hook, run by each worker of a local cluster as it starts: it leaves Ctrl-C to the run.

    Ctrl-C in a terminal interrupts the whole foreground process group, the local cluster's
    worker processes included: each printed a traceback of ``KeyboardInterrupt`` over the
    run's own one-line message.  The worker ignores it; the run process handles it and closes
    the cluster as it leaves :func:`dask_client`.  What the worker logs of being closed is
    dropped too: the task it was running, cancelled ("Async instruction ... ended with
    CancelledError", raised by nothing else), and a heartbeat the scheduler cut short as it
    let the worker go ("Failed to communicate with scheduler during heartbeat.", with a
    traceback; about one stop in six), dropped only while the worker is closing: a
    heartbeat that fails while it runs is a real error.
    """
    from distributed.core import Status

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.getLogger("distributed.worker.state_machine").addFilter(
        lambda record: not record.getMessage().endswith("ended with CancelledError")
    )
    logging.getLogger("distributed.worker").addFilter(
        lambda record: not (record.getMessage() == _HEARTBEAT_FAILED and worker.status != Status.running)
    )


def check_scheduler(address: str, timeout: str | float = CONNECT_TIMEOUT) -> None:
    """Make sure a Dask scheduler answers at ``address`` within ``timeout`` (and a second more for its answer).

    Asks the server there who it is (Dask's ``identity`` message) on a connection of its own,
    before any :class:`~dask.distributed.Client` is made: a client pointed at a server that
    accepts connections but never speaks Dask (a dashboard's port, any web server) waits for
    ever, and one that fails to connect spends twice its timeout closing when it is
    collected.  The question is asked from a thread with its own event loop, so it works
    where a loop is already running (a notebook).

    Raises
    ------
    harness.errors.UsageError
        One line naming ``address``: malformed, nothing answering within ``timeout``
        (connection refused or timed out: Dask retries until then, for a scheduler still
        starting), a server that does not speak Dask's protocol or does not answer, or a
        Dask server that is not a scheduler (a worker's or a nanny's address).
    """
    import asyncio

    from dask.utils import parse_timedelta
    from distributed.comm import connect
    from distributed.security import Security

    seconds = parse_timedelta(timeout, default="seconds")

    async def identity() -> Any:
        comm = await connect(address, timeout=seconds, **Security().get_connection_args("client"))
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            await comm.close()

    answer: dict[str, Any] = {}

    def ask() -> None:
        try:
            answer["reply"] = asyncio.run(asyncio.wait_for(identity(), seconds + 1))
        except BaseException as error:  # noqa: BLE001 - reported below, in the caller's thread
            answer["error"] = error

    thread = threading.Thread(target=ask, name="harness-scheduler-check", daemon=True)
    thread.start()
    thread.join()  # bounded by the wait above; Ctrl-C interrupts it
    problem = f"cannot connect to the Dask scheduler at {address!r}"
    error = answer.get("error")
    if isinstance(error, (ValueError, TypeError)):  # the address itself: no port, an unknown scheme, TLS not set up
        raise UsageError(f"{problem}: {error}") from error
    if isinstance(error, (TimeoutError, asyncio.TimeoutError)):  # connected, then silence (before OSError: 3.11 nests them)
        raise UsageError(f"{problem}: the server there sent no Dask answer within {seconds + 1:g} s (a scheduler "
                         "listens on port 8786 by default, its dashboard (http) on 8787)") from error
    if isinstance(error, OSError):  # refused, unreachable, unknown host: Dask's "timed out trying to connect"
        raise UsageError(f"{problem}: {error}") from error
    if error is not None:
        raise UsageError(f"{problem}: the server there does not speak Dask's protocol ({type(error).__name__}: "
                         f"{error})") from error
    reply = answer["reply"]
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind != "Scheduler":
        raise UsageError(f"{problem}: the server there is a Dask {kind or 'server'}, not a scheduler")
