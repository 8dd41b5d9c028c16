"""Reading a run directory's results table as user input: a file that cannot be read, or a name it does not hold,
is the user's problem."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.errors import UsageError, did_you_mean


def load_run_results(directory: str | Path, *, allow_empty: bool = False) -> Any:
    """The validated results table of a run directory (:func:`reports.load_results`; ``allow_empty`` accepts a
    table without rows, that of a run whose every cell failed).  A table written before the option columns
    (:data:`reports.results.schema.DERIVED_COLUMNS`) gets the defaults of its registered metrics' swept options from the
    registry, as they are today.

    Raises
    ------
    FileNotFoundError
        When the directory holds no results table.
    harness.errors.UsageError
        When the table cannot be parsed or breaks the results contract (the message
        names the directory and the problem).
    """
    import reports
    from harness.execution.rows import registered_option_defaults

    try:
        results = reports.load_results(directory, allow_empty=allow_empty, option_defaults=registered_option_defaults)
    except FileNotFoundError as missing:
        from harness.execution.store import CELLS_FILE

        if (Path(directory) / CELLS_FILE).is_file():  # a run stopped before it wrote its tables
            raise FileNotFoundError(f"{missing}; it holds the finished cells ({CELLS_FILE}) of a run stopped before it "
                                    "wrote its results table: rerun the same 'run' command, which resumes, to finish "
                                    "it and write them") from None
        raise
    except (ValueError, OSError, UnicodeDecodeError) as error:  # pyarrow's and pandas' parse errors derive from these
        raise UsageError(f"cannot read the results in {directory}: {' '.join(str(error).split())}") from error
    return check_one_source_per_name_in(results, f"the results in {directory}")


def load_run_failures(directory: str | Path) -> Any:
    """The failed cells of a run directory (``failures.csv``: :data:`reports.results.schema.FAILURE_COLUMNS`, every
    field as text); empty when none failed or the directory records none."""
    import pandas as pd

    from harness.execution.store import FAILURES_CSV
    from reports.results.schema import FAILURE_COLUMNS

    path = Path(directory) / FAILURES_CSV
    if not path.is_file():
        return pd.DataFrame(columns=list(FAILURE_COLUMNS))
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def check_one_source_per_name_in(results: Any, where: str) -> Any:
    """``results``, when each of its metrics comes from one source (one family and version) and each of its scenarios
    sweeps one parameter; else a :class:`UsageError` naming both sources.

    The rows of one name are read as seeds of one metric (or scenario): a table written before ``run`` refused
    ``--metrics mig,clash.py:mig``, or two runs' tables joined, would average two metrics.
    """
    for kind, name, columns in (("metric", "metric", ("family", "metric_version")), ("scenario", "scenario", ("parameter",))):
        sources = results[[name, *columns]].drop_duplicates()
        mixed = sources[name][sources[name].duplicated()]
        if len(mixed):
            both = sources.loc[sources[name] == mixed.iloc[0], list(columns)]
            described = " and ".join(", ".join(f"{column.removeprefix('metric_')} {value}" for column, value in zip(columns, row))
                                     for row in both.itertuples(index=False))
            raise UsageError(f"{where} hold two {kind}s named {mixed.iloc[0]!r} ({described}), whose rows would be read "
                             f"as one {kind}'s; rerun with one of them renamed")
    return results


def select_results(results: Any, *, metrics: Sequence[str] | None = None, scenarios: Sequence[str] | None = None) -> Any:
    """The rows of ``results`` of the named metrics and scenarios (all of either when None).

    A metric is named as the results name it (``mig[bins=10]``, one variant of a sweep) or by its own name,
    which selects every variant of its sweeps (``mig``: ``mig[bins=5]``, ``mig[bins=10]``, ...).  A scenario is
    named as the results name it or as ``run --scenarios`` takes it (``redundancy_attack@noise=.1``).

    Raises
    ------
    harness.errors.UsageError
        For a name the results do not hold, with the closest ones.
    """
    keep = results.index == results.index
    if metrics is not None:
        known = set(results["metric"]) | set(results["metric_base"])
        _check_known("metric", metrics, known)
        keep &= results["metric"].isin(metrics) | results["metric_base"].isin(metrics)
    if scenarios is not None:
        known = set(results["scenario"])
        written = [_as_written(name, known) for name in scenarios]
        _check_known("scenario", written, known)
        keep &= results["scenario"].isin(written)
    return results.loc[keep]


def _check_known(kind: str, names: Sequence[str], known: set[str]) -> None:
    unknown = [name for name in names if name not in known]
    if unknown:
        raise UsageError(f"unknown {kind}(s) {unknown}{did_you_mean(unknown, known)}; the results have "
                         f"{', '.join(sorted(known))}")


def _as_written(name: str, known: set[str]) -> str:
    """A scenario as the results name it, where ``name`` is a reference ``run --scenarios`` accepts for it
    (``redundancy_attack@noise=.1`` is written ``redundancy_attack@noise=0.1``); otherwise ``name`` as given."""
    from harness.execution.scenario_refs import scenario_for

    if name in known:
        return name
    try:
        return scenario_for(name).name
    except UsageError:  # no scenario of that name: reported as unknown by the caller
        return name
