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
        return reports.load_results(directory, allow_empty=allow_empty)
    except FileNotFoundError:
        raise
    except (ValueError, OSError, UnicodeDecodeError) as error:  # pyarrow's and pandas' parse errors derive from these
        raise UsageError(f"cannot read the results in {directory}: {' '.join(str(error).split())}") from error
