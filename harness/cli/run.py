"""``python -m harness run``: plan and run a study, then write its report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness.cli._args import (
    COLOURS_HELP,
    FIGURE_FORMATS_HELP,
    REPORT_IMPORTS,
    add_grid,
    add_study_selection,
    colours,
    csv_list,
    figure_formats,
    grids,
    non_negative_int,
    option_sweeps,
    positive_float,
    study_options,
)
from harness.errors import UnknownNameError, UsageError
from harness.execution.backends import BACKENDS
from harness.execution.presets import PRESETS
from harness.outputs import writable_output

EXIT_FAILED_CELLS = 1
"""``run`` finished and wrote its results, but some cells failed (see DIR/failures.csv)."""

DEFAULT_CELL_MEMORY_GIB = 4
"""``--max-cell-memory``'s default as its help states it, without importing the planner for ``--help``:
:data:`harness.execution.plan.DEFAULT_CELL_LIMITS`'s (a test checks that they agree)."""


def add_command(commands: argparse._SubParsersAction) -> None:
    """Register the ``run`` command."""
    presets = "; ".join(f"{p.name}: {p.description}" for p in PRESETS.values())
    parser = commands.add_parser(
        "run",
        help="run a study and write its results, figures and report",
        description=(
            "Run every selected metric on every selected scenario (each parameter value x seed), "
            "write the tidy results table (results.parquet and results.csv) into --out, then the report "
            "(report.html, report.md, tables/, figures/). Finished cells already in --out are reused, so an "
            "interrupted run resumes where it stopped; a cell is reused only when everything that computes it is "
            "unchanged: its scenario, value, seed, sample size, metric, options and versions, the source of the "
            "metric's and scenario's modules and of the project or user modules they import, and the versions of "
            "the libraries they import (the run says why it recomputes a stored cell). A metric that fails on some representation does not stop "
            "the study: its cells are listed in failures.csv and the command exits with status 1. "
            f"Presets: {presets}."
        ),
    )
    parser.add_argument("--preset", default="default", help=f"study preset: {', '.join(PRESETS)} (default: %(default)s)")
    add_study_selection(
        parser,
        metrics_help="comma-separated metric names, or module:function / file.py:function for your own (default: the "
        "preset's); a variant as the results name it, mig[bins=5], runs the metric with those options (--metric-option "
        "sweeps them); two metrics of one name (a.py:mine,b.py:mine), or a function named as a built-in metric, are refused, as results are keyed by name",
    )
    parser.add_argument(
        "--add-metrics", type=csv_list, metavar="METRICS",
        help="comma-separated metrics to run besides the preset's, with its sweeps: those a preset leaves out for "
        f"cost ({'; '.join(f'{p.name}: ' + ', '.join(p.excluded_metrics) for p in PRESETS.values() if p.excluded_metrics)})"
        " or your own (not with --metrics)",
    )
    add_grid(parser)
    parser.add_argument(
        "--null-permutations", type=non_negative_int, metavar="B",
        help="score every metric also on B row permutations of the codes (its permutation null, seeded by the data "
        "draw): results gain null_mean, null_q95 (the 95%% chance level), p_value ((1 + #null at least as good) / "
        "(B + 1)), null_permutations and null_seconds; 0: no nulls (default: the preset's choice, by each cell's "
        "estimated call cost, up to 100, on the cells it gives nulls: the default preset's are those a verdict reads, "
        "pure noise; see --dry-run), on each cell's first round of seeds where seeds are raced. A cell stored with "
        "another B is computed again",
    )
    parser.add_argument(
        "--max-cell-seconds", type=positive_float, metavar="S",
        help="refuse the study, before anything runs, when a metric call is estimated to take more than S CPU "
        "seconds (the call alone, its permutation null aside); the refusal names the cheapest measured variant that "
        "fits, such as pid[estimator=gaussian] (default: no limit; a call estimated over an hour is announced)",
    )
    parser.add_argument(
        "--max-cell-memory", type=positive_float, metavar="GIB",
        help=f"likewise for the memory a metric call is estimated to allocate above its inputs, in GiB, as the "
        f"wide-code measurement models it (default: {DEFAULT_CELL_MEMORY_GIB:g})",
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="loky",
        help="where cells run: loky (local worker processes), threading, sequential, or dask (a Dask cluster: "
        "--scheduler's, or a local one of --jobs workers) (default: %(default)s); scores do not depend on it",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786 (with --backend dask; its workers need "
        "this package installed)",
    )
    parser.add_argument("--out", type=Path, help="run directory (default: runs/PRESET)")
    parser.add_argument("--recompute", action="store_true",
                        help="recompute every cell of the study even where --out holds it unchanged (the new records "
                        "replace the stored ones)")
    parser.add_argument("--no-report", action="store_true", help="write the results table only, no figures or report")
    parser.add_argument("--figure-formats", type=figure_formats, metavar="png,svg,pdf", help=FIGURE_FORMATS_HELP)
    parser.add_argument("--colors", type=colours, metavar="METRIC=COLOUR,...|FILE", help=COLOURS_HELP)
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--dry-run", action="store_true",
        help="plan the study and print its cells, each metric's null permutations and estimated CPU time (from measured "
        "per-call costs; a null costs about B calls), running nothing",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the study the arguments describe (planned within ``--max-cell-seconds`` and ``--max-cell-memory``,
    :func:`_cell_limits`); exit status 1 when cells failed."""
    out = _check_options(args)  # the dry run refuses what the run would
    return dry_run(args, out) if args.dry_run else _run(args, out)


def _check_options(args: argparse.Namespace) -> Path:
    """The run directory, once ``--scheduler``, ``--colors`` and ``--out`` are known to be usable (nothing created)."""
    if args.scheduler is not None and args.backend != "dask":
        raise UsageError(f"--scheduler is only used with --backend dask, not --backend {args.backend}")
    if args.colors and not args.no_report:  # refused now, not after the study
        _check_colours(args)
    return writable_output(args.out or Path("runs") / args.preset, "--out", directory=True)


def _cell_limits(args: argparse.Namespace) -> Any:
    """The :class:`harness.execution.plan.CellLimits` of ``--max-cell-seconds`` and ``--max-cell-memory``."""
    from harness.execution.plan import DEFAULT_CELL_LIMITS, CellLimits

    memory = DEFAULT_CELL_LIMITS.memory_bytes if args.max_cell_memory is None else args.max_cell_memory * 2**30
    return CellLimits(args.max_cell_seconds, memory)


def _run(args: argparse.Namespace, out: Path) -> int:
    """Run the study the arguments describe into ``out``."""
    from harness.execution.runner import run_study

    frame = run_study(
        preset=args.preset,
        metrics_=args.metrics,
        add_metrics=args.add_metrics,
        grids=grids(args.grid),
        out=out,
        recompute=args.recompute,
        null_permutations=args.null_permutations,
        cell_limits=_cell_limits(args),
        backend=args.backend,
        scheduler=args.scheduler,
        progress=not args.no_progress,
        log=status,
        **study_options(args),
    )
    print(f"{len(frame)} result rows written to {out / 'results.parquet'} and {out / 'results.csv'}")
    if args.no_report and (out / "report.html").exists():  # an earlier command's, about other results
        status(f"note: the report in {out} (report.html, report.md, tables/, figures/) is an earlier command's and does "
               f"not show these results; rewrite it with: python -m harness report {out}")
    if not args.no_report:
        import reports
        from harness.execution.backends import figure_jobs, report_workers
        from harness.workflows.run_results import load_run_failures

        jobs = 1 if args.backend == "sequential" else figure_jobs(frame, args.jobs)
        with report_workers(jobs, REPORT_IMPORTS):
            html = reports.write_report(frame, out, jobs=jobs, figure_formats=args.figure_formats, colours=args.colors,
                                        failures=load_run_failures(out))
        print(f"report: {html} (also report.md, tables/, figures/)")
    return EXIT_FAILED_CELLS if frame.attrs.get("failures") else 0


def _check_colours(args: argparse.Namespace) -> None:
    """Refuse ``--colors`` naming a metric neither registered nor among ``--metrics`` and ``--add-metrics`` (a user's
    function by the name its results take), before the study runs: the report would refuse them after it."""
    from harness.execution.metric_refs import resolve_all
    from reports.rendering.comparison import FigureRequestError, check_colour_names

    named = [reference for reference in (args.metrics or []) + (args.add_metrics or []) if ":" in reference]
    try:
        check_colour_names(args.colors, [entry.name for entry in resolve_all(named)])
    except FigureRequestError as error:
        raise UsageError(str(error)) from None


def _most_common(what: str, cells: Sequence[Any], value_of: Callable[[Any], int]) -> str:
    """One line: ``what`` of the cells' scenarios, the most common first, then the scenarios with another.

    A scenario whose cells take several values (the sample-size sweep scores 100, 1000 and 10000 rows) is listed with
    all of them.
    """
    values_of: dict[str, set[int]] = {}
    for cell in cells:
        values_of.setdefault(cell.scenario, set()).add(value_of(cell))
    scenarios_at: dict[tuple[int, ...], list[str]] = {}
    for scenario, values in values_of.items():
        scenarios_at.setdefault(tuple(sorted(values)), []).append(scenario)
    common, *others = sorted(scenarios_at, key=lambda values: -len(scenarios_at[values]))

    def listed(values: tuple[int, ...]) -> str:
        return ", ".join(str(value) for value in values)

    return f"{what}: {listed(common)}" + "".join(f"; {listed(values)} for {', '.join(scenarios_at[values])}"
                                                 for values in others)


def _sample_sizes(cells: Sequence[Any]) -> str:
    """One line: the rows each representation is scored on, the most common first, then the scenarios with another.

    Reads the rows a cell's scenario returns (:meth:`scenarios.base.Scenario.rows_at`), not its draw size: the
    sample-size sweep draws 100000 rows and keeps the first 100, 1000 or 10000.
    """
    return _most_common("samples per representation", cells, lambda cell: cell.definition.rows_at(cell.value, cell.n_samples))


def _seeds(cells: Sequence[Any]) -> str:
    """One line: the seeds per parameter value, the most common first, then the scenarios with another."""
    seeds: dict[tuple[str, float], int] = {}
    for cell in cells:
        seeds[cell.scenario, cell.value] = max(seeds.get((cell.scenario, cell.value), 0), cell.seed + 1)
    return _most_common("seeds per parameter value", cells, lambda cell: seeds[cell.scenario, cell.value])


def dry_run(args: argparse.Namespace, out: Path) -> int:
    """Print the study's size and estimated CPU time per metric, and how much of it the cells stored in ``out`` save;
    run nothing."""
    import os

    import pandas as pd

    from harness.execution.backends import task_workers
    from harness.execution.costs import study_estimate
    from harness.execution.plan import plan_tasks, slow_metric_warnings
    from harness.execution.racing import first_round_nulls, racing_rule
    from harness.execution.run_estimate import START_SECONDS, race_wall_seconds, report_wall_seconds
    from harness.execution.runner import check_execution, plan_study
    from harness.execution.speed_probe import machine_speed
    from reports.analyses.intervals import level
    from reports.rendering.markdown import markdown_table

    if args.preset not in PRESETS:
        raise UnknownNameError("preset", args.preset, PRESETS)
    check_execution(args.backend, args.scheduler, args.cell_timeout)  # what the run would refuse
    config = PRESETS[args.preset]
    racing = racing_rule(args.min_seeds, args.max_seeds, args.budget_seconds, fixed_seeds=args.seeds,
                         preset_seeds=config.seeds, preset_max_seeds=config.max_seeds)

    def planned(seeds: int | None) -> list[Any]:
        return plan_study(preset=args.preset, scenarios_=args.scenarios, metrics_=args.metrics, seeds=seeds,
                          n_samples=args.n_samples, metric_options=option_sweeps(args.metric_option),
                          grids=grids(args.grid), add_metrics=args.add_metrics, null_permutations=args.null_permutations,
                          cell_limits=_cell_limits(args))

    cells = planned(racing.min_seeds if racing is not None else args.seeds)
    records = study_estimate(cells)
    total = sum(record["cpu_hours"] for record in records)
    tasks = plan_tasks(cells)
    drawing = 1 if args.backend == "sequential" else (os.cpu_count() or 1) if args.jobs == -1 else args.jobs
    workers = task_workers([task.estimated_seconds for task in tasks], args.jobs, args.backend)
    scenario_count = len({cell.scenario for cell in cells})
    print(f"study {args.preset!r}: {len(cells)} cells ({scenario_count} scenario{'s' * (scenario_count != 1)}, "
          f"{len(records)} metric{'s' * (len(records) != 1)}) "
          f"in {len(tasks)} tasks of one data draw")
    print(_sample_sizes(cells))
    print(_seeds(cells))
    left_out = [name for name in PRESETS[args.preset].excluded_metrics if args.metrics is None
                and name not in (args.add_metrics or ())]
    if left_out:
        print(f"left out for cost: {', '.join(left_out)} (add them with --add-metrics)")
    table = pd.DataFrame(records).rename(columns={"cpu_hours": "CPU-hours", "null_permutations": "null B",
                                                  "null_cpu_hours": "of which nulls", "per_call_cost": "per-call cost"})
    print(markdown_table(table, digits=4))
    nulls = sum(record["null_cpu_hours"] for record in records)
    print(f"estimated total: {total:.2f} CPU-hours (permutation nulls {nulls:.2f} of them), about "
          f"{_duration(total * 3600 / workers)} on {workers} worker(s) at the cost table's speed")
    stored = _stored_keys(out)
    if stored:
        pending = [cell for cell in cells if cell.key not in stored]
        left = sum(record["cpu_hours"] for record in study_estimate(pending)) if pending else 0.0
        print(f"{len(cells) - len(pending)} of these {len(cells)} cells are stored in {out} and would be skipped: "
              f"{left:.2f} CPU-hours of the estimate left, about {_duration(left * 3600 / workers)} on {workers} "
              "worker(s) at the cost table's speed")
    speed = machine_speed()
    parts = {"of cells": speed * total * 3600 / workers, "to start": speed * START_SECONDS}
    if racing is not None:
        parts["for the race's looks and later rounds"] = speed * race_wall_seconds(total * 3600 / workers, len(cells),
                                                                                  racing.looks)
    if not args.no_report:
        parts["for the report"] = speed * report_wall_seconds(len(cells), drawing)
    print(f"this machine ran a fixed workload {speed:.1f} times as long as when the cost table was measured: about "
          f"{_duration(sum(parts.values()))} here in all ("
          + ", ".join(f"{_duration(seconds)} {what}" for what, seconds in parts.items()) + ")")
    if racing is not None:
        capped = sum(record["cpu_hours"] for record in study_estimate(first_round_nulls(planned(racing.max_seeds), racing)))
        looks = racing.looks
        later = racing.schedule()[1:]
        raced = (f"cells feeding a verdict still undecided get {', then '.join(map(str, later))} seeds, at most "
                 f"{capped:.2f} CPU-hours if every cell reached {racing.max_seeds}" if later else
                 f"no cell gets more (the cap, {racing.max_seeds} seeds, is where the race starts)")
        print(f"seeds raced: the estimate above is the first round's ({racing.min_seeds} seeds on every cell); {raced}; "
              f"intervals at {100 * level(looks):.1f}% for {looks} look{'s' * (looks != 1)}"
              + (f"; no round past {racing.budget_seconds:g} estimated CPU-s" if racing.budget_seconds else ""))
        if racing.budget_seconds is not None and 3600 * total > racing.budget_seconds:
            status(f"note: the first round alone is estimated at {3600 * total:.3g} CPU-s, past the budget of "
                   f"{racing.budget_seconds:g}: it runs whole (--budget-seconds stops the later rounds)")
    for line in slow_metric_warnings(cells):
        status(line)
    return 0


def _stored_keys(out: Path) -> set[str]:
    """The keys of the cells stored in run directory ``out`` that a run there would reuse (none without a store)."""
    from harness.execution.store import CELLS_FILE, ResultStore

    return set(ResultStore(out).reusable_records()) if (out / CELLS_FILE).is_file() else set()


def _duration(seconds: float) -> str:
    """``seconds`` as the unit a person reads: 40 s, 12 min, 3.5 h, 2.1 days."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def status(message: str) -> None:
    """Status lines go to stdout, warnings (failed cells) to stderr."""
    print(message, file=sys.stderr if message.startswith("warning:") else sys.stdout)
