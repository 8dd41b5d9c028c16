"""The population contract: several representations of the same inputs (for UDR).

A metric such as UDR (Duan et al. 2020) scores a *population* of models, by comparing
their codes on the same inputs with one another; it never sees factors.  A
:class:`PopulationScenario` generates such a population for a value of its swept
parameter, a sample size and a seed: the factors of the ``n`` inputs (kept for
reference and for supervised comparisons), the ``M`` code matrices, and which members
are disentangled (the ground truth a population metric should rank first).

This is its own small contract beside :class:`scenarios.base.Scenario`, of kind
``"population"`` in the same registry (:func:`scenarios.base.register_scenario`);
:func:`available_populations` and :func:`get_population` are that registry seen for
this kind only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from scenarios.base import ParameterValue, ScenarioFamily, SeedLike, as_generator, available, get, register_scenario

PopulationBuilder = Callable[[Any, int, np.random.Generator], tuple[np.ndarray, Sequence[np.ndarray], Sequence[bool]]]


@dataclass(frozen=True)
class Population:
    """Codes of ``M`` models on the same ``n`` inputs, with the inputs' factors.

    Attributes
    ----------
    factors : numpy.ndarray
        ``(n, K)`` ground-truth factors of the inputs.
    members : tuple of numpy.ndarray
        ``M`` code matrices ``(n, L_m)``, one per model, rows aligned with ``factors``.
    disentangled : tuple of bool
        One flag per member: True when the member is disentangled by construction.
    """

    factors: np.ndarray
    members: tuple[np.ndarray, ...]
    disentangled: tuple[bool, ...]

    def __post_init__(self) -> None:
        if self.factors.ndim != 2:
            raise ValueError("factors must be 2-D")
        if len(self.members) < 2:
            raise ValueError(f"a population needs at least 2 members, got {len(self.members)}")
        for index, codes in enumerate(self.members):
            if codes.ndim != 2 or codes.shape[0] != self.factors.shape[0]:
                raise ValueError(f"members[{index}] must be 2-D with {self.factors.shape[0]} rows, got shape {codes.shape}")
        if len(self.disentangled) != len(self.members):
            raise ValueError("disentangled needs one flag per member")


@dataclass(frozen=True, kw_only=True)
class PopulationScenario(ScenarioFamily):
    """A family of populations indexed by one swept parameter.

    Attributes (beside those of :class:`scenarios.base.ScenarioFamily`)
    ------------------------------------------------------------------
    build : callable
        ``build(value, n, rng) -> (factors, members, disentangled)``.
    """

    kind: ClassVar[str] = "population"

    build: PopulationBuilder

    def generate(self, value: ParameterValue, *, n: int, seed: SeedLike) -> Population:
        """Generate the population at ``value`` with ``n`` samples; same arguments, same arrays.

        Raises
        ------
        ValueError, TypeError
            For an out-of-range value, a non-integer ``n`` or too few samples.
        """
        value, n = self._checked(value, n)
        factors, members, disentangled = self.build(value, n, as_generator(seed))
        return Population(
            factors=np.ascontiguousarray(factors, dtype=np.float64),
            members=tuple(np.ascontiguousarray(codes, dtype=np.float64) for codes in members),
            disentangled=tuple(bool(flag) for flag in disentangled),
        )


def register_population(scenario: PopulationScenario) -> PopulationScenario:
    """Add a population scenario to the one scenario registry and return it."""
    if not isinstance(scenario, PopulationScenario):
        raise TypeError(f"register_population takes a PopulationScenario, got {type(scenario).__name__}")
    return register_scenario(scenario)


def available_populations() -> list[str]:
    """Sorted names of the registered population scenarios."""
    return available(kind="population")


def get_population(name: str) -> PopulationScenario:
    """The population scenario registered under ``name``; KeyError listing the known ones otherwise."""
    if name not in available_populations():
        raise KeyError(f"unknown population scenario {name!r}; known: {', '.join(available_populations())}")
    return get(name)
