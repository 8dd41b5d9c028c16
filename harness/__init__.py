"""The harness: plans and executes studies (scenario x value x seed x n x metric),
persists every finished cell, and is the command line (``python -m harness``).

Public API
----------
run_study(...)
    Plan and execute a study; returns the tidy results table.
PRESETS
    The named study presets (``quick``, ``default``, ``paper``).
"""

from harness.execution.presets import PRESETS, Preset
from harness.execution.runner import run_study
from harness.version import __version__

__all__ = ["PRESETS", "Preset", "__version__", "run_study"]
