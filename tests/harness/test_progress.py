"""The run's progress bar advances by the cost table's estimate of the work done, and counts the cells."""

from __future__ import annotations

import io
from dataclasses import dataclass

from harness.execution.progress import WorkBar


@dataclass(frozen=True)
class _Cell:
    key: str
    estimated_seconds: float


def _bar(cells: list[_Cell]) -> tuple[WorkBar, io.StringIO]:
    out = io.StringIO()
    return WorkBar(cells, "cells", enabled=True, file=out), out


def test_the_share_done_is_the_estimated_work_done_not_the_cells_done():
    bar, out = _bar([_Cell("slow", 9.0), _Cell("a", 0.5), _Cell("b", 0.5)])
    with bar:
        bar.update(["slow"])
        assert bar.done_share == 0.9  # one cell of three, nine tenths of the work
        assert bar.finished == 1
    text = out.getvalue()
    assert " 90%|" in text and "1/3 cells" in text


def test_cells_of_another_run_are_ignored_and_every_cell_finishes_at_one():
    bar, out = _bar([_Cell("a", 2.0), _Cell("b", 6.0)])
    with bar:
        bar.update(["elsewhere"])
        assert bar.done_share == 0.0 and bar.finished == 0
        bar.update(["a", "b"])
        assert bar.done_share == 1.0 and bar.finished == 2
    assert "100%|" in out.getvalue() and "2/2 cells" in out.getvalue()


def test_cells_without_an_estimate_are_counted_alike():
    bar, _ = _bar([_Cell("a", 0.0), _Cell("b", 0.0), _Cell("c", 0.0), _Cell("d", 0.0)])
    with bar:
        bar.update(["a"])
        assert bar.done_share == 0.25


def test_a_disabled_bar_draws_nothing_but_still_counts():
    out = io.StringIO()
    with WorkBar([_Cell("a", 1.0), _Cell("b", 3.0)], "cells", enabled=False, file=out) as bar:
        bar.update(["b"])
        assert bar.done_share == 0.75 and bar.finished == 1
    assert out.getvalue() == ""
