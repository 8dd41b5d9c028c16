"""Write the whole report of a results table: HTML, Markdown, CSV and LaTeX tables, figures.

Reads only the results table: it never runs a metric.  An analysis the table cannot
support (its scenario was not run) is replaced by a note saying what is missing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import pandas as pd

from reports._format import FigureFile, Section, display_table
from reports._style import metric_colours, sub_score_markers
from reports._table import MissingDataError, check_results
from reports import figures
from reports.agreement import agreement, agreement_matrix
from reports.calibration import DISPLAY_COLUMNS as CALIBRATION_COLUMNS
from reports.calibration import PERFECT_THRESHOLD, RANDOM_THRESHOLD, calibration
from reports.cost import DISPLAY_COLUMNS as COST_COLUMNS
from reports.cost import cost, cost_by_n
from reports.linearity import DISPLAY_COLUMNS as LINEARITY_COLUMNS
from reports.linearity import MIN_LEVELS, MIN_R2, linearity
from reports.linearity import MIN_RANK_CORRELATION as LINEARITY_MIN_RHO
from reports.property_matrix import (
    DATA_N, DATA_TOLERANCE, MIN_RANK_CORRELATION, MIN_SLOPE, property_matrix, property_matrix_display,
)
from reports.robustness import DISPLAY_COLUMNS as ROBUSTNESS_COLUMNS
from reports.robustness import DEFAULT_VALUE_RANGES, MAX_DEVIATION, robustness
from reports.sample_efficiency import DISPLAY_COLUMNS as EFFICIENCY_COLUMNS
from reports.sample_efficiency import sample_efficiency
from reports.html import render_html
from reports.latex import to_latex
from reports.markdown import render_markdown


def _section(key: str, title: str, description: str, compute: Callable[[], pd.DataFrame],
             display: Callable[[pd.DataFrame], pd.DataFrame]) -> Section:
    try:
        table = compute()
    except MissingDataError as missing:
        return Section(key, title, description, notes=[f"Not computed: {missing}"])
    return Section(key, title, description, table=table, display=display(table), notes=list(table.attrs.get("notes", [])))


def _agreement_display(table: pd.DataFrame) -> pd.DataFrame:
    matrix = agreement_matrix(table)
    shown = matrix.apply(lambda column: column.map(lambda tau: "—" if pd.isna(tau) else f"{100 * tau:.0f}"))
    return shown.reset_index().rename(columns={"index": "τ × 100"})


_NOISE_HIGH = DEFAULT_VALUE_RANGES["noise"][1]
MATRIX_DESCRIPTION = (
    "One row per metric. ✓ / ✗: the characteristic holds / fails, followed by the number that decided it "
    "(the sub-score and scenario that decided are in tables/property_matrix.csv). — : the metric has no sub-score "
    "for this property (the review's ✗). n/a: does not apply (robustness to noise is judged on modularity and "
    "compactness scores only). ?: not measured, the results lack the scenario. "
    f"Modularity, compactness, explicitness: in every scenario whose ideal for the property is a trajectory (at "
    f"least {MIN_LEVELS} levels), Spearman ρ ≥ {MIN_RANK_CORRELATION:g} and slope ≥ {MIN_SLOPE:g} against the ideal; "
    f"in scenarios comparing fewer levels (modular_not_compact), the score exceeds the ideal by at most "
    f"{MAX_DEVIATION:g}. Calibrated: perfect ≥ {PERFECT_THRESHOLD:g} "
    f"and random ≤ {RANDOM_THRESHOLD:g} on noise. Linear: R² ≥ {MIN_R2:g} on every trajectory. Robustness columns: within "
    f"{MAX_DEVIATION:g} of the ideal (noise read on alpha ≤ {_NOISE_HIGH:g}). Data efficient: mean "
    f"|s({DATA_N}) − s(n_max)| ≤ {DATA_TOLERANCE:g}. The review's Discretization-free and Few hyper-parameters "
    "columns are design facts, not measurements, and are not regenerated."
)


def build_sections(results: pd.DataFrame) -> list[Section]:
    """Every analysis of ``results`` (validated), in report order, property matrix first."""
    return [
        _section(
            "property_matrix", "Property matrix (the review's Table 2, from measurements)", MATRIX_DESCRIPTION,
            lambda: property_matrix(results), property_matrix_display,
        ),
        _section(
            "calibration", "Calibration",
            "Mean score (± standard deviation over seeds) at the perfect (alpha = 0) and fully random (alpha = 1) "
            "ends of the noise scenario (Zaidi et al. 2022, sections 3 and 5.2). Calibrated: perfect ≥ "
            f"{PERFECT_THRESHOLD:g} and random ≤ {RANDOM_THRESHOLD:g} (mirrored for lower-is-better scores).",
            lambda: calibration(results), lambda t: display_table(t, CALIBRATION_COLUMNS),
        ),
        _section(
            "linearity", "Linearity",
            "For each scenario whose ideal trajectory varies, each sub-score measuring the degraded property (and each "
            "holistic one) against the ideal: R² and slope of the affine fit of the mean score on the ideal, Spearman "
            "ρ, the largest |mean score − ideal| and the largest excess of the score over the ideal (Zaidi et al. 2022, "
            f"section 3). Levels: distinct ideal values (below {MIN_LEVELS} the scenario compares levels, not a "
            "trajectory, and R² says little). Linear: R² ≥ "
            f"{MIN_R2:g} with a positive slope. Monotone: ρ ≥ {LINEARITY_MIN_RHO:g} (ties count against: a step "
            "function scores 0.88 on six values).",
            lambda: linearity(results), lambda t: display_table(t, LINEARITY_COLUMNS),
        ),
        _section(
            "robustness", "Robustness",
            "Largest drop of modularity and compactness scores below their ideal under noise (alpha ≤ "
            f"{_NOISE_HIGH:g}), the nonlinear tan map, partial factors and the entanglement attacks, and the largest "
            "excess above it (which matters under attacks, where the ideal falls). Robust: both at most "
            f"{MAX_DEVIATION:g}.",
            lambda: robustness(results), lambda t: display_table(t, ROBUSTNESS_COLUMNS),
        ),
        _section(
            "sample_efficiency", "Sample efficiency",
            "Mean over seeds (± standard deviation) of |score(n) − score(n_max)| in the sample_size scenario "
            "(Zaidi et al. 2022, section 5.7, Figure 9).",
            lambda: sample_efficiency(results), lambda t: display_table(t, EFFICIENCY_COLUMNS, digits=3),
        ),
        _section(
            "cost", "Cost",
            "Median wall-clock seconds per metric call, and the exponent b of its growth with the sample size "
            "(least-squares slope of log seconds on log n: cost ~ n^b). Timings depend on the machine and its load.",
            lambda: cost(results), lambda t: display_table(t, COST_COLUMNS, digits=3, scientific=True),
        ),
        _section(
            "agreement", "Agreement",
            "Kendall's τ-b (× 100) between the rankings that two sub-scores give to the same representations "
            "(every scenario, value, seed and sample size both scored), as in Zaidi et al. 2022, section 5.1, Figure 3. "
            "Pairs with their p-values are in tables/agreement.csv.",
            lambda: agreement(results), _agreement_display,
        ),
    ]


def _file_stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def build_figures(results: pd.DataFrame, sections: list[Section], directory: Path) -> list[FigureFile]:
    """Draw and write every figure the results support; return them in report order."""
    colours, markers = metric_colours(results), sub_score_markers(results)
    tables = {section.key: section.table for section in sections}
    written = []

    def keep(key: str, caption: str, figure) -> None:
        written.append(FigureFile(key, caption, figures.save(figure, directory, key)))

    for scenario in sorted(results["scenario"].unique()):
        if scenario == figures.SAMPLE_SIZE_SCENARIO:
            continue
        parameter = results.loc[results["scenario"] == scenario, "parameter"].iloc[0]
        keep(_file_stem(scenario), f"{scenario}: mean score ± one standard deviation over seeds against {parameter}, "
             "one panel per metric family; wide grey lines are the ideal trajectories.",
             figures.scenario_figure(results, scenario, colours=colours))
    if tables.get("sample_efficiency") is not None and not tables["sample_efficiency"].empty:
        keep("sample_size", "Sample efficiency: mean |score(n) − score(n_max)| ± one standard deviation over seeds.",
             figures.efficiency_figure(tables["sample_efficiency"], colours=colours, markers=markers))
    if (results["metric"] == "pid").any():
        keep("pid_bars", "PID terms per scenario and value: solid up to the lower bound, pale up to the upper bound "
             "(means over seeds; terms without bounds: mean ± one standard deviation).",
             figures.pid_figure(results, colour=colours["pid"]))
    by_n = cost_by_n(results)
    if by_n.groupby("metric")["n"].nunique().max() >= 2:
        keep("cost_growth", "Median seconds per call against the sample size (log-log).",
             figures.cost_figure(by_n, colours=colours))
    if tables.get("agreement") is not None and not tables["agreement"].empty:
        keep("agreement_tau", "Kendall's tau between sub-scores' rankings of the same representations.",
             figures.agreement_figure(agreement_matrix(tables["agreement"])))
    return written


def _summary(results: pd.DataFrame) -> list[str]:
    n = results["n_samples"]
    return [
        f"Studies: {', '.join(sorted(results['study'].unique()))}; {len(results)} result rows.",
        f"Scenarios ({results['scenario'].nunique()}): {', '.join(sorted(results['scenario'].unique()))}.",
        f"Metrics ({results['metric'].nunique()}): {', '.join(sorted(results['metric'].unique()))}.",
        f"Seeds per cell: up to {results['seed'].nunique()}; sample sizes: {n.min()} to {n.max()}.",
        f"Harness versions: {', '.join(sorted(results['harness_version'].unique()))}.",
    ]


def write_report(results: pd.DataFrame, out_dir: str | Path) -> Path:
    """Write the report of ``results`` into ``out_dir`` and return the path of ``report.html``.

    Writes ``report.html`` (self-contained, figures embedded), ``report.md``,
    ``tables/<analysis>.csv`` (tidy, full precision), ``tables/<analysis>.tex``
    (booktabs) and ``figures/<name>.png`` / ``.svg``: one figure per scenario, the
    sample-efficiency curve, PID bars, cost growth and the agreement heat map when
    the results support them.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated here; see :func:`reports.load_results`).
    out_dir : str or pathlib.Path
        The run directory; created if needed.

    Raises
    ------
    ValueError
        When ``results`` breaks the results-table contract.
    """
    results = check_results(results)
    out_dir = Path(out_dir)
    tables_dir = out_dir / "tables"
    tables_dir.mkdir(parents=True, exist_ok=True)
    sections = build_sections(results)
    for section in sections:
        if section.table is None:
            continue
        section.table.to_csv(tables_dir / f"{section.key}.csv", index=False)
        (tables_dir / f"{section.key}.tex").write_text(
            to_latex(section.display, caption=section.title, label=section.key), encoding="utf-8")
    figure_files = build_figures(results, sections, out_dir / "figures")
    title = f"Disentanglement metrics report: {', '.join(sorted(results['study'].unique()))}"
    summary = _summary(results)
    (out_dir / "report.md").write_text(render_markdown(title, summary, sections, figure_files), encoding="utf-8")
    html_path = out_dir / "report.html"
    html_path.write_text(render_html(title, summary, sections, figure_files), encoding="utf-8")
    return html_path
