"""The review's printed tables as data, set beside the measurements (reports.review.published, review_comparison,
review_report).

The measured side is the synthetic table with two hand-made sweeps over ``bins`` (defaults 10 recorded):
``lin`` becomes ``mig`` (its ``bins=5`` variant 0.3 lower on ``mixing``: not discretization-free, one option moving
it) and ``step`` (one explicitness sub-score) becomes ``modularity``, which no bins move (discretization-free).
"""

from __future__ import annotations

import pandas as pd
import pytest

from reports import check_results
from reports.rendering.html import table_to_html
from reports.rendering.latex import to_latex
from reports.review.comparison import agreement_counts, agreement_sentence, comparison_display, disagreements, review_comparison
from reports.review.published import COLUMNS, PRINTED, TABLE_1, published_table
from reports.review.sections import TABLE_1_TOLERANCE, agreement_line, table_1, table_1_sections, table_2_sections
from reports.verdicts.bundle import Bundle

SHIFT = 0.3


@pytest.fixture(scope="module")
def bundle(synthetic_results, variant_of) -> Bundle:
    def sweep(metric: str, name: str, shifted: int | None) -> list[pd.DataFrame]:
        rows = synthetic_results.loc[synthetic_results["metric"] == metric]
        frames = []
        for bins in (5, 10, 40):
            variant = variant_of(rows, name, {"bins": bins}, {"bins": 10})
            if bins == shifted:
                variant.loc[variant["scenario"] == "mixing", "score"] -= SHIFT
            frames.append(variant)
        return frames

    others = synthetic_results.loc[~synthetic_results["metric"].isin(["lin", "step"])]
    return Bundle(pd.concat([others, *sweep("lin", "mig", 5), *sweep("step", "modularity", None)], ignore_index=True))


@pytest.fixture(scope="module")
def comparison(bundle) -> pd.DataFrame:
    return review_comparison(bundle).set_index(["metric", "characteristic"])


def test_the_published_table_is_the_printed_one():
    table = published_table()
    assert len(PRINTED.splitlines()) == 13 and len(table) == 14 * len(COLUMNS)  # MIG-RMIG as mig and as rmig
    cell = table.set_index(["metric", "heading"])["published"]
    # cells read off the paper's Table 2, one per kind of mark
    assert cell[("dci_rf", "Few Hyper-parameters")] == "✗" and cell[("dci_rf", "Nonlinear Relation")] == "✓"
    assert cell[("sap", "Robust to Noise")] == "n/a" and cell[("irs", "Robust to Noise")] == "n/a"
    assert cell[("jemmig", "Robust to Noise")] == "✗" and cell[("dci_lasso", "Discretization-free")] == "✓"
    assert (cell[("mig", "Compactness")], cell[("rmig", "Compactness")]) == ("✓", "✓")
    assert table.loc[table["metric"] == "rmig", "references"].iloc[0] == "8,9"


def test_each_cell_is_compared_with_the_measured_verdict(comparison):
    free = comparison.loc[("modularity", "discretization_free")]  # no bins move it: the review's ✗ by design
    assert (free["published"], free["measured"], free["agreement"], free["number"]) == ("✗", "✓", "disagree", "0.00")
    assert "by design" in free["rule"] and "bins" in free["evidence"]
    few = comparison.loc[("modularity", "few_hyperparameters")]
    assert (few["published"], few["measured"], few["agreement"]) == ("✓", "✓", "agree")
    absent = comparison.loc[("modularity", "modularity")]  # no modularity sub-score: the review's ✗
    assert (absent["published"], absent["measured"], absent["agreement"]) == ("✗", "✗", "agree")
    binned = comparison.loc[("mig", "discretization_free")]
    assert (binned["measured"], binned["agreement"], binned["number"]) == ("✗", "agree", "0.30")
    assert comparison.loc[("rmig", "compactness"), "agreement"] == "missing"


