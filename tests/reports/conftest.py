"""A results table built by hand, whose every analysis result is known in closed form.

Metrics (seeds 0, 1, 2; n = 2000 except in ``sample_size``, where n is the value):

* ``lin`` (predictor; modularity, compactness, explicitness sub-scores): perfectly
  linear and calibrated, ``score = 0.98 * ideal + 0.01 + 0.01 * (seed - 1)``, so its
  mean over seeds is ``0.98 * ideal + 0.01`` and its spread exactly 0.01.  In
  ``sample_size``: ``0.5 + 10 (seed + 1) / n``.  Under noise its modularity and
  compactness follow :data:`LIN_NOISE_STRUCTURE` instead of the ideal (1 up to alpha
  = 0.6, then down to 0), as a robust and calibrated metric should.  Seconds per call
  ``1e-3 n / 1000``.
* ``step`` (information; explicitness): a step function, 1 where the ideal
  explicitness is at least 0.5 and 0 below.  Constant 0.7 in ``sample_size``.
  Seconds ``1e-4 (n / 1000)^2``.
* ``uncal`` (intervention; modularity): linear but uncalibrated:
  ``0.85 - 0.5 alpha`` under noise, ``0.25 + 0.6 * ideal`` under mixing, 0.7 under
  the nonlinear map, ``0.9 - 0.1 (8 - k)`` with k measured factors, 0.85 in
  modular_not_compact, ``0.5 + 100 (seed + 1) / n`` in ``sample_size``.  Seconds 0.01.
* ``holo`` (custom; holistic, no ideal): the mean of the three ideals.  0.6 in
  ``sample_size``.  Seconds 0.002.
* ``pid`` (information; four PID terms) only in ``gaussian_toy_attack``.

Under noise the rows state modularity and compactness ideals only on alpha <= 0.5 (:data:`IDEAL_ENDS`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

SEEDS = (0, 1, 2)
N = 2000
SCENARIOS = {
    # name: (parameter, values, labels or None, ideal(value) -> (modularity, compactness, explicitness))
    "noise": ("alpha", [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], None, lambda a: (1.0, 1.0, 1.0 - a)),
    "mixing": ("alpha", [0.0, 0.1, 0.2, 0.3, 0.4, 0.5], None, lambda a: (1 - 2 * a, 1 - 2 * a, 1.0)),
    "nonlinear": ("alpha", [0.0, 0.25, 0.5, 0.75, 1.0], None, lambda a: (1.0, 1.0, 1.0)),
    "partial": ("k", [8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], None, lambda k: (1.0, 1.0, 1.0)),
    "modular_not_compact": ("case", [0.0, 1.0, 2.0], ["cos_sin", "duplicate_2", "duplicate_4"],
                            lambda i: (1.0, [0.5, 0.5, 0.25][int(i)], 1.0)),
    "sample_size": ("n", [100.0, 1000.0, 10000.0, 100000.0], None, None),
    "gaussian_toy_attack": ("alpha", [0.0, 1.0, 2.0], None, None),
}
#: What ``lin``'s modularity and compactness follow under noise: the ideal (1) up to
#: alpha = 0.6, then down to 0 for pure noise, so that they are both robust (alpha <= 0.5)
#: and calibrated (0 at alpha = 1).
LIN_NOISE_STRUCTURE = {0.0: 1.0, 0.2: 1.0, 0.4: 1.0, 0.6: 1.0, 0.8: 0.5, 1.0: 0.0}
#: Where a scenario defines a property's ideal, as ``scenarios.noise`` declares it: modularity and compactness only
#: while the code carries more signal than noise (alpha <= 0.5); the rows carry no ideal beyond.
IDEAL_ENDS = {"noise": {"modularity": 0.5, "compactness": 0.5}}
#: What each scenario declares it tests (the harness writes this from scenario metadata).
CRITERION = {"noise": "noise", "nonlinear": "nonlinearity", "partial": "non_measured_factors",
             "sample_size": "sample_efficiency", "gaussian_toy_attack": "attacks"}
#: ``step`` warns twice in every call of the noise scenario (a count and a first message per row).
STEP_WARNING = "ConvergenceWarning: did not converge"
PID_TERMS = {"unique_lower": 0.6, "unique_upper": 0.8, "redundant_lower": 0.1, "redundant_upper": 0.2}


def _row(scenario, value, label, seed, n, metric, family, sub_score, prop, ideal, score, seconds,
         stated=(np.nan, np.nan, np.nan)):
    """One row; ``stated`` is the scenario's (modularity, compactness, explicitness) ideal at the row's value, which the
    harness writes on every row whatever its property."""
    parameter = SCENARIOS[scenario][0]
    return {
        "study": "synthetic", "scenario": scenario, "parameter": parameter, "criterion": CRITERION.get(scenario, ""),
        "value": float(value), "value_label": label,
        "seed": seed, "n_samples": n, "metric": metric, "family": family, "sub_score": sub_score, "property": prop,
        "higher_is_better": True, "ideal": ideal, "ideal_modularity": stated[0], "ideal_compactness": stated[1],
        "ideal_explicitness": stated[2], "score": float(score), "exact": float("nan"),
        "seconds": float(seconds), "null_mean": float("nan"), "null_q95": float("nan"), "p_value": float("nan"),
        "null_permutations": 0, "null_seconds": 0.0, "warnings": 2 if (metric == "step" and scenario == "noise") else 0,
        "first_warning": STEP_WARNING if (metric == "step" and scenario == "noise") else "", "looks": 1,
        "metric_version": "1", "harness_version": "test",
    }


def _uncal(scenario: str, value: float, ideal_m: float, n: int, seed: int) -> float:
    return {
        "noise": 0.85 - 0.5 * value,
        "mixing": 0.25 + 0.6 * ideal_m,
        "nonlinear": 0.7,
        "partial": 0.9 - 0.1 * (8 - value),
        "modular_not_compact": 0.85,
        "sample_size": 0.5 + 100 * (seed + 1) / n,
    }[scenario]


def as_variant(rows: pd.DataFrame, base: str, options: dict, defaults: dict | None = None) -> pd.DataFrame:
    """``rows`` as the harness writes a variant of an option sweep of ``base``: its display name, its metric, the
    options it sets and their defaults (those of ``defaults`` it sets) as data."""
    from reports.results.schema import encode_options

    known = defaults or {}
    return rows.assign(metric=f"{base}[{','.join(f'{k}={v}' for k, v in options.items())}]", metric_base=base,
                       options=encode_options(options),
                       default_options=encode_options({key: known[key] for key in options if key in known}))


def build_results() -> pd.DataFrame:
    """The full synthetic table described in the module docstring."""
    rows = []
    for scenario, (_parameter, values, labels, ideal_of) in SCENARIOS.items():
        for index, value in enumerate(values):
            label = labels[index] if labels else f"{value:g}"
            for seed in SEEDS:
                n = int(value) if scenario == "sample_size" else N
                if scenario == "gaussian_toy_attack":
                    for term, base in PID_TERMS.items():
                        rows.append(_row(scenario, value, label, seed, n, "pid", "information", term, "holistic",
                                         np.nan, base / (1 + value) + 0.01 * seed, 5e-3))
                    continue
                ideals = ideal_of(value) if ideal_of else (np.nan, np.nan, np.nan)
                declared = [ideal if value <= IDEAL_ENDS.get(scenario, {}).get(prop, np.inf) else np.nan
                            for prop, ideal in zip(("modularity", "compactness", "explicitness"), ideals)]
                for prop, ideal, stated in zip(("modularity", "compactness", "explicitness"), ideals, declared):
                    target = LIN_NOISE_STRUCTURE[value] if scenario == "noise" and prop != "explicitness" else ideal
                    score = 0.5 + 10 * (seed + 1) / n if np.isnan(ideal) else 0.98 * target + 0.01 + 0.01 * (seed - 1)
                    rows.append(_row(scenario, value, label, seed, n, "lin", "predictor", prop, prop, stated, score,
                                     1e-3 * n / 1000, declared))
                step = 0.7 if np.isnan(ideals[2]) else float(ideals[2] >= 0.5)
                rows.append(_row(scenario, value, label, seed, n, "step", "information", "step", "explicitness",
                                 ideals[2], step, 1e-4 * (n / 1000) ** 2, declared))
                rows.append(_row(scenario, value, label, seed, n, "uncal", "intervention", "uncal", "modularity",
                                 declared[0], _uncal(scenario, value, ideals[0], n, seed), 0.01, declared))
                holo = 0.6 if np.isnan(ideals[0]) else float(np.mean(ideals))
                rows.append(_row(scenario, value, label, seed, n, "holo", "custom", "holo", "holistic", np.nan, holo, 2e-3,
                                 declared))
    return pd.DataFrame(rows)


@pytest.fixture(scope="session")
def variant_of():
    """:func:`as_variant`, for the test modules (which cannot import this file)."""
    return as_variant


@pytest.fixture(scope="session")
def synthetic_results() -> pd.DataFrame:
    return build_results()


@pytest.fixture(scope="session")
def synthetic_report(written_once, synthetic_results):
    """The report of the full synthetic table, written once for the whole test run (about 30 s) and shared by the
    pytest-xdist workers: (run directory, html path).  Read it, never write into it."""
    from reports import write_report

    def write(run_dir):
        synthetic_results.to_parquet(run_dir / "results.parquet")
        write_report(synthetic_results, run_dir)

    run_dir = written_once("synthetic_run", write)
    return run_dir, run_dir / "report.html"


def build_realistic_results(copies: int = 4) -> pd.DataFrame:
    """A table the size of a real study: every metric of :func:`build_results` (but pid) ``copies`` times under new
    names, and an entanglement attack (``my_attack``, mixing's trajectory declared as ``attacks``), so that every
    criterion is covered by many metrics; one copy (``lin_flat``) scores a constant, whose undefined statistics
    print the longest cells a real run has ("ρ undefined (constant score), slope 0.00")."""
    base = build_results()
    pid = base.loc[base["metric"] == "pid"]
    others = base.loc[base["metric"] != "pid"]
    attack = others.loc[others["scenario"] == "mixing"].assign(scenario="my_attack", criterion="attacks")
    others = pd.concat([others, attack], ignore_index=True)
    copied = [others.assign(metric=others["metric"] + f"_{index}") for index in range(copies)]
    lin = others.loc[others["metric"] == "lin"]
    flat = lin.assign(metric="lin_flat", score=0.5)
    # a swept registered metric (mig over bins), so that the sensitivity columns hold measured verdicts
    compact = lin.loc[lin["sub_score"] == "compactness"]
    swept = [as_variant(compact.assign(family="information", sub_score="mig", score=compact["score"] - shift), "mig",
                        {"bins": bins}, {"bins": 10})
             for bins, shift in ((5, 0.3), (10, 0.0), (20, 0.05), (40, 0.1))]
    return pd.concat([*copied, flat, *swept, pid], ignore_index=True)


@pytest.fixture(scope="session")
def realistic_report(written_once):
    """The report of :func:`build_realistic_results`, written once for the whole test run (about a minute) and shared
    by the pytest-xdist workers: the path of report.html."""
    from reports import write_report

    return written_once("realistic_run", lambda out: write_report(build_realistic_results(), out)) / "report.html"


@pytest.fixture(scope="session")
def realistic_results() -> pd.DataFrame:
    """:func:`build_realistic_results` with one copy of each metric: every criterion, attacks included."""
    return build_realistic_results(copies=1)
