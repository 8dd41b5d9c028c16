"""Reading a run directory's results table as user input: a file that cannot be read is the user's problem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.errors import UsageError


def load_run_results(directory: str | Path, *, allow_empty: bool = False) -> Any:
    """The validated results table of a run directory (:func:`reports.load_results`; ``allow_empty`` accepts a
    table without rows, that of a run whose every cell failed).

    Raises
    ------
    FileNotFoundError
        When the directory holds no results table.
    harness.errors.UsageError
        When the table cannot be parsed or breaks the results contract (the message
        names the directory and the problem).
    """
    import reports

    try:
        results = reports.load_results(directory, allow_empty=allow_empty)
    except FileNotFoundError:
        raise
    except (ValueError, OSError, UnicodeDecodeError) as error:  # pyarrow's and pandas' parse errors derive from these
        raise UsageError(f"cannot read the results in {directory}: {' '.join(str(error).split())}") from error
    return check_one_source_per_name_in(results, f"the results in {directory}")


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
