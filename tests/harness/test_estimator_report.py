"""The estimator report: python -m harness estimators --out DIR."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

from harness.cli import main
from harness.workflows import estimator_report
from scenarios.gaussian_toy import exact_information

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("estimators")
    with threadpool_limits(limits=1):
        status = main(["estimators", "--out", str(out), "--n", "1500", "--alphas", "0", "1", "4", "--estimators", "gaussian", "knn", "histogram"])
    assert status == 0
    return out, pd.read_csv(out / "estimator_report.csv")


def test_writes_the_table_and_both_figures(report):
    out, table = report
    for suffix in (".csv", ".png", ".svg"):
        assert (out / f"estimator_report{suffix}").stat().st_size > 1000
    assert (out / "estimator_report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (out / "estimator_report.svg").read_text()[:2000]
    assert list(table.columns) == estimator_report.COLUMNS
    # 2 attacks x 3 alphas x (3 quantities for gaussian and knn + 1 for histogram)
    assert len(table) == 2 * 3 * 7
    assert set(table.loc[table["estimator"] == "histogram", "quantity"]) == {"code"}


def test_exact_column_is_the_closed_form(report):
    _, table = report
    for (attack, alpha, quantity), exact in table.groupby(["attack", "alpha", "quantity"])["exact"].first().items():
        values = exact_information(attack, alpha)
        expected = {
            "code": values["information_code"][0, 0],
            "rest": values["information_rest"][0, 0],
            "total": values["information_total"][0],
        }[quantity]
        assert exact == pytest.approx(expected, abs=1e-12)


def test_errors_are_estimate_minus_exact_and_small_for_the_gaussian_estimator(report):
    _, table = report
    np.testing.assert_allclose(table["error"], table["estimate"] - table["exact"], atol=1e-12)
    gaussian = table[table["estimator"] == "gaussian"]
    assert gaussian["error"].abs().max() < 0.08  # n = 1500


def test_bad_arguments_and_help():
    assert main(["estimators", "--out", "x", "--estimators", "magic"]) == 2
    with pytest.raises(ValueError, match="factor must be in"):
        estimator_report.run(100, 0, [0.0], ["gaussian"], factor=7)
    result = subprocess.run([sys.executable, "-m", "harness", "estimators", "--help"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "--out" in result.stdout and "Gaussian toy model" in result.stdout
