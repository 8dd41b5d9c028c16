"""Benchmarks: each review metric (Zaidi et al. 2022) against a plain reference implementation of its definition.

For every metric of the review but two, a reference written here the plain way (loops over factors, codes, values and
votes as the papers state them; scikit-learn's estimators at their defaults where the definition leaves the predictor
open) scores the same inputs as the project's metric, and the test reports the ratio of their CPU times,
``reference / project``, in ``benchmark.extra_info`` (median of :data:`REPEATS` calls each, one BLAS thread, both timed
in the same run).  MIG and the Explicitness score have their ratio benchmarks already
(``test_bench_mutual_information.py`` and ``test_bench_explicitness.py``).

Timed at the review's size (n = 20000, 8 factors x 8 codes, the review's noise scenario at ``alpha = 0.2``, section
5.2, eq. 9)::

    python -m pytest tests/benchmarks/test_bench_review_ratios.py --benchmark-enable -n 0 -m "" -s

Under the default ``--benchmark-disable`` (CI) each test runs once at :data:`SMOKE_N` samples as a smoke test: both
implementations score the same inputs and must agree within the metric's :data:`TOLERANCES` entry.  The information
and correlation metrics (MIG-sup, JEMMIG, Modularity, DCIMIG, IRS, SAP on continuous factors) are deterministic and
agree to rounding; the intervention metrics draw their batches and the DCI variants their split (and here the
reference's own penalty grid and folds) from their own random streams, so they agree within sampling noise.  No
speed is asserted: the ratios are reported, never wall-clock times.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import Lasso, LassoCV, LinearRegression, LogisticRegression
from sklearn.metrics import mutual_info_score
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

import metrics
import scenarios
from tests.benchmarks.cpu_timing import median_cpu_seconds
from tests.metrics.forest_reference import kept_forest

N, SMOKE_N = 20_000, 1_000
#: Cheaper options for both implementations in the untimed smoke run (each test well under 2.7 s, the fast tier's bar).
SMOKE_OPTIONS = {"z_diff": {"n_train": 2000, "n_eval": 1000}, "dci_rf": {"n_estimators": 5}}
REPEATS = 3
BINS = 10
SEED = 0


# --- shared pieces of the definitions -----------------------------------------------------------------------------


def _equal_width_bins(values: np.ndarray, bins: int = BINS) -> np.ndarray:
    """Each column cut into ``bins`` equal-width bins over its own range (the maximum in the last bin)."""
    low, high = values.min(axis=0), values.max(axis=0)
    return np.minimum(((values - low) * (bins / (high - low))).astype(np.int64), bins - 1)


def _entropy(labels: np.ndarray) -> float:
    """Plug-in entropy (nats) of one column of labels."""
    _, counts = np.unique(labels, return_counts=True)
    p = counts / labels.size
    return float(-np.sum(p * np.log(p)))


def _information(factors: np.ndarray, codes: np.ndarray):
    """Binned factors and codes, the factor entropies and the ``(K, L)`` plug-in mutual informations, pair by pair."""
    v, z = _equal_width_bins(factors), _equal_width_bins(codes)
    mi = np.array([[mutual_info_score(v[:, k], z[:, j]) for j in range(z.shape[1])] for k in range(v.shape[1])])
    return v, z, np.array([_entropy(v[:, k]) for k in range(v.shape[1])]), mi


def _gap(values) -> float:
    """Largest minus second-largest value."""
    ordered = sorted(values, reverse=True)
    return ordered[0] - (ordered[1] if len(ordered) > 1 else 0.0)


def _dci(importance: np.ndarray) -> tuple[float, float]:
    """Modularity and compactness of an ``(L, K)`` importance matrix (Eastwood and Williams 2018), code by code and
    factor by factor; importance-weighted in both."""
    n_codes, n_factors = importance.shape
    total = importance.sum()
    modularity = compactness = 0.0
    for j in range(n_codes):
        row = importance[j]
        if row.sum() > 0:
            p = row[row > 0] / row.sum()
            modularity += row.sum() / total * (1.0 + np.sum(p * np.log(p)) / np.log(n_factors))
    for k in range(n_factors):
        column = importance[:, k]
        if column.sum() > 0:
            p = column[column > 0] / column.sum()
            compactness += column.sum() / total * (1.0 + np.sum(p * np.log(p)) / np.log(n_codes))
    return modularity, compactness


def _held_out_r2(target: np.ndarray, prediction: np.ndarray) -> float:
    """``max(0, 1 - MSE / Var)`` on held-out rows."""
    return max(0.0, 1.0 - float(np.mean((target - prediction) ** 2)) / float(np.var(target)))


def _unit_range(values: np.ndarray) -> np.ndarray:
    return (values - values.min(axis=0)) / (values.max(axis=0) - values.min(axis=0))


def _majority_vote_score(train: list, evaluation: list, n_codes: int, n_factors: int) -> float:
    """Chance-rescaled accuracy of the classifier code -> the factor it got most training votes for."""
    counts = np.zeros((n_codes, n_factors), dtype=np.int64)
    for code, factor in train:
        counts[code, factor] += 1
    accuracy = np.mean([counts[code].argmax() == factor for code, factor in evaluation])
    return max(0.0, (accuracy - 1.0 / n_factors) / (1.0 - 1.0 / n_factors))


# --- the references ------------------------------------------------------------------------------------------------


def reference_mig_sup(factors, codes):
    """MIG-sup (Li et al. 2020; review eq. 6): per code, the gap between its two most informative factors."""
    _, _, entropy, mi = _information(factors, codes)
    return float(np.mean([_gap(mi[:, j] / entropy) for j in range(codes.shape[1])]))


def reference_jemmig(factors, codes):
    """Normalised JEMMIG (Do and Tran 2020; review eq. 5): per factor, 1 - (H(v, z*) - I* + I**) / (H(v) + log bins)."""
    v, z, entropy, mi = _information(factors, codes)
    scores = []
    for k in range(v.shape[1]):
        best = int(np.argmax(mi[k]))
        joint = _entropy(v[:, k] * BINS + z[:, best])
        scores.append(1.0 - (joint - _gap(mi[k])) / (entropy[k] + np.log(BINS)))
    return float(np.mean(scores))


def reference_modularity(factors, codes):
    """Modularity (Ridgeway and Mozer 2018; review eq. 7): per code, 1 - the other factors' squared MI over the best's."""
    _, _, _, mi = _information(factors, codes)
    scores = []
    for j in range(codes.shape[1]):
        best = mi[:, j].max()
        deviation = sum(mi[k, j] ** 2 for k in range(factors.shape[1])) - best**2
        scores.append(1.0 - deviation / (best**2 * (factors.shape[1] - 1)))
    return float(np.mean(scores))


def reference_dcimig(factors, codes):
    """DCIMIG (Sepliarskaia et al. 2019; review 4.4.5): each code's MI gap credited to its best factor, the largest
    credit of each factor summed and divided by the factors' total entropy."""
    _, _, entropy, mi = _information(factors, codes)
    credit = np.zeros(factors.shape[1])
    for j in range(codes.shape[1]):
        best = int(np.argmax(mi[:, j]))
        credit[best] = max(credit[best], _gap(mi[:, j]))
    return float(credit.sum() / entropy.sum())


