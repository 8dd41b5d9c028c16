"""The headline: one row per sub-score, verdicts as in the property matrix, sentences naming the clearest pass and the
worst."""

from __future__ import annotations

import pytest

from reports.verdicts.headline import CRITERIA, headline, headline_display, headline_sentences


@pytest.fixture(scope="module")
def table(synthetic_results):
    return headline(synthetic_results)


def test_one_row_per_sub_score_and_criterion(table, synthetic_results):
    sub_scores = synthetic_results[["metric", "sub_score"]].drop_duplicates()
    assert len(table) == len(sub_scores) * len(CRITERIA)
    display = headline_display(table)
    assert list(display.columns) == ["Sub-score", "Measures", *CRITERIA.values()]
    assert len(display) == len(sub_scores)


def test_cells_match_the_analyses(table):
    cells = table.set_index(["metric", "sub_score", "criterion"])
    # uncal: 0.85 at the perfect end and 0.35 at the random end of noise
    assert cells.loc[("uncal", "uncal", "calibrated"), "number"] == "0.85 / 0.35"
    assert cells.loc[("uncal", "uncal", "calibrated"), "verdict"] == "no"
    # lin's compactness follows its ideal; lin's explicitness has no robustness verdict (not judged under noise)
    assert cells.loc[("lin", "compactness", "follows"), "verdict"] == "yes"
    # the step function is not linear: R² 0.77 on noise
    assert cells.loc[("step", "step", "linear"), "number"] == "R² 0.77, slope 1.29"
    # seconds per call: uncal takes 0.01 s in every call
    assert cells.loc[("uncal", "uncal", "cost"), "value"] == pytest.approx(0.01)


def test_sentences_name_best_and_worst(table):
    sentences = headline_sentences(table)
    calibrated = next(s for s in sentences if s.startswith("Calibrated"))
    # holo's random end is (1 + 1 + 0) / 3 = 0.67, 5.7 thresholds past 0.1; uncal's 0.35 is 2.5 past
    assert calibrated.startswith("Calibrated (perfect ≥ 0.9 / -0.1 ≤ random ≤ 0.1): 4 of 6 sub-scores pass")
    assert "worst holo (1.00 / 0.67)" in calibrated
    cost = next(s for s in sentences if s.startswith("Seconds per call"))
    # lin takes 1e-3 n / 1000 s: its median over calls is 2e-3; step 1e-4 (n / 1000)^2, median 4e-4; uncal 0.01
    assert cost.startswith("Seconds per call: fastest step") and "slowest uncal" in cost


def test_the_compact_headline_shows_one_unbroken_number_per_cell(table):
    # the paper's LaTeX headline wrapped each cell's numbers and thresholds over 6-8 lines, and '0.0021 s' over two
    import re

    full, compact = headline_display(table), headline_display(table, compact=True)
    assert compact.shape == full.shape and compact.columns.tolist() == full.columns.tolist()
    for heading in CRITERIA.values():
        for cell in compact[heading]:
            assert len(re.findall(r"-?\d+\.?\d*(?:e-?\d+)?", cell)) <= 1 and len(cell.split()) <= 2, cell
    seconds = compact[CRITERIA["cost"]]
    assert all(" " not in cell for cell in seconds) and seconds.str.match(r"^[\d.e-]+$|^—$").all()
    # the number shown is the verdict's deciding one, as in the full cell
    decided = table.loc[table["verdict"].isin(["yes", "no"]) & (table["criterion"] == "calibrated")].iloc[0]
    row = compact.loc[compact["Sub-score"].str.startswith(decided["metric"])].iloc[0]
    assert row[CRITERIA["calibrated"]].split()[-1] in full.loc[row.name, CRITERIA["calibrated"]]


