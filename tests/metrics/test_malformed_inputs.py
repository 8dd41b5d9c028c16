"""Malformed and degenerate inputs through the metrics' public entry points, for every registered metric.

Every registered metric (through :func:`metrics.evaluate` and
:func:`metrics.evaluate_population`) receives NaN, inf, mismatched rows, 1-D, 3-D, empty and one-sample arrays, strings,
objects, complex and boolean arrays, huge and tiny magnitudes, constant and duplicate
columns, more bins than samples and unknown names (out-of-range option values: ``test_option_constraints.py``).

Each one must end in one of two ways:

* a clear error: a ``ValueError``/``TypeError`` (``KeyError`` for unknown names) whose
  message names the argument at fault;
* a documented finite result.  The documented results are: boolean arrays are read as
  0/1, and integer, float32, object-of-number, nested-list and DataFrame inputs as the
  same float64 matrix, so they score *exactly* as that matrix does; constant columns,
  duplicate columns, magnitudes within the supported range (``1e-150`` to ``1e150``),
  a single factor or code, coarse (two-level) codes and more bins than samples give
  finite scores; two samples give finite scores or a ``ValueError`` that mentions the
  samples; a constant factor gives finite scores or a ``ValueError`` saying that it is
  constant.

No score is ever a silent NaN: :func:`metrics.evaluate` turns a non-finite score into an
error, and every documented result is checked to be finite here.

The same battery for the scenarios' ``generate`` is ``tests/scenarios/test_generate_arguments.py``, and for the
command line ``tests/harness/test_cli_errors.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import metrics

METRICS = metrics.available()
POPULATION_METRICS = metrics.available(population=True)
STOCHASTIC = [name for name in METRICS if metrics.get(name).stochastic]
WITH_BINS = [name for name in METRICS if "bins" in metrics.get(name).defaults]

#: Tree ensembles run with 5 trees in this battery: how a metric treats degenerate data
#: does not depend on the number of trees, and dci_gbt's default (100 per class and
#: factor) would cost about a minute and a half here.
FEW_TREES = {"n_estimators": 5}


def _cheap(name: str) -> dict[str, object]:
    """Options that make ``name`` fast without changing how it treats its inputs."""
    return {option: value for option, value in FEW_TREES.items() if option in metrics.get(name).defaults}


def _evaluate(name: str, factors: object, codes: object, **options: object) -> dict[str, float]:
    return metrics.evaluate(name, factors, codes, **{**_cheap(name), **options})


def _data(n: int = 150, k: int = 3, l: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Uniform factors and a mildly noisy linear mixing of them."""
    rng = np.random.default_rng(seed)
    factors = rng.random((n, k))
    codes = factors @ (np.eye(k, l) + 0.2 * rng.random((k, l))) + 0.05 * rng.random((n, l))
    return factors, codes


F, C = _data()


def _with(array: np.ndarray, row: int, column: int, value: object) -> np.ndarray:
    out = array.astype(object) if isinstance(value, str) or value is None else array.copy()
    out[row, column] = value
    return out


def _finite(scores: dict[str, float]) -> bool:
    return bool(scores) and all(np.isfinite(v) for v in scores.values())


# ----------------------------------------------------------------------------------
# metrics.evaluate: malformed arrays are clear errors, for every registered metric
# ----------------------------------------------------------------------------------

