"""The information engine: discretisation edge rule, entropies and the MI matrix."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import mutual_info_score

import metrics
from metrics import information
from metrics.information import (
    Labels,
    discretize,
    encode_categories,
    entropy,
    factor_code_information,
    information_table,
    joint_counts,
    mutual_information_matrix,
    to_labels,
)


def test_discretize_edge_rule_by_hand():
    column = np.array([[0.0], [0.05], [0.1], [0.55], [0.99], [1.0]])
    # width 0.1: 0.1 opens bin 1, 0.55 is in bin 5, the maximum 1.0 joins the last bin
    assert discretize(column, 10)[:, 0].tolist() == [0, 0, 1, 5, 9, 9]


def test_discretize_uses_each_columns_own_range():
    values = np.array([[0.0, -10.0], [1.0, 10.0], [0.5, 0.0]])
    assert discretize(values, 2).tolist() == [[0, 0], [1, 1], [1, 1]]


def test_constant_column_has_one_bin_and_zero_entropy():
    values = np.c_[np.full(50, 3.0), np.linspace(0, 1, 50)]
    labels = to_labels(values, bins=10)
    assert (labels.codes[:, 0] == 0).all()
    assert entropy(labels)[0] == 0.0


def test_entropy_of_uniform_bins_is_log_bins():
    values = (np.arange(1000) % 10 + 0.5)[:, None] / 10.0
    assert entropy(to_labels(values, bins=10))[0] == pytest.approx(np.log(10), abs=1e-12)


def test_discrete_columns_keep_their_categories():
    values = np.c_[np.array([5.0, 7.0, 5.0, 9.0]), np.array([0.0, 0.1, 0.2, 0.3])]
    labels = to_labels(values, discrete=[True, False], bins=3)
    assert labels.codes[:, 0].tolist() == [0, 1, 0, 2]
    assert labels.n_bins.tolist() == [3, 3]
    assert encode_categories(values[:, :1]).n_bins.tolist() == [3]


def _sklearn_matrix(a: Labels, b: Labels) -> np.ndarray:
    return np.array(
        [[mutual_info_score(a.codes[:, i], b.codes[:, j]) for j in range(b.codes.shape[1])] for i in range(a.codes.shape[1])]
    )


@pytest.mark.parametrize("n", [7, 1000, information._CHUNK_ROWS + 13])
def test_mutual_information_matrix_matches_sklearn_pair_by_pair(rng, n):
    factors = rng.random((n, 4))
    codes = np.c_[factors[:, :2] + 0.2 * rng.random((n, 2)), rng.random((n, 3))]
    a, b = to_labels(factors), to_labels(codes)
    np.testing.assert_allclose(mutual_information_matrix(a, b), _sklearn_matrix(a, b), rtol=0, atol=1e-9)


def test_mutual_information_matches_sklearn_with_uneven_category_counts(rng):
    n = 3000
    factors = np.c_[rng.integers(0, 3, n), rng.integers(0, 7, n), rng.random(n)]
    codes = np.c_[factors[:, 0] + rng.random(n), rng.random(n)]
    a = to_labels(factors, discrete=[True, True, False], bins=5)
    b = to_labels(codes, bins=4)
    assert a.n_bins.tolist() == [3, 7, 5]
    np.testing.assert_allclose(mutual_information_matrix(a, b), _sklearn_matrix(a, b), rtol=0, atol=1e-9)


def test_joint_counts_are_contingency_tables(rng):
    a = to_labels(rng.random((500, 2)), bins=3)
    b = to_labels(rng.random((500, 2)), bins=4)
    counts = joint_counts(a, b)
    assert counts.shape == (2, 2, 3, 4)
    for i in range(2):
        for j in range(2):
            expected = np.zeros((3, 4), int)
            np.add.at(expected, (a.codes[:, i], b.codes[:, j]), 1)
            assert (counts[i, j] == expected).all()


def _pairwise_counts(a: Labels, b: Labels) -> np.ndarray:
    """The contingency tables counted one column pair at a time, zero-padded like joint_counts'."""
    counts = np.zeros((a.n_bins.size, b.n_bins.size, a.n_bins.max(), b.n_bins.max()), dtype=np.int64)
    for i in range(a.n_bins.size):
        for j in range(b.n_bins.size):
            np.add.at(counts[i, j], (a.codes[:, i], b.codes[:, j]), 1)
    return counts


