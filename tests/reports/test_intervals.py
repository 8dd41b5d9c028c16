"""95% intervals over seeds (reports.analyses.intervals) and the verdicts they make undecided."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest

from reports.analyses import intervals
from reports.analyses.calibration import calibration
from reports.verdicts.bundle import Bundle
from reports.verdicts.property_matrix import property_matrix

#: Student's t(0.975, 2), from a printed table: a 95% interval of a mean of 3 seeds spans 4.303 standard errors.
T_2 = 4.302653


def test_a_mean_of_three_seeds_gets_students_interval():
    low, high = intervals.mean_interval(np.array([0.98, 0.99, 1.00]))
    half = T_2 * 0.01 / np.sqrt(3)  # sample sd 0.01
    assert (low, high) == pytest.approx((0.99 - half, 0.99 + half), abs=1e-6)
    assert intervals.mean_interval(np.array([0.98, 0.99, 1.00]), (0.0, 1.0))[1] == 1.0  # clipped to the range
    assert np.isnan(intervals.mean_interval(np.array([0.5]))).all()  # one seed: no interval


@pytest.mark.parametrize(("n_seeds", "looks", "printed"), [(2, 1, 12.7062), (3, 1, T_2), (12, 1, 2.2010),
                                                         (3, 3, None), (12, 3, None)])
def test_t_quantiles_are_students_and_scipys_bit_for_bit(n_seeds, looks, printed):
    # printed: t(0.975, S - 1) from a table; with 3 looks, t(1 - 0.05 / 6, S - 1) (no printed table has it)
    from scipy import stats

    if printed is not None:
        assert intervals.t_quantile(n_seeds, looks) == pytest.approx(printed, abs=1e-4)
    assert intervals.t_quantile(n_seeds, looks) == stats.t.ppf(1 - 0.05 / (2 * looks), n_seeds - 1)
    seeds = np.array([3, 4, 12])
    assert np.array_equal(intervals.mean_half_width(np.ones(3), seeds),
                          stats.t.ppf(0.975, seeds - 1) / np.sqrt(seeds))


@pytest.mark.parametrize("n_seeds", [1, 2, 3, 7, 8, 9, 12, 17, 30, 100])
def test_column_intervals_are_each_columns_mean_interval_bit_for_bit(n_seeds):
    """All columns at once (every seed present) give the ends of mean_interval on each column, to the last bit: scores
    of every scale, C and Fortran order, strided views, missing seeds, clipping and several looks."""
    rng = np.random.default_rng(n_seeds)
    for trial in range(40):
        scale = 10.0 ** rng.integers(-6, 3)
        matrix = rng.normal(size=(n_seeds, int(rng.integers(1, 40)))) * scale + rng.normal() * scale
        matrix = [matrix, np.asfortranarray(matrix), matrix[:, ::2]][trial % 3]
        if trial % 4 == 1:
            matrix = matrix.copy()
            matrix[rng.random(matrix.shape) < 0.2] = np.nan  # some seeds lack some points
        bounds, looks = [((-np.inf, np.inf), 1), ((0.0, 1.0), 3), ((-0.5 * scale, scale), 2)][trial % 3]
        low, high = intervals.column_mean_intervals(matrix, looks, bounds)
        expected = np.array([intervals.mean_interval(matrix[:, column], bounds, looks)
                             for column in range(matrix.shape[1])]).reshape(-1, 2)
        np.testing.assert_array_equal(low, expected[:, 0])
        np.testing.assert_array_equal(high, expected[:, 1])


def test_the_bootstrap_interval_of_a_mean_is_the_t_interval():
    seeds = np.random.default_rng(3).normal(0.5, 0.1, size=(8, 1))
    mean = float(seeds.mean())
    low, high = intervals.bootstrap_intervals(seeds, {"m": (lambda means: means[:, 0], mean, intervals.UNBOUNDED)}).values()
    t_low, t_high = intervals.mean_interval(seeds[:, 0])
    assert high - low == pytest.approx(t_high - t_low, rel=0.08)  # 1000 resamples: a few per cent of Monte Carlo error
    assert (low + high) / 2 == pytest.approx(mean)


def test_the_slope_interval_covers_the_true_slope_and_shrinks_to_nothing_without_noise():
    ideal = np.linspace(0.0, 1.0, 6)
    rng = np.random.default_rng(11)
    covered = 0
    for _ in range(40):
        matrix = 0.2 + 0.7 * ideal + rng.normal(0.0, 0.05, size=(5, ideal.size))  # 5 seeds, true slope 0.7
        point = float(intervals.slopes(ideal, matrix.mean(axis=0, keepdims=True))[0])
        ends = intervals.bootstrap_intervals(matrix, {"slope": (partial(intervals.slopes, ideal), point, intervals.UNBOUNDED)})
        covered += ends["slope_low"] <= 0.7 <= ends["slope_high"]
    assert covered >= 36  # a 95% interval: 38 of 40 expected, 36 allows for chance
    exact = np.tile(0.2 + 0.7 * ideal, (5, 1))
    ends = intervals.bootstrap_intervals(exact, {"slope": (partial(intervals.slopes, ideal), 0.7, intervals.UNBOUNDED)})
    assert (ends["slope_low"], ends["slope_high"]) == pytest.approx((0.7, 0.7))


def test_intervals_are_reproducible():
    matrix = np.random.default_rng(0).random((4, 5))
    statistic = {"slope": (partial(intervals.slopes, np.arange(5.0)), 0.1, intervals.UNBOUNDED)}
    assert intervals.bootstrap_intervals(matrix, statistic) == intervals.bootstrap_intervals(matrix.copy(), statistic)


def test_calibration_ends_carry_their_seed_intervals(synthetic_results):
    table = calibration(synthetic_results).set_index("metric")
    half = T_2 * 0.01 / np.sqrt(3)  # lin: 0.98, 0.99, 1.00 at the perfect end, 0.00, 0.01, 0.02 at the random end
    lin = table.loc["lin"].iloc[0]
    assert (lin["perfect_oriented_low"], lin["perfect_oriented_high"]) == pytest.approx((0.99 - half, 1.0), abs=1e-6)
    assert (lin["random_oriented_low"], lin["random_oriented_high"]) == pytest.approx((0.0, 0.01 + half), abs=1e-6)
    uncal = table.loc["uncal"]  # the same on every seed: an interval of no width
    assert (uncal["perfect_oriented_low"], uncal["perfect_oriented_high"]) == pytest.approx((0.85, 0.85))


def _random_end(results: pd.DataFrame, metric: str, scores: tuple[float, ...], **columns) -> pd.DataFrame:
    """``results`` with ``metric``'s noise scores at alpha = 1 set to ``scores`` (one per seed) and ``columns`` there."""
    frame = results.copy()
    at = (frame["metric"] == metric) & (frame["scenario"] == "noise") & (frame["value"] == 1.0)
    frame.loc[at, "score"] = [scores[seed] for seed in frame.loc[at, "seed"]]
    for column, value in columns.items():
        frame.loc[at, column] = value
    return frame