#: (id, factors, codes, extra evaluate() arguments, exception type, message pattern)
MALFORMED = [
    ("nan in factors", _with(F, 3, 1, np.nan), C, {}, ValueError, r"factors contains 1 non-finite value\(s\); first NaN at row 3, column 1"),
    ("nan in codes", F, _with(C, 7, 0, np.nan), {}, ValueError, r"codes contains 1 non-finite.*NaN at row 7, column 0"),
    ("+inf in codes", F, _with(C, 0, 2, np.inf), {}, ValueError, r"codes contains 1 non-finite.*infinite at row 0, column 2"),
    ("-inf in factors", _with(F, 5, 0, -np.inf), C, {}, ValueError, r"factors contains 1 non-finite.*infinite at row 5"),
    ("all-nan codes", F, np.full_like(C, np.nan), {}, ValueError, r"codes contains 450 non-finite"),
    ("None in an object array", _with(F, 1, 1, None), C, {}, ValueError, r"factors contains 1 non-finite.*NaN at row 1, column 1"),
    ("mismatched rows", F, C[:-1], {}, ValueError, r"same number of rows.*150 factor rows and 149 code rows"),
    ("1-D factors", F[:, 0], C, {}, ValueError, r"factors must be a 2-D array.*got 1-D.*reshape"),
    ("1-D codes", F, C[:, 0], {}, ValueError, r"codes must be a 2-D array.*got 1-D"),
    ("3-D codes", F, C.reshape(150, 3, 1), {}, ValueError, r"codes must be a 2-D array.*got 3-D"),
    ("scalar factors", np.float64(1.0), C, {}, ValueError, r"factors must be a 2-D array.*got 0-D"),
    ("None factors", None, C, {}, TypeError, r"factors is None"),
    ("empty factors", np.empty((0, 0)), C, {}, ValueError, r"factors must have at least 1 column"),
    ("no rows", np.empty((0, 3)), np.empty((0, 3)), {}, ValueError, r"factors must have at least 2 samples \(rows\), got 0"),
    ("no code columns", F, np.empty((150, 0)), {}, ValueError, r"codes must have at least 1 column"),
    ("one sample", F[:1], C[:1], {}, ValueError, r"factors must have at least 2 samples \(rows\), got 1"),
    ("string codes", F, C.astype(str), {}, TypeError, r"codes must be numeric, got an array of strings"),
    ("bytes factors", F.astype(bytes), C, {}, TypeError, r"factors must be numeric, got an array of strings"),
    ("a word in an object array", F, _with(C, 2, 2, "x"), {}, TypeError, r"codes must contain only real numbers"),
    ("bare objects", F, np.array([[object()] * 3] * 150), {}, TypeError, r"codes must contain only real numbers"),
    ("complex codes", F, C + 1j, {}, TypeError, r"codes must be real-valued, got complex"),
    ("datetimes", np.zeros((150, 3), dtype="datetime64[s]"), C, {}, TypeError, r"factors must be numeric, got dates"),
    ("structured array", np.zeros((150, 3), dtype=[("a", float)]), C, {}, TypeError, r"factors must be a plain numeric array"),
    ("ragged lists", [[0.1, 0.2], [0.3]], C[:2], {}, ValueError, r"factors must be a rectangular array"),
    ("sparse codes", F, sparse.csr_matrix(C), {}, TypeError, r"codes is a scipy sparse matrix"),
    ("masked codes", F, np.ma.masked_greater(C, 0.9), {}, ValueError, r"codes has \d+ masked value\(s\)"),
    ("huge magnitude", F, C * 1e200, {}, ValueError, r"codes contains values of magnitude .*above the supported 1e\+150; rescale"),
    ("tiny spread", F, C * 1e-200, {}, ValueError, r"codes column 0 varies by only .*below the supported 1e-150; rescale"),
    ("discrete flags too few", F, C, {"discrete": [True]}, ValueError, r"discrete must have one flag per factor \(3\), got 1"),
    ("discrete flags are words", F, C, {"discrete": ["yes", "no", "no"]}, TypeError, r"discrete must hold one bool per factor, got 'yes'"),
    ("unknown option", F, C, {"no_such_option": 1}, TypeError, r"got unknown option\(s\) no_such_option; its options are"),
]


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize(("factors", "codes", "extra", "error", "pattern"), [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED])
def test_malformed_arrays_are_clear_errors_for_every_metric(name, factors, codes, extra, error, pattern):
    with pytest.raises(error, match=pattern):
        metrics.evaluate(name, factors, codes, **extra)


def test_unknown_metric_name_lists_the_known_ones():
    with pytest.raises(KeyError, match=r"unknown metric 'mgi'; known metrics: .*mig"):
        metrics.evaluate("mgi", F, C)


