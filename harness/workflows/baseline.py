"""Baselines: freeze how every metric behaves, then detect when a score drifts.

A *baseline* is a human-readable JSON file holding, for every cell of a study
(scenario x parameter value x sample size x metric x sub-score), the mean score over
seeds, its spread (sample standard deviation over seeds, 0 for a single seed) and the
number of seeds, together with the versions of the harness and of every metric that
produced it, and the environment it was saved in (the harness version, the git commit of
the harness's checkout when there is one, Python's and the numerical libraries' versions).
One cell is written per line, so a baseline diffs cleanly under version control::

    {
     "format": "disentanglement-harness-baseline/1",
     "harness_versions": ["0.1.0"],
     "metric_versions": {"mig": "1"},
     "studies": ["quick"],
     "cells": [
      {"scenario": "noise", "parameter": "alpha", "value": 0.0, "value_label": "0", "n_samples": 2000, "metric": "mig", "sub_score": "mig", "mean": 0.93, "std": 0.004, "seeds": 2},
      ...
     ],
     "environment": {"harness": "0.1.0", "git_commit": "8c114c6...", "libraries": {"numpy": "2.4.6", "python": "3.11.7", ...}}
    }

After the cells the file also records the seeds its run raised on (``failures``: a check fails only where a seed that
scored then raises now), for every metric, the metric it is a variant of and its options (``metric_options``),
and, for a baseline saved from a run directory, what its cells were computed from (``provenance``: the source files,
data files and modules they read, library versions and declared environment variables, as the run's store holds
them, :mod:`harness.execution.provenance`), so that a check can name the option, file or value behind a drift.
A file written before ``environment``, ``metric_options`` or ``provenance`` existed still loads (its check names no
such change).

:func:`check_baseline` compares a run with a baseline cell by cell: a cell *drifts*
when ``|mean_run - mean_baseline| > atol + rtol * |mean_baseline|`` (the convention of
:func:`numpy.isclose`), with global tolerances overridable per metric.  Because every
cell's data and random state derive from its identity (:mod:`harness.execution.seeds`), an
unchanged metric reproduces its baseline exactly on the same platform, so the default
tolerance is tight.  :func:`assert_matches_baseline` is the one-line pytest helper; with
``HARNESS_UPDATE_BASELINES=1`` in the environment (or ``update=True``) it rewrites the
baseline instead of failing, as snapshot-testing tools do.
"""  # noqa: E501 - the example shows the file as it is written, one cell per line

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import UsageError, did_you_mean, listed
from harness.workflows.baseline_format import CELL_KEYS, DEFAULT_ATOL, DEFAULT_MAX_ROWS, DEFAULT_RTOL, FORMAT
from reports.rendering.markdown import markdown_table
from reports.results.schema import FAILURE_COLUMNS

Results = pd.DataFrame | str | Path
Tolerances = Mapping[str, tuple[float, float]]


def _check_run(run: Results) -> None:
    """Refuse a ``run`` that is neither a results table nor a run directory's path (``42`` raised a ``TypeError`` from
    deep in pathlib)."""
    if not isinstance(run, (pd.DataFrame, str, os.PathLike)):
        raise TypeError(f"run must be a results table (a pandas DataFrame) or a run directory (a str or path), got "
                        f"{type(run).__name__}")


def _results(run: Results, *, allow_empty: bool = False) -> pd.DataFrame:
    """A results table from a DataFrame or a run directory, checked against the one schema
    (:func:`reports.check_results`, :func:`reports.load_results`; ``allow_empty`` accepts one without rows)."""
    import reports
    from harness.workflows.run_results import check_one_source_per_name_in, load_run_results

    _check_run(run)
    if isinstance(run, pd.DataFrame):
        return check_one_source_per_name_in(reports.check_results(run, allow_empty=allow_empty), "the results")
    return load_run_results(run, allow_empty=allow_empty)


