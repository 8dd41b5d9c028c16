"""The run's progress bar advances by the cost table's estimate of the work done, and counts the cells."""

from __future__ import annotations

import io
import warnings
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


def test_the_work_done_ends_at_the_total_whatever_order_the_cells_finish_in():
    # in float seconds 0.3 + 0.2 + 0.1 is the total 0.6 and 0.1 + 0.2 + 0.3 is 0.6000000000000001: finishing in that
    # order overshot it, and tqdm warned "clamping frac to range [0, 1]" and showed "-00:00" left
    bar, out = _bar([_Cell("c", 0.3), _Cell("b", 0.2), _Cell("a", 0.1)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with bar:
            for key in ("a", "b", "c"):
                bar.update([key])
            assert bar.bar.n == bar.bar.total and bar.done_share == 1.0
    assert "-00:00" not in out.getvalue()