@pytest.mark.parametrize("name", POPULATION_METRICS)
def test_population_metric_through_evaluate_is_redirected(name):
    with pytest.raises(ValueError, match=r"scores a population of representations; use metrics.evaluate_population"):
        metrics.evaluate(name, F, C)


# ----------------------------------------------------------------------------------
# metrics.evaluate: documented finite results, for every registered metric
# ----------------------------------------------------------------------------------

BOOLEAN = F > 0.5
EQUIVALENT_INPUTS = [
    # (id, factors, codes, the float64 matrices they must score exactly like)
    ("boolean", BOOLEAN, C > 0.7, (BOOLEAN.astype(float), (C > 0.7).astype(float))),
    ("integers", np.rint(F * 4).astype(np.int32), C, (np.rint(F * 4), C)),
    ("float32", F, C.astype(np.float32), (F, C.astype(np.float32).astype(np.float64))),
    ("object numbers", F.astype(object), C, (F, C)),
    ("nested lists", F.tolist(), C.tolist(), (F, C)),
    ("data frames", pd.DataFrame(F, columns=list("abc")), pd.DataFrame(C), (F, C)),
    ("masked, nothing masked", np.ma.masked_array(F), C, (F, C)),
    ("non-contiguous", np.asfortranarray(F), C[:, ::1], (F, C)),
]


_REFERENCE_SCORES: dict[tuple[str, int], dict[str, float]] = {}


def _reference(name: str, factors: np.ndarray, codes: np.ndarray) -> dict[str, float]:
    """Scores of the float64 matrices, computed once per metric and pair (the predictor metrics are slow)."""
    key = (name, hash((factors.tobytes(), codes.tobytes())))
    if key not in _REFERENCE_SCORES:
        _REFERENCE_SCORES[key] = _evaluate(name, factors, codes, random_state=0 if name in STOCHASTIC else None)
    return _REFERENCE_SCORES[key]


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize(("factors", "codes", "expected"), [c[1:] for c in EQUIVALENT_INPUTS], ids=[c[0] for c in EQUIVALENT_INPUTS])
def test_other_array_types_score_exactly_like_their_float64_matrix(name, factors, codes, expected):
    scores = _evaluate(name, factors, codes, random_state=0 if name in STOCHASTIC else None)
    assert _finite(scores)
    assert scores == _reference(name, *expected)


def _constant_codes():
    codes = C.copy()
    codes[:, 1] = 3.0
    return F, codes


FINITE_RESULTS = [
    ("one constant code", *_constant_codes(), {}),
    ("every code constant", F, np.full((150, 3), 7.0), {}),
    ("duplicate codes", F, np.hstack([C, C]), {}),
    ("duplicate factors", np.hstack([F, F[:, :1]]), C, {}),
    ("huge but supported magnitudes", F * 1e120, C * 1e120, {}),
    ("tiny but supported magnitudes", F * 1e-120, C * 1e-120, {}),
    ("offset far from zero", F + 1e9, C - 1e9, {}),
    ("one factor", F[:, :1], C, {}),
    ("one code", F, C[:, :1], {}),
    ("two-level codes", F, (C > np.median(C, axis=0)).astype(float), {}),
    ("more codes than factors", F, np.hstack([C, np.random.default_rng(1).random((150, 5))]), {}),
]


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize(("factors", "codes", "extra"), [c[1:] for c in FINITE_RESULTS], ids=[c[0] for c in FINITE_RESULTS])
def test_degenerate_but_valid_data_give_finite_scores(name, factors, codes, extra):
    scores = _evaluate(name, factors, codes, **extra)
    assert _finite(scores), scores
    assert set(scores) == set(metrics.get(name).sub_scores)