def reference_irs(factors, codes):
    """IRS (Suter et al. 2019; review 4.2.4) with the largest deviation: per code, 1 - its expected largest deviation
    with one factor's bin fixed over its largest deviation overall, at the best factor."""
    v = _equal_width_bins(factors)
    spread = np.abs(codes - codes.mean(axis=0)).max(axis=0)
    robustness = np.zeros((factors.shape[1], codes.shape[1]))
    for k in range(factors.shape[1]):
        expected = np.zeros(codes.shape[1])
        for value in np.unique(v[:, k]):
            members = codes[v[:, k] == value]
            expected += members.shape[0] / codes.shape[0] * np.abs(members - members.mean(axis=0)).max(axis=0)
        robustness[k] = np.clip(1.0 - expected / spread, 0.0, None)
    return float(np.mean(robustness.max(axis=0)))


def reference_sap(factors, codes):
    """SAP (Kumar et al. 2018; review eq. 1) on continuous factors: per factor, the gap between the two best R^2 of a
    linear regression on one code."""
    gaps = []
    for k in range(factors.shape[1]):
        r2 = [LinearRegression().fit(codes[:, [j]], factors[:, k]).score(codes[:, [j]], factors[:, k]) for j in range(codes.shape[1])]
        gaps.append(_gap(r2))
    return float(np.mean(gaps))


def _groups(keys: np.ndarray) -> dict[tuple, np.ndarray]:
    """Rows grouped by their row of ``keys``."""
    rows: dict[tuple, list[int]] = {}
    for i, key in enumerate(map(tuple, keys)):
        rows.setdefault(key, []).append(i)
    return {key: np.array(members) for key, members in rows.items()}


def _fixable_groups(factors: np.ndarray, all_but_one: bool) -> list[list[np.ndarray]]:
    """Per factor, the groups of at least 2 rows sharing its bin (or the bins of every other factor), at the finest
    binning from :data:`BINS` down to 2 where every factor has one."""
    for bins in range(BINS, 1, -1):
        v = _equal_width_bins(factors, bins)
        groups = []
        for k in range(v.shape[1]):
            keys = np.delete(v, k, axis=1) if all_but_one else v[:, [k]]
            groups.append([members for members in _groups(keys).values() if members.size >= 2])
        if all(groups):
            return groups
    raise ValueError("no binning lets every factor be fixed")


