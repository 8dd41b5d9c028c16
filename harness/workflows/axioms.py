"""Axiom checks: properties any disentanglement metric should have, each measured with a number.

Every check scores a *probe* representation (default: the ``mixing`` scenario at
``alpha = 0.2``, ``n = 2000``, seed 0; intermediate modularity and compactness, so a
change in either direction shows) and a transformed copy with the same
``random_state``, and compares the scores (the largest difference over sub-scores):

============================  =================================================  =============================
check                         transformation (what must not change the score)    passes when
============================  =================================================  =============================
``permute_codes``             code columns in a seeded random order that moves    ``|delta| <= tol``
                              every column
``permute_samples``           rows of factors and codes in the same random order  ``|delta| <= tol``
``flip_sign``                 every other code negated (columns 0, 2, 4, ...)     ``|delta| <= tol``
``rescale``                   code ``j`` multiplied by ``2**e_j``, ``e_j`` seeded ``|delta| <= tol``
                              in ``-6 .. 6`` (powers of two: exact in floating
                              point, so only the metric can break invariance)
``monotone``                  each code min-max scaled to [0, 1], then the tan     ``|delta| <= tol``
                              map of Zaidi et al. (2022), eq. 10, at
                              ``alpha = 0.5`` (strictly increasing)
``duplicate_code``            a copy of code 0 appended                            improvement ``<= tol``
``determinism``               none: the same call twice, same seed                 ``|delta| <= 1e-12``
``chance``                    code rows shuffled, independent of the factors       ``max |oriented| <= chance_tol``
============================  =================================================  =============================

``tol = atol + 4 * spread`` where ``atol = 1e-3`` (far below any seed-to-seed spread
of the built-ins, far above round-off and iterative-solver tolerances) and
``spread`` is 0 for a deterministic metric and, for a stochastic one, the range of
its scores on the probe over 5 random states (so a check does not fail on the
metric's own randomness: a difference of two draws exceeds 4 ranges of 5 draws with
probability below 1 %).  The *improvement* of ``duplicate_code`` is the change of the
score in its better direction (each sub-score's own, :meth:`MetricEntry.higher_is_better_for
<harness.execution.metric_refs.MetricEntry.higher_is_better_for>`).  ``chance`` asks for the
worst score, as the review asks "the minimum score" of "a completely random ...
representation" (Zaidi et al. 2022, section 3): it compares the *oriented* score
(:func:`reports.results.table.oriented`: the score, or ``1 - score`` for a lower-is-better
sub-score) with 0, with ``chance_tol = 0.05 + 4 * spread``.  So a lower-is-better score
is at chance when it is 1, the rule calibration's random end uses
(:func:`reports.analyses.calibration.calibration`): the two never disagree on which end is
chance, and both assume scores normalised to [0, 1].

With a time limit (``check_axioms(timeout=S)``; ``validate``'s ``cell_timeout``,
``--cell-timeout``), each call of the metric runs in a forked child stopped after ``S``
seconds, as the battery's cells are: a check whose call timed out fails with "timed out
after S s", and a metric timing out on the untransformed probe fails every check.

Known limits: the probe's codes are statistically interchangeable (cyclic band
matrix), so ``duplicate_code`` catches a metric that rewards *more* codes, not one
that rewards duplicating its *best* code.  The checks are properties of the metric on
one representation and one seed; a pass is evidence, not proof.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

import metrics
from harness.errors import UsageError
from harness.execution.scenario_refs import scenario_for
from harness.execution.scoring import CellTimeout, call_with_time_limit, check_time_limit, raised_at
from harness.execution.user_code import user_code
from harness.workflows.user_metric import MetricLike, metric_entry
from metrics._entry import accepts
from metrics.evaluation import NotAScoreError
from metrics.registry import check_directions
from reports.results.table import oriented

#: Default probe: (scenario, parameter value).
DEFAULT_PROBE = ("mixing", 0.2)
PROBE_SAMPLES = 2000
ATOL = 1e-3
CHANCE_TOLERANCE = 0.05
DETERMINISM_TOLERANCE = 1e-12
NOISE_SEEDS = 5
NOISE_FACTOR = 4.0
MONOTONE_ALPHA = 0.5
RESCALE_EXPONENTS = 6

Scores = dict[str, float]

#: Each check, in the order they run, and what it asserts.
STATEMENTS = {
    "permute_codes": "invariant to permuting code columns",
    "permute_samples": "invariant to permuting samples",
    "flip_sign": "invariant to flipping a code's sign",
    "rescale": "invariant to positive rescaling of codes",
    "monotone": "invariant to a strictly monotone map of each code",
    "duplicate_code": "no reward for duplicating a code",
    "determinism": "same seed, same score",
    "chance": "chance-level score on independent codes (0; 1 if lower is better)",
}


@dataclass(frozen=True)
class AxiomResult:
    """The outcome of one axiom check.

    Attributes
    ----------
    axiom : str
        Short name (``permute_codes``, ...).
    statement : str
        What must hold.
    measured : float
        The measured number (see the module docstring for each check); NaN when the
        metric raised or timed out on the transformed data, or on the probe itself (then
        every check has it), with ``passed`` False and ``detail`` holding the error; infinite when it
        returned other sub-scores.
    tolerance : float
        The pass/fail threshold for ``measured``.
    passed : bool
        Whether the check holds.
    detail : str
        Which sub-score decided, or the error the metric raised ("timed out after S s" for
        a call stopped by the time limit).
    """

    axiom: str
    statement: str
    measured: float
    tolerance: float
    passed: bool
    detail: str = ""


@dataclass(frozen=True)
class Probe:
    """The representation the axioms are checked on."""

    factors: np.ndarray
    codes: np.ndarray
    discrete: tuple[bool, ...]
    label: str


def make_probe(scenario: str = DEFAULT_PROBE[0], value: Any = DEFAULT_PROBE[1], *, n: int = PROBE_SAMPLES, seed: int = 0) -> Probe:
    """Generate the probe representation.

    Parameters
    ----------
    scenario : str
        A representation scenario: a registered name, a composition
        ``TRANSFORM@BASE=VALUE`` or a user's ``path/to/file.py:name``
        (:func:`harness.execution.scenario_refs.scenario_for`).
    value : parameter value
        Checked by the scenario before anything is generated.
    n, seed : int
        Samples and seed.  A scenario that fixes its own draw size (``sample_size``, whose
        value is the number of rows) is drawn as a study draws it; the label gives the
        rows the probe has.

    Raises
    ------
    harness.errors.UsageError
        For an unknown scenario (with suggestions), a population scenario, or a value or
        sample size the scenario does not accept.
    """
    generator = scenario_for(scenario)
    if generator.kind != "representation":
        raise UsageError(f"the axioms' probe must be a representation scenario; {scenario!r} is a {generator.kind} scenario")
    draw = generator.default_n if generator.default_n is not None else n  # as a study draws it
    try:
        with user_code(f"scenario {scenario!r}"):
            data = generator.generate(value, n=draw, seed=seed)
    except (TypeError, ValueError) as error:  # the value or the sample size, said by the scenario
        raise UsageError(f"probe {scenario}:{value}: {error}") from None
    except Exception as error:  # a user's scenario may fail in any way (sys.exit included)
        raise UsageError(f"probe {scenario}:{value}: {type(error).__name__}: {error}") from None
    rows = data.factors.shape[0]
    return Probe(data.factors, data.codes, data.discrete, f"{scenario} at {generator.parameter} = {generator.label(value)}, n = {rows}, seed {seed}")


Judgement = tuple[float, bool, str]


def _invariance_judge(base: Scores) -> Callable[[Scores, float], Judgement]:
    """Judge of an invariance: the largest |difference| from ``base`` over sub-scores."""

    def judge(scores: Scores, tolerance: float) -> Judgement:
        if set(scores) != set(base):
            return float("inf"), False, f"sub-scores changed: {sorted(base)} -> {sorted(scores)}"
        worst = max(base, key=lambda key: abs(scores[key] - base[key]))
        measured = abs(scores[worst] - base[worst])
        return measured, measured <= tolerance, worst

    return judge


def _no_gain_judge(base: Scores, higher_is_better_for: Callable[[str], bool]) -> Callable[[Scores, float], Judgement]:
    """Judge of "no reward": the largest change over sub-scores, each in its better direction."""

    def judge(scores: Scores, tolerance: float) -> Judgement:
        if set(scores) != set(base):
            return float("inf"), False, f"sub-scores changed: {sorted(base)} -> {sorted(scores)}"
        gains = {key: (1.0 if higher_is_better_for(key) else -1.0) * (scores[key] - base[key]) for key in base}
        worst = max(gains, key=gains.get)
        return gains[worst], gains[worst] <= tolerance, worst

    return judge


def _chance_judge(higher_is_better_for: Callable[[str], bool]) -> Callable[[Scores, float], Judgement]:
    """Judge of chance level: the largest |oriented score| over sub-scores (``1 - score`` for a lower-is-better one,
    as calibration reads it)."""

    def judge(scores: Scores, tolerance: float) -> Judgement:
        distance = {key: abs(oriented(value, higher_is_better_for(key))) for key, value in scores.items()}
        worst = max(distance, key=distance.get)
        return distance[worst], distance[worst] <= tolerance, worst

    return judge


def permuted_codes(codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Code columns in a random order that moves every column (unchanged when there is one code)."""
    width = codes.shape[1]
    order = rng.permutation(width)
    while width > 1 and np.any(order == np.arange(width)):
        order = rng.permutation(width)
    return codes[:, order]


