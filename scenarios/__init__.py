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

Every module of this package not starting with an underscore is imported here, so a
new scenario module registers itself just by existing.
"""

from __future__ import annotations

import importlib
import pkgutil

from scenarios.base import PROPERTIES, Representation, Scenario, available, get, register_scenario

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["PROPERTIES", "Representation", "Scenario", "available", "get", "register_scenario"]