def _variance_votes(scaled, active, groups, count, batch_size, rng, lowest):
    """Z-min / Z-max Variance votes (code, factor): a factor at random, a group drawn with its size, a batch of it."""
    votes = []
    for _ in range(count):
        k = int(rng.integers(len(groups)))
        sizes = np.array([members.size for members in groups[k]])
        members = groups[k][rng.choice(sizes.size, p=sizes / sizes.sum())]
        batch = members if members.size <= batch_size else rng.choice(members, batch_size, replace=False)
        variances = scaled[batch].var(axis=0)
        variances[~active] = np.inf if lowest else -np.inf
        votes.append((int(np.argmin(variances) if lowest else np.argmax(variances)), k))
    return votes


def _variance_vote_reference(factors, codes, lowest, batch_size=200, n_train=800, n_eval=800, std_threshold=0.02):
    rng = np.random.default_rng(SEED)
    std = codes.std(axis=0)
    active = std > std_threshold
    scaled = codes / np.where(active, std, 1.0)
    groups = _fixable_groups(factors, all_but_one=not lowest)
    train = _variance_votes(scaled, active, groups, n_train, batch_size, rng, lowest)
    evaluation = _variance_votes(scaled, active, groups, n_eval, batch_size, rng, lowest)
    return _majority_vote_score(train, evaluation, codes.shape[1], factors.shape[1])


def reference_z_min_var(factors, codes):
    """Z-min Variance (Kim and Mnih 2018; review 4.2.2): one factor's bin fixed, the code of lowest variance votes."""
    return _variance_vote_reference(factors, codes, lowest=True)


def reference_z_max_var(factors, codes):
    """Z-max Variance (review 4.2.3): every other factor's bin fixed, the code of highest variance votes."""
    return _variance_vote_reference(factors, codes, lowest=False)


def reference_z_diff(factors, codes, batch_size=200, n_train=10_000, n_eval=5_000):
    """Z-diff (Higgins et al. 2017; review 4.2.1): a logistic regression (scikit-learn's defaults) tells the fixed factor
    from the mean |z1 - z2| over a batch of pairs sharing its bin, point by point."""
    rng = np.random.default_rng(SEED)
    scaled = codes / codes.std(axis=0)
    groups = _fixable_groups(factors, all_but_one=False)
    members = [np.concatenate(bins) for bins in groups]  # each factor's groups one after another
    sizes = [np.array([bin_members.size for bin_members in bins]) for bins in groups]
    starts = [np.cumsum(size) - size for size in sizes]

    def points(count):
        fixed = rng.integers(factors.shape[1], size=count)
        features = np.empty((count, codes.shape[1]))
        for i, k in enumerate(fixed):
            chosen = rng.choice(sizes[k].size, size=batch_size, p=sizes[k] / sizes[k].sum())  # each pair's own bin
            size = sizes[k][chosen]
            first = rng.integers(size)
            second = (first + 1 + rng.integers(size - 1)) % size  # a distinct member of the same bin
            pairs = scaled[members[k][starts[k][chosen] + first]] - scaled[members[k][starts[k][chosen] + second]]
            features[i] = np.abs(pairs).mean(axis=0)
        return features, fixed

    train, train_factors = points(n_train)
    evaluation, eval_factors = points(n_eval)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lbfgs at its default 100 iterations may warn; the fit is used as it is
        accuracy = np.mean(LogisticRegression().fit(train, train_factors).predict(evaluation) == eval_factors)
    chance = 1.0 / factors.shape[1]
    return max(0.0, (accuracy - chance) / (1.0 - chance))


def _reference_dci(factors, codes, fit: Callable) -> dict[str, float]:
    """DCI (Eastwood and Williams 2018; review 4.3.1) on [0, 1]-scaled factors: ``fit(train codes, target) ->
    (importances, model)`` per factor, explicitness the held-out R^2."""
    targets = _unit_range(factors)
    train, test = train_test_split(np.arange(codes.shape[0]), test_size=0.25, random_state=SEED)
    importance = np.zeros((codes.shape[1], factors.shape[1]))
    explicitness = []
    for k in range(factors.shape[1]):
        importance[:, k], model = fit(codes[train], targets[train, k])
        explicitness.append(_held_out_r2(targets[test, k], model.predict(codes[test])))
    modularity, compactness = _dci(importance)
    return {"modularity": modularity, "compactness": compactness, "explicitness": float(np.mean(explicitness))}


