"""Bad option values caught before a study runs, by the metric's own checks.

A metric checks its options when it is called (``bins must be at least 2, got 0``), so a bad
value given with ``--metric-option`` would otherwise fail every cell of its variant, after
the whole study ran.  :func:`check_option_values` calls each variant once on a small fixed
representation, next to its metric at the default options, before anything runs.  It
duplicates none of the metrics' checks, and it rejects a value only when the metric's own
check does regardless of the data:

on each of two probes, probe A (300 samples, 3 factors, 4 codes) and probe B (1000 samples,
5 factors, 20 codes), on which the metric at its default options scores (at least one), the
variant raises a ``ValueError`` or ``TypeError`` with the same message.  Probe B is called
only when probe A does not settle it: a valid variant costs one call on probe A.

A failure that depends on the data (too few samples for a batch size, fewer codes than a
``top_k``, a message naming the sample size) differs between the two probes, or passes on
the larger one, and is left to the cells, which record it as they always did; so is a
variant whose metric scores neither probe at its defaults.  Only what the
user gave is probed (the presets' own sweeps are known to be valid); a variant is probed
once per process.  The probes neither change the variants nor touch the cells' seeds, so
no score or cell key depends on them.  Under a cell time limit (``--cell-timeout``) each probe
call runs in a forked child stopped after that many seconds, as a cell's call is; a probe call
that times out, like any failure other than a ValueError or TypeError, is left to the cells.
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import metrics
from harness.errors import UsageError
from harness.execution.metric_refs import MetricEntry, load_callable, options_label
from harness.execution.scoring import call_with_time_limit
from harness.execution.user_code import user_code

#: (samples, factors, codes) of the two probe representations.
PROBE_SHAPES = ((300, 3, 4), (1000, 5, 20))
#: Seed of the probe representations and of stochastic metrics on them.
PROBE_SEED = 0
#: A population metric's probe members: the probe's first rows and codes.
POPULATION_ROWS, POPULATION_CODES = 300, 6


@functools.cache
def probe_representation(n: int, n_factors: int, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """Continuous factors uniform on [0, 1] and codes that each follow mostly one factor, plus a little noise."""
    rng = np.random.default_rng([PROBE_SEED, n, n_factors, n_codes])
    factors = rng.random((n, n_factors))
    loadings = np.eye(n_factors, n_codes, dtype=float)[:, np.arange(n_codes) % n_factors] + 0.2 * rng.random((n_factors, n_codes))
    codes = factors @ loadings + 0.05 * rng.standard_normal((n, n_codes))
    factors.setflags(write=False)
    codes.setflags(write=False)
    return factors, codes


def _default_options(entry: MetricEntry) -> dict[str, Any]:
    """The options of the metric a variant is of: a registered metric's defaults; a user function's own (none given)."""
    return dict(metrics.get(entry.target).defaults) if entry.registered else {}


#: Outcome of each probe call made in this process (see :func:`_outcome`), by metric, version, options and probe.
_OUTCOMES: dict[tuple[str, str, str, tuple[int, int, int]], str] = {}


def _outcome(entry: MetricEntry, options: Mapping[str, Any], shape: tuple[int, int, int], time_limit: float | None) -> str:
    """``""`` when the metric scores the probe of ``shape`` at ``options``, ``"Type: message"`` for the
    ValueError or TypeError it raises, and ``"other"`` for anything else, a call past ``time_limit`` seconds
    included (never a reason to reject).  Each call is made once per process."""
    key = (entry.target, entry.version, json.dumps(dict(options), sort_keys=True, default=repr), shape)
    if key not in _OUTCOMES:
        _OUTCOMES[key] = _call(entry, options, shape, time_limit)
    return _OUTCOMES[key]


def _call(entry: MetricEntry, options: Mapping[str, Any], shape: tuple[int, int, int], time_limit: float | None) -> str:
    """One call of ``entry``'s metric at ``options`` on the probe of ``shape`` (in a forked child stopped after
    ``time_limit`` seconds, when given); its outcome as :func:`_outcome`'s."""
    factors, codes = probe_representation(*shape)
    function = entry.target if entry.registered else load_callable(entry.target)

    def score() -> None:
        with warnings.catch_warnings(), user_code(f"metric {entry.name!r}"):
            warnings.simplefilter("ignore")
            if entry.population:  # population metrics (UDR) grow fast with the codes: a few of them, on few rows
                first = codes[:POPULATION_ROWS, :POPULATION_CODES]
                members = [first, first[:, ::-1], np.tanh(first)]
                metrics.evaluate_population(function, members, random_state=PROBE_SEED, **options)
            else:
                metrics.evaluate(function, factors, codes,
                                 random_state=PROBE_SEED if entry.stochastic or not entry.registered else None, **options)

    state = np.random.get_state()  # a user function drawing from numpy's global generator leaves it as it was
    try:
        score() if time_limit is None else call_with_time_limit(score, time_limit)
    except (ValueError, TypeError) as error:
        return f"{type(error).__name__}: {' '.join(str(error).split())}"
    except Exception:  # noqa: BLE001 - a metric may fail in any way on the probe; that is the cells' business
        return "other"
    finally:
        np.random.set_state(state)
    return ""


def rejection(entry: MetricEntry, time_limit: float | None = None) -> str:
    """Why the metric rejects the options of variant ``entry`` whatever the data (``""`` when it does not);
    each probe call stopped after ``time_limit`` seconds when given."""
    default, given = _default_options(entry), dict(entry.options)
    messages = set()
    for shape in PROBE_SHAPES:
        if _outcome(entry, default, shape, time_limit) != "":
            continue  # the metric does not score this probe at all: it says nothing about the options
        outcome = _outcome(entry, given, shape, time_limit)
        if outcome in ("", "other"):
            return ""
        messages.add(outcome)
    return messages.pop() if len(messages) == 1 else ""


def check_option_values(entries: Sequence[MetricEntry], time_limit: float | None = None) -> None:
    """Raise for the first variant among ``entries`` whose options its metric rejects (see the module docstring).

    Entries that are not variants of an option sweep are not probed.  With a ``time_limit`` (the study's cell
    time limit, seconds) each probe call runs in a forked child stopped after that long.

    Raises
    ------
    harness.errors.UsageError
        Naming the metric, the variant's option values and the metric's own message, e.g. ``metric 'mig' does not
        take bins=0: ValueError: bins must be at least 2, got 0``.
    """
    for entry in entries:
        if not entry.variant_of:
            continue
        message = rejection(entry, time_limit)
        if message:
            raise UsageError(f"metric {entry.variant_of!r} does not take {options_label(entry.variant_options)}: "
                             f"{message}")
