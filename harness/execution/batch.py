"""Workers from a batch system: a study on a Dask cluster whose workers are SLURM or PBS jobs.

:func:`batch_cluster` starts a ``dask_jobqueue`` cluster (the optional ``cluster`` extra): a Dask
scheduler in this process, and a job script that starts, in each batch job, one single-threaded
worker process per core it asks for, with the settings the harness's own local cluster gives its
workers (BLAS/OpenMP pinned to one thread, no sampling profiler, glibc's default ``malloc``
thresholds; :data:`~harness.execution.backends.SINGLE_THREAD_ENV`,
:data:`~harness.execution.backends.LOCAL_CLUSTER_CONFIG`).  :func:`run_on_cluster` asks the cluster
for workers and runs a study on it, as ``run --backend dask --scheduler ADDRESS`` does; it works
the same on any Dask cluster object, a :class:`~dask.distributed.LocalCluster` included::

    from harness.execution.batch import batch_cluster, run_on_cluster

    if __name__ == "__main__":
        with batch_cluster("slurm", cores=32, memory="64GB", walltime="04:00:00", queue="normal") as cluster:
            run_on_cluster(cluster, workers=128, preset="paper", out="runs/paper")

Only this process writes the results (``out``); a worker that dies mid-cell has its cells run
again by another, and a run that ends with its allocation is resumed by the next run into the same
``out`` (:mod:`harness.execution.store`).
"""

from __future__ import annotations

import shlex
import signal
from collections.abc import Mapping
from typing import Any

import pandas as pd

from harness.errors import UsageError
from harness.execution.backends import LOCAL_CLUSTER_CONFIG, SINGLE_THREAD_ENV

BATCH_SYSTEMS = {"slurm": "SLURMCluster", "pbs": "PBSCluster"}
"""Batch system name -> its ``dask_jobqueue`` cluster class."""


def dask_config_environment(config: Mapping[str, Any]) -> dict[str, str]:
    """Environment variables that give a Dask process started elsewhere the settings ``config``.

    Dask reads ``DASK_A__B__C=value`` as the setting ``a.b.c`` (its value a Python literal), lower-casing
    the name: a setting whose last key is not lower case (an environment variable's name, in
    ``distributed.nanny.pre-spawn-environ``) is given as a mapping, the value of its parent's variable.

    Parameters
    ----------
    config : Mapping[str, Any]
        Dotted Dask setting -> value (a Python literal: bool, number, string or None).

    Returns
    -------
    dict[str, str]
        Variable name -> value.

    Examples
    --------
    >>> dask_config_environment({"distributed.worker.profile.enabled": False,
    ...                          "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
    {'DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED': 'False', 'DASK_DISTRIBUTED__NANNY__PRE_SPAWN_ENVIRON': "{'MALLOC_TRIM_THRESHOLD_': None}"}
    """
    values: dict[str, Any] = {}
    for setting, value in config.items():
        *parents, last = setting.split(".")
        if last == last.lower():
            values[setting] = value
        else:
            values.setdefault(".".join(parents), {})[last] = value
    return {"DASK_" + "__".join(key.upper().replace("-", "_") for key in setting.split(".")): repr(value)
            for setting, value in values.items()}


WORKER_ENVIRONMENT = {**SINGLE_THREAD_ENV, **dask_config_environment(LOCAL_CLUSTER_CONFIG)}
"""What each batch job exports before it starts its workers: the local cluster's worker settings."""


def batch_cluster(system: str, *, cores: int, memory: str, walltime: str, queue: str | None = None,
                  account: str | None = None, **options: Any) -> Any:
    """A ``dask_jobqueue`` cluster whose batch jobs each run ``cores`` single-threaded workers.

    Nothing is submitted until the cluster is scaled (:func:`run_on_cluster`); ``cluster.job_script()``
    shows the script each job runs.  Use it as a context manager: leaving it cancels the jobs.

    Parameters
    ----------
    system : {"slurm", "pbs"}
        The batch system (:data:`BATCH_SYSTEMS`).
    cores : int
        CPU cores of one job, each running one worker process with one thread.
    memory : str
        Memory of one job (``"64GB"``), shared equally by its workers (each worker's Dask memory limit).
    walltime : str
        Time limit of one job, ``HH:MM:SS``.
    queue, account : str, optional
        The queue (SLURM partition) and the account to charge.
    **options
        Passed to the ``dask_jobqueue`` class: ``interface`` (the network the workers reach the scheduler
        on), ``job_extra_directives``, ``job_script_prologue`` (run after the harness's exports, e.g.
        activating an environment), ``worker_extra_args`` (``["--lifetime", "55m"]``), ``log_directory``,
        ``scheduler_options``, ...

    Returns
    -------
    dask_jobqueue.JobQueueCluster

    Raises
    ------
    harness.errors.UsageError
        An unknown ``system``, ``cores`` below 1, or ``dask_jobqueue`` not installed.
    """
    if system not in BATCH_SYSTEMS:
        raise UsageError(f"batch system must be one of {', '.join(BATCH_SYSTEMS)}, got {system!r}")
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise UsageError(f"cores must be a whole number of at least 1, got {cores!r}")
    dask_jobqueue = _import_keeping_ctrl_c()
    exports = [f"export {name}={shlex.quote(value)}" for name, value in WORKER_ENVIRONMENT.items()]
    options["job_script_prologue"] = [*exports, *options.get("job_script_prologue", ())]
    cluster_class = getattr(dask_jobqueue, BATCH_SYSTEMS[system])
    return cluster_class(cores=cores, processes=cores, memory=memory, walltime=walltime, queue=queue, account=account,
                         **options)


def run_on_cluster(cluster: Any, *, workers: int, **study: Any) -> pd.DataFrame:
    """Ask ``cluster`` for ``workers`` worker processes and run a study on them.

    The study starts at once: cells wait in the scheduler's queue until workers join (batch jobs
    waiting in their queue), and each worker takes the next as it comes.  The cluster is left as
    it is afterwards (leaving its ``with`` block closes it, and cancels a batch cluster's jobs).

    Parameters
    ----------
    cluster : dask.distributed.SpecCluster
        A started cluster: :func:`batch_cluster`'s, or a :class:`~dask.distributed.LocalCluster`.
    workers : int
        Worker processes to ask for (a batch cluster submits enough jobs of ``cores`` workers each).
    **study
        :func:`harness.execution.runner.run_study`'s arguments (``preset``, ``out``, ...), but not
        ``backend`` and ``scheduler``, which the cluster decides.

    Returns
    -------
    pandas.DataFrame
        The study's results table.
    """
    from harness.execution.runner import run_study

    cluster.scale(workers)
    return run_study(backend="dask", scheduler=cluster.scheduler_address, **study)


def _import_keeping_ctrl_c() -> Any:
    """``dask_jobqueue``, imported without the SIGINT handler its ``runner`` module installs when imported
    (``sys.exit()`` on Ctrl-C: a stopped run would end with status 0, without saying that its finished cells are
    saved and how to resume); the process keeps the handler it had.

    Raises
    ------
    UsageError
        When ``dask_jobqueue`` is not installed.
    """
    handler = signal.getsignal(signal.SIGINT)
    try:
        import dask_jobqueue
    except ImportError:
        raise UsageError("a batch cluster needs dask-jobqueue; install it with pip install "
                         "'disentanglement-harness[cluster]'") from None
    finally:
        if handler is not None:  # None: a handler not installed from Python, which Python cannot reinstall
            signal.signal(signal.SIGINT, handler)
    return dask_jobqueue

