"""The analyses, floor 1 of ``reports``: each turns a results table into a tidy table of statistics with their 95%
intervals, judged against :class:`reports.analyses.thresholds.Thresholds` as checks (calibration, linearity,
robustness, sample efficiency, sensitivity, agreement, cost, chance levels, phase tables, ...).

They import only the results contract (:mod:`reports.results`); they never draw.
"""
