"""DCI-RF's choice among scikit-learn forests, read through their public interface: the tests' plain reference.

:func:`kept_forest` keeps, among ``RandomForestRegressor`` s fitted with ``oob_score=True`` (one per minimum leaf
size), the one DCI-RF's docstring defines: the best out-of-bag R², or the one of largest leaf size within one standard
error of it (:func:`oob_r2_standard_error`, from the forest's ``oob_prediction_`` and ``estimators_samples_``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.ensemble import RandomForestRegressor


def oob_r2_standard_error(forest: RandomForestRegressor, target: np.ndarray) -> float:
    """The standard error of the forest's out-of-bag R², from the rows some tree left out: their squared errors'
    standard deviation times the square root of their number, over the target's sum of squares about its mean."""
    left_out_once = np.zeros(target.size, dtype=bool)
    for drawn in forest.estimators_samples_:
        missed = np.ones(target.size, dtype=bool)
        missed[drawn] = False
        left_out_once |= missed
    errors = (target[left_out_once] - forest.oob_prediction_[left_out_once]) ** 2
    return float(np.std(errors, ddof=1) * np.sqrt(errors.size) / np.sum((target - target.mean()) ** 2))


def kept_forest(forests: Sequence[RandomForestRegressor], target: np.ndarray, leaf_selection: str) -> RandomForestRegressor:
    """The forest DCI-RF keeps: ``"best"`` out-of-bag R² (the first of equal ones), or ``"one_se"``: the largest
    ``min_samples_leaf`` whose out-of-bag R² is at least the best one's minus its standard error."""
    best = max(forests, key=lambda forest: forest.oob_score_)
    if leaf_selection == "best":
        return best
    floor = best.oob_score_ - oob_r2_standard_error(best, target)
    return max((forest for forest in forests if forest.oob_score_ >= floor), key=lambda forest: forest.min_samples_leaf)