@pytest.mark.parametrize("table_cells, count_values", [(information._TABLE_CELLS, information._COUNT_VALUES), (500, 64)])
def test_grouped_counting_equals_pair_by_pair_counting(rng, monkeypatch, table_cells, count_values):
    # Groups of one (300 categories, 12 bins), two (10 x 10) and several (2 x 2 x ...)
    # columns, in chunks of a's groups and blocks of rows when the limits are small.
    monkeypatch.setattr(information, "_TABLE_CELLS", table_cells)
    monkeypatch.setattr(information, "_COUNT_VALUES", count_values)
    n = 1000
    factors = np.c_[rng.integers(0, 300, n), rng.random((n, 3)), rng.integers(0, 2, (n, 3)), rng.random(n)]
    codes = np.c_[factors[:, 1:4] + 0.1 * rng.random((n, 3)), rng.random((n, 2))]
    a = to_labels(factors, discrete=[True, False, False, False, True, True, True, False], bins=10)
    b, b_twelve, b_two = to_labels(codes, bins=10), to_labels(codes, bins=12), to_labels(codes, bins=2)
    for left, right in [(a, b), (b, a), (a, a), (a, b_twelve), (b_two, a), (b_two, b_two)]:
        expected = _pairwise_counts(left, right)
        assert (joint_counts(left, right) == expected).all()
        row_major = Labels(np.ascontiguousarray(left.codes), left.n_bins)  # any layout of the labels
        assert (joint_counts(row_major, right) == expected).all()


def test_identical_columns_share_all_their_entropy(rng):
    values = rng.random((5000, 3))
    table = factor_code_information(values, values)
    np.testing.assert_allclose(np.diag(table.mutual_information), table.factor_entropy, atol=1e-12)
    np.testing.assert_allclose(np.diag(table.joint_entropy), table.factor_entropy, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=2, max_value=200),
    st.integers(min_value=1, max_value=4),
    st.integers(min_value=2, max_value=12),
    st.integers(min_value=0, max_value=2**32 - 1),
)
def test_mutual_information_is_bounded_and_symmetric(n, columns, bins, seed):
    generator = np.random.default_rng(seed)
    a = to_labels(generator.random((n, columns)), bins=bins)
    b = to_labels(generator.random((n, columns)) + generator.random((n, 1)), bins=bins)
    forward = information_table(a, b)
    backward = mutual_information_matrix(b, a)
    np.testing.assert_allclose(forward.mutual_information, backward.T, atol=1e-12)
    assert (forward.mutual_information >= 0).all()
    bound = np.minimum(forward.factor_entropy[:, None], forward.code_entropy[None, :])
    assert (forward.mutual_information <= bound + 1e-12).all()


def test_normalizations_divide_by_the_named_entropy(rng):
    values = rng.random((2000, 2))
    table = factor_code_information(values, values ** 3)
    by_factor = information.normalized_mutual_information(table, "factor")
    by_code = information.normalized_mutual_information(table, "code")
    np.testing.assert_allclose(by_factor, table.mutual_information / table.factor_entropy[:, None])
    np.testing.assert_allclose(by_code, table.mutual_information / table.code_entropy[None, :])
    with pytest.raises(ValueError, match="normalization must be one of"):
        information.normalized_mutual_information(table, "joint")


def test_contingency_tables_beyond_the_limit_are_refused_before_any_allocation():
    # bins = 10000 on 3 x 3 columns asked for 7 GiB of counts: the system killed the worker, and with it the study
    rng = np.random.default_rng(0)
    factors = rng.random((2000, 3))
    with pytest.raises(ValueError, match=r"3 x 3 columns of up to 10000 and 10000 categories .* use at most 2730 bins"):
        metrics.evaluate("mig", factors, factors + 0.01 * rng.random((2000, 3)), bins=10000)


def test_the_table_limit_is_exact():
    from metrics.information import MAX_TABLE_COUNTS, _check_table_size

    side = int(np.sqrt(MAX_TABLE_COUNTS // 64))  # 8 x 8 columns of 1024 bins: exactly the limit
    assert 64 * side * side == MAX_TABLE_COUNTS
    _check_table_size(np.full(8, side), np.full(8, side))
    with pytest.raises(ValueError, match="use at most 1024 bins"):
        _check_table_size(np.full(8, side), np.r_[np.full(7, side), side + 1])
