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
available_populations(), get_population(name), Population, PopulationScenario
    Populations of representations of the same inputs, for population metrics (UDR).

Every module of this package not starting with an underscore is imported here, so a
new scenario module registers itself just by existing.
"""

from __future__ import annotations

import importlib
import pkgutil

from scenarios.base import PROPERTIES, Representation, Scenario, available, get, register_scenario
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

__all__ = [
    "PROPERTIES",
    "Population",
    "PopulationScenario",
    "Representation",
    "Scenario",
    "available",
    "available_populations",
    "get",
    "get_population",
    "register_population",
    "register_scenario",
]