def flipped_signs(codes: np.ndarray) -> np.ndarray:
    """Every other code negated (columns 0, 2, 4, ...)."""
    signs = np.where(np.arange(codes.shape[1]) % 2 == 0, -1.0, 1.0)
    return codes * signs


def rescaled(codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each code times a power of two ``2**e``, ``e`` drawn in ``-6 .. 6`` (not all 0)."""
    exponents = rng.integers(-RESCALE_EXPONENTS, RESCALE_EXPONENTS + 1, size=codes.shape[1])
    if not exponents.any():
        exponents[0] = RESCALE_EXPONENTS
    return codes * np.exp2(exponents)


def tan_map(unit: np.ndarray, alpha: float = MONOTONE_ALPHA) -> np.ndarray:
    """The strictly increasing map of [0, 1] onto [0, 1] of Zaidi et al. (2022), eq. 10.

    ``f(u) = 1000**(0.25 - alpha) * tan(omega (u - 0.5)) + 0.5`` with
    ``omega = 2 arctan(1000**(alpha - 0.25) / 2)``, so that ``f(0) = 0`` and ``f(1) = 1``.
    """
    omega = 2.0 * np.arctan(1000.0 ** (alpha - 0.25) / 2.0)
    return 1000.0 ** (0.25 - alpha) * np.tan(omega * (unit - 0.5)) + 0.5


def monotone_reparametrised(codes: np.ndarray, alpha: float = MONOTONE_ALPHA) -> np.ndarray:
    """Each code min-max scaled to [0, 1] and passed through :func:`tan_map` (constant codes kept)."""
    low, span = codes.min(axis=0), np.ptp(codes, axis=0)
    unit = np.divide(codes - low, span, out=np.zeros_like(codes), where=span > 0)
    return np.where(span > 0, tan_map(unit, alpha), codes)


def _scores(function: Callable[..., Any], factors: np.ndarray, codes: np.ndarray, discrete: tuple[bool, ...],
            random_state: int, timeout: float | None = None) -> Scores:
    """One call of the metric as every check makes it: BLAS threads pinned to 1; with a ``timeout``, in a forked
    child stopped after that many seconds (:func:`harness.execution.scoring.call_with_time_limit`, as the battery's
    cells are), raising :class:`~harness.execution.scoring.CellTimeout`."""

    def call() -> Scores:
        with threadpool_limits(limits=1), user_code(f"metric {metrics.metric_name(function)!r}"):
            return metrics.evaluate(function, factors, codes, discrete=discrete, random_state=random_state)

    return call() if timeout is None else call_with_time_limit(call, timeout)


def _failure(error: Exception, where: str = "") -> str:
    """A check's detail when the metric's call failed: ``timed out after S s`` or ``the metric raised ERROR: text``
    (``where`` is said after the error's name: `` on the probe itself``)."""
    if isinstance(error, CellTimeout):
        return f"{error}{where}"
    return f"the metric raised {type(error).__name__}{where}: {error}{raised_at(error)}"


def probe_sub_scores(metric: MetricLike, probe: Probe, seed: int = 0, timeout: float | None = None) -> list[str] | None:
    """The sub-scores the metric returns on the probe (one call, as the axiom checks call it, stopped after
    ``timeout`` seconds when given); None when it raises or times out, so that its failure is reported by the checks
    and the battery, not here; but a result that is no score at all (:class:`metrics.evaluation.NotAScoreError`:
    text, an array, None, ...) raises a :class:`~harness.errors.UsageError`, as every call would return one."""
    function = metric if callable(metric) else metric_entry(metric).callable()
    try:
        return list(_scores(function, probe.factors, probe.codes, probe.discrete, seed, timeout))
    except NotAScoreError as error:
        raise UsageError(f"{error} on the probe ({probe.label}): a metric returns a number, or a mapping of sub-score "
                         "names to numbers, on every representation") from None
    except Exception:  # a metric under development may raise anywhere; the checks report it
        return None


def seed_dependence(metric: MetricLike, probe: Probe, seed: int = 0, timeout: float | None = None) -> str:
    """For a metric declared deterministic that takes ``random_state``: a warning when its scores on the probe move
    with it (two calls, seeds ``seed`` and ``seed + 1``), as a stochastic metric's do, "" otherwise (or when a call
    fails: the checks report it).  Declared deterministic, its seeds' spread reads as a property of the data, and the
    axioms' tolerances are not widened for it."""
    function = metric if callable(metric) else metric_entry(metric).callable()
    if not accepts(function, "random_state"):
        return ""
    try:
        first, second = (_scores(function, probe.factors, probe.codes, probe.discrete, state, timeout)
                         for state in (seed, seed + 1))
    except Exception:  # a metric under development may raise anywhere; the checks report it
        return ""
    moved = {sub: (first[sub], second[sub]) for sub in first if sub in second and first[sub] != second[sub]}
    if not moved:
        return ""
    sub, (a, b) = next(iter(moved.items()))
    return (f"{metrics.metric_name(function)} is declared deterministic but its scores move with random_state ({sub}: "
            f"{a:.6g} with seed {seed}, {b:.6g} with seed {seed + 1}, on the probe): declare it stochastic (--stochastic "
            "or describe_metric(stochastic=True)), so that its seed-to-seed spread reads as the metric's own noise and "
            "the axioms' tolerances allow for it")


def axiom_calls(stochastic: bool) -> int:
    """How many times :func:`check_axioms` calls the metric: the probe, each check, and the
    extra random states that measure a stochastic metric's spread."""
    return 1 + len(STATEMENTS) + (NOISE_SEEDS - 1 if stochastic else 0)


def check_axioms(
    metric: MetricLike,
    *,
    higher_is_better: bool | Mapping[str, bool] | None = None,
    stochastic: bool | None = None,
    probe: Probe | None = None,
    seed: int = 0,
    atol: float = ATOL,
    chance_tolerance: float = CHANCE_TOLERANCE,
    timeout: float | None = None,
) -> list[AxiomResult]:
    """Run every axiom check on a metric (see the module docstring for each).

    Parameters
    ----------
    metric : str or callable
        A registered metric name, a ``module:function`` / ``file.py:function``
        reference, or any callable ``fn(factors, codes, **options)``.
    higher_is_better : bool or Mapping[str, bool], optional
        Override the metric's direction (registry, or :func:`describe_metric`; default
        True): one for every sub-score, or sub-score -> direction (unlisted ones
        higher-is-better).
    stochastic : bool, optional
        Override the metric's stochasticity (default False).
    probe : Probe, optional
        The representation checked (default :func:`make_probe`).
    seed : int, default 0
        Seed of the transformations and the ``random_state`` given to the metric.
    atol, chance_tolerance : float
        Tolerances, see the module docstring.
    timeout : float, optional
        Seconds each call of the metric may take: a call that runs longer is stopped
        (it runs in a forked child, as a battery cell under ``cell_timeout`` does) and
        its check fails with "timed out after S s".  None: no limit, in process.

    Returns
    -------
    list of AxiomResult
        In the order of the module docstring's table.  A metric that raises or times
        out on the untransformed probe fails every check with its error (nothing is
        raised), so ``validate`` still writes the card of a metric under development.

    Raises
    ------
    harness.errors.UsageError
        For a ``timeout`` that is not a finite number of seconds > 0, or a
        ``higher_is_better`` mapping naming a sub-score the metric does not return on
        the probe.

    Notes
    -----
    Cost: 9 calls of the metric on the probe (13 for a stochastic metric), with BLAS
    threads pinned to 1; with a ``timeout``, at most that many seconds each (a metric
    timing out on the untransformed probe is called once).
    """
    check_time_limit(timeout, "timeout")
    entry = metric_entry(metric, higher_is_better=higher_is_better, stochastic=stochastic)
    function = metric if callable(metric) else entry.callable()
    probe = probe if probe is not None else make_probe(seed=seed)

    def score(factors: np.ndarray, codes: np.ndarray, random_state: int = seed) -> Scores:
        return _scores(function, factors, codes, probe.discrete, random_state, timeout)

    factors, codes = probe.factors, probe.codes
    try:
        base = score(factors, codes)
        spread = 0.0
        if entry.stochastic:
            draws = [base] + [score(factors, codes, seed + k) for k in range(1, NOISE_SEEDS)]
            spread = max(max(d[key] for d in draws) - min(d[key] for d in draws) for key in base)
    except Exception as error:  # nothing to compare with: every check fails with the metric's own error
        return _all_failed(_failure(error, " on the probe itself"), atol, chance_tolerance)
    if isinstance(higher_is_better, Mapping):  # a direction for a sub-score the metric lacks would be ignored
        try:
            check_directions(higher_is_better, base, entry.name)
        except ValueError as error:
            raise UsageError(f"{error}; it returned: {', '.join(sorted(base))}") from None
    tolerance = atol + NOISE_FACTOR * spread
    rng = np.random.default_rng(seed)
    rows = rng.permutation(factors.shape[0])
    invariant = _invariance_judge(base)
    checks = [
        ("permute_codes", lambda: (factors, permuted_codes(codes, rng)), invariant, tolerance),
        ("permute_samples", lambda: (factors[rows], codes[rows]), invariant, tolerance),
        ("flip_sign", lambda: (factors, flipped_signs(codes)), invariant, tolerance),
        ("rescale", lambda: (factors, rescaled(codes, rng)), invariant, tolerance),
        ("monotone", lambda: (factors, monotone_reparametrised(codes)), invariant, tolerance),
        ("duplicate_code", lambda: (factors, np.column_stack([codes, codes[:, :1]])),
         _no_gain_judge(base, entry.higher_is_better_for), tolerance),
        ("determinism", lambda: (factors, codes), invariant, DETERMINISM_TOLERANCE),
        ("chance", lambda: (factors, codes[rng.permutation(codes.shape[0])]), _chance_judge(entry.higher_is_better_for),
         chance_tolerance + NOISE_FACTOR * spread),
    ]
    results = []
    for axiom, transformed, judge, threshold in checks:
        try:
            measured, passed, detail = judge(score(*transformed()), threshold)
        except Exception as error:  # a metric crashing on transformed data fails that check, the others still run
            measured, passed, detail = float("nan"), False, _failure(error)
        if entry.stochastic:
            detail = f"{detail}; seed spread {spread:.3g}"
        results.append(AxiomResult(axiom, STATEMENTS[axiom], measured, threshold, passed, detail))
    return results


def _all_failed(detail: str, atol: float, chance_tolerance: float) -> list[AxiomResult]:
    """Every check failed for one reason (the metric raised on the untransformed probe)."""
    thresholds = {"determinism": DETERMINISM_TOLERANCE, "chance": chance_tolerance}
    return [AxiomResult(axiom, statement, float("nan"), thresholds.get(axiom, atol), False, detail)
            for axiom, statement in STATEMENTS.items()]