def _run_failures(run: Results) -> pd.DataFrame:
    """The failed cells of a run (columns :data:`reports.results.schema.FAILURE_COLUMNS`): ``DIR/failures.csv``, or the
    ``failures`` a :func:`~harness.execution.runner.run_study` table carries."""
    from harness.workflows.run_results import load_run_failures

    _check_run(run)
    if isinstance(run, pd.DataFrame):
        return pd.DataFrame(run.attrs.get("failures", []), columns=list(FAILURE_COLUMNS))
    return load_run_failures(run)


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Per-cell mean, spread and number of seeds of a results table.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CELL_KEYS` + ``mean``, ``std`` (sample standard deviation over
        seeds, ddof = 1; 0 for one seed) and ``seeds``.
    """
    table = results.groupby(list(CELL_KEYS), sort=True)["score"].agg(mean="mean", std="std", seeds="count").reset_index()
    table["std"] = table["std"].fillna(0.0)
    return table


def metric_versions(results: pd.DataFrame) -> dict[str, str]:
    """Version of each metric in a results table (comma-joined when a table mixes several)."""
    versions = results.groupby("metric")["metric_version"].agg(lambda v: ",".join(sorted(set(map(str, v)))))
    return {metric: versions[metric] for metric in sorted(versions.index)}


def metric_options(results: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Each metric's ``base`` (the metric a variant of an option sweep is of, else itself), ``options`` (those it
    sets) and ``defaults`` (its metric's defaults, recorded for a variant), read from the results' columns."""
    from reports.results.schema import decode_options

    first = results.drop_duplicates("metric").set_index("metric")
    return {metric: {"base": str(row["metric_base"] or metric), "options": decode_options(row["options"]),
                     "defaults": decode_options(row["default_options"])}
            for metric, row in sorted(first.iterrows())}


def _run_provenance(run: Results) -> dict[str, Any]:
    """What each metric's cells of a run directory were computed from (:meth:`ResultStore.metric_provenances`);
    empty for a results table, which does not record it."""
    from harness.execution.store import CELLS_FILE, ResultStore

    if isinstance(run, pd.DataFrame) or not (Path(run) / CELLS_FILE).is_file():
        return {}
    return ResultStore(run).metric_provenances()


#: Set to 1 in the environment, :func:`assert_matches_baseline` rewrites its baseline instead of failing.
UPDATE_VARIABLE = "HARNESS_UPDATE_BASELINES"
#: What :data:`UPDATE_VARIABLE` may hold, read case-blind: a value to rewrite, a value to check (unset too).
UPDATE_VALUES = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False,
                 "off": False, "": False}


def update_requested(environment: Mapping[str, str] | None = None) -> bool:
    """Whether :data:`UPDATE_VARIABLE` asks to rewrite the baselines: ``1``, ``true``, ``yes`` or ``on``; ``0``,
    ``false``, ``no``, ``off``, empty or unset check them.

    Raises
    ------
    harness.errors.UsageError
        For another value: ``HARNESS_UPDATE_BASELINES=false`` rewrote every baseline (anything but ``0`` or empty did),
        turning a CI's checks into rewrites that pass.
    """
    value = (os.environ if environment is None else environment).get(UPDATE_VARIABLE, "")
    try:
        return UPDATE_VALUES[value.strip().lower()]
    except KeyError:
        raise UsageError(f"{UPDATE_VARIABLE}={value!r} is neither a yes (1, true, yes, on) nor a no (0, false, no, off "
                         "or unset)") from None


def save_baseline(run: Results, to: str | Path, *, force: bool = False, metrics: Sequence[str] | None = None) -> Path:
    """Write the baseline of a run (a run directory or a results table) to ``to`` (JSON).

    Parameters
    ----------
    run : pandas.DataFrame, str or path
        A results table, or a run directory holding ``results.parquet`` / ``results.csv``.
    to : str or path
        Destination file; parent directories are created.
    force : bool, default False
        Overwrite ``to`` when it exists.
    metrics : sequence of str, optional
        Write these metrics' cells only (names as the results give them).  Where ``to`` is already a baseline, its
        cells, versions, options, provenance and failures of every other metric are kept as they are: a check of some
        metrics rewrites their cells alone (:func:`assert_matches_baseline`), never accepting unchecked drift in the
        others or dropping those the run lacks.

    Returns
    -------
    pathlib.Path
        The written file.

    Raises
    ------
    harness.errors.UsageError
        When ``to`` exists and ``force`` is not set, the results cannot be read, or ``metrics`` names a metric of
        neither the run nor the baseline.
    """
    path = Path(to)
    if path.exists() and not force:
        raise UsageError(f"baseline file {str(path)!r} exists; pass --force (force=True) to overwrite it")
    results = _results(run)
    failed = _failure_records(_run_failures(run))
    provenance = {metric: found.to_json() for metric, found in _run_provenance(run).items()
                  if metric in set(results["metric"])}
    kept: dict[str, Any] = {}
    if metrics is not None:
        selected = set(listed(metrics, "metrics", "metric names"))
        kept = _kept_document(path, selected) if path.is_file() else {}
        known = set(results["metric"]) | set(kept.get("known", ()))
        _refuse_unknown(selected, known)  # a misspelled name would leave its metric's cells as they were, silently
        results = results.loc[results["metric"].isin(selected)]
        failed = [failure for failure in failed if failure["metric"] in selected]
        provenance = {metric: found for metric, found in provenance.items() if metric in selected}
    cells = kept.get("cells", []) + summarize(results).to_dict(orient="records")
    header = {
        "format": FORMAT,
        "harness_versions": sorted(set(map(str, results["harness_version"])) | set(kept.get("harness_versions", ()))),
        "metric_versions": {**kept.get("metric_versions", {}), **metric_versions(results)},
        "studies": sorted(set(map(str, results["study"])) | set(kept.get("studies", ()))),
    }
    # what the cells were computed from after them: file hashes and versions, which differ from checkout to checkout
    trailer = {
        "failures": kept.get("failures", []) + failed,
        "metric_options": {**kept.get("metric_options", {}), **metric_options(results)},
        "provenance": {**kept.get("provenance", {}), **provenance},
    }
    lines = ["{"] + [f" {json.dumps(key)}: {json.dumps(value)}," for key, value in header.items()]
    body = [" " + json.dumps(_plain(cell), allow_nan=False) for cell in cells]
    lines += [' "cells": ['] + [line + "," for line in body[:-1]] + body[-1:] + [" ],"]
    lines += [f" {json.dumps(key)}: {json.dumps(value)}," for key, value in trailer.items()]
    lines += [f' "environment": {json.dumps(environment())}', "}"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def _refuse_unknown(selected: set[str], known: set[str]) -> None:
    """Refuse a ``metrics`` selection naming a metric of neither the run nor the baseline (``known``), with the closest
    names."""
    unknown = sorted(selected - known)
    if unknown:
        raise UsageError(f"metric {unknown[0]!r} is in neither the run nor the baseline{did_you_mean(unknown[:1], known)}; "
                         f"they hold: {', '.join(sorted(known))}")


def _kept_document(path: Path, selected: set[str]) -> dict[str, Any]:
    """What a partial :func:`save_baseline` keeps of the baseline at ``path``: every field of the metrics not
    ``selected`` (their cells, versions, options, provenance, failures), the studies and harness versions, and
    ``known``, every metric it holds (read through :func:`load_baseline` first, so that a damaged file is refused,
    not merged)."""
    load_baseline(path)
    data = json.loads(path.read_text(encoding="utf-8-sig"))

    def others(mapping: Mapping[str, Any]) -> dict[str, Any]:
        return {metric: value for metric, value in mapping.items() if metric not in selected}

    return {"cells": [cell for cell in data["cells"] if cell["metric"] not in selected],
            "known": {cell["metric"] for cell in data["cells"]},
            "metric_versions": others(data.get("metric_versions", {})),
            "metric_options": others(data.get("metric_options", {})),
            "provenance": others(data.get("provenance", {})),
            "failures": [failure for failure in data.get("failures", []) if failure["metric"] not in selected],
            "harness_versions": data.get("harness_versions", []), "studies": data.get("studies", [])}


#: What identifies a failed seed of a cell in a baseline's ``failures`` (and its error, said when a check reports it).
FAILURE_KEYS = ("scenario", "value_label", "n_samples", "metric", "seed", "error")


def _failure_records(failed: pd.DataFrame) -> list[dict[str, Any]]:
    """The run's failed seeds (:func:`_run_failures`) as a baseline records them: :data:`FAILURE_KEYS`, numbers as
    numbers."""
    return [{"scenario": str(row.scenario), "value_label": str(row.value_label), "n_samples": int(row.n_samples),
             "metric": str(row.metric), "seed": int(row.seed), "error": str(row.error)}
            for row in failed.itertuples(index=False)]


def environment() -> dict[str, Any]:
    """Where scores are computed: ``harness`` (its version), ``git_commit`` (``git rev-parse HEAD`` of the harness's
    checkout; absent when there is none) and ``libraries`` (Python's and the numerical libraries' versions: those
    the registered metrics and scenarios import, :func:`harness.execution.provenance.registered_libraries`)."""
    from harness.execution.provenance import git_commit, registered_libraries
    from harness.version import __version__

    commit = git_commit()
    return {"harness": __version__, **({"git_commit": commit} if commit else {}), "libraries": registered_libraries()}


def _plain(cell: Mapping[str, object]) -> dict[str, object]:
    """JSON-native values (numpy scalars to Python ones)."""
    return {key: value.item() if isinstance(value, np.generic) else value for key, value in cell.items()}


@dataclass(frozen=True)
class Baseline:
    """A loaded baseline: its cells and the versions that produced them."""

    cells: pd.DataFrame
    metric_versions: Mapping[str, str]
    harness_versions: tuple[str, ...]
    path: Path
    environment: Mapping[str, Any] = field(default_factory=dict)
    """:func:`environment` where the baseline was saved (empty for a file written before it was recorded)."""
    metric_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """:func:`metric_options` of the baseline's run (empty for a file written before it was recorded)."""
    provenance: Mapping[str, Any] = field(default_factory=dict)
    """Metric -> what its cells were computed from (:meth:`harness.execution.provenance.Provenance.to_json`; empty
    for a baseline saved from a results table, or before it was recorded)."""
    studies: tuple[str, ...] = ()
    """The studies (presets) the baseline's run was of."""
    failures: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(FAILURE_KEYS)))
    """The seeds on which the baseline's run raised (:data:`FAILURE_KEYS`), which its cells' means leave out (none
    recorded in a file written before they were)."""


def load_baseline(path: str | Path) -> Baseline:
    """Read a baseline written by :func:`save_baseline`.

    Raises
    ------
    ValueError
        When the file is missing, is not JSON (or nests deeper than the parser allows),
        is not a baseline of this format, or holds a field of the wrong type: versions
        that are not text, a cell with a missing or malformed field (a NaN or text score,
        a fractional sample size, ...).
    """
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"baseline file {str(path)!r} {'is a directory' if path.is_dir() else 'does not exist'}")
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise UsageError(f"baseline file {str(path)!r} is not valid JSON: {error}") from None
    except RecursionError:
        raise UsageError(f"baseline file {str(path)!r} nests deeper than a baseline does") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{str(path)!r} is not a baseline (expected \"format\": \"{FORMAT}\")")
    versions, harness_versions = data.get("metric_versions", {}), data.get("harness_versions", [])
    if not isinstance(versions, dict) or not all(isinstance(v, str) for v in versions.values()):
        raise UsageError(f"baseline {str(path)!r}: \"metric_versions\" must map metric names to version text")
    if not isinstance(harness_versions, list) or not all(isinstance(v, str) for v in harness_versions):
        raise UsageError(f"baseline {str(path)!r}: \"harness_versions\" must be a list of version text")
    records = data.get("cells", [])
    if not isinstance(records, list) or not all(isinstance(cell, dict) for cell in records):
        raise UsageError(f"baseline {str(path)!r}: \"cells\" must be a list of objects, one per cell")
    cells = pd.DataFrame(records)
    missing = [column for column in (*CELL_KEYS, "mean", "std", "seeds") if column not in cells.columns]
    if cells.empty or missing:
        raise UsageError(f"baseline {str(path)!r} has no cells or lacks fields: {', '.join(missing) or 'cells'}")
    for index, cell in enumerate(records):
        problem = _cell_problem(cell)
        if problem:
            raise UsageError(f"baseline {str(path)!r}, cell {index} ({cell.get('metric')!r} on {cell.get('scenario')!r} = "
                             f"{cell.get('value_label')!r}): {problem}")
    twice = cells.duplicated(list(CELL_KEYS))
    if twice.any():  # the second copy would be compared too, and counted as a cell of its own
        index = int(np.flatnonzero(twice)[0])
        cell = records[index]
        raise UsageError(f"baseline {str(path)!r}, cell {index} ({cell['metric']!r}/{cell['sub_score']!r} on "
                         f"{cell['scenario']!r} = {cell['value_label']!r}, n = {cell['n_samples']}) repeats an earlier "
                         "cell: a baseline holds each cell once")
    failures = data.get("failures", [])
    if not isinstance(failures, list) or not all(_is_failure(failure) for failure in failures):
        raise UsageError(f"baseline {str(path)!r}: \"failures\" must be a list of objects with the fields "
                         f"{', '.join(FAILURE_KEYS)} (scenario, value_label, metric and error text, n_samples and seed "
                         "whole numbers)")
    saved_in = data.get("environment", {})
    if not (isinstance(saved_in, dict) and isinstance(saved_in.get("libraries", {}), dict)):
        raise UsageError(f"baseline {str(path)!r}: \"environment\" must be an object with \"libraries\" an object")
    options, computed_from = data.get("metric_options", {}), data.get("provenance", {})
    if not isinstance(options, dict) or not all(isinstance(found, dict) and isinstance(found.get("base"), str)
                                                and isinstance(found.get("options"), dict)
                                                and isinstance(found.get("defaults"), dict)
                                                for found in options.values()):
        raise UsageError(f"baseline {str(path)!r}: \"metric_options\" must map metric names to their base, options and "
                         "defaults")
    if not isinstance(computed_from, dict) or not all(map(_is_provenance, computed_from.values())):
        raise UsageError(f"baseline {str(path)!r}: \"provenance\" must map metric names to files, libraries and "
                         "environment")
    studies = data.get("studies", [])
    if not isinstance(studies, list) or not all(isinstance(study, str) for study in studies):
        raise UsageError(f"baseline {str(path)!r}: \"studies\" must be a list of study names")
    return Baseline(cells, dict(versions), tuple(harness_versions), path, saved_in, options, computed_from,
                    tuple(studies), pd.DataFrame(failures, columns=list(FAILURE_KEYS)))


def _is_failure(failure: Any) -> bool:
    """Whether one entry of a baseline's ``failures`` has :data:`FAILURE_KEYS` of the right types."""
    def whole(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    return (isinstance(failure, dict) and all(isinstance(failure.get(key), str)
                                              for key in ("scenario", "value_label", "metric", "error"))
            and whole(failure.get("n_samples")) and whole(failure.get("seed")))


def _is_provenance(data: Any) -> bool:
    from harness.execution.provenance import Provenance

    return Provenance.from_json(data) is not None


_TEXT_FIELDS = tuple(key for key in CELL_KEYS if key not in ("value", "n_samples"))


def _cell_problem(cell: Mapping[str, Any]) -> str:
    """What is wrong with one cell of a baseline file ("" when nothing is): a NaN mean would
    otherwise make its cell look absent from the baseline, and pass every check."""

    def number(value: object) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)

    def count(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 1

    for key in _TEXT_FIELDS:
        if not isinstance(cell.get(key), str):
            return f"field {key!r} must be text, got {cell.get(key)!r}"
    for key in ("value", "mean", "std"):
        if not number(cell.get(key)):
            return f"field {key!r} must be a finite number, got {cell.get(key)!r}"
    if cell["std"] < 0:
        return f"field 'std' must be >= 0, got {cell['std']!r}"
    for key in ("n_samples", "seeds"):
        if not count(cell.get(key)):
            return f"field {key!r} must be a whole number >= 1, got {cell.get(key)!r}"
    return ""


@dataclass
class BaselineCheck:
    """Outcome of comparing a run with a baseline.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per cell of either side: :data:`CELL_KEYS`, ``baseline``, ``current``
        (mean scores), ``baseline_std`` (the baseline's seed-to-seed standard deviation),
        ``baseline_seeds``, ``current_seeds`` (how many seeds each mean averages), ``difference`` (current - baseline), ``tolerance`` and
        ``status``: ``"ok"``, ``"drifted"``, ``"failed"`` (in the baseline, and the run's
        metric raised on it for some seed: :func:`_run_failures`), ``"missing"`` (in the
        baseline, not in the run, and not failed there), ``"option changed"`` (a cell of a metric that the run
        has with other options only, as ``mig`` against ``mig[bins=20]``, on either side: compared with
        ``match_options``) or ``"new"`` (in the run only; never a failure).
    allow_missing : bool
        Whether missing cells, and those whose metric's options changed, are tolerated (failed ones never are).
    notes : list of str
        Version changes between the baseline and the run, cells whose means average
        different numbers of seeds on the two sides, different sample sizes on the two
        sides, metrics found on one side only,
        per-metric tolerances that match no metric, and the run's failed cells.
    """

    table: pd.DataFrame
    allow_missing: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def compared(self) -> int:
        """How many cells both the baseline and the run scored (``ok`` or ``drifted``).  With none, nothing was
        compared (every cell missing, new, failed or of changed options): the check fails even when missing cells
        are tolerated."""
        return int(self.table["status"].isin(["ok", "drifted"]).sum())

    @property
    def failures(self) -> pd.DataFrame:
        """The drifted and failed cells, and the missing ones unless they are allowed, largest change first."""
        bad = {"drifted", "failed"} if self.allow_missing else {"drifted", "failed", "missing", OPTION_CHANGED}
        rows = self.table.loc[self.table["status"].isin(bad)]
        order = rows["difference"].abs().fillna(np.inf).sort_values(ascending=False, kind="stable").index
        return rows.loc[order]

    @property
    def passed(self) -> bool:
        """True when some cell was compared (:attr:`compared`), none drifted or failed, and none is missing (unless
        allowed)."""
        return self.failures.empty and self.compared > 0

    def summary(self) -> str:
        """One line: how many cells were compared and how many failed.  A cell whose metric's options changed counts
        once, as the baseline's cell (the run's cell of the other options is named after: the two sides of one change,
        counted as two, made 60 cells of the baseline read 72)."""
        run_side = ((self.table["status"] == OPTION_CHANGED) & self.table["baseline"].isna()).to_numpy()
        counts = self.table.loc[~run_side, "status"].value_counts()
        parts = [f"{int(counts.get(s, 0))} {s}" for s in ("ok", "drifted", "failed", "missing", OPTION_CHANGED, "new")
                 if counts.get(s, 0)]
        verdict = "PASSED" if self.passed else "FAILED"
        other = f"; the run scored {int(run_side.sum())} cells with the other options" if run_side.any() else ""
        return (f"baseline check {verdict}: {int((~run_side).sum())} cells{'' if self.compared else ', none compared'} "
                f"({', '.join(parts)}{other})")

    def by_metric(self) -> list[dict[str, Any]]:
        """One record per metric with failing cells: ``metric``, ``compared`` (its cells of the baseline),
        ``drifted``, ``failed``, ``missing``, ``option_changed`` (counted when they fail the check), and the largest
        drift: ``largest_drift``
        (current - baseline) with its cell's ``scenario``, ``value_label``, ``n_samples``, ``sub_score`` and
        ``tolerance`` (None when none drifted)."""
        in_baseline = self.table.loc[self.table["baseline"].notna(), "metric"].value_counts()
        found = []
        for metric, cells in self.failures.groupby("metric", sort=True):
            if cells["baseline"].isna().all():
                continue  # the run's side of an option change: its baseline metric's line counts them
            drifted = cells.loc[cells["status"] == "drifted"]
            worst = drifted.iloc[0] if len(drifted) else None  # failures come largest change first
            found.append({
                "metric": metric,
                "compared": int(in_baseline.get(metric, 0)),
                "drifted": len(drifted),
                "failed": int((cells["status"] == "failed").sum()),
                "missing": int((cells["status"] == "missing").sum()),
                "option_changed": int(((cells["status"] == OPTION_CHANGED) & cells["baseline"].notna()).sum()),
                "largest_drift": None if worst is None else float(worst["difference"]),
                **{key: None if worst is None else _plain_value(worst[key])
                   for key in ("scenario", "value_label", "n_samples", "sub_score", "tolerance")},
            })
        return found

    def report(self, max_rows: int | None = DEFAULT_MAX_ROWS) -> str:
        """The summary, one line per failing metric (cells drifted, largest drift), the notes and the table of
        failing cells, largest change first, folded after ``max_rows`` rows (None or 0: every row)."""
        lines = [self.summary(), *map(_metric_line, self.by_metric()), *(f"note: {note}" for note in self.notes)]
        failing = self.failures
        if not failing.empty:
            shown = failing.head(max_rows) if max_rows else failing
            shown = shown[["status", "scenario", "value_label", "n_samples", "metric", "sub_score",
                           "baseline", "current", "difference", "tolerance"]].copy()
            pairs = [_difference_against(d, t) for d, t in zip(shown["difference"], shown["tolerance"])]
            shown["difference"], shown["tolerance"] = (list(column) for column in zip(*pairs))
            lines += ["", markdown_table(shown.rename(columns={"value_label": "value", "n_samples": "n"}), digits=6)]
            if len(failing) > len(shown):
                lines.append(f"... {len(failing) - len(shown)} more failing cell(s) not shown "
                             "(--max-rows 0 shows every one; --format json lists them all)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``passed``, ``summary``, ``metrics`` (:meth:`by_metric`), ``notes`` and every failing cell
        (``cells``: numbers as numbers, a missing cell's ``current`` and ``difference`` None)."""
        cells = self.failures[[*CELL_KEYS, "status", "baseline", "current", "difference", "tolerance", "baseline_seeds",
                               "current_seeds"]]
        records = [{key: _plain_value(value) for key, value in record.items()} for record in cells.to_dict("records")]
        for record in records:  # counts, held as floats beside a side's NaN: 2, not 2.0
            for key in ("baseline_seeds", "current_seeds"):
                if isinstance(record[key], float):
                    record[key] = int(record[key])
        return {"passed": self.passed, "summary": self.summary(), "metrics": self.by_metric(), "notes": list(self.notes),
                "cells": records}


def _metric_line(found: Mapping[str, Any]) -> str:
    """``dci: 12 of 30 cells drifted, largest +0.0198 (noise = 0.6, n = 1000, compactness); 1 of 30 cells failed in
    the run; 2 of 30 cells missing from the run`` (the sub-score named when it is not the metric's own name)."""
    parts = []
    if found["drifted"]:
        sub_score = f", {found['sub_score']}" if found["sub_score"] != found["metric"] else ""
        largest, tolerance = _difference_against(found["largest_drift"], found["tolerance"])
        parts.append(f"{found['drifted']} of {found['compared']} cells drifted, largest "
                     f"{'' if largest.startswith('-') else '+'}{largest} "
                     f"against {tolerance} ({found['scenario']} = {found['value_label']}, n = {found['n_samples']}"
                     f"{sub_score})")
    if found["failed"]:
        parts.append(f"{found['failed']} of {found['compared']} cells failed in the run (the metric raised)")
    if found["missing"]:
        parts.append(f"{found['missing']} of {found['compared']} cells missing from the run")
    if found["option_changed"]:
        parts.append(f"{found['option_changed']} of {found['compared']} cells run with other options")
    return f"{found['metric']}: " + "; ".join(parts)


def _plain_value(value: Any) -> Any:
    """A table value as JSON holds it: numpy scalars as Python numbers, NaN as None."""
    value = value.item() if isinstance(value, np.generic) else value
    return None if isinstance(value, float) and math.isnan(value) else value


#: Fewest significant digits of a drift table's differences and tolerances.
DRIFT_DIGITS = 3


def _difference_against(difference: float, tolerance: float) -> tuple[str | float, str]:
    """A failing cell's difference and tolerance as text, with the same number of significant digits, the fewest
    (at least :data:`DRIFT_DIGITS`) at which the printed ``|difference|`` exceeds the printed tolerance when the
    unrounded one does: 1.0000004e-06 against 1.0000000e-06, never 1.00e-06 against 1.00e-06.  A missing cell's difference stays
    NaN (the table prints it as —).
    """
    if not math.isfinite(tolerance):  # a cell of changed options: nothing to compare it with
        return difference, "—"
    if not math.isfinite(difference):
        return difference, f"{tolerance:#.{DRIFT_DIGITS}g}"
    for digits in range(DRIFT_DIGITS, 18):
        shown = f"{difference:#.{digits}g}", f"{tolerance:#.{digits}g}"
        if (abs(float(shown[0])) > float(shown[1])) == (abs(difference) > tolerance):
            return shown
    return shown


def _is_tolerance_pair(pair: Any) -> bool:
    """Whether ``pair`` is ``(atol, rtol)``: two finite real numbers >= 0."""
    if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
        return False
    return all(isinstance(t, (int, float, np.integer, np.floating)) and not isinstance(t, (bool, np.bool_))
               and math.isfinite(t) and t >= 0 for t in pair)


def check_baseline(
    run: Results,
    baseline: str | Path | Baseline,
    *,
    atol: float = DEFAULT_ATOL,
    rtol: float = DEFAULT_RTOL,
    per_metric: Tolerances | None = None,
    sigmas: float = 0.0,
    metrics: Iterable[str] | None = None,
    allow_missing: bool = False,
    match_options: bool = False,
) -> BaselineCheck:
    """Compare a run with a baseline, cell by cell.

    Parameters
    ----------
    run : pandas.DataFrame, str or path
        The results table of the run, or its run directory.
    baseline : str, path or Baseline
        A file written by :func:`save_baseline` (or one already loaded).
    atol, rtol : float, default 1e-6 and 0
        A cell drifts when ``|current - baseline| > atol + rtol * |baseline|``, for
        the cell's mean score over seeds.
    per_metric : Mapping[str, tuple[float, float]], optional
        ``{metric: (atol, rtol)}`` overriding the global tolerances for that metric.
    sigmas : float, default 0
        Widens every cell's tolerance by ``sigmas`` times the baseline's seed-to-seed
        standard deviation of that cell (its ``std``): a change smaller than the
        scores' own spread over seeds passes.  A rerun of the same code reproduces the
        scores bit for bit, so 0 (the default) flags any change beyond ``atol`` and
        ``rtol``; use it when a metric is changed on purpose and a move within seed
        noise is acceptable.  Deterministic cells (``std`` 0) are not widened.
    metrics : iterable of str, optional
        Compare only these metrics (on both sides); default: all.
    allow_missing : bool, default False
        Whether baseline cells absent from the run are tolerated (e.g. a run of a
        subset of the scenarios).  By default they fail the check.  A baseline cell on
        which the run's metric raised (for any seed; the run's failures) is ``"failed"``
        and fails the check even then: it scored before and no longer does.
    match_options : bool, default False
        Compare a metric of the baseline with the metric of the same base that the run has instead, with other
        options (``mig`` against ``mig[bins=20]``: each the only one of its base on its side alone), cell by cell,
        under the label ``mig -> mig[bins=20]``; a note names the options that changed.  Without it their cells
        read ``"option changed"`` (failing unless ``allow_missing``), and a note says so.

    Returns
    -------
    BaselineCheck
        ``passed``, the full comparison ``table``, the ``failures`` and a printable
        ``report()``.

    Raises
    ------
    ValueError
        For negative tolerances, an unreadable baseline or run, or a ``metrics``
        selection naming a metric of neither side.
    TypeError
        For a ``run`` that is neither a results table nor a path.
    """
    _check_run(run)
    per_metric = dict(per_metric or {})
    for name, pair in [("global", (atol, rtol)), *per_metric.items()]:
        if not _is_tolerance_pair(pair):  # a lone number, text or None failed inside len() or isfinite()
            raise UsageError(f"tolerances must be two finite numbers >= 0 (atol, rtol); got {pair!r} for {name}")
    if not (isinstance(sigmas, (int, float)) and math.isfinite(sigmas) and sigmas >= 0):
        raise UsageError(f"sigmas must be a finite number >= 0, got {sigmas!r}")
    reference = baseline if isinstance(baseline, Baseline) else load_baseline(baseline)
    failed, recorded = _run_failures(run), reference.failures
    results = _results(run, allow_empty=not failed.empty)  # every cell failed: each fails, the note says why
    current = summarize(results)
    expected = reference.cells
    known = set(current["metric"]) | set(expected["metric"])
    run_options = metric_options(results)
    pairs = _option_pairs(reference.metric_options, run_options, set(expected["metric"]), set(current["metric"]))
    if metrics is not None:
        selected = set(listed(metrics, "metrics", "metric names"))
        if not selected & known:
            raise UsageError(f"none of the metrics {sorted(selected)} is in the run or the baseline"
                             f"{did_you_mean(sorted(selected), known)} (known: {', '.join(sorted(known))})")
        _refuse_unknown(selected, known)  # a misspelled name would silently leave its metric unchecked
        # a metric named on one side takes the one it pairs with on the other (mig -> mig[bins=5]): selected alone,
        # it was missing from the run, or new in it, and --match-options could not compare them
        selected |= {name for pair in pairs.items() if set(pair) & selected for name in pair}
        pairs = {before: after for before, after in pairs.items() if before in selected}
        current = current.loc[current["metric"].isin(selected)]
        expected = expected.loc[expected["metric"].isin(selected)]
    # a metric run under another name with the same options (mig -> mig[bins=10], bins=10 its default) is compared
    # cell by cell whatever --match-options says: nothing in its cells changed but their name
    same = {before: after for before, after in pairs.items()
            if not _changed_options(reference.metric_options[before], run_options[after])}
    matched = pairs if match_options else same
    if matched:
        labels = {before: f"{before} -> {after}" for before, after in matched.items()}
        expected = expected.assign(metric=expected["metric"].replace(labels))
        renamed = {after: labels[before] for before, after in matched.items()}
        current = current.assign(metric=current["metric"].replace(renamed))
        failed = failed.assign(metric=failed["metric"].replace(renamed))
        recorded = recorded.assign(metric=recorded["metric"].replace(labels))
    # a seed that raised when the baseline was saved too is left out of both sides' means alike: only a seed that
    # scored then and raises now fails its cell
    failed, as_before = _split_failures(failed, recorded)
    merged = _align(expected, current)
    tolerances = merged["metric"].map(lambda m: per_metric.get(m, (atol, rtol)))
    merged["tolerance"] = [a + r * abs(b) + sigmas * spread if not math.isnan(b) else np.nan
                           for (a, r), b, spread in zip(tolerances, merged["baseline"], merged["baseline_std"].fillna(0.0))]
    merged["difference"] = merged["current"] - merged["baseline"]
    status = np.where(merged["difference"].abs() > merged["tolerance"], "drifted", "ok")
    status = np.where(merged["current"].isna(), "missing", status)
    status = np.where(_raised(merged, failed), "failed", status)
    merged["status"] = np.where(merged["baseline"].isna(), "new", status)
    unmatched = {before: after for before, after in pairs.items() if before not in matched}
    sides = {*unmatched, *unmatched.values()}
    merged.loc[merged["metric"].isin(sides) & merged["status"].isin(["missing", "new"]), "status"] = OPTION_CHANGED
    notes = _option_notes(pairs, reference.metric_options, run_options, match_options)
    notes += _provenance_notes(reference.provenance, _run_provenance(run), merged, matched)
    notes += _version_notes(reference.metric_versions, results, merged) + _environment_notes(reference.environment)
    notes += _seed_notes(merged) + _sample_size_notes(merged) + _study_notes(reference.studies, results)
    if not results.empty:  # else every failure is the story, whichever metric it is of
        failed = failed.loc[failed["metric"].isin(merged["metric"])]
    notes += _coverage_notes(merged, per_metric, known) + _failure_notes(failed) + _recorded_failure_notes(as_before)
    check = BaselineCheck(merged, allow_missing=allow_missing, notes=notes)
    if not check.compared:
        check.notes.append("no cell was compared: none is in both the baseline and the run (each is missing, new or "
                           "failed), so the check fails whatever is allowed; compare metrics, scenarios and sample "
                           "sizes both hold")
    return check


def _align(expected: pd.DataFrame, current: pd.DataFrame) -> pd.DataFrame:
    """Outer join of baseline and run cells on their identity (values matched to 12 digits)."""
    keys = [key for key in CELL_KEYS if key != "value"]
    left = expected[[*CELL_KEYS, "mean", "std", "seeds"]].rename(columns={"mean": "baseline", "std": "baseline_std",
                                                                         "seeds": "baseline_seeds"})
    right = current[[*CELL_KEYS, "mean", "seeds"]].rename(columns={"mean": "current", "seeds": "current_seeds"})
    for side in (left, right):
        side["_value"] = side["value"].astype(float).round(12)
        side["n_samples"] = side["n_samples"].astype(np.int64)
        for key in keys:
            if key != "n_samples":
                side[key] = side[key].astype(str)
    merged = left.drop(columns="value").merge(right.drop(columns="value"), on=[*keys, "_value"], how="outer")
    merged = merged.rename(columns={"_value": "value"})[[*CELL_KEYS, "baseline", "current", "baseline_std", "baseline_seeds",
                                                         "current_seeds"]]
    return merged.sort_values(list(CELL_KEYS)).reset_index(drop=True)


#: The status of a cell whose metric the other side has with other options only (:func:`check_baseline`).
OPTION_CHANGED = "option changed"


def _option_pairs(before: Mapping[str, Mapping[str, Any]], after: Mapping[str, Mapping[str, Any]],
                  expected: set[str], current: set[str]) -> dict[str, str]:
    """Baseline metric -> the run's metric of the same base with other options: for each base of which each side
    has exactly one metric the other lacks (``mig`` -> ``mig[bins=20]``).  Empty for a baseline that did not record
    its metrics' options."""
    def alone(options: Mapping[str, Mapping[str, Any]], names: set[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for name in sorted(names):
            if name in options:
                found.setdefault(options[name]["base"], []).append(name)
        return found

    gone, added = alone(before, expected - current), alone(after, current - expected)
    return {gone[base][0]: added[base][0] for base in sorted(set(gone) & set(added))
            if len(gone[base]) == 1 and len(added[base]) == 1}


def _changed_options(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The options that differ, each with its two values: ``bins 10 -> 20`` (an option one side leaves at its
    default is read at the default the other side recorded); empty when none does."""
    defaults = {**before["defaults"], **after["defaults"]}
    old, new = {**defaults, **before["options"]}, {**defaults, **after["options"]}
    return [f"{option} {old.get(option, 'default')} -> {new.get(option, 'default')}"
            for option in sorted(set(old) | set(new)) if old.get(option) != new.get(option)]


def _option_notes(pairs: Mapping[str, str], before: Mapping[str, Mapping[str, Any]],
                  after: Mapping[str, Mapping[str, Any]], matched: bool) -> list[str]:
    """One note per metric run under another name: with the same options (compared cell by cell), or with other
    options (what changed, and how its cells were compared)."""
    notes = []
    for old, new in pairs.items():
        changed = _changed_options(before[old], after[new])
        if not changed:
            notes.append(f"metric {old!r} ran as {new!r} with the same options: its cells are compared cell by cell")
            continue
        change = ", ".join(changed)
        if matched:
            notes.append(f"{old} -> {new}: option {change}; its cells are compared cell by cell (--match-options), "
                         "so drift may be intended")
        else:
            notes.append(f"metric {old!r} ran with other options as {new!r} (option {change}): its cells read "
                         f"'{OPTION_CHANGED}'; compare them cell by cell with --match-options")
    return notes


def _provenance_notes(before: Mapping[str, Any], after: Mapping[str, Any], compared: pd.DataFrame,
                      pairs: Mapping[str, str]) -> list[str]:
    """One note per drifted or failed metric naming what its cells were computed from that changed since the
    baseline (its file, a helper, a data file, an environment value, a library version), where both sides recorded
    it; ``pairs`` (the matched option changes) maps a baseline metric to the run's."""
    from harness.execution.provenance import Provenance, changes

    labels = {f"{old} -> {new}": (old, new) for old, new in pairs.items()}
    notes = []
    for metric in sorted(set(compared.loc[compared["status"].isin(["drifted", "failed"]), "metric"])):
        old, new = labels.get(metric, (metric, metric))
        if old in before and new in after:
            changed = changes(Provenance.from_json(before[old]), after[new])
            if changed:
                notes.append(f"metric {metric!r} was computed from other inputs than in the baseline: "
                             f"{', '.join(changed)}; drift may be intended")
    return notes


def _raised(compared: pd.DataFrame, failed: pd.DataFrame) -> np.ndarray:
    """Whether the run's metric raised on each compared cell, for some seed: a row of ``failed``
    (:func:`_run_failures`) of its scenario, value, sample size and metric."""
    sample_sizes = pd.to_numeric(failed["n_samples"], errors="coerce")  # text in failures.csv
    raised = set(zip(failed["scenario"].astype(str), failed["value_label"].astype(str), sample_sizes,
                     failed["metric"].astype(str)))
    cells = zip(compared["scenario"], compared["value_label"], compared["n_samples"], compared["metric"])
    return np.fromiter((cell in raised for cell in cells), dtype=bool, count=len(compared))


def _version_notes(versions: Mapping[str, str], results: pd.DataFrame, compared: pd.DataFrame) -> list[str]:
    run_versions = metric_versions(results)
    notes = []
    for metric in sorted(set(compared["metric"])):
        before, after = versions.get(metric), run_versions.get(metric)
        if before is not None and after is not None and before != after:
            notes.append(f"metric {metric!r} changed version {before} -> {after}; drift may be intended")
    return notes


def _environment_notes(saved_in: Mapping[str, Any]) -> list[str]:
    """A note naming what differs between the environment the baseline was saved in and this one (harness version,
    git commit, library versions): a drift may come from them.  None for a baseline that recorded no environment."""
    if not saved_in:
        return []
    from harness.execution.provenance import Provenance, changes

    here = environment()
    differ = [f"harness {saved_in.get('harness')} -> {here['harness']}"] if saved_in.get("harness") != here["harness"] else []
    commits = saved_in.get("git_commit"), here.get("git_commit")
    if all(commits) and commits[0] != commits[1]:
        differ.append(f"git commit {str(commits[0])[:12]} -> {str(commits[1])[:12]}")
    libraries = [Provenance({}, {str(k): str(v) for k, v in found.items()})
                 for found in (saved_in.get("libraries", {}), here["libraries"])]
    differ += changes(*libraries)
    if not differ:
        return []
    return [f"the baseline was saved in another environment: {', '.join(differ)}; drift may come from it"]


def _study_notes(saved: Sequence[str], results: pd.DataFrame) -> list[str]:
    """A note when the baseline's run was of other studies (presets) than the run's: their cells are compared where
    both hold them, but seeds, sample sizes and sweeps may differ."""
    run = sorted(set(map(str, results["study"])))
    if not saved or not run or set(saved) == set(run):
        return []
    return [f"the baseline was saved from study {', '.join(saved)}, the run is of {', '.join(run)}: the cells both hold "
            "are compared (seeds, sample sizes and sweeps may differ)"]


def _seed_notes(compared: pd.DataFrame) -> list[str]:
    """A note when cells of both sides average different numbers of seeds: their means then
    differ by sampling noise even when no metric changed, which reads as drift."""
    both = compared.dropna(subset=["baseline_seeds", "current_seeds"])
    differ = both.loc[both["baseline_seeds"] != both["current_seeds"]]
    if differ.empty:
        return []
    pairs = differ.groupby(["baseline_seeds", "current_seeds"]).size().sort_values(ascending=False, kind="stable")
    counts = ", ".join(f"{int(b)} in the baseline, {int(c)} in the run" for b, c in pairs.index)
    return [f"{len(differ)} of {len(both)} compared cells average a different number of seeds ({counts}): "
            "their means differ by sampling noise even where no metric changed; rerun with the baseline's seeds (its "
            "--seeds, or its race: --min-seeds, --max-seeds, --budget-seconds)"]


def _sample_size_notes(compared: pd.DataFrame) -> list[str]:
    """A note when a scenario of both sides is scored at different sample sizes: such cells are
    never compared, so a run at another ``--n-samples`` reads as every cell missing and as many new ones."""
    differ = []
    for scenario, cells in compared.groupby("scenario", sort=True):
        sizes = [sorted(set(cells.loc[cells[side].notna(), "n_samples"])) for side in ("baseline", "current")]
        if sizes[0] and sizes[1] and sizes[0] != sizes[1]:
            differ.append((scenario, *(", ".join(map(str, side)) for side in sizes)))
    if not differ:
        return []
    scenario, before, after = differ[0]
    return [f"{len(differ)} scenario(s) were scored at other sample sizes than in the baseline (first: {scenario}, "
            f"baseline n = {before}, run n = {after}): cells of different sample sizes are never compared; "
            "rerun with the baseline's --n-samples"]


def _coverage_notes(compared: pd.DataFrame, per_metric: Tolerances, known: set[str]) -> list[str]:
    """Notes naming the metrics found on one side only (a metric renamed by an option sweep,
    ``mig`` -> ``mig[bins=20]``, reads as all its cells missing and as many new ones), and the
    per-metric tolerances that apply to no metric (a misspelled name leaves its metric at the
    global tolerance)."""
    status = compared.groupby("metric")["status"].agg(set)
    notes = []
    new = [metric for metric, found in status.items() if found == {"new"}]
    gone = [metric for metric, found in status.items() if found == {"missing"}]
    if new:
        notes.append(f"metric(s) in the run only, not compared: {', '.join(new)}")
    if gone:
        notes.append(f"metric(s) of the baseline absent from the run: {', '.join(gone)}")
    for name in sorted(set(per_metric) - known):
        notes.append(f"the tolerance given for {name!r} applies to no metric of the run or the baseline"
                     f"{did_you_mean([name], known)}")
    return notes


def _split_failures(failed: pd.DataFrame, recorded: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The run's failed seeds (:func:`_run_failures`) split into those the baseline did not record (they fail their
    cells) and those it did (its run raised on the same seeds: its means leave them out as the run's do)."""
    before = set(_seed_keys(recorded))
    again = np.fromiter((seed in before for seed in _seed_keys(failed)), dtype=bool, count=len(failed))
    return failed.loc[~again], failed.loc[again]


def _seed_keys(failed: pd.DataFrame) -> list[tuple[str, str, int, str, int]]:
    """Each failed seed of ``failed`` as (scenario, value label, sample size, metric, seed), in order, whether read
    from ``failures.csv`` (text) or from a baseline (numbers): :func:`_failure_records`' fields."""
    return [(record["scenario"], record["value_label"], record["n_samples"], record["metric"], record["seed"])
            for record in _failure_records(failed)]


def _recorded_failure_notes(as_before: pd.DataFrame) -> list[str]:
    """A note when seeds of the run raised as they did when the baseline was saved."""
    if as_before.empty:
        return []
    return [f"{len(as_before)} seed(s) of the run raised as they did when the baseline was saved (the baseline records "
            "them): its means and the run's both leave them out, so their cells compare the seeds that scored"]


def _failure_notes(failed: pd.DataFrame) -> list[str]:
    """A note when cells of the run failed (:func:`_run_failures`): the baseline cells they would
    have scored show as failed, and the error says why."""
    if failed.empty:
        return []
    first = failed.iloc[0]
    return [f"{len(failed)} cell(s) of the run failed and have no scores, so the baseline cells they would score fail "
            f"the check; first: {first['metric']} on {first['scenario']} = {first['value_label']} (seed {first['seed']}): "
            f"{first['error']}"]


def assert_matches_baseline(run: Results, baseline: str | Path, *, update: bool | None = None,
                            **options: Any) -> BaselineCheck:
    """Assert that a run still behaves like a baseline (for a metric author's pytest suite).

    Same parameters as :func:`check_baseline` (``options``: ``atol``, ``rtol``,
    ``per_metric``, ``sigmas``, ``metrics``, ``allow_missing``).  Returns the check when it passes.
    With ``update`` (default: the environment variable ``HARNESS_UPDATE_BASELINES`` set to ``1``, ``true``, ``yes``
    or ``on``; another value than these and ``0``, ``false``, ``no``, ``off`` or empty is refused: :func:`update_requested`),
    the baseline is (re)written from the run instead (with ``metrics``, those metrics' cells
    only: the others stay as saved, so tests sharing one file each rewrite their own), and the check of the run
    against it returned: rerun the suite so after an intended change, review the diff of the
    baseline file and commit it, as with snapshot-testing tools.  Pytest does not show this
    helper's own frame in a failure's traceback.

    Raises
    ------
    AssertionError
        With a line per drifted metric and the table of drifted (and missing) cells, largest change
        first, when the check fails; when the baseline file does not exist (create it with ``update``).

    Examples
    --------
    ::

        results = run_study(preset="quick", metrics_=["my_package.metrics:my_metric"], seeds=1,
                            n_samples=500, progress=False)
        assert_matches_baseline(results, "tests/my_metric_baseline.json")
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's source
    if update is None:
        update = update_requested()
    if update:  # the checked metrics' cells only, when the check selects some: the others stay as saved
        save_baseline(run, baseline, force=True, metrics=options.get("metrics"))
    elif not Path(baseline).is_file():
        raise AssertionError(f"no baseline file {str(baseline)!r}: write it from this run with {UPDATE_VARIABLE}=1")
    check = check_baseline(run, baseline, **options)
    if not check.passed:
        raise AssertionError(f"{check.report()}\n(an intended change? rewrite the baseline with {UPDATE_VARIABLE}=1 "
                             "and review its diff)")
    return check
