"""Every threshold of the verdicts, written once: the analyses, the verdicts and the report's prose all read it.

An analysis takes a :class:`Thresholds` as an argument, a characteristic's rules name its fields
(:mod:`reports.verdicts.characteristics`), and every sentence that states a threshold is a template filled from
the :class:`Thresholds` the report was built with (:meth:`Thresholds.fill`), so that changing one field
moves the verdicts and the words together.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Thresholds:
    """Every threshold of the verdicts, with its default.

    Attributes
    ----------
    min_rank_correlation : float
        Spearman's rho of a score against its property's ideal trajectory (follows its property's ideal).
    min_slope : float
        Affine slope of a score against its property's ideal trajectory (follows its property's ideal).
    perfect_threshold : float
        Oriented mean score of a perfect code (calibrated).
    random_threshold : float
        Most oriented mean score of pure noise (calibrated).
    min_random : float
        Least oriented mean score of pure noise (calibrated): the chance end is 0 on the oriented scale, as the chance
        axiom reads it, and a score below it is a finding as one above it is (DCI-ES explicitness: about −1 on pure
        noise, where every other explicitness scores 0).
    min_r2 : float
        R² of the affine fit to the ideal trajectory (linear).
    min_linear_slope : float
        Slope of that fit: the score spans at least this fraction of the ideal's range (linear).
    max_deviation : float
        Largest ``|score - ideal|`` (robust, follows attacks; a level comparison's excess for the property columns).
    data_n : int
        The sample size data efficiency is judged at.
    data_tolerance : float
        Largest mean ``|s(data_n) - s(n_max)|`` (data efficient).
    max_spread : float
        Largest spread of a score across an option's values for the option not to move it (on the [0, 1] score
        scale: a tenth of it, the size of the gaps between the review's verdicts).
    max_sensitive_options : int
        Most swept options moving a score beyond ``max_spread`` (few hyper-parameters: one knob, as the review
        credits the binned information metrics with).
    min_monotone_rank_correlation : float
        Spearman's rho of the linearity table's ``monotone`` column (ties count against it: a step function over
        six equally spaced values has rho = 0.88).
    """

    min_rank_correlation: float = 0.8
    min_slope: float = 0.5
    perfect_threshold: float = 0.9
    random_threshold: float = 0.1
    min_random: float = -0.1
    min_r2: float = 0.9
    min_linear_slope: float = 0.25
    max_deviation: float = 0.2
    data_n: int = 1000
    data_tolerance: float = 0.05
    max_spread: float = 0.1
    max_sensitive_options: int = 1
    min_monotone_rank_correlation: float = 0.9

    def fill(self, template: str, **extra: object) -> str:
        """``template`` with ``{field}`` (``{field:g}``) replaced by that threshold's value, and ``extra``'s keys
        by theirs."""
        return template.format(**dataclasses.asdict(self), **extra)
