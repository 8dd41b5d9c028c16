"""python -m harness list: every entry's details line up under its header, whatever the length of its name."""

from __future__ import annotations

import pytest

import metrics
import scenarios
from harness.cli import main
from harness.execution.presets import PRESETS
from scenarios.transforms import TRANSFORMS


def _sections(text: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.split(" ", 1)[0] in ("METRICS", "SCENARIOS", "TRANSFORMS", "PRESETS"):
            current = line.split(" ", 1)[0]
        elif line.startswith(" "):
            sections.setdefault(current, []).append(line)
    return sections


def test_details_start_in_one_column_past_the_longest_name(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # wide enough for the text beside the names
    assert main(["list"]) == 0
    sections = _sections(capsys.readouterr().out)
    for section, names in (("METRICS", metrics.available(population=None)),
                           ("SCENARIOS", scenarios.available(kind=None)), ("TRANSFORMS", list(TRANSFORMS)),
                           ("PRESETS", list(PRESETS))):
        lines = sections[section]
        starts = set()
        for line in lines:
            first = line.split()[0]
            assert line.startswith("   ") or first in names
            # a header line (the name, then its details) or a details line under it
            header = not line.startswith("   ")  # indented by 2: a name; deeper: its details
            starts.add(line.index(line.split()[1], 2 + len(first)) if header else len(line) - len(line.lstrip()))
        assert len(starts) == 1, (section, starts)  # informativeness, minimality_sufficiency and
        # modular_not_compact_quantized pushed their details right of everyone else's
        assert starts.pop() >= 3 + max(map(len, names))  # two spaces, the longest name, one space


def test_transform_grids_are_written_as_scenario_grids_are(capsys):
    assert main(["list"]) == 0
    transforms = _sections(capsys.readouterr().out)["TRANSFORMS"]
    noise = next(line for line in transforms if line.split()[0] == "noise")
    assert "alpha in {0, 0.2, 0.4, 0.6, 0.8, 1}" in noise  # was {0.0, 0.2, ..., 1.0}, unlike the scenarios'


def test_entries_are_folded_at_the_terminal_width(capsys, monkeypatch):
    # pid's options line ran to about 290 characters
    monkeypatch.setenv("COLUMNS", "90")
    assert main(["list"]) == 0
    entries = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    assert entries and max(map(len, entries)) <= 90
    assert any("complementary_upper" in line for line in entries)  # folded, not cut


@pytest.mark.parametrize("columns", [20, 40, 60])
def test_nothing_overflows_a_narrow_terminal(capsys, monkeypatch, columns):
    # issue 40: list folded at 80 columns at least, and its headers were 108 characters, whatever the terminal
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= columns
    names = [line.strip() for line in lines if line.startswith("  ") and not line.startswith("   ")]
    fitting = {name for name in metrics.available(population=None) if 2 + len(name) <= columns}  # others are folded
    assert fitting and fitting <= set(names)  # each name on a line of its own, the text under it


def test_the_identifiability_scenarios_and_encoders_are_listed_with_their_fixed_settings(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one line per entry's details, to read them whole
    assert main(["list"]) == 0
    sections = _sections(capsys.readouterr().out)
    scenario_lines = " ".join(sections["SCENARIOS"])
    assert ("rho in {-0.24, 0, 0.25, 0.5, 0.75, 0.9, 0.99}; tests dependent factors; fixed: n_factors=5, "
            "marginal=gaussian, ideal_view=encoder") in scenario_lines
    assert "width_ratio in {1, 2, 4, 8, 16}; tests chance; fixed: n_factors=8, factors=gaussian, codes=gaussian" in scenario_lines
    assert "Joshi et al. 2026, DGP D3" in scenario_lines
    transform_lines = " ".join(sections["TRANSFORMS"])
    assert "kappa in {1, 2, 3, 5, 10, 20, 50} " in transform_lines and "encoder E3" in transform_lines
    assert "width_ratio in {1, 2, 4, 8, 16}; fixed: kappa=10" in transform_lines
    assert "n_dropped in {0, 1, 2, 3, 4, 5, 6, 7}" in transform_lines  # for a base of 8 factors and 8 codes


def test_each_metric_lists_the_invariances_its_registry_entry_claims(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one line per detail
    assert main(["list"]) == 0
    metric_lines = _sections(capsys.readouterr().out)["METRICS"]
    for name in metrics.available(population=None):
        header = next(index for index, line in enumerate(metric_lines) if line.split()[0] == name)
        listed = next(line for line in metric_lines[header:] if "invariant to:" in line)
        assert listed.split("invariant to:", 1)[1].strip() == ", ".join(metrics.get(name).invariances)


def test_presets_are_listed_with_the_settings_and_sources_of_the_paper_they_reproduce(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["list"]) == 0
    lines = _sections(capsys.readouterr().out)["PRESETS"]
    assert [line.split()[0] for line in lines if not line.startswith("   ")] == list(PRESETS)
    text = " ".join(lines)
    assert ("- dense_mixing@equicorrelated; grid kappa: 1, 2, 5, 10, 50; base.rho: -0.24, 0, 0.5, 0.9, 0.99 "
            "(Joshi et al. 2026, exps. 3-4") in text
    assert "- null_gaussian; grid width_ratio: 1, 4, 16; n_samples: 50, 200, 1000, 5000, 20000 (Joshi et al. 2026, exp. 11" in text
    assert all(f"- {name} (Joshi et al. 2026" in text or f"- {name};" in text for name in PRESETS["joshi2026"].scenarios)


def test_one_metric_with_its_options_legal_values_and_its_score_ranges(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["list", "--metric", "dci_es"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("dci_es [predictor]: ")
    # DCI-ES takes 2 to 61 capacity doublings, a held-out fraction and a reference loss in [0, 1); its explicitness is
    # clipped to [-1, 1] and its size is K / L (metrics/dci_es.py)
    assert "  max_capacity_doublings=8: an integer in [2, 61]" in lines
    assert "  test_size=0.25: a number in (0, 1)" in lines
    assert "  reference_loss=0.0: a number in [0, 1)" in lines
    assert "  explicitness: explicitness, higher is better, [-1, 1]" in lines
    assert "  size: compactness, higher is better, (0, inf)" in lines
    assert main(["list", "--metric", "mgi"]) == 2
    assert "unknown metric 'mgi' (did you mean mig?)" in capsys.readouterr().err
    # a user's function, which run takes, was called an "unknown metric 'mymet.py:top_gap'" with the registry listed
    assert main(["list", "--metric", "mymet.py:top_gap"]) == 2
    assert capsys.readouterr().err == (
        "error: list --metric shows a registered metric; 'mymet.py:top_gap' is your own function, which registers "
        "nothing: its options are its keyword parameters, and `python -m harness validate mymet.py:top_gap` writes its "
        "card\n")


def test_a_variants_label_lists_the_options_at_its_values_with_the_default_beside_a_changed_one(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["list", "--metric", "rmig[bins=5,estimator=histogram]"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("rmig[bins=5,estimator=histogram] [information]: ")
    defaults = metrics.get("rmig").defaults
    assert defaults["bins"] != 5 and defaults["estimator"] != "histogram"
    assert f"  bins=5 (default {defaults['bins']!r}): an integer >= 2" in lines
    assert any(line.startswith(f"  estimator='histogram' (default {defaults['estimator']!r}): one of ") for line in lines)
    assert any(line.startswith(f"  neighbors={defaults['neighbors']!r}: ") for line in lines)  # not set: its default
    # a label of an option the metric lacks, or of a value it refuses, is the run's one-line error
    assert main(["list", "--metric", "mig[binz=5]"]) == 2
    assert "metric 'mig' has no option 'binz'; its options: bins, normalization" in capsys.readouterr().err
    assert main(["list", "--metric", "mig[bins=1]"]) == 2
    assert "bins must be an integer >= 2" in capsys.readouterr().err
    assert main(["list", "--metric", "mgi[bins=5]"]) == 2
    assert "unknown metric 'mgi' (did you mean mig?)" in capsys.readouterr().err
