"""Metric options as text: values as typed and variants' labels read back (``harness.execution.option_values``)."""

from __future__ import annotations

import pytest

from harness.errors import UsageError
from harness.execution.metric_refs import options_label, resolve
from harness.execution.option_values import option_value, variant_label


@pytest.mark.parametrize(("text", "value"), [("5", 5), ("0.1", 0.1), ("-0.0", 0.0), ("true", True), ("None", None),
                                             ("knn", "knn"), ("[1,2]", "[1,2]")])
def test_option_values_as_typed(text, value):
    assert option_value(text) == value and type(option_value(text)) is type(value)


def test_a_label_reads_back_as_the_options_that_wrote_it():
    options = {"bins": 10, "estimator": "knn", "C": 0.1, "flag": False}
    assert variant_label(f"rmig[{options_label(options)}]") == ("rmig", options)
    assert variant_label("mig") is None and variant_label("file.py:score") is None


@pytest.mark.parametrize("label", ["mig[bins]", "mig[bins=5", "mig[]", "[bins=5]", "mig[bins=5,bins=6]", "mig[=5]"])
def test_a_malformed_label_is_one_usage_error(label):
    with pytest.raises(UsageError, match=r"expected METRIC\[OPTION=VALUE,...\]"):
        variant_label(label)


def test_resolving_a_label_gives_the_sweeps_variant():
    entry = resolve("mig[bins=5]")
    assert (entry.name, entry.variant_of, entry.options["bins"]) == ("mig[bins=5]", "mig", 5)
    assert entry.options["normalization"] == resolve("mig").options["normalization"]  # the rest at their defaults
