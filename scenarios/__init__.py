"""Scenario generators: representations ``z = f(v)`` with exactly known properties.

Public API
----------
available()
    Sorted names of the registered scenarios.
get(name)
    The :class:`Scenario` registered under ``name``; ``.parameter``, ``.values`` and
    ``.generate(value, *, n, seed) -> Representation``.
Representation, Scenario, register_scenario
    The contract, for new scenarios.
compose(transform, base, value), available_transforms()
    A base scenario held at one value with a transform swept over its own parameter
    (``redundancy_attack@noise=0.2``; :mod:`scenarios.composition`, :mod:`scenarios.transforms`).
describe_scenario(...)
    Turns a plain function ``f(value, n, rng) -> (factors, codes)`` into a scenario the
    harness can load from a file (:mod:`scenarios.describe`).
available_populations(), get_population(name), Population, PopulationScenario
    Populations of representations of the same inputs, for population metrics (UDR).

Every module of this package not starting with an underscore is imported here, so a
new scenario module registers itself just by existing.
"""

from __future__ import annotations

import importlib
import pkgutil

from scenarios.base import IDEAL_PROPERTIES, Representation, Scenario, available, get, register_scenario
from scenarios.population import (
    Population,
    PopulationScenario,
    available_populations,
    get_population,
    register_population,
)

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")

from scenarios.composition import compose  # noqa: E402 - after every base scenario is registered
from scenarios.describe import describe_scenario  # noqa: E402
from scenarios.transforms import available_transforms  # noqa: E402

__all__ = [
    "IDEAL_PROPERTIES",
    "Population",
    "PopulationScenario",
    "Representation",
    "Scenario",
    "available",
    "available_populations",
    "available_transforms",
    "compose",
    "describe_scenario",
    "get",
    "get_population",
    "register_population",
    "register_scenario",
]
