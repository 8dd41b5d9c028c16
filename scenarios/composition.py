"""Composed scenarios: a base scenario held at one value, with a transform swept over its own parameter.

``compose("redundancy_attack", "noise", 0.2)`` is the scenario named
``redundancy_attack@noise=0.2``: each draw is the ``noise`` scenario's draw at
``alpha = 0.2``, then the redundancy attack (:mod:`scenarios.transforms`) at the swept
``alpha``.  The name, ``TRANSFORM@BASE=VALUE``, is what the results tables, figures and
``list`` show, and what the harness resolves (``run --scenarios 'redundancy_attack@noise=0.2'``).
A base may itself be composed: ``partial@noise@rotation=0.3927=0.2`` is ``partial`` on
``noise@rotation=0.3927`` held at ``alpha = 0.2`` (the value after the last ``=``).

Per draw the base draws first and the transform after, from the same Generator, so for a
given seed every value of the sweep transforms the same base draw (common random numbers,
as for the registered scenarios).  The ideal trajectory is the transform's rule applied to
the base's ideals at its value; a property the rule does not determine is absent
("unknown": NaN in the results).  The base's exact quantities pass through where the
transform keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import scenarios.base as base_module
from scenarios.base import ParameterValue, Scenario, ScenarioFamily
from scenarios.transforms import BaseShape, Transform, available_transforms, get_transform, perfect

SEPARATOR = "@"


@dataclass(frozen=True)
class CompositionName:
    """The three parts of ``TRANSFORM@BASE=VALUE``, as written."""

    transform: str
    base: str
    value: str


def parse_composition(text: str) -> CompositionName | None:
    """Split ``TRANSFORM@BASE=VALUE``; None for a name without ``@``.

    Raises
    ------
    ValueError
        For a name with ``@`` that does not have all three parts.
    """
    if SEPARATOR not in text:
        return None
    transform, _, rest = text.partition(SEPARATOR)
    base, sep, value = rest.rpartition("=")
    if not (transform.strip() and sep and base.strip() and value.strip()):
        raise ValueError(f"a composed scenario is written TRANSFORM@BASE=VALUE (e.g. redundancy_attack@noise=0.2), got {text!r}")
    return CompositionName(transform.strip(), base.strip(), value.strip())


def parse_value(text: str) -> ParameterValue:
    """A base value as written: a number where it reads as one, the text otherwise (categorical values)."""
    try:
        return float(text)
    except ValueError:
        return text


def composed_name(transform: str, base: str, label: str) -> str:
    """``TRANSFORM@BASE=LABEL``."""
    return f"{transform}{SEPARATOR}{base}={label}"


def compose(transform: str | Transform, base: str | Scenario, value: Any) -> Scenario:
    """The scenario applying ``transform`` (swept) to ``base`` held at ``value``.

    Parameters
    ----------
    transform : str or Transform
        A name of :data:`scenarios.transforms.TRANSFORMS`, or a :class:`Transform`.
    base : str or Scenario
        A registered scenario's name or a representation scenario (a composed one too).
    value : float, int or str
        The base's parameter value, checked by the base and rounded to its label (the
        ``VALUE`` of the name), so that the name alone determines the data.

    Returns
    -------
    Scenario
        Named ``TRANSFORM@BASE=VALUE``; its parameter and grid are the transform's, its
        version joins the base's and the transform's.  Its criterion is the transform's
        on a perfect base (every ideal 1) and ``""`` otherwise, because reports read a
        criterion as what the sweep's ends mean (``noise``: a perfect code at 0), which
        holds only there; a transform whose criterion holds on any base (the null codes'
        ``chance``) keeps it everywhere.  Its settings are :func:`composed_settings`.
        Not registered.

    Raises
    ------
    KeyError
        For an unknown transform or base name.
    TypeError
        For a transform that is neither a name nor a :class:`Transform`, or a base that
        is neither a name nor a scenario.
    ValueError
        For a base value out of the base's range, or a population base.
    """
    transform = get_transform(transform) if isinstance(transform, str) else transform
    if not isinstance(transform, Transform):
        raise TypeError(f"transform must be a transform's name ({', '.join(available_transforms())}) or a Transform, got {transform!r}")
    base = base_module.get(base) if isinstance(base, str) else base
    if not isinstance(base, ScenarioFamily):
        raise TypeError(f"base must be a scenario's name or a Scenario, got {base!r}")
    if base.kind != "representation":
        raise ValueError(f"a transform applies to a representation scenario; {base.name!r} is a {base.kind} scenario")
    label = base.label(base.check_value(value))
    base_value = base.check_value(parse_value(label))  # the name alone determines the data
    probe_n = base.default_n if base.default_n is not None else max(base.min_samples, 2)
    probe_factors, probe_codes, _ = base.build(base_value, probe_n, np.random.default_rng(0))  # only to count columns
    shape = BaseShape(int(np.asarray(probe_factors).shape[1]), int(np.asarray(probe_codes).shape[1]))
    base_ideal = base.ideal_at(base_value)

    def build(transform_value: Any, n: int, rng: np.random.Generator):
        factors, codes, discrete = base.build(base_value, n, rng)
        factors = np.asarray(factors, dtype=np.float64)
        codes = np.asarray(codes, dtype=np.float64)
        return transform.apply(factors, codes, tuple(bool(d) for d in discrete), transform_value, rng)

    def exact(transform_value: Any) -> dict[str, Any]:
        return dict(base.exact(base_value))

    return Scenario(
        name=composed_name(transform.name, base.name, label),
        parameter=transform.parameter,
        values=tuple(transform.grid(shape)),
        build=build,
        ideal_trajectory=lambda transform_value: transform.ideal(base_ideal, transform_value, shape),
        ideal_ranges=transform.ideal_ranges,
        check_value=lambda transform_value: transform.check_on(transform_value, shape),
        source=f"{transform.source}; base: {base.source}",
        summary=f"{transform.summary}; base: {base.name} at {base.parameter} = {label}",
        min_samples=base.min_samples,
        exact=exact if transform.keeps_exact and base.exact is not None else None,
        default_n=base.default_n,
        rows=lambda transform_value, n: base.rows_at(base_value, n),
        version=f"{base.version}.{transform.version}",
        criterion=transform.criterion if transform.criterion_on_any_base or perfect(base_ideal) else "",
        settings=composed_settings(transform, base, base_value),
    )


def composed_settings(transform: Transform, base: ScenarioFamily, base_value: Any) -> dict[str, Any]:
    """What a composed scenario holds fixed: the base's value and settings (prefixed ``base.``), the transform's settings.

    ``{"base.rho": 0.5, "base.n_factors": 5, ..., "kappa": 10.0}`` for ``overcomplete_entangled@equicorrelated=0.5``;
    a composed base nests its own (``base.base.alpha``).
    """
    held = {base.parameter: base_value, **base.settings}
    return {**{f"base.{name}": value for name, value in held.items()}, **transform.settings}
