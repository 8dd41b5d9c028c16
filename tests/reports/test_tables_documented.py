"""Every CSV table a report writes, and every column of it, is documented in reports/TABLES.md.

Two sources of tables: the report of the synthetic results (``synthetic_report``, written once per test run, through
:func:`reports.write_report`), and the sections of the synthetic results extended with what that report lacks (an
option sweep of ``mig``, a review metric, so the sensitivity and the review's tables are computed; a null scenario
swept over its width and the sample size, so the chance level and a phase diagram are), written by the report's own
table writer without drawing figures (about 4 s).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pandas as pd
import pytest

import reports
from reports.analyses.raised_warnings import raised_warnings
from reports.report import _write_tables, build_sections
from reports.results.schema import encode_options

DOC = Path(reports.__file__).parent / "TABLES.md"
HEADING = re.compile(r"^## tables/(?P<name>[A-Za-z0-9_.-]+)\.csv\s*$", re.MULTILINE)
CODE = re.compile(r"`([^`]+)`")


def documented() -> dict[str, set[str]]:
    """Table name -> the names in backticks in its section of reports/TABLES.md, tables in the document's order."""
    text = DOC.read_text(encoding="utf-8")
    headings = list(HEADING.finditer(text))
    sections = {}
    for heading, following in zip(headings, [*headings[1:], None]):
        body = text[heading.end():following.start() if following is not None else len(text)]
        sections[heading["name"]] = set(CODE.findall(body))
    return sections


def columns(path: Path) -> list[str]:
    """The header of a CSV file, as written (no renaming of duplicates)."""
    with path.open(newline="", encoding="utf-8") as file:
        return next(csv.reader(file), [])


def undocumented(tables: Path) -> list[str]:
    """What reports/TABLES.md lacks of the CSV files under ``tables``, one message each."""
    sections = documented()
    missing = []
    for path in sorted(tables.glob("*.csv")):
        name = path.stem
        if name not in sections:
            missing.append(f"tables/{name}.csv has no '## tables/{name}.csv' section in {DOC}")
            continue
        missing += [f"tables/{name}.csv: column `{column}` is not in backticks in its section of {DOC}"
                    for column in columns(path) if column not in sections[name]]
    return missing


def extended(results: pd.DataFrame, variant_of) -> pd.DataFrame:
    """``results`` with a ``mig`` sweep over ``bins`` (sensitivity; ``mig`` is one of the review's metrics, in
    ``modular_not_compact`` too: its Tables 2 and 1) and a null scenario testing chance swept over a code width and the
    sample size (the chance level, and a two-parameter sweep: a phase diagram)."""
    lin = results.loc[results["metric"] == "lin"]
    compact = lin.loc[lin["sub_score"] == "compactness"]
    swept = [variant_of(compact.assign(family="information", sub_score="mig", score=compact["score"] - shift), "mig",
                        {"bins": bins}, {"bins": 10})
             for bins, shift in ((5, 0.3), (10, 0.0), (20, 0.05))]
    plain = lin.loc[(lin["scenario"] == "nonlinear") & (lin["value"] == 0.0)]
    null = [plain.assign(scenario="null_gaussian", parameter="width_ratio", criterion="chance", value=width,
                         value_label=f"{width:g}", n_samples=n, sweep="null_gaussian",
                         parameters=encode_options({"n_samples": n, "width_ratio": width}), ideal=0.0,
                         ideal_modularity=0.0, ideal_compactness=0.0, ideal_explicitness=0.0,
                         score=plain["score"] * width * 20 / n)
            for width in (1.0, 4.0) for n in (200, 2000)]
    return pd.concat([results, *swept, *null], ignore_index=True)


def test_every_table_of_a_written_report_is_documented(synthetic_report):
    run_dir, _ = synthetic_report
    tables = run_dir / "tables"
    assert (tables / "warnings.csv").is_file() and (tables / "headline.csv").is_file()
    missing = undocumented(tables)
    assert not missing, "\n".join(missing)


@pytest.mark.slow  # 4 to 6 s: the fast tier reached 293 s of its 5 minutes (stop 67)
def test_every_section_table_is_documented_in_report_order(synthetic_results, variant_of, tmp_path):
    results = extended(synthetic_results, variant_of)
    sections = build_sections(results)
    assert not [section.key for section in sections if section.table is None], (
        "the extended synthetic results no longer give every section a table: "
        + "; ".join(f"{section.key}: {' '.join(section.notes)}" for section in sections if section.table is None))
    _write_tables(sections, tmp_path)
    raised_warnings(results).to_csv(tmp_path / "warnings.csv", index=False)  # as write_report writes it
    missing = undocumented(tmp_path)
    assert not missing, "\n".join(missing)
    written = [section.key for section in sections] + ["warnings"]
    assert list(documented()) == written, (
        f"the '## tables/<name>.csv' sections of {DOC} are not the tables the report writes, in its order: "
        f"documented {list(documented())}, written {written}")
