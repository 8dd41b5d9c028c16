"""The harness: plans and executes studies (scenario x value x seed x n x metric),
persists every finished cell, and is the command line (``python -m harness``).

Rooms, in the order data flows:

``harness.cli``
    The command line: one module per command.
``harness.workflows``
    What a user does with studies: evaluate arrays, validate a new metric (with its
    axiom checks), save and check baselines, the estimator report.
``harness.execution``
    Presets, planning a study into cells and tasks, seeds, scoring, backends, the store.

Public API
----------
run_study(...)
    Plan and execute a study; returns the tidy results table.
plan_study(...)
    The cells a study would run, running nothing.
PRESETS
    The named study presets (``quick``, ``default``, ``paper``).
"""

from __future__ import annotations

from typing import Any

from harness.execution.presets import PRESETS, Preset
from harness.version import __version__

__all__ = ["PRESETS", "Preset", "__version__", "plan_study", "run_study"]


def __dir__() -> list[str]:
    """The module's names, the lazily imported ``run_study`` and ``plan_study`` included (for ``dir`` and completion)."""
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    """Import the runner (and with it numpy, pandas and every metric) only when it is used."""
    if name in ("run_study", "plan_study"):
        from harness.execution import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'harness' has no attribute {name!r}")