@pytest.mark.parametrize("name", METRICS)
def test_a_constant_factor_is_finite_or_named(name):
    factors = F.copy()
    factors[:, 2] = 0.5
    try:
        scores = _evaluate(name, factors, C)
    except ValueError as error:
        assert "constant" in str(error) and "factor" in str(error)
    else:
        assert _finite(scores), scores


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize("n", [2, 3])
def test_very_few_samples_are_finite_or_named(name, n):
    try:
        scores = _evaluate(name, F[:n], C[:n])
    except ValueError as error:
        assert "sample" in str(error) or f"n = {n}" in str(error), error
    else:
        assert _finite(scores), scores


@pytest.mark.parametrize("name", WITH_BINS)
def test_more_bins_than_samples_gives_a_finite_score(name):
    assert _finite(_evaluate(name, F[:20], C[:20], bins=50))


# ----------------------------------------------------------------------------------
# metrics.evaluate: random states (out-of-range options: tests/metrics/test_option_constraints.py, generated from
# the declarations)
# ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", STOCHASTIC)
@pytest.mark.parametrize(("random_state", "error"), [("seed", TypeError), (-1, ValueError), (1.5, TypeError),
                                                          (True, TypeError), (np.random.RandomState(0), TypeError)])
def test_bad_random_state_is_named(name, random_state, error):
    with pytest.raises(error, match="random_state"):
        _evaluate(name, F, C, random_state=random_state)


@pytest.mark.parametrize("name", STOCHASTIC)
def test_stochastic_metrics_repeat_exactly_with_the_same_seed(name):
    first = _evaluate(name, F, C, random_state=3)
    assert _finite(first)
    assert first == _evaluate(name, F, C, random_state=np.int64(3))


def test_a_plain_callable_gets_a_validated_random_state():
    def draws(factors, codes, random_state=None):
        return float(np.random.default_rng(random_state).random())

    assert metrics.evaluate(draws, F, C, random_state=5) == {"draws": np.random.default_rng(5).random()}
    with pytest.raises(TypeError, match="random_state must be a non-negative int or a numpy.random.Generator, got 'five'"):
        metrics.evaluate(draws, F, C, random_state="five")


# ----------------------------------------------------------------------------------
# metrics.evaluate_population
# ----------------------------------------------------------------------------------

POPULATION = [C, C[:, ::-1] + 0.01, C * 2.0]
BAD_POPULATIONS = [
    ("one member", [C], ValueError, r"at least 2 representations, got 1"),
    ("no member", [], ValueError, r"at least 2 representations, got 0"),
    ("nan in a member", [C, _with(C, 4, 1, np.nan)], ValueError, r"population\[1\] contains 1 non-finite"),
    ("mismatched rows", [C, C[:-3]], ValueError, r"same number of rows; got \[147, 150\]"),
    ("1-D member", [C, C[:, 0]], ValueError, r"population\[1\] must be a 2-D array"),
    ("string member", [C, C.astype(str)], TypeError, r"population\[1\] must be numeric"),
    ("2-D array as population", C, ValueError, r"population must be a sequence of 2-D code arrays"),
    ("a number as population", 3, TypeError, r"population must be a sequence of 2-D code arrays, got int"),
    ("a string as population", "codes.npy", TypeError, r"population must be a sequence of 2-D code arrays, got str"),
]


@pytest.mark.parametrize("name", POPULATION_METRICS)
@pytest.mark.parametrize(("population", "error", "pattern"), [c[1:] for c in BAD_POPULATIONS], ids=[c[0] for c in BAD_POPULATIONS])
def test_malformed_populations_are_clear_errors(name, population, error, pattern):
    with pytest.raises(error, match=pattern):
        metrics.evaluate_population(name, population)


@pytest.mark.parametrize("name", POPULATION_METRICS)
def test_population_with_a_constant_member_is_finite(name):
    scores = metrics.evaluate_population(name, [*POPULATION, np.full_like(C, 2.0)])
    assert len(scores) == 4 and all(np.isfinite(scores))


def test_single_representation_metric_through_evaluate_population_is_redirected():
    with pytest.raises(ValueError, match="scores a single representation; use metrics.evaluate"):
        metrics.evaluate_population("mig", POPULATION)
    with pytest.raises(KeyError, match="unknown metric 'nope'"):
        metrics.evaluate_population("nope", POPULATION)
