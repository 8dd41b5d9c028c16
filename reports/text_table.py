"""Plain-text tables for the terminal and Markdown files (no third-party formatter needed)."""

from __future__ import annotations

import math

import pandas as pd


def _cell(value: object, digits: int) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return f"{value:.{digits}f}" if abs(value) >= 10 ** -digits or value == 0 else f"{value:.2e}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(frame: pd.DataFrame, *, digits: int = 4) -> str:
    """``frame`` as an aligned Markdown table (floats to ``digits`` decimals, NaN as ``-``)."""
    header = [str(column) for column in frame.columns]
    body = [[_cell(value, digits) for value in row] for row in frame.itertuples(index=False, name=None)]
    widths = [max(len(text) for text in column) for column in zip(header, *body)] if header else []
    lines = [
        "| " + " | ".join(text.ljust(width) for text, width in zip(header, widths)) + " |",
        "| " + " | ".join("-" * width for width in widths) + " |",
    ]
    lines += ["| " + " | ".join(text.ljust(width) for text, width in zip(row, widths)) + " |" for row in body]
    return "\n".join(lines)
