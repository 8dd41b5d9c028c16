"""The guides' generated catalogues and tables are current and list everything registered."""

from __future__ import annotations

import re
import shutil

import pytest

import metrics
import scenarios
from harness.execution.presets import PRESETS
from harness.workflows import docs
from reports.verdicts.characteristics import CHARACTERISTICS


def test_every_generated_block_is_up_to_date():
    problems = docs.stale()
    assert not problems, ("generated parts of the guides are out of date; regenerate them with "
                          f"`{docs.COMMAND}`:\n" + "\n".join(problems))


def _block(guide: str, name: str) -> str:
    text = (docs.ROOT / guide).read_text()
    return next(match["body"] for match in docs.BLOCK.finditer(text) if match["name"] == name)


def test_the_catalogues_list_every_registered_metric_scenario_transform_preset_and_characteristic():
    catalogue = _block("metrics/README.md", "metric-catalogue")
    assert re.findall(r"^#### `([^`]+)`$", catalogue, re.MULTILINE) == metrics.available(population=None)
    costs = _block("metrics/README.md", "metric-costs")
    assert docs._cost_rows(costs) == set(metrics.available(population=None))
    listed = re.findall(r"^\| `([^`]+)` \|", _block("scenarios/README.md", "scenario-catalogue"), re.MULTILINE)
    assert listed == scenarios.available(kind=None)
    listed = re.findall(r"^\| `([^`]+)` \|", _block("scenarios/README.md", "transform-catalogue"), re.MULTILINE)
    assert listed == scenarios.available_transforms()
    listed = re.findall(r"^\| `([^`]+)` \|", _block("harness/README.md", "presets"), re.MULTILINE)
    assert listed == list(PRESETS)
    criteria = _block("reports/README.md", "report-criteria")
    assert [row.split(" | ")[1].strip("`") for row in criteria.splitlines()[2:]] == [entry.key for entry in CHARACTERISTICS]


def test_an_edited_block_or_a_missing_cost_is_reported_with_the_command(tmp_path):
    for guide in docs.GUIDES:
        (tmp_path / guide).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(docs.ROOT / guide, tmp_path / guide)
    assert docs.stale(tmp_path) == []
    path = tmp_path / "scenarios/README.md"
    path.write_text(path.read_text().replace("| `noise` |", "| `noise_renamed` |", 1))
    path = tmp_path / "metrics/README.md"
    path.write_text(re.sub(r"^\| `mig` \|.*\n", "", path.read_text(), count=1, flags=re.MULTILINE))
    problems = docs.stale(tmp_path)
    assert "scenarios/README.md: scenario-catalogue" in problems
    assert any(problem.startswith("metrics/README.md: metric-costs (no cost measured for mig;") and "--measure" in problem
               for problem in problems), problems
    assert docs.write(tmp_path) == ["scenarios/README.md"]  # the costs are only rewritten when measured
    assert docs.stale(tmp_path) == ["metrics/README.md: metric-costs (no cost measured for mig; run "
                                    f"{docs.COMMAND} --measure)"]


def test_an_unknown_block_name_is_refused():
    text = "<!-- generated: nonsense (python -m harness.workflows.docs) -->\nx\n<!-- end generated: nonsense -->"
    with pytest.raises(ValueError, match="unknown generated block 'nonsense'"):
        docs.regenerate(text)


def test_the_cost_table_states_the_machine_and_date_and_one_row_per_metric():
    table = docs.cost_table({"mig": {1000: 0.00123}, "sap": {1000: 0.5}})
    assert "measured on 20" in table and "cores" in table
    assert "| `mig` | 0.00123 |" in table and "| `sap` | 0.5 |" in table
