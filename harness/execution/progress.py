"""A run's progress bar: the cells counted, the share done and the time left read from the work the cost table
estimates for them.

Tasks start longest first (:func:`harness.execution.plan.plan_tasks`), so cells finish slowly at first and quickly at
the end: a bar counting cells took its rate from the first, costliest tasks and said "1:15:43" left at the start of
the default study's first round, which took 4 minutes.  :class:`WorkBar` advances by each finished cell's estimated
CPU seconds instead (:attr:`harness.execution.plan.Cell.estimated_seconds`, the cost table's), so its rate is the work
this machine gets through per second, measured as it goes, and the time left is the estimated work left at that rate:
the cost table's proportions between cells, this machine's speed.  The cells are counted beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import IO, Any

from tqdm.auto import tqdm

#: The bar's text: the share of the estimated work done, then the time so far and left and the cells done (tqdm puts
#: ", " before the postfix: "[00:36<00:45, 518/2232 cells]", where a bar counting cells says its rate).
BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]"
#: The bar's unit of work: a cell weighs its estimated CPU seconds in whole microseconds.
MICROSECONDS = 1_000_000


class WorkBar:
    """A progress bar over ``cells``, advanced by the estimated CPU seconds of the cells that finish.

    Parameters
    ----------
    cells : sequence
        The cells to run, each with ``key`` and ``estimated_seconds``.
    label : str
        The bar's description ("cells", "cells, round 2").
    enabled : bool
        Draw the bar; a disabled bar still counts.
    file : file-like, optional
        Where to draw it (tqdm's default, standard error).

    Notes
    -----
    The work is counted in whole microseconds, so that the work done sums to the total exactly whatever order the
    cells finish in (floating-point seconds summed in another order overshot it: tqdm warned "clamping frac to range
    [0, 1]" and said "-00:00" left at the end of the default study's third round).  Where the cells' estimates sum to
    0 (nothing measured for them), each cell weighs the same and the bar counts cells.
    """

    def __init__(self, cells: Sequence[Any], label: str, *, enabled: bool, file: IO[str] | None = None) -> None:
        weights = {cell.key: round(float(cell.estimated_seconds) * MICROSECONDS) for cell in cells}
        if sum(weights.values()) <= 0:
            weights = dict.fromkeys(weights, 1)
        self.weights = weights
        self.finished = 0
        self.work = sum(weights.values())
        self.work_done = 0
        self.bar = tqdm(total=self.work, desc=label, bar_format=BAR_FORMAT, postfix=self._counted(), disable=not enabled,
                        file=file)

    def _counted(self) -> str:
        return f"{self.finished}/{len(self.weights)} cells"

    def update(self, keys: Iterable[str]) -> None:
        """Count the cells of ``keys`` finished (those of another run are ignored)."""
        done = [key for key in keys if key in self.weights]
        self.finished += len(done)
        work = sum(self.weights[key] for key in done)
        self.work_done += work
        self.bar.set_postfix_str(self._counted(), refresh=False)
        self.bar.update(work)

    @property
    def done_share(self) -> float:
        """The share of the estimated work finished, in [0, 1]."""
        return self.work_done / self.work if self.work else 1.0

    def close(self) -> None:
        """Leave the bar as it stands."""
        self.bar.close()

    def __enter__(self) -> WorkBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