def test_seeds_that_straddle_the_threshold_leave_calibration_undecided(synthetic_results):
    # uncal: perfect end 0.85 < 0.9 fails; raise it, and put its noise end at 0.02, 0.10, 0.15 (mean 0.09 <= 0.1)
    frame = _random_end(synthetic_results, "uncal", (0.02, 0.10, 0.15))
    perfect = (frame["metric"] == "uncal") & (frame["scenario"] == "noise") & (frame["value"] == 0.0)
    frame.loc[perfect, "score"] = 0.95
    row = property_matrix(Bundle(frame)).set_index(["metric", "characteristic"]).loc[("uncal", "calibrated")]
    sd = np.std([0.02, 0.10, 0.15], ddof=1)
    assert row["verdict"] == "undecided" and row["statistic"] == "random"
    assert row["value"] == pytest.approx(0.09)
    assert (row["interval_low"], row["interval_high"]) == pytest.approx((0.0, 0.09 + T_2 * sd / np.sqrt(3)), abs=1e-6)
    assert row["number"].endswith(f"/ 0.09 [0.00, {0.09 + T_2 * sd / np.sqrt(3):.2f}]")


def test_a_noise_score_within_its_null_is_reported_as_chance_level_bias(synthetic_results):
    # uncal scores 0.35 on pure noise; codes independent of the factors score 0.33 on average, 0.40 at 95%
    biased = _random_end(synthetic_results, "uncal", (0.35, 0.35, 0.35), null_mean=0.33, null_q95=0.40, p_value=0.3,
                         null_permutations=99)
    row = calibration(biased).set_index("metric").loc["uncal"]
    assert bool(row["chance_bias"]) and row["random_null_oriented"] == pytest.approx(0.33)
    verdict = property_matrix(Bundle(biased)).set_index(["metric", "characteristic"]).loc[("uncal", "calibrated")]
    assert "chance-level bias at n = 2000" in verdict["evidence"]
    # a noise score above its null's 95% level rewards noise: no bias note
    wrong = _random_end(synthetic_results, "uncal", (0.35, 0.35, 0.35), null_mean=0.05, null_q95=0.10, p_value=0.01,
                        null_permutations=99)
    assert not calibration(wrong).set_index("metric").loc["uncal", "chance_bias"]
    assert not calibration(synthetic_results).set_index("metric").loc["uncal", "chance_bias"]  # no null: no claim