def test_the_count_and_the_disagreements(comparison):
    table = comparison.reset_index()
    counts = agreement_counts(table)
    assert sum(counts.values()) == len(table) and counts["missing"] == 12 * len(COLUMNS)  # only mig and modularity held
    assert counts["agree"] == (table["published"] == table["measured"]).sum()
    sentence = agreement_sentence(table)
    assert sentence.startswith(f"The review's Table 2 (Zaidi et al. 2022): {counts['agree']} of {2 * len(COLUMNS)} cells")
    assert "not compared: dci_lasso, dci_rf" in sentence
    # mig held, rmig not: it said "MIG-RMIG compared as mig and as rmig" beside rmig among those not compared
    assert "MIG-RMIG compared as mig)" in sentence and "as rmig" not in sentence
    without = table.assign(agreement=table["agreement"].where(table["metric"] != "mig", "missing"))
    assert "MIG-RMIG" not in agreement_sentence(without)
    listed = disagreements(table)
    assert len(listed) == counts["disagree"] and set(listed["Published"] != listed["Measured"]) == {True}
    assert "Modularity Score" in set(listed["Review row"])


def test_the_side_by_side_renders_marks_and_agreement(comparison):
    display = comparison_display(comparison.reset_index()).set_index("Metric")
    assert display.loc["modularity", "Discretization-free"] == "✗ ≠ ✓"
    assert display.loc["modularity", "Few Hyper-parameters"] == "✓ = ✓"
    html = table_to_html(display.reset_index(), "t")
    assert '<td class="no">✗ ≠ ✓</td>' in html and '<td class="yes">✓ =<wbr> ✓</td>' in html
    assert r"$\neq$" in to_latex(display.reset_index(), caption="c", label="l")


def test_the_sections_open_with_the_count(bundle):
    side, listing = table_2_sections(bundle)
    assert side.key == "review_table2" and side.lines[0] == agreement_sentence(review_comparison(bundle))
    assert listing.key == "review_disagreements" and len(listing.display) == agreement_counts(side.table)["disagree"]


def test_the_metrics_the_run_did_not_include_are_named_once_not_listed(bundle):
    # a run of mig and modularity listed twelve rows of "✓ vs missing", one per review metric it did not run
    side, _ = table_2_sections(bundle)
    assert sorted(side.display["Metric"]) == ["mig", "modularity"] and len(side.paper) == 2
    assert set(side.table["metric"]) == {"mig", "modularity"} and "missing" not in set(side.table["agreement"])
    assert not [cell for cell in side.display.to_numpy().ravel() if "missing" in str(cell)]
    assert "not compared: dci_lasso, dci_rf, dcimig" in side.lines[0] and "rmig, sap" in side.lines[0]
    assert side.lines[1].startswith("Agreeing cells per column: ") and side.lines[1].count(" of 2") == len(COLUMNS)



def test_table_1_is_compared_within_its_rounding(synthetic_results):
    """SAP's printed 0.6 (cos/sin) and 0.0 (two copies): measured 0.65 and 0.15 reproduce the first only."""
    rows = synthetic_results.loc[(synthetic_results["metric"] == "step") & (synthetic_results["scenario"] == "mixing")]
    rows = rows.loc[rows["value"] == rows["value"].iloc[0]]
    cases = [rows.assign(scenario="modular_not_compact", value_label=case, metric="sap", sub_score="sap", score=score)
             for case, score in (("cos_sin", 0.65), ("duplicate_2", 0.15))]
    table = table_1(check_results(pd.concat(cases, ignore_index=True))).set_index(["case", "metric", "sub_score"])
    assert table.index.is_unique  # a (case, metric) key is not: MIG-RMIG's heading has two lines
    assert TABLE_1["cos_sin"][11] == 0.6 and TABLE_1_TOLERANCE == 0.1
    assert table.loc[("cos_sin", "sap", "sap"), "measured"] == pytest.approx(0.65)
    assert bool(table.loc[("cos_sin", "sap", "sap"), "reproduced"]) and not table.loc[("duplicate_2", "sap", "sap"), "reproduced"]
    assert table.loc[("duplicate_2", "sap", "sap"), "difference"] == pytest.approx(0.15)
    assert table.loc[("cos_sin", "mig", "mig"), "n_seeds"] == 0  # not in the results: no measurement, not a zero
    assert table.loc[("cos_sin", "mig", "mig"), "reproduced"] is None  # nor a failure to reproduce (it read False)


def test_a_study_of_other_metrics_gets_no_review_section(synthetic_results):
    bundle = Bundle(synthetic_results)  # lin, step, uncal, holo, pid: none of the review's
    assert table_2_sections(bundle) == [] and table_1_sections(bundle) == [] and agreement_line(bundle) is None
