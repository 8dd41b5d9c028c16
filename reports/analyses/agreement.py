"""Agreement: do two metrics rank the same representations in the same order?

Zaidi et al. (2022), section 5.1 and Figure 3: rankings of the same representations by
two metrics are compared with Kendall's rank correlation coefficient (Kendall 1948).
Here the representations are every (study, scenario, value, seed, n_samples) cell
of the results that both sub-scores scored.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from reports.results.table import MissingDataError, check_results, oriented_score, representation_keys, score_label

#: Fewest common representations for a tau (two always give +-1).
MIN_REPRESENTATIONS = 3


def agreement(results: pd.DataFrame) -> pd.DataFrame:
    """Kendall's tau-b between every pair of sub-scores over the representations both scored.

    Scores are oriented so that higher is better (a lower-is-better score is
    negated in rank), so tau = 1 means the same ranking and -1 the reverse.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).

    Returns
    -------
    pandas.DataFrame
        One row per unordered pair: ``score_a``, ``score_b`` (labels ``metric`` or
        ``metric/sub_score``), ``tau``, ``p_value`` and ``n_representations``.
        ``tau`` and ``p_value`` are NaN (listed in ``attrs["notes"]``) when one of the
        two scores is constant over the common representations: a ranking with all
        ties carries no order to agree with.  ``attrs["constant"]`` names the sub-scores constant over every
        representation they scored (at least :data:`MIN_REPRESENTATIONS`): their τ with themselves is undefined too.

    Raises
    ------
    MissingDataError
        With fewer than two sub-scores, or no pair scored on three common
        representations.

    Notes
    -----
    Tau-b accounts for ties.  Cost: O(S^2 R log R) for S sub-scores and R
    representations.
    """
    results = check_results(results)
    data = results.assign(label=[score_label(m, s) for m, s in zip(results["metric"], results["sub_score"])],
                          oriented=oriented_score(results))
    wide = data.pivot_table(index=representation_keys(), columns="label", values="oriented", aggfunc="mean")
    labels = sorted(wide.columns)
    if len(labels) < 2:
        raise MissingDataError("agreement needs at least two sub-scores; the results have " + ", ".join(labels))
    values = wide[labels].to_numpy(dtype=float)
    scored = ~np.isnan(values)
    rows, notes = [], []
    for (i, first), (j, second) in itertools.combinations(enumerate(labels), 2):
        both = scored[:, i] & scored[:, j]  # the representations both scored, in the table's order
        found = kendall(values[both, i], values[both, j])
        if found is None:
            continue
        tau, p_value = found
        common = int(both.sum())
        if np.isnan(tau):
            notes.append(f"{first} vs {second}: one of them is constant over the {common} common representations")
        rows.append({"score_a": first, "score_b": second, "tau": tau, "p_value": p_value, "n_representations": common})
    if not rows:
        raise MissingDataError(f"agreement needs two sub-scores measured on at least {MIN_REPRESENTATIONS} common representations")
    table = pd.DataFrame(rows)
    table.attrs["notes"] = notes
    table.attrs["constant"] = [label for i, label in enumerate(labels)
                               if scored[:, i].sum() >= MIN_REPRESENTATIONS and np.ptp(values[scored[:, i], i]) == 0]
    return table


def kendall(a: np.ndarray, b: np.ndarray) -> tuple[float, float] | None:
    """Kendall's tau-b of two sets of scores of the same representations and its p-value; NaN for both when one
    set is constant (no order to agree with), None with fewer than :data:`MIN_REPRESENTATIONS`."""
    if len(a) < MIN_REPRESENTATIONS:
        return None
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan"), float("nan")
    from scipy.stats import kendalltau  # here: importing scipy.stats takes half a second, in every process of a report

    result = kendalltau(a, b)
    return float(result.statistic), float(result.pvalue)


def agreement_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """The pairs of :func:`agreement` as a symmetric matrix of tau with 1 on the diagonal (undefined, NaN, for a
    sub-score constant over every representation it scored: ``attrs["constant"]``; a constant ranking does not agree
    with itself)."""
    labels = sorted(set(table["score_a"]) | set(table["score_b"]))
    position = {label: i for i, label in enumerate(labels)}
    a = table["score_a"].map(position).to_numpy(dtype=int)
    b = table["score_b"].map(position).to_numpy(dtype=int)
    values = np.full((len(labels), len(labels)), np.nan)
    values[a, b] = values[b, a] = table["tau"].to_numpy(dtype=float)  # at once: a cell at a time took seconds
    np.fill_diagonal(values, 1.0)
    constant = [position[label] for label in table.attrs.get("constant", ()) if label in position]
    values[constant, constant] = np.nan
    return pd.DataFrame(values, index=labels, columns=labels)


def agreement_rollup(table: pd.DataFrame) -> pd.DataFrame:
    """Per sub-score: median tau with the others, its closest and farthest partner, and undefined pairs.

    Returns a display table (strings) with one row per sub-score of :func:`agreement`.
    """
    matrix = agreement_matrix(table)
    rows = []
    for label in matrix.index:
        others = matrix.loc[label].drop(label)
        defined = others.dropna()
        row = {"Sub-score": label, "Median τ": "undefined" if defined.empty else f"{defined.median():.2f}"}
        if defined.empty:
            row["Closest (τ)"] = row["Farthest (τ)"] = "—"
        else:
            row["Closest (τ)"] = f"{defined.idxmax()} ({defined.max():.2f})"
            row["Farthest (τ)"] = f"{defined.idxmin()} ({defined.min():.2f})"
        row["Pairs without τ"] = str(int(others.isna().sum()))
        rows.append(row)
    return pd.DataFrame(rows)
