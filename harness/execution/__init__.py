"""Execution: presets, planning a study into cells and tasks, seeds, scoring, backends and the store.

Read in the order data flows: :mod:`~harness.execution.presets` ->
:mod:`~harness.execution.metric_refs` (what a metric name or reference resolves to) ->
:mod:`~harness.execution.plan` (cells and tasks, keyed with the provenance of their code and libraries,
:mod:`~harness.execution.provenance`; :mod:`~harness.execution.costs` estimates them from the measured tables of
:mod:`~harness.execution.cost_records`, which :mod:`~harness.execution.cost_measurement` measures) -> :mod:`~harness.execution.backends` (where tasks run;
:mod:`~harness.execution.batch`: workers from SLURM or PBS) ->
:mod:`~harness.execution.scoring` (one task on a worker; :mod:`~harness.execution.seeds`,
:mod:`~harness.execution.rows`; what the code read, :mod:`~harness.execution.read_audit` and
:mod:`~harness.execution.reads`) -> :mod:`~harness.execution.store` (every finished cell
persisted; :mod:`~harness.execution.recompute` says why a stored cell is recomputed) ->
:mod:`~harness.execution.runner` (``run_study``, tying them together; :mod:`~harness.execution.racing` adds seeds
round by round where a verdict is undecided).
"""