def reference_dci_lasso(factors, codes):
    """DCI with the absolute weights of a lasso at the penalty chosen from scikit-learn's ``LassoCV`` errors (5 folds,
    its grid) by the one-standard-error rule: the largest penalty whose mean error is within one standard error of
    the least one (the project's documented protocol)."""

    def fit(x, y):
        search = LassoCV().fit(x, y)
        means = search.mse_path_.mean(axis=1)
        best = int(np.argmin(means))
        ceiling = means[best] + search.mse_path_[best].std(ddof=1) / np.sqrt(search.mse_path_.shape[1])
        model = Lasso(alpha=max(a for a, m in zip(search.alphas_, means) if m <= ceiling)).fit(x, y)
        return np.abs(model.coef_), model

    return _reference_dci(factors, _unit_range(codes), fit)


def reference_dci_rf(factors, codes, n_estimators=20, leaf_sizes=(1, 10, 100), tree_samples=2000):
    """DCI with random-forest impurity importances: per factor, scikit-learn's ``RandomForestRegressor`` at each
    minimum leaf size, the one of largest leaf size within one standard error of the best out-of-bag R^2 kept (the
    project's documented protocol, :mod:`tests.metrics.forest_reference`)."""

    def fit(x, y):
        forests = []
        for leaf in leaf_sizes:
            forest = RandomForestRegressor(n_estimators=n_estimators, min_samples_leaf=leaf, max_features=1.0,
                                           max_samples=min(tree_samples, y.size), oob_score=True, random_state=SEED)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a row no bootstrap left out has no out-of-bag score
                forests.append(forest.fit(x, y))
        kept = kept_forest(forests, y, "one_se")
        return kept.feature_importances_, kept

    return _reference_dci(factors, codes, fit)


#: metric -> its reference and the largest |project - reference| allowed on any sub-score (see the module docstring:
#: rounding for the deterministic metrics, sampling noise for the stochastic ones; measured at n = 1000 and 20000).
TOLERANCES: dict[str, tuple[Callable, float]] = {
    "mig_sup": (reference_mig_sup, 1e-9),
    "jemmig": (reference_jemmig, 1e-9),
    "modularity": (reference_modularity, 1e-9),
    "dcimig": (reference_dcimig, 1e-9),
    "irs": (reference_irs, 1e-9),
    "sap": (reference_sap, 1e-9),
    "z_diff": (reference_z_diff, 0.05),
    "z_min_var": (reference_z_min_var, 0.05),
    "z_max_var": (reference_z_max_var, 0.1),
    "dci_lasso": (reference_dci_lasso, 0.05),
    "dci_rf": (reference_dci_rf, 0.05),
}


def _as_scores(value) -> dict[str, float]:
    return dict(value) if isinstance(value, dict) else {"score": float(value)}


@pytest.mark.timeout(600)  # timed, DCI-RF's seven calls at n = 20000 take minutes; the smoke run, seconds
@pytest.mark.parametrize("name", sorted(TOLERANCES))
def test_project_metric_against_plain_reference(benchmark, name):
    reference, tolerance = TOLERANCES[name]
    n = SMOKE_N if benchmark.disabled else N
    data = scenarios.get("noise").generate(0.2, n=n, seed=SEED)
    assert not any(data.discrete)  # the references bin every factor
    factors, codes = np.array(data.factors), np.array(data.codes)
    shared = SMOKE_OPTIONS.get(name, {}) if benchmark.disabled else {}
    options = shared | ({"random_state": SEED} if metrics.get(name).stochastic else {})

    def project():
        scores = metrics.evaluate(name, factors, codes, **options)
        return scores if len(scores) > 1 else scores[name]

    with threadpool_limits(limits=1):
        score = benchmark.pedantic(project, rounds=1, iterations=1)
        if benchmark.disabled:
            expected = reference(factors, codes, **shared)
        else:
            project_seconds, score = median_cpu_seconds(project, REPEATS)
            reference_seconds, expected = median_cpu_seconds(lambda: reference(factors, codes), REPEATS)
            benchmark.extra_info.update(metric=name, n_samples=n, project_seconds=project_seconds,
                                        reference_seconds=reference_seconds, ratio=reference_seconds / project_seconds)
            print(f"{name}: reference {reference_seconds:.3f} s, project {project_seconds:.3f} s, "
                  f"ratio {reference_seconds / project_seconds:.1f}")
    ours, theirs = _as_scores(score), _as_scores(expected)
    assert ours.keys() == theirs.keys()
    for sub, value in ours.items():
        assert value == pytest.approx(theirs[sub], abs=tolerance), (name, sub, ours, theirs)
