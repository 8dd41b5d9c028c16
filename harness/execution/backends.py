"""Execution backends, and the lifecycle of a Dask client for the ``dask`` one.

The runner hands cells to joblib.  ``loky`` (local worker processes, the default),
``threading`` and ``sequential`` are joblib's own; ``dask`` sends the cells through
joblib's Dask backend to a ``dask.distributed`` cluster: an existing one, given by its
scheduler address, or a :class:`~dask.distributed.LocalCluster` started for the run and
closed after it.

Scores do not depend on the backend: every cell's seeds derive from its identity
(:mod:`harness.execution.seeds`) and every cell pins BLAS/OpenMP threads to 1 while it runs
(:func:`harness.execution.runner.run_cell`); the workers of a local cluster are additionally
started with ``OMP_NUM_THREADS=MKL_NUM_THREADS=OPENBLAS_NUM_THREADS=1``.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any, Iterator

BACKENDS = ("loky", "threading", "sequential", "dask")
"""Backend names accepted by :func:`harness.execution.runner.execute` and ``run --backend``."""

SINGLE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
"""Environment of local Dask workers: one BLAS/OpenMP thread each."""

CONNECT_TIMEOUT = "10s"
"""Default wait for an existing scheduler to answer before giving up."""


def local_workers(jobs: int, cells: int) -> int:
    """Worker processes for a local pool: ``jobs`` (``-1``: all cores), never more than ``cells``."""
    wanted = (os.cpu_count() or 1) if jobs == -1 else jobs
    return max(1, min(wanted, cells))


@contextmanager
def dask_client(scheduler: str | None = None, *, workers: int = 1, timeout: str = CONNECT_TIMEOUT) -> Iterator[Any]:
    """A ``dask.distributed`` client, closed (with any cluster it started) on exit.

    Parameters
    ----------
    scheduler : str, optional
        Address of a running scheduler, e.g. ``tcp://10.0.0.5:8786``.  The cluster is
        left running on exit; only the client is closed.  Without it a
        ``LocalCluster`` is started on the loopback interface with ``workers``
        single-threaded worker processes and no dashboard, and shut down on exit.
    workers : int, default 1
        Worker processes of the local cluster (ignored with ``scheduler``).
    timeout : str, default "10s"
        How long to wait for ``scheduler`` to answer.

    Yields
    ------
    dask.distributed.Client

    Raises
    ------
    ValueError
        When ``dask.distributed`` is not installed, or the scheduler cannot be reached
        (the message names the address).
    """
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ValueError(
            "backend 'dask' needs dask.distributed; install it with pip install 'disentanglement-harness[dask]'"
        ) from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as error:
            raise ValueError(f"cannot connect to the Dask scheduler at {scheduler!r}: {error}") from None
        with client:
            yield client
        return
    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # health routes only, on a free loopback port
        env=SINGLE_THREAD_ENV,
    ) as cluster, Client(cluster, set_as_default=False) as client:
        yield client
