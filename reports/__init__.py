"""Reports: analyses, tables and figures from a results table.  Never runs a metric.

Public API
----------
load_results(run_dir)
    Read and validate ``run_dir/results.parquet`` (or ``results.csv``).
write_report(results, out_dir)
    Write report.html, report.md, tables/*.csv, tables/*.tex, figures/*.png and *.svg.
plot_comparison(results, *, metrics, scenarios, out_file, format)
    One figure comparing chosen metrics on chosen scenarios.
calibration, linearity, robustness, sample_efficiency, cost, agreement, property_matrix
    The analyses, each from a results table to a tidy table.
"""

from __future__ import annotations

from reports._table import MissingDataError, check_results, load_results
from reports.agreement import agreement, agreement_matrix
from reports.calibration import calibration
from reports.cost import cost, cost_by_n
from reports.figures import plot_comparison
from reports.linearity import linearity
from reports.property_matrix import property_matrix, property_matrix_display
from reports.report import write_report
from reports.robustness import robustness
from reports.sample_efficiency import sample_efficiency

__all__ = [
    "MissingDataError",
    "agreement",
    "agreement_matrix",
    "calibration",
    "check_results",
    "cost",
    "cost_by_n",
    "linearity",
    "load_results",
    "plot_comparison",
    "property_matrix",
    "property_matrix_display",
    "robustness",
    "sample_efficiency",
    "write_report",
]
