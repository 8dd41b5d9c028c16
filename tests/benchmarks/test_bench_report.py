"""Benchmark: the report's figures drawn by worker processes against one after another, and laid out once.

Target (issue 38, item 4): the default study's report in under 20 s on 2 cores.  Two ratios, each measured in one
run:

- :func:`test_report_figures_in_parallel`: :func:`reports.write_report` with ``jobs`` = the machine's cores
  (``HARNESS_BENCH_WORKERS`` overrides it) against ``jobs=1``, wall time (the workers draw the figures while the main
  process computes the analyses), alternating, the best of two each; the files are byte-identical.  On the default
  study's results this takes about 6 minutes on 2 cores.  It reads the
  results of ``HARNESS_BENCH_REPORT_RUN`` (a run directory, e.g. ``runs/default``) or else the reports' synthetic table
  (a few figures: the workers' start-up weighs more there).
- :func:`test_save_lays_out_once`: a figure laid out once, as :func:`reports.rendering.figures.save` lays it out, then drawn,
  against matplotlib's own ``savefig`` with the layout engine on (a pass without rendering to lay the figure out, then
  a pass to draw), CPU time (the sum over every scenario figure of the synthetic table of the medians of
  :data:`REPEATS` draws, alternating); the pixels are identical.

Run with timing: ``pytest tests/benchmarks/test_bench_report.py --benchmark-enable -n 0 -m ""``.  Under the default
``--benchmark-disable`` (CI) :func:`test_save_lays_out_once` checks one figure's pixels and the parallel report is
skipped (``tests/reports/test_reports_report.py`` checks that its files do not depend on ``jobs``).
"""

from __future__ import annotations

import io
import os
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from reports import check_results, write_report
from reports.rendering.figures import PNG_DPI, _lay_out, scenario_figure
from tests.reports.conftest import build_results

WORKERS = int(os.environ.get("HARNESS_BENCH_WORKERS", 0)) or os.cpu_count() or 2
RUN = os.environ.get("HARNESS_BENCH_REPORT_RUN")
#: Draws of each figure each way; the medians count.
REPEATS = 5


def _results() -> pd.DataFrame:
    if RUN is None:
        return build_results()
    from harness.workflows.run_results import load_run_results

    return load_run_results(Path(RUN))


def _files(directory: Path) -> dict[str, bytes]:
    return {path.relative_to(directory).as_posix(): path.read_bytes() for path in sorted(directory.rglob("*"))
            if path.is_file()}


def _wall_seconds(results: pd.DataFrame, out: Path, jobs: int) -> float:
    started = time.perf_counter()
    write_report(results, out, jobs=jobs)
    return time.perf_counter() - started


@pytest.mark.slow
@pytest.mark.timeout(1200)  # four whole reports: about 6 minutes on the default study's results on 2 cores
def test_report_figures_in_parallel(benchmark, tmp_path):
    results = _results()
    if benchmark.disabled:  # the smoke run (no timing): one small report each way, the same files
        results = results.loc[results["scenario"] == results["scenario"].iloc[0]]
    walls: dict[int, list[float]] = {WORKERS: [], 1: []}
    for attempt in range(1 if benchmark.disabled else 2):  # the first parallel report starts the workers, as a run's did
        parallel = tmp_path / f"parallel_{attempt}"
        walls[WORKERS].append(_wall_seconds(results, parallel, WORKERS) if attempt == 0 and not benchmark.disabled else
                              benchmark.pedantic(_wall_seconds, args=(results, parallel, WORKERS), rounds=1, iterations=1))
        walls[1].append(_wall_seconds(results, tmp_path / f"sequential_{attempt}", 1))
    last = 0 if benchmark.disabled else 1
    for written in ("figures", "tables"):  # the pages' titles name their directories
        assert _files(tmp_path / f"parallel_{last}" / written) == _files(tmp_path / f"sequential_{last}" / written)
    if benchmark.disabled:
        return
    sequential, parallel = min(walls[1]), min(walls[WORKERS])
    benchmark.extra_info.update(workers=WORKERS, sequential_seconds=sequential, parallel_seconds=parallel,
                                speedup=sequential / parallel, results=RUN or "synthetic")


def _pixels(figure, lay_out_once: bool) -> np.ndarray:
    """The figure's pixels at the PNG's resolution, laid out as :func:`reports.rendering.figures.save` lays it out (once), or
    as matplotlib's ``savefig`` does with the layout engine on (a pass without rendering, then the pass drawing)."""
    FigureCanvasAgg(figure)
    if lay_out_once:
        _lay_out(figure, PNG_DPI)
    figure.savefig(io.BytesIO(), format="rgba", dpi=PNG_DPI)
    return np.asarray(figure.canvas.buffer_rgba()).copy()


@pytest.mark.timeout(600)  # timed, 70 drawings; the smoke run, one figure in seconds
def test_save_lays_out_once(benchmark):
    results = check_results(build_results())
    scenarios = ["noise"] if benchmark.disabled else sorted(results["scenario"].unique())
    seconds = {True: 0.0, False: 0.0}
    for scenario in scenarios:
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(1 if benchmark.disabled else REPEATS):
            drawn = {}
            for once in (False, True):
                figure = scenario_figure(results, scenario).figure
                started = time.process_time()
                drawn[once] = _pixels(figure, once)
                times[once].append(time.process_time() - started)
            assert np.array_equal(drawn[True], drawn[False]), scenario
        for once, measured in times.items():
            seconds[once] += statistics.median(measured)
    benchmark.pedantic(_pixels, args=(scenario_figure(results, "noise").figure, True), rounds=1, iterations=1)
    benchmark.extra_info.update(savefig_seconds=seconds[False], laid_out_once_seconds=seconds[True],
                                speedup=seconds[False] / seconds[True])