def test_the_analyses_intervals_follow_what_the_seeds_change(synthetic_results, realistic_results):
    from reports import check_results
    from reports.analyses.linearity import linearity
    from reports.analyses.robustness import robustness
    from reports.analyses.sensitivity import option_sensitivity

    lines = linearity(synthetic_results).set_index(["scenario", "metric", "sub_score", "against"])
    # lin's seeds shift its curve by -0.01, 0, +0.01: ρ and the slope do not move (no width), its excess does (as a mean)
    lin = lines.loc[("mixing", "lin", "modularity", "modularity")]
    assert (lin["slope_low"], lin["slope_high"]) == pytest.approx((lin["slope"], lin["slope"]))
    assert (lin["spearman_low"], lin["spearman_high"]) == pytest.approx((1.0, 1.0))
    # every point's excess has the same interval about its mean: the high end is the largest point's 95% end, the low
    # end its end at 1 − 0.05 / V for the V points (Bonferroni: any of them could be the largest)
    points = lin["n_values"]
    bonferroni = intervals.t_quantile(3, looks=points)
    assert lin["max_excess_high"] - lin["max_excess"] == pytest.approx(T_2 * 0.01 / np.sqrt(3), rel=1e-6)
    assert lin["max_excess"] - lin["max_excess_low"] == pytest.approx(bonferroni * 0.01 / np.sqrt(3), rel=1e-6)
    step = lines.loc[("noise", "step", "step", "explicitness")]  # the same on every seed
    assert step["r2_low"] == pytest.approx(step["r2"]) and step["r2_high"] == pytest.approx(step["r2"])
    deviations = robustness(synthetic_results).set_index(["scenario", "metric", "sub_score"])
    uncal = deviations.loc[("noise", "uncal", "uncal")]
    assert (uncal["deviation_low"], uncal["deviation_high"]) == pytest.approx((uncal["deviation"], uncal["deviation"]))
    sweep = option_sensitivity(check_results(realistic_results)).iloc[0]  # mig's bins shift it by fixed amounts
    assert (sweep["max_spread_low"], sweep["max_spread_high"]) == pytest.approx((0.3, 0.3))


