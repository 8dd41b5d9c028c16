"""An exactly constant code carries exactly zero entropy and information, whatever the estimator's rounding.

The engine's tables and every estimator give a constant column 0 nats, and every information metric
scores a representation with constant codes added as its definition says a code carrying nothing counts.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

import metrics
from metrics.estimators import ESTIMATORS, mutual_information, pairwise_information
from metrics.information import factor_code_information, information_table, to_labels
from metrics.registry import available, get
from scenarios.base import get as get_scenario

CONSTANT_POSITIONS = (1, 4)
"""Where the constant codes are inserted among the three informative ones (codes 0, 2, 3 of five)."""

#: How a code that carries nothing enters each information metric's score, from its definition.
#: "same": it never wins a maximum and adds nothing to a sum, so the score is unchanged;
#: "mean over codes": it scores 0 in a mean over the codes, so the score is scaled by 3 / 5;
#: "pairs": MISJED's mean over pairs of codes (see test_misjed_counts_a_constant_code_as_uninformative_and_nothing_more).
ZERO_INFORMATION_RULE = {
    "dcimig": "same",
    "indin_at_k": "same",
    "infomec": "same",
    "informativeness": "mean over codes",
    "jemmig": "same",
    "mig": "same",
    "mig_sup": "mean over codes",
    "minimality_sufficiency": {"minimality": "mean over codes", "sufficiency": "same"},
    "misjed": "pairs",
    "modularity": "mean over codes",
    "pid": "same",
    "rmig": "same",
    "sepin_at_k": "same",
    "unibound": "same",
    "windin": "same",
    "wsepin": "same",
}


def _informative_representation(n: int = 1500) -> tuple[np.ndarray, np.ndarray]:
    """Three uniform factors and three noisy, mixed codes of them (every code informative, none perfect)."""
    rng = np.random.default_rng(29)
    factors = rng.random((n, 3))
    mixing = np.array([[1.0, 0.2, 0.0], [0.0, 1.0, 0.3], [0.1, 0.0, 1.0]])
    return factors, factors @ mixing + 0.05 * rng.standard_normal((n, 3))


def _with_constant_codes(codes: np.ndarray) -> np.ndarray:
    columns = list(codes.T)
    for position, value in zip(CONSTANT_POSITIONS, (0.7, -3.25)):
        columns.insert(position, np.full(codes.shape[0], value))
    return np.column_stack(columns)


def test_the_information_rules_cover_every_information_metric():
    assert set(ZERO_INFORMATION_RULE) == {name for name in available() if get(name).family == "information"}


def test_a_constant_code_shares_exactly_zero_information_in_the_reproduced_case():
    # sample_size at n = 10000, seed 1: the random matrix leaves code 3 constant; the joint table's terms,
    # summed in another order than the factor's entropy, left it 4.4e-16 nats with factor 0
    data = get_scenario("sample_size").generate(10_000, n=100_000, seed=1)
    constant = np.flatnonzero(np.ptp(data.codes, axis=0) == 0)
    assert constant.tolist() == [3]
    table = factor_code_information(data.factors, data.codes)
    assert np.all(table.mutual_information[:, 3] == 0.0)
    assert np.array_equal(table.joint_entropy[:, 3], table.factor_entropy)
    assert table.code_entropy[3] == 0.0


def test_modularity_scores_a_constant_code_zero_in_the_reproduced_case():
    # Each code's score depends on its own column of the MI matrix only, so the constant code's 0 scales the
    # mean of the other seven by 7/8; it scored 1 when its rounding-level MI was divided by itself.
    data = get_scenario("sample_size").generate(10_000, n=100_000, seed=1)
    live = np.delete(data.codes, 3, axis=1)
    with_constant = metrics.evaluate("modularity", data.factors, data.codes)["modularity"]
    assert with_constant == pytest.approx(metrics.evaluate("modularity", data.factors, live)["modularity"] * 7 / 8, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_a_constant_column_has_exactly_zero_information_with_any_column(seed):
    rng = np.random.default_rng(seed)
    columns = rng.random((10_000, 6)) ** rng.uniform(0.5, 3.0, size=6)  # uneven bins: uneven table terms
    constant = np.column_stack([np.full(10_000, 0.3), columns])
    table = information_table(to_labels(columns, None, 10), to_labels(constant, None, 10))
    assert np.all(table.mutual_information[:, 0] == 0.0)
    assert np.array_equal(table.joint_entropy[:, 0], table.factor_entropy)
    reverse = information_table(to_labels(constant, None, 10), to_labels(columns, None, 10))
    assert np.all(reverse.mutual_information[0] == 0.0)
    assert np.array_equal(reverse.joint_entropy[0], reverse.code_entropy)


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("discrete", [False, True])
def test_every_estimator_gives_a_constant_code_exactly_zero(estimator, discrete):
    rng = np.random.default_rng(3)
    factor = rng.integers(0, 4, 400).astype(float) if discrete else rng.random(400)
    codes = np.column_stack([factor + 0.1 * rng.standard_normal(400), np.full(400, 2.5)])
    assert mutual_information(factor, codes[:, 1], estimator=estimator, discrete=discrete) == 0.0
    matrix = pairwise_information(factor[:, None], codes, (discrete,), estimator=estimator)
    assert matrix[0, 1] == 0.0 and matrix[0, 0] > 0.1


@pytest.mark.parametrize("name", sorted(name for name, rule in ZERO_INFORMATION_RULE.items() if rule != "pairs"))
def test_constant_codes_count_as_codes_carrying_nothing(name):
    factors, codes = _informative_representation()
    padded = _with_constant_codes(codes)
    rules = ZERO_INFORMATION_RULE[name]
    base = metrics.evaluate(name, factors, codes)
    scores = metrics.evaluate(name, factors, padded)
    for sub_score, value in base.items():
        rule = rules[sub_score] if isinstance(rules, dict) else rules
        expected = value * codes.shape[1] / padded.shape[1] if rule == "mean over codes" else value
        assert scores[sub_score] == pytest.approx(expected, abs=1e-9), sub_score


def test_misjed_counts_a_constant_code_as_uninformative_and_nothing_more():
    # MISJED averages a pair score over the pairs of codes, each pair computed from its two columns alone: a pair of
    # constants scores H(c1) + H(c2) - H(c1, c2) = 0, and a constant with z_i scores its pair [z_i, c] on its own
    # (H(z_i) - H(zbar_i): the constant adds no entropy to the joint one).
    factors, codes = _informative_representation()
    padded = _with_constant_codes(codes)
    constants = padded[:, list(CONSTANT_POSITIONS)]

    def score(columns):
        return metrics.evaluate("misjed", factors, columns)["misjed"]

    assert score(constants) == 0.0
    with_constant = [score(np.column_stack([codes[:, i], constants[:, 0]])) for i in range(codes.shape[1])]
    total = score(codes) * comb(codes.shape[1], 2) + 2 * sum(with_constant)
    assert score(padded) == pytest.approx(total / comb(padded.shape[1], 2), abs=1e-12)
