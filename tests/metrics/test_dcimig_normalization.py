"""DCIMIG's normalisations against a hand-computed case (Zaidi et al. 2022, eq. 8)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import metrics
from metrics.dcimig import dcimig


@pytest.fixture(scope="module")
def balanced_design():
    # every combination of two binary factors v1, v2 and a binary nuisance w, 100 times
    rows = np.array(list(itertools.product((0, 1), repeat=3)) * 100, dtype=float)
    v1, v2, w = rows.T
    factors = np.column_stack([v1, v2])
    codes = np.column_stack([2 * v1 + v2, 2 * v2 + w])  # z1 holds both factors, z2 holds v2 and w
    return factors, codes


def test_default_is_the_reviews_code_raw_gaps_over_summed_factor_entropies(balanced_design):
    # z1: I(v1; z1) = I(v2; z1) = ln 2, gap 0.  z2: I(v2; z2) = ln 2, I(v1; z2) = 0, gap ln 2
    # credited to v2.  The review's dcimig.py: (0 + ln 2) / (H(v1) + H(v2)) = 1/2.
    factors, codes = balanced_design
    score = metrics.evaluate("dcimig", factors, codes, discrete=(True, True))["dcimig"]
    assert score == pytest.approx(0.5, abs=1e-12)


def test_code_normalisation_is_a_different_variant(balanced_design):
    # gaps on I / H(z_j): z2 has H = ln 4, so v2's gap is 1/2; mean over factors (0 + 1/2) / 2
    factors, codes = balanced_design
    score = metrics.evaluate("dcimig", factors, codes, discrete=(True, True), normalization="code")["dcimig"]
    assert score == pytest.approx(0.25, abs=1e-12)


def test_docstring_credits_the_reviews_code_to_the_default():
    doc = " ".join(dcimig.__doc__.split())
    factor_entry = doc[doc.index('``"factor"`` is') : doc.index('``"code"`` takes')]
    assert "review's public code" in factor_entry
    assert "neither the paper nor that code" in doc