def test_unit_scores_and_the_largest_deviation_their_means_can_reach():
    assert intervals.unit_scores(np.array([[0.0, 1.0], [np.nan, 0.5]]))
    assert not intervals.unit_scores(np.array([0.5, 1.2])) and not intervals.unit_scores(np.array([np.nan]))
    # ideals 0.3 and 0.6: a mean in [0, 1] is at most 0.7 from the first (at 1) and 0.6 from the second (at 0)
    assert intervals.deviation_ceiling(np.array([0.3, 0.6]), np.array([0.2, 0.9])) == pytest.approx(0.7)
    assert intervals.deviation_ceiling(np.array([0.3]), np.array([-0.1, 0.5])) == np.inf


def test_the_largest_of_several_means_takes_the_largest_high_end_and_the_largest_low_end_widened_for_their_number():
    # three seeds of two points: means 0.5 and 0.6, standard deviations 0.1 and 0.05
    matrix = np.array([[0.4, 0.55], [0.5, 0.6], [0.6, 0.65]])
    means, sds = np.array([0.5, 0.6]), np.array([0.1, 0.05])
    low, high = intervals.largest_interval(lambda looks: intervals.column_mean_intervals(matrix, looks), means, looks=1)
    t_95 = T_2  # the high ends: each point's own 95% interval
    t_bonferroni = 6.205347  # t(1 − 0.05 / 4, 2), printed tables: the low ends at 97.5%, the error split over 2 points
    assert high == pytest.approx(max(means + t_95 * sds / np.sqrt(3)), abs=1e-6)
    assert low == pytest.approx(max(means - t_bonferroni * sds / np.sqrt(3)), abs=1e-6)
    # one seed gives no interval; an undefined point is not counted
    assert np.isnan(intervals.largest_interval(lambda looks: intervals.column_mean_intervals(matrix[:1], looks),
                                               means)).all()
    one = intervals.largest_interval(lambda looks: intervals.column_mean_intervals(matrix, looks),
                                     np.array([np.nan, 0.6]))
    assert one == pytest.approx(intervals.mean_interval(matrix[:, 1]))


def test_a_distance_interval_starts_at_0_when_the_means_interval_holds_the_target():
    low, high = intervals.distance_ends(np.array([0.2, 0.5, -0.3]), np.array([0.4, 0.7, -0.1]), np.array([0.3, 0.3, 0.0]),
                                        (0.0, 0.35))
    assert low == pytest.approx([0.0, 0.2, 0.1]) and high == pytest.approx([0.1, 0.35, 0.3])  # 0.4 clipped to 0.35


def _wrong_share(largest, trials: int = 400) -> float:
    """Share of ``trials`` draws of 12 seeds x 12 points, every point's true mean at the threshold 0.5 (noise 0.05),
    whose interval of the largest mean (``largest(matrix, point) -> (low, high)``) lies wholly above the threshold:
    a wrong "above" decision, since the largest true mean is the threshold itself."""
    rng = np.random.default_rng(7)
    wrong = 0
    for _ in range(trials):
        matrix = rng.normal(0.5, 0.05, size=(12, 12))
        low, _high = largest(matrix, float(matrix.mean(axis=0).max()))
        wrong += low > 0.5
    return wrong / trials


def test_the_largest_of_many_means_at_a_threshold_is_wrongly_called_above_it_at_most_at_the_error_rate():
    def combined(matrix, _point):
        means = matrix.mean(axis=0)
        return intervals.largest_interval(lambda looks: intervals.column_mean_intervals(matrix, looks), means)

    def about_the_largest(matrix, point):  # a bootstrap of the maximum, what the analyses read before
        ends = intervals.bootstrap_intervals(matrix, {"top": (lambda means: means.max(axis=1), point, intervals.UNBOUNDED)})
        return ends["top_low"], ends["top_high"]

    # at most 2.5% expected (one side's share of the 5%); 5%, the verdict's stated error rate, allows for the draws
    assert _wrong_share(combined) <= 0.05
    assert _wrong_share(about_the_largest) > 0.3  # the largest of 12 noisy means overstates the largest true one
