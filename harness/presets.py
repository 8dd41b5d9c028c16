"""Named study presets.

A preset fixes which scenarios and metrics run, how many seeds, and the sample size.
``None`` for scenarios or metrics means every registered one.  Command-line flags
override any field.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    description : str
        What the preset is for, and how long it takes.
    """

    name: str
    seeds: int
    n_samples: int
    scenarios: tuple[str, ...] | None = None
    metrics: tuple[str, ...] | None = None
    excluded_metrics: tuple[str, ...] = ()
    description: str = ""


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            name="quick",
            seeds=2,
            n_samples=2000,
            scenarios=("noise", "mixing"),
            excluded_metrics=("dci_gbt",),
            description="smoke test: noise and mixing, 2 seeds, n = 2000, every metric but dci_gbt",
        ),
        Preset(
            name="default",
            seeds=3,
            n_samples=5000,
            excluded_metrics=("dci_gbt",),
            description="every scenario and metric but dci_gbt, 3 seeds, n = 5000",
        ),
        Preset(
            name="paper",
            seeds=100,
            n_samples=20000,
            description="the review's protocol (Zaidi et al. 2022, 5.2): n = 20000, 100 seeds, every scenario",
        ),
    )
}
