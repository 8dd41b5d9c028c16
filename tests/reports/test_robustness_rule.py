"""One robustness rule: the Robustness and Entanglement attacks sections, the headline, the property matrix and
the report card judge the same sub-scores under the same conditions, so a reader never sees two verdicts."""

from __future__ import annotations

import pandas as pd
import pytest

from reports import headline, property_matrix
from reports.report import build_sections
from reports.report_card import criterion_values
from reports.sensitivity import on_default_options


@pytest.fixture(scope="module")
def realistic(realistic_results) -> pd.DataFrame:
    return realistic_results


@pytest.fixture(scope="module")
def sections(realistic_results) -> dict:
    return {section.key: section.table for section in build_sections(realistic_results)}


def _passes(table: pd.DataFrame) -> dict[tuple[str, str], bool]:
    return {key: bool(rows["robust"].all()) for key, rows in table.groupby(["metric", "sub_score"])}


def test_headline_columns_agree_with_the_sections(realistic, sections):
    table = headline(on_default_options(realistic))  # as the report's sections see a swept metric
    for criterion, section in (("robust", "robustness"), ("follows_attacks", "attacks")):
        judged = table.loc[(table["criterion"] == criterion) & table["verdict"].isin(["yes", "no"])]
        verdicts = {(m, s): v == "yes" for m, s, v in zip(judged["metric"], judged["sub_score"], judged["verdict"])}
        assert verdicts, criterion
        assert verdicts == _passes(sections[section]), criterion


def test_the_sections_split_robustness_from_attacks(sections):
    assert set(sections["robustness"]["criterion"]) == {"noise", "nonlinearity", "non_measured_factors"}
    assert set(sections["attacks"]["criterion"]) == {"attacks"}
    robust = sections["robustness"]
    # explicitness is judged under the nonlinear map and non-measured factors, never under noise
    explicit = robust.loc[robust["property"] == "explicitness", "criterion"]
    assert set(explicit) == {"nonlinearity", "non_measured_factors"}


def test_property_matrix_and_card_read_the_same_rows(realistic, sections):
    matrix = property_matrix(realistic)
    attacks = matrix.loc[matrix["characteristic"] == "follows_attacks"].set_index("metric")
    worst = sections["attacks"].groupby("metric")["deviation"].max()
    for metric, deviation in worst.items():
        assert attacks.loc[metric, "value"] == pytest.approx(deviation)
    values, _ = criterion_values(realistic)
    card = values.set_index(["criterion", "metric"])["value"]
    for metric, deviation in sections["robustness"].groupby("metric")["deviation"].max().items():
        assert card[("robustness", metric)] == pytest.approx(deviation)
    for metric, deviation in worst.items():
        assert card[("entanglement attacks", metric)] == pytest.approx(deviation)
