"""Held-out helpers shared by the predictor metrics: standardising a split, affine least squares."""

from __future__ import annotations

import numpy as np


def standardized_split(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centre and scale both parts by the training rows' mean and standard deviation (constant columns stay 0)."""
    mean, scale = train.mean(axis=0), train.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    return (train - mean) / scale, (test - mean) / scale


def affine_predictions(codes_train: np.ndarray, targets: np.ndarray, codes_test: np.ndarray) -> np.ndarray:
    """Predictions on ``codes_test`` of the least-squares affine map from ``codes_train`` to ``targets``."""
    design = np.column_stack([codes_train, np.ones(codes_train.shape[0])])
    weights, *_ = np.linalg.lstsq(design, targets, rcond=None)
    return np.column_stack([codes_test, np.ones(codes_test.shape[0])]) @ weights
