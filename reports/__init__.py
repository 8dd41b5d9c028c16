"""Reports: analyses, tables and figures from a results table.  Never runs a metric.

Its sub-packages are its floors, bottom up: ``results`` (the results contract), ``analyses``, ``verdicts``,
``rendering``, ``review``; the products (the report, the report card, the stress and estimator reports) are its own
modules (``reports/README.md``, Layout).

Public API
----------
load_results(run_dir)
    Read and validate ``run_dir/results.parquet`` (or ``results.csv``).
write_report(results, out_dir, *, jobs, figure_formats)
    Write report.html, report.md, tables/*.csv, tables/*.tex and figures/*.png (also *.svg, *.pdf when
    ``figure_formats`` names them).
plot_comparison(results, *, metrics, scenarios, out_file, format, width, layout, ncols, font_size, rename,
                panel_letters, band)
    One figure comparing chosen metrics (or sub-scores) on chosen scenarios, laid out for a paper.
plot_phase_diagram(results, *, sweep, out_file, metrics, value, format, width, ncols, font_size, rename, panel_letters)
    The phase diagrams of a two-parameter sweep (one heat map per sub-score), laid out for a paper.
calibration, linearity, robustness, sample_efficiency, cost, agreement
    The analyses, each from a results table to a tidy table.
Bundle
    Every analysis of a results table, run once, and its table of verdicts (one per metric x
    sub-score x characteristic of :data:`reports.verdicts.characteristics.CHARACTERISTICS`), of which
    every verdict shown is a view.
property_matrix, headline
    The verdicts per metric and characteristic (the review's Table 2), and per sub-score and
    criterion (the report's first table).
Thresholds
    Every threshold of the verdicts, written once: ``Bundle(results, Thresholds(...))`` judges by
    other thresholds, and a report written from that bundle states them in its sentences.
raised_warnings
    Per metric, the warnings raised inside its calls (``tables/warnings.csv``).
StyleRegistry
    The colour, marker and line style of every sub-score, assigned over the lines a report or a plot draws.
"""

from __future__ import annotations

import importlib
from typing import Any

from reports.analyses.agreement import agreement, agreement_matrix
from reports.analyses.calibration import calibration
from reports.analyses.cost import cost, cost_by_n
from reports.analyses.linearity import linearity
from reports.analyses.raised_warnings import raised_warnings
from reports.analyses.robustness import robustness
from reports.analyses.sample_efficiency import sample_efficiency
from reports.analyses.thresholds import Thresholds
from reports.results.table import MissingDataError, check_results, load_results
from reports.verdicts.bundle import Bundle
from reports.verdicts.headline import headline
from reports.verdicts.property_matrix import property_matrix, property_matrix_display

#: The public names that draw -> the module that defines them, imported when first asked for (PEP 562): a process
#: that draws nothing (a worker reading the results contract, ``baseline``, ``list``) does not import matplotlib.  The
#: analyses and verdicts above are imported at once: they draw nothing.
_DRAWING = {
    "StyleRegistry": "reports.rendering.style",
    "plot_comparison": "reports.rendering.comparison",
    "plot_phase_diagram": "reports.rendering.phase",
    "write_report": "reports.report",
}


def __getattr__(name: str) -> Any:
    if name not in _DRAWING:
        raise AttributeError(f"module 'reports' has no attribute {name!r}")
    value = getattr(importlib.import_module(_DRAWING[name]), name)
    globals()[name] = value  # once: later lookups find it without this hook
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_DRAWING})


__all__ = [
    "Bundle",
    "MissingDataError",
    "StyleRegistry",
    "Thresholds",
    "agreement",
    "agreement_matrix",
    "calibration",
    "check_results",
    "cost",
    "cost_by_n",
    "headline",
    "linearity",
    "load_results",
    "plot_comparison",
    "plot_phase_diagram",
    "property_matrix",
    "property_matrix_display",
    "raised_warnings",
    "robustness",
    "sample_efficiency",
    "write_report",
]
