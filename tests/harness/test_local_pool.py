"""The local worker pools leave Ctrl-C to the run process (harness.execution.backends.local_pool)."""

from __future__ import annotations

import os
import signal

import pandas as pd
import pytest
from joblib import Parallel, delayed, parallel_config

from harness.execution.backends import leave_ctrl_c_to_the_run, local_pool


def test_loky_workers_ignore_ctrl_c_and_the_run_keeps_its_handler():
    # the interrupted run stops the pool itself; a worker that took Ctrl-C printed a traceback over its message
    own = signal.getsignal(signal.SIGINT)
    with parallel_config(**local_pool("loky", 2)):
        # signal.getsignal itself is the task: a worker imports no test module (``tests`` is not installed)
        handlers = Parallel()(delayed(signal.getsignal)(signal.SIGINT) for _ in range(4))
    assert handlers == [signal.SIG_IGN] * 4
    assert signal.getsignal(signal.SIGINT) is own


def test_only_loky_gets_the_initializer():
    assert local_pool("loky", 3) == {"backend": "loky", "n_jobs": 3, "initializer": leave_ctrl_c_to_the_run}
    assert local_pool("threading", 2) == {"backend": "threading", "n_jobs": 2}


def test_a_report_drawn_after_the_cells_reuses_their_workers():
    # loky keeps one pool for calls of equal options: the report's figures (reports.write_report, joblib's default
    # options under report_workers) go to the workers that ran the cells instead of new ones
    from harness.execution.backends import report_workers

    first: set[int] = set()
    with parallel_config(**local_pool("loky", 2)):
        # a batch of quick tasks can all land on one worker: call the same pool until both workers have answered
        for _ in range(100):
            first |= set(Parallel()(delayed(os.getpid)() for _ in range(8)))
            if len(first) == 2:
                break
    assert len(first) == 2
    with report_workers(2):
        second = set(Parallel(n_jobs=2)(delayed(os.getpid)() for _ in range(8)))
    assert second <= first


def test_report_workers_import_the_named_modules_before_the_figures_come():
    from harness.execution.backends import report_workers

    probe = "'tabnanny' in __import__('sys').modules"  # a module no worker imports otherwise
    with parallel_config(**local_pool("loky", 2)):
        assert not any(Parallel()(delayed(eval)(probe) for _ in range(4)))
    with report_workers(2, ("tabnanny",)):
        pass  # the context waits for the imports on exit
    # loky hands the two imports to whichever worker asks first, maybe both to one, and the probes likewise: 4 probes
    # all went to a worker without the import in 2 of 7 full runs of the suite; 64 all landing there would take the
    # importing worker being stuck throughout
    with parallel_config(**local_pool("loky", 2)):
        assert any(Parallel()(delayed(eval)(probe) for _ in range(64)))


def test_an_error_inside_report_workers_is_raised_after_the_imports_with_no_warning(recwarn):
    from harness.execution.backends import report_workers

    with pytest.raises(RuntimeError, match="no results"):
        with report_workers(2, ("reports.report",)):
            raise RuntimeError("no results")
    assert not [warning for warning in recwarn if "cancelled" in str(warning.message)]


def test_a_report_stopped_early_under_report_workers_says_nothing_of_its_cancelled_figures(recwarn):
    # Ctrl-C while a report drew: joblib's "N tasks have been successfully executed but not used" (or "cancelled")
    # printed before the one line saying the run was interrupted
    import time

    from harness.execution.backends import report_workers

    with report_workers(2):
        figures = Parallel(n_jobs=2, return_as="generator")(delayed(time.sleep)(0.05) for _ in range(12))
        next(figures)
        time.sleep(0.3)  # some done and not read, some running, some waiting
        figures.close()
    assert not [warning for warning in recwarn if issubclass(warning.category, UserWarning)
                and ("not used" in str(warning.message) or "cancelled" in str(warning.message))]


def test_the_default_pool_starts_workers_only_where_the_tasks_repay_their_start(monkeypatch):
    from harness.execution.backends import task_workers
    from harness.execution.run_estimate import POOL_START_SECONDS, pool_pays

    cheap = [0.01] * 40  # 0.4 s of cells: a worker's imports alone take longer
    costly = [1.0] * 40
    assert not pool_pays(cheap, 2)
    assert pool_pays(costly, 2) and pool_pays(costly, 16)
    # the break-even: pooled (the start, then half the work) against the work in one process
    at = 2 * POOL_START_SECONDS
    assert not pool_pays([at * 0.99 / 10] * 10, 2) and pool_pays([at * 1.01 / 10] * 10, 2)
    # one long task and short ones: the pool ends no sooner than the long one
    assert not pool_pays([10.0, 0.1, 0.1], 2)
    assert not pool_pays(costly, 1)  # one worker is no pool
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert task_workers(cheap, -1, "loky") == 1 and task_workers(costly, -1, "loky") == 8
    assert task_workers([2.0] * 3, -1, "loky") == 3  # never more workers than tasks
    # an explicit number of workers is kept, however cheap the tasks; other backends start what they are asked
    assert task_workers(cheap, 2, "loky") == 2 and task_workers(cheap[:1], 2, "loky") == 1
    assert task_workers(cheap, -1, "threading") == 8 and task_workers(costly, -1, "sequential") == 1


def _lines(scenarios: int, lines_each: int) -> pd.DataFrame:
    """A results table's (scenario, metric, sub_score) columns: ``lines_each`` lines in each of ``scenarios``, twice
    (two seeds)."""
    rows = [(f"s{i}", f"m{j}", "score") for i in range(scenarios) for j in range(lines_each)]
    return pd.DataFrame(rows * 2, columns=["scenario", "metric", "sub_score"])


def test_a_report_draws_its_figures_on_workers_only_where_they_repay_their_start(monkeypatch):
    from harness.execution.backends import figure_jobs
    from harness.execution.run_estimate import FIGURE_SECONDS_PER_LINE, FIGURE_SECONDS_PER_SCENARIO, figure_estimates

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert sum(figure_estimates([2, 2])) == pytest.approx(2 * FIGURE_SECONDS_PER_SCENARIO + 4 * FIGURE_SECONDS_PER_LINE)
    # 2 scenarios of 2 metrics (7 small figures, 2.4 CPU-s): this process; --preset quick's 2 of 44 lines: workers
    assert figure_jobs(_lines(2, 2), -1) == 1 and figure_jobs(_lines(2, 44), -1) == -1
    assert figure_jobs(_lines(2, 2), 2) == 2 and figure_jobs(_lines(2, 44), 1) == 1  # an explicit --jobs is kept
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert figure_jobs(_lines(17, 68), -1) == 1  # one core: no pool, however many figures


def test_a_study_of_a_few_cheap_cells_runs_in_this_process_by_default(tmp_path):
    # each of its two workers took 3 to 4 CPU-s of imports for six cells of a millisecond each (with --jobs 2 they
    # still start: the tests of the workers' behaviour ask for them)
    from harness.execution.runner import run_study

    (tmp_path / "where.py").write_text(
        "import os\n\n\ndef which_process(factors, codes):\n"
        f"    with open({str(tmp_path / 'pids.txt')!r}, 'a') as file:\n"
        "        file.write(f'{os.getpid()}\\n')\n"
        "    return 0.5\n")
    run_study(preset="quick", scenarios_=["noise"], metrics_=[f"{tmp_path / 'where.py'}:which_process"], seeds=1, n_samples=200,
              jobs=-1, progress=False, log=lambda _: None)
    assert (tmp_path / "pids.txt").read_text().split() == [str(os.getpid())] * 6  # the six noise levels, here
