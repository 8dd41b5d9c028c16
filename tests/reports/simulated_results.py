"""Results rows of simulated metrics on a noise scenario's two ends, for tests of verdicts' error rates: scores drawn
around a known truth, read by the calibration verdict (its perfect end against 0.9)."""

from __future__ import annotations

import numpy as np

#: The simulated threshold: calibration's perfect end, at 0.9.
THRESHOLD = 0.9


def calibration_rows(metric: str, scenario: str, seed: int, perfect: float) -> list[dict[str, object]]:
    """A metric's two rows of one seed on ``scenario`` (criterion ``noise``): ``perfect`` (clipped to [0, 1]) at alpha 0,
    0 at alpha 1 (clearly calibrated there)."""
    return [{"study": "simulated", "scenario": scenario, "parameter": "alpha", "criterion": "noise",
             "value": value, "value_label": f"{value:g}", "seed": seed, "n_samples": 1000,
             "metric": metric, "family": "information", "sub_score": "score", "property": "holistic",
             "higher_is_better": True, "ideal": 1.0 - value, "score": score, "exact": np.nan,
             "seconds": 0.0, "null_mean": np.nan, "null_q95": np.nan, "p_value": np.nan,
             "null_permutations": 0, "null_seconds": 0.0, "warnings": 0, "first_warning": "", "looks": 1,
             "metric_version": "1", "harness_version": "test", "sweep": scenario,
             "parameters": f'{{"alpha":{value:g}}}', "metric_base": metric, "options": "{}", "default_options": "{}"}
            for value, score in ((0.0, float(np.clip(perfect, 0.0, 1.0))), (1.0, 0.0))]
