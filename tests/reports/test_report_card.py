"""The report card's numbers, computed in reports/ from a results table (conftest.py's synthetic table)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports import check_results
from reports.report_card import criterion_rankings, criterion_values, rank_metric, report_card_markdown, verdict_rows


def _value(values: pd.DataFrame, criterion: str, metric: str) -> float:
    return float(values.loc[(values["criterion"] == criterion) & (values["metric"] == metric), "value"].iloc[0])


def test_criterion_values_of_the_synthetic_metrics(synthetic_results):
    values, notes = criterion_values(synthetic_results)
    # lin: 0.98 * ideal + 0.01 and 0 for pure noise (its modularity follows LIN_NOISE_STRUCTURE)
    assert _value(values, "calibration", "lin") == pytest.approx(0.01, abs=1e-9)  # 1 - 0.99 at alpha 0, 0.01 at 1
    assert _value(values, "linearity", "lin") == pytest.approx(1.0, abs=1e-9)  # exactly affine in the ideal
    assert _value(values, "linearity", "step") < 0.9  # a step is not a line
    assert {"calibration", "linearity", "robustness", "sample efficiency", "cost"} <= set(values["criterion"])
    # the one attack scenario (the PID toy) states no ideal for pid's holistic terms: nothing to rank there
    assert notes == ["entanglement attacks: not measured (no sub-score qualifies)"]


def test_an_undefined_r2_counts_as_not_linear(synthetic_results):
    table = synthetic_results.copy()
    constant = table["metric"] == "lin"
    table.loc[constant, "score"] = 0.5  # a constant score: R² undefined, not linear
    values, _ = criterion_values(check_results(table))
    assert _value(values, "linearity", "lin") == 0.0


def test_robustness_reads_the_noise_criterion_not_the_scenario_name(synthetic_results):
    renamed = synthetic_results.assign(scenario=synthetic_results["scenario"].replace({"noise": "my_noise"}))
    before, _ = criterion_values(synthetic_results)
    after, _ = criterion_values(check_results(renamed))
    for metric in ("lin", "uncal"):
        assert _value(after, "robustness", metric) == pytest.approx(_value(before, "robustness", metric), abs=1e-12)
        assert _value(after, "calibration", metric) == pytest.approx(_value(before, "calibration", metric), abs=1e-12)


def test_a_swept_metric_is_ranked_once_on_its_default_variant(synthetic_results):
    # validate may run option sweeps: a metric's own variants must not compete with it
    variant = synthetic_results.loc[synthetic_results["metric"] == "lin"].assign(metric="lin[bins=5]")
    swept, _ = criterion_values(check_results(pd.concat([synthetic_results, variant], ignore_index=True)))
    plain, _ = criterion_values(synthetic_results)
    assert "lin[bins=5]" not in set(swept["metric"])
    pd.testing.assert_frame_equal(swept.reset_index(drop=True), plain.reset_index(drop=True))


def test_ranks_and_the_rendered_card(synthetic_results):
    values = pd.DataFrame({"criterion": ["cost"] * 3, "metric": ["a", "b", "c"], "value": [0.2, 0.1, 0.2],
                           "higher_is_better": [False] * 3})
    ranked = rank_metric(values, "a")
    assert ranked["rank"].tolist() == ["2 of 3"] and ranked["best built-in"].tolist() == ["b (0.1)"]
    rankings, notes = criterion_rankings(synthetic_results, "lin")
    verdicts = verdict_rows(synthetic_results, "lin")
    axioms = pd.DataFrame({"axiom": ["a1", "a2"], "measured": [0.0, np.nan], "result": ["pass", "FAIL"]})
    card = report_card_markdown(name="lin", reference="x.py:lin", version="1",
                                claims={"property": "modularity", "higher_is_better": True, "stochastic": False},
                                battery={"preset": "quick", "scenarios": ["noise"], "builtins": ["uncal"], "seeds": 3,
                                         "n_samples": "2000"},
                                rankings=rankings, verdicts=verdicts, axioms=axioms, probe="mixing = 0.2", notes=notes)
    assert card.startswith("# Report card: `lin`") and "axioms: 1 of 2 checks pass" in card
    assert "## Criteria" in card and "## Property-matrix verdicts" in card and "| linearity" in card


def test_failed_cells_are_counted_listed_and_named_in_the_notes(synthetic_results):
    # lin failed at the pure-noise end of the noise scenario: calibration cannot judge it, and the card says why
    noise_end = (synthetic_results["metric"] == "lin") & (synthetic_results["scenario"] == "noise") & (synthetic_results["value"] == 1.0)
    dropped = synthetic_results.loc[noise_end].drop_duplicates(["scenario", "value", "seed", "n_samples"])
    failures = pd.DataFrame({"scenario": dropped["scenario"], "value_label": dropped["value_label"], "seed": dropped["seed"],
                             "n_samples": dropped["n_samples"], "metric": "lin", "error": "ValueError: no signal"})
    assert len(failures) > 0
    results = check_results(synthetic_results.loc[~noise_end])
    cells = len(synthetic_results.loc[synthetic_results["metric"] == "lin"].drop_duplicates(["scenario", "value", "seed", "n_samples"]))
    rankings, notes = criterion_rankings(results, "lin", failures)
    assert "calibration" not in set(rankings["criterion"])
    assert (f"calibration: no sub-score of lin is judged by it in this battery ({len(failures)} of its cells in the "
            "scenarios it reads failed: see Failed cells)") in notes
    assert not any("cost" in note for note in notes)  # lin is still ranked on cost
    axioms = pd.DataFrame({"axiom": ["a1"], "measured": [0.0], "result": ["pass"]})
    card = report_card_markdown(name="lin", reference="x.py:lin", version="1",
                                claims={"property": "modularity", "higher_is_better": True, "stochastic": False},
                                battery={"preset": "quick", "scenarios": ["noise"], "builtins": ["uncal"], "seeds": 3,
                                         "n_samples": "2000"},
                                rankings=rankings, verdicts=verdict_rows(results, "lin"), axioms=axioms, probe="p",
                                notes=notes, failures=failures, results=results)
    assert f"- failed cells: {len(failures)} of {cells} cells of `lin` (raised or timed out" in card
    section = card.split("## Failed cells", 1)[1].split("##", 1)[0]
    assert section.count("ValueError: no signal") == len(failures)
    without = report_card_markdown(name="lin", reference="x.py:lin", version="1",
                                   claims={"property": "modularity", "higher_is_better": True, "stochastic": False},
                                   battery={"preset": "quick", "scenarios": ["noise"], "builtins": [], "seeds": 3,
                                            "n_samples": "2000"},
                                   rankings=rankings, verdicts=verdict_rows(results, "lin"), axioms=axioms, probe="p",
                                   failures=failures.iloc[:0], results=results)
    assert "failed cells" not in without and "## Failed cells" not in without


def test_a_lower_is_better_card_says_its_scores_are_read_as_one_minus_score(synthetic_results):
    # calibration's "score of pure noise" is 0.06 for a lower-is-better metric scoring 0.94 there: the card says so
    rankings, notes = criterion_rankings(synthetic_results, "lin")
    axioms = pd.DataFrame({"axiom": ["a1"], "measured": [0.0], "result": ["pass"]})

    def card(higher_is_better: bool) -> str:
        return report_card_markdown(name="lin", reference="x.py:lin", version="1",
                                    claims={"property": "modularity", "higher_is_better": higher_is_better, "stochastic": False},
                                    battery={"preset": "quick", "scenarios": ["noise"], "builtins": [], "seeds": 3,
                                             "n_samples": "2000"},
                                    rankings=rankings, verdicts=verdict_rows(synthetic_results, "lin"), axioms=axioms,
                                    probe="p", notes=notes)

    assert "- claims: modularity; lower is better (criteria, verdicts and the chance axiom read 1 − score, as the reports do); deterministic" in card(False)
    assert "- claims: modularity; higher is better; deterministic" in card(True) and "1 − score," not in card(True)


def test_the_claims_line_speaks_of_other_sub_scores_only_where_there_are_some():
    from reports.report_card import claims_text

    claims = {"property": {"err": "explicitness"}, "higher_is_better": {"err": False}, "stochastic": False}
    flipped = "criteria, verdicts and the chance axiom read 1 − score, as the reports do"
    assert claims_text(claims, {"err"}) == f"err: explicitness; lower is better for err ({flipped}); deterministic"
    assert claims_text(claims, {"err", "rho"}) == (f"err: explicitness (other sub-scores holistic); lower is better for "
                                                   f"err ({flipped}), higher for the others; deterministic")
    assert claims_text(claims) == claims_text(claims, {"err", "rho"})  # sub-scores unknown: the mapping's full reading
