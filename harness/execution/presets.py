"""Named study presets.

A preset fixes which scenarios and metrics run, how many seeds, and the sample size.
``None`` for scenarios or metrics means every registered one.  Command-line flags
override any field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping


@dataclass(frozen=True)
class Preset:
    """A study configuration.

    Attributes
    ----------
    name : str
        Preset name, recorded in the results' ``study`` column.
    seeds : int
        Independent draws of every representation.
    n_samples : int
        Samples per representation (scenarios that fix their own sample size, such as
        ``sample_size``, ignore it).
    scenarios, metrics : tuple of str or None
        Which to run; None means all registered ones (less ``excluded_metrics``).
    excluded_metrics : tuple of str
        Registered metrics left out when ``metrics`` is None, because their cost does
        not fit the preset's time budget; name them with ``--metrics`` to run them.
    grids : Mapping[str, tuple]
        Scenario name -> parameter values to run instead of the scenario's default grid.
    description : str
        What the preset is for, and how long it takes.
    """

    name: str
    seeds: int
    n_samples: int
    scenarios: tuple[str, ...] | None = None
    metrics: tuple[str, ...] | None = None
    excluded_metrics: tuple[str, ...] = ()
    grids: Mapping[str, tuple] = field(default_factory=lambda: MappingProxyType({}))
    description: str = ""


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            name="quick",
            seeds=1,
            n_samples=1000,
            scenarios=("noise", "mixing"),
            excluded_metrics=("dci_gbt",),
            description="smoke test: noise and mixing, 1 seed, n = 1000, every metric but dci_gbt (under a minute on 2 cores)",
        ),
        Preset(
            name="default",
            seeds=2,
            n_samples=1000,
            excluded_metrics=("dci_gbt",),
            grids=MappingProxyType({"sample_size": (100, 1000, 10000)}),
            description="every scenario and metric but dci_gbt, 2 seeds, n = 1000, sample_size up to n = 10000 "
            "(under 10 minutes on 2 cores)",
        ),
        Preset(
            name="paper",
            seeds=100,
            n_samples=20000,
            excluded_metrics=("dci_gbt",),
            description="the review's protocol (Zaidi et al. 2022, 5.2): n = 20000, 100 seeds, every scenario and "
            "metric but dci_gbt, which the review never used (name it with --metrics to add it); "
            "see run --dry-run for its cost",
        ),
    )
}