def test_equal_deciding_checks_are_ranked_by_the_next_ones():
    # every rho is 1.00: the sentence named the table's first sub-score best and its last worst, whatever their
    # slopes ("best sap (rho 1.00, slope 0.96), worst maxcorr (rho 1.00, slope 0.99)", mig's 0.87 unnamed)
    import pandas as pd

    from reports.verdicts.bundle import Bundle
    from tests.reports.conftest import _row

    rows = [_row("noise", alpha, f"{alpha:g}", seed, 1000, metric, "custom", metric, "explicitness", 1 - alpha,
                 slope * (1 - alpha) + 0.001 * seed, 0.01)
            for metric, slope in (("m_mid", 0.9), ("z_low", 0.7), ("a_top", 1.0))  # names against the slopes' order
            for alpha in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) for seed in (0, 1, 2)]
    bundle = Bundle(pd.DataFrame(rows))
    table = headline(bundle)
    follows = next(s for s in headline_sentences(table, bundle) if s.startswith("Follows"))
    assert "clearest pass a_top (ρ 1.00, slope 1.00" in follows and "worst z_low (ρ 1.00, slope 0.70" in follows, follows


def test_the_leader_is_called_the_clearest_pass_or_where_none_passes_the_closest_to_passing():
    # "best" named the sub-score farthest past the thresholds: a slope of 2.2 (a score falling twice as fast as its
    # ideal) read best beside a slope of 1
    import pandas as pd

    from reports.verdicts.bundle import Bundle
    from tests.reports.conftest import _row

    def follows(slopes):
        rows = [_row("noise", alpha, f"{alpha:g}", seed, 1000, metric, "custom", metric, "explicitness", 1 - alpha,
                     slope * (1 - alpha) + 0.001 * seed, 0.01)
                for metric, slope in slopes.items()
                for alpha in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) for seed in (0, 1, 2)]
        bundle = Bundle(pd.DataFrame(rows))
        return next(s for s in headline_sentences(headline(bundle), bundle) if s.startswith("Follows"))

    steep = follows({"steep": 2.2, "exact": 1.0})
    assert "2 of 2 sub-scores pass" in steep and "clearest pass steep (ρ 1.00, slope 2.20" in steep, steep
    assert "best" not in steep
    flat = follows({"flat": 0.3, "flatter": 0.2})
    assert "0 of 2 sub-scores pass" in flat and "closest to passing flat (ρ 1.00, slope 0.30" in flat, flat
    assert "worst flatter" in flat


def test_seconds_per_call_keep_two_significant_digits():
    # 0.1359 s read "0.1 s" beside cost.tex's 0.136, while 0.095 read "0.095 s"
    from reports.verdicts.headline import _seconds

    assert [_seconds(value) for value in (0.0123, 0.095, 0.1359, 2.345, 12.6, 135.0)] == [
        "0.012 s", "0.095 s", "0.14 s", "2.3 s", "13 s", "135 s"]
    assert _seconds(float("nan")) == "—"


def test_a_sub_score_no_criterion_measures_is_named_with_the_scenarios_it_was_scored_on():
    # UDR's three rows of "?" in the default study's headline read as a gap: it is scored on populations of models only
    # (udr_population), which no criterion reads, and nothing said so
    import pandas as pd

    from reports.verdicts.bundle import Bundle
    from tests.reports.conftest import _row

    rows = [_row("noise", alpha, f"{alpha:g}", seed, 1000, "lin", "custom", "lin", "explicitness", 1 - alpha,
                 (1 - alpha) + 0.001 * seed, 0.01)
            for alpha in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) for seed in (0, 1, 2)]
    rows += [{**_row("noise", proportion, f"{proportion:g}", seed, 500, "pop", "unsupervised", sub_score, "holistic",
                     float("nan"), 0.5, 1.0), "scenario": "population", "parameter": "proportion", "criterion": ""}
             for sub_score in ("agree", "separation") for proportion in (0.0, 0.5, 1.0) for seed in (0, 1, 2)]
    bundle = Bundle(pd.DataFrame(rows))
    table = headline(bundle)
    assert set(table.loc[(table["metric"] == "pop") & (table["criterion"] != "cost"), "verdict"]) == {"unmeasured"}
    sentences = headline_sentences(table, bundle)
    assert sentences[-1] == ("Measured by no criterion: pop/agree, pop/separation, scored on population only (each "
                             "criterion's reason: the evidence column of tables/headline.csv).")
    assert sum("no criterion" in sentence for sentence in sentences) == 1  # lin, judged on noise, is not named
    assert headline_sentences(table)[-1].startswith("Measured by no criterion: pop/agree, pop/separation (each")
