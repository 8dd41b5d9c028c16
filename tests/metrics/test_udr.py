"""UDR (Duan et al. 2020): eq. 2 by hand, exact similarity matrices, the eq. 3 filter, and populations."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from metrics.udr import pairwise_score
from scenarios.population import get_population

ALL = np.ones(3, dtype=bool)


# ----------------------------------------------------------------------------------
# eq. 2 on hand-made similarity matrices
# ----------------------------------------------------------------------------------

def test_one_to_one_correspondence_scores_1():
    permutation = np.eye(3)[[2, 0, 1]]
    assert pairwise_score(permutation, ALL, ALL) == 1.0


def test_uniform_similarity_scores_the_share_of_the_best_match():
    # each column and row: max^2 / sum = 0.25 / 1 ; average over the 4 latents = 0.25
    assert pairwise_score(np.full((2, 2), 0.5), ALL[:2], ALL[:2]) == pytest.approx(0.25)


def test_subset_learnt_by_one_model_leaves_an_unmatched_latent():
    # model i learnt 2 factors, model j the same 2 and a third: (1 + 1 + 0 + 1 + 1) / 5
    similarity = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    assert pairwise_score(similarity, ALL[:2], ALL) == pytest.approx(0.8)


def test_uninformative_latents_are_not_scored_but_count_in_sums_unless_restricted():
    similarity = np.array([[1.0, 0.0], [0.2, 0.0]])
    rows = np.array([True, False])
    columns = np.array([True, False])
    # literal eq. 2: column 0 -> 1 / 1.2, row 0 -> 1 / 1; d = 2
    assert pairwise_score(similarity, rows, columns) == pytest.approx((1 / 1.2 + 1) / 2)
    assert pairwise_score(similarity, rows, columns, informative_submatrix=True) == 1.0


def test_all_zero_rows_and_no_informative_latent_give_0():
    assert pairwise_score(np.zeros((2, 2)), ALL[:2], ALL[:2]) == 0.0
    assert pairwise_score(np.ones((2, 2)), np.zeros(2, bool), np.zeros(2, bool)) == 0.0


# ----------------------------------------------------------------------------------
# exact similarity matrices on a full factorial grid (sample correlation exactly 0)
# ----------------------------------------------------------------------------------

_I, _J = np.meshgrid(np.arange(40), np.arange(40), indexing="ij")
V1, V2 = _I.ravel() / 40, _J.ravel() / 40
GRID = np.column_stack([V1, V2])  # variance 0.083: Var/2 = 0.042 > 0.01, informative


def test_spearman_sees_permutation_sign_and_monotonic_maps_as_identical():
    other = np.column_stack([-V2, np.exp(V1)])
    assert metrics.evaluate_population("udr", [GRID, other], similarity="spearman") == pytest.approx([1.0, 1.0], abs=1e-12)
    # (approx: scipy >= 1.17 rounds rho = 1 to 1 - 1e-15)


def test_lasso_recovers_a_signed_permutation():
    scores = metrics.evaluate_population("udr", [GRID, -GRID[:, ::-1]], similarity="lasso", penalty=1e-6)
    np.testing.assert_allclose(scores, 1.0, atol=1e-5)


def test_lasso_on_a_45_degree_rotation_gives_the_hand_value():
    # predicting v1 from the rotated codes: weights 1/sqrt(2) on both, so every row and
    # column scores (1/2) / sqrt(2) = 1 / (2 sqrt 2)
    rotated = np.column_stack([V1 + V2, V1 - V2]) / np.sqrt(2)
    expected = 1 / (2 * np.sqrt(2))
    np.testing.assert_allclose(metrics.evaluate_population("udr", [GRID, rotated], penalty=1e-6), expected, atol=1e-5)
    # the paper's cross-validated penalty shrinks the weights only slightly
    np.testing.assert_allclose(metrics.evaluate_population("udr", [GRID, rotated]), expected, atol=0.005)


@pytest.mark.parametrize("similarity", ["spearman", "lasso"])
def test_subsetting_is_only_partly_forgiven(similarity):
    # (1 + 1 + 0) / (2 + 1): the factor the second model did not learn is unmatched
    scores = metrics.evaluate_population("udr", [GRID, GRID[:, :1]], similarity=similarity, penalty=1e-6)
    np.testing.assert_allclose(scores, 2 / 3, atol=1e-5)


def test_informativeness_from_variance_and_from_kl():
    rng = np.random.default_rng(0)
    switched_off = 0.01 * rng.standard_normal((GRID.shape[0], 1))  # Var/2 = 5e-5 < 0.01
    first = np.hstack([GRID, switched_off])
    second = GRID[:, ::-1]
    restricted = metrics.evaluate_population("udr", [first, second], similarity="spearman", informative_submatrix=True)
    assert restricted == pytest.approx([1.0, 1.0], abs=1e-12)
    # literal eq. 2: the switched-off row adds its |correlations| to the two column sums
    corr = np.abs(np.corrcoef(switched_off[:, 0], GRID.T)[0, 1:])  # Pearson of ranks ~ Spearman
    literal = metrics.evaluate_population("udr", [first, second], similarity="spearman")
    assert 0.97 < literal[0] < 1.0
    assert literal[0] == pytest.approx((2 + np.sum(1 / (1 + corr))) / 4, abs=0.01)
    # the same filter through posterior KLs; declaring the switched-off latent
    # informative makes it an unmatched latent: (2 + 2 + ~0) / 5
    by_kl = metrics.evaluate_population("udr", [first, second], similarity="spearman", kl=[[1.0, 1.0, 0.0], [1.0, 1.0]])
    assert by_kl == literal
    all_on = metrics.evaluate_population("udr", [first, second], similarity="spearman", kl=[[1.0, 1.0, 1.0], [1.0, 1.0]])
    assert all_on[0] == pytest.approx(0.8, abs=0.02)


def test_codes_on_a_small_scale_are_uninformative_by_the_variance_rule():
    scaled = GRID * 0.1  # Var/2 = 0.0004 < 0.01: no informative latent, score 0
    assert metrics.evaluate_population("udr", [scaled, scaled], similarity="spearman") == [0.0, 0.0]
    assert metrics.evaluate_population("udr", [scaled, scaled], similarity="spearman", informative_threshold=1e-4) == pytest.approx([1.0, 1.0], abs=1e-12)


# ----------------------------------------------------------------------------------
# populations (scenarios/udr_population.py)
# ----------------------------------------------------------------------------------

POPULATION = get_population("udr_population")


@pytest.mark.slow
@pytest.mark.parametrize("similarity", ["spearman", "lasso"])
def test_disentangled_members_rank_above_entangled_ones_with_a_clear_margin(similarity):
    population = POPULATION.generate(0.75, n=500, seed=0)
    scores = np.array(metrics.evaluate_population("udr", list(population.members), similarity=similarity))
    flags = np.array(population.disentangled)
    assert flags.sum() == 6
    assert scores[flags].min() - scores[~flags].max() > 0.3
    assert scores[flags].min() > 0.6 and scores[~flags].max() < 0.3


def test_herd_effect_a_disentangled_minority_is_not_recognised():
    # each of the 2 disentangled members has 1 disentangled peer among 7: its median
    # comparison is with an entangled one
    population = POPULATION.generate(0.25, n=500, seed=0)
    scores = metrics.evaluate_population("udr", list(population.members), similarity="spearman")
    assert max(scores) < 0.4


def test_sampled_comparisons_are_deterministic_given_random_state():
    members = list(POPULATION.generate(0.75, n=300, seed=1).members)
    first = metrics.evaluate_population("udr", members, similarity="spearman", n_comparisons=3, random_state=7)
    again = metrics.evaluate_population("udr", members, similarity="spearman", n_comparisons=3, random_state=7)
    assert first == again
    full = metrics.evaluate_population("udr", members, similarity="spearman")
    assert metrics.evaluate_population("udr", members, similarity="spearman", n_comparisons=7, random_state=3) == full
    others = [metrics.evaluate_population("udr", members, similarity="spearman", n_comparisons=1, random_state=s) for s in range(4)]
    assert len({tuple(o) for o in others}) > 1


@pytest.mark.parametrize(
    ("options", "error", "pattern"),
    [
        ({"n_comparisons": 2}, ValueError, r"n_comparisons must be at most the number of other members \(1\)"),
        ({"kl": [[1.0, 1.0]]}, ValueError, r"kl must hold one array per member \(2\)"),
        ({"kl": [[1.0], [1.0, 1.0]]}, ValueError, r"kl\[0\] must hold one value per latent \(2\), got 1"),
        ({"kl": [[1.0, -1.0], [1.0, 1.0]]}, ValueError, r"kl\[0\] must be non-negative \(a KL divergence\), got -1"),
        ({"kl": 3.0}, TypeError, r"kl must be a sequence of per-latent KL arrays, one per member, got float"),
        ({"kl": [[1.0, np.nan], [1.0, 1.0]]}, ValueError, r"kl\[0\] contains 1 non-finite"),
    ],
)
def test_bad_options_are_named(options, error, pattern):
    """What depends on the population (its size, its members' widths); the declared rules: test_option_constraints.py."""
    with pytest.raises(error, match=pattern):
        metrics.evaluate_population("udr", [GRID, GRID], **{"similarity": "spearman", **options})


def test_cross_validated_lasso_needs_one_sample_per_fold():
    few = GRID[:4]
    with pytest.raises(ValueError, match="over 5 folds and needs at least 5 samples, got 4; pass a fixed penalty"):
        metrics.evaluate_population("udr", [few, few])
    assert np.all(np.isfinite(metrics.evaluate_population("udr", [few, few], penalty=0.01)))
