"""Optional metadata for a user's metric, without registering it.

A plain function ``fn(factors, codes) -> float | Mapping[str, float]`` already works
with the harness (``python -m harness run --metrics my_file.py:fn``, ``validate``,
``evaluate``).  :func:`describe_metric` only tells the harness how to label and read its
scores: which property it claims to measure, whether higher is better, whether it is
stochastic, the name its rows are written under, and the environment variables it reads.  The metadata is stored as a
plain dict in the function's ``harness_metadata`` attribute, which the harness reads
when it resolves a ``module:function`` or ``file.py:function`` reference; the function
itself is returned unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from metrics.registry import check_directions, check_property_claim

F = TypeVar("F", bound=Callable[..., Any])

METADATA_ATTRIBUTE = "harness_metadata"


def describe_metric(
    *,
    property: str | Mapping[str, str] = "holistic",  # noqa: A002 - the word the rest of the project uses
    higher_is_better: bool | Mapping[str, bool] = True,
    stochastic: bool = False,
    name: str | None = None,
    env: Sequence[str] = (),
) -> Callable[[F], F]:
    """Decorator attaching harness metadata to a plain metric function.

    Parameters
    ----------
    property : str or Mapping[str, str], default "holistic"
        What the metric claims to measure, each one of ``"modularity"``,
        ``"compactness"``, ``"explicitness"`` or ``"holistic"``: one property for every
        score, or, for a metric returning a dict of sub-scores, sub-score -> property as
        a built-in metric registers it (:func:`metrics.registry.register_metric`'s
        ``properties``), e.g. ``{"mod": "modularity", "comp": "compactness", "expl":
        "explicitness"}``; sub-scores the mapping leaves out are holistic.  How the
        reports judge a claim: calibration reads every sub-score at the ends of the noise
        scenario, whatever it claims; linearity and the property matrix compare a
        sub-score with the scenarios' ideal trajectory of its property.  A
        ``"holistic"`` score claims all three properties, so it is judged against every
        one: linearity fits it to each trajectory a scenario degrades (explicitness under
        noise, modularity and compactness under mixing; the reports read a trajectory
        from the rows of the scores claiming that property, so it is fitted where the
        results hold such a score), and the property matrix counts it
        as a score of modularity, compactness and explicitness (:mod:`reports.linearity`,
        :mod:`reports.property_matrix`).  Robustness judges it only where the scenario's
        three ideals agree (1 under a nonlinear map or non-measured factors;
        :func:`reports._table.ideal_table`), so not under an entanglement attack, and under
        noise it judges modularity and compactness scores only.  "Holistic" is thus
        no way to leave a score unjudged: claim the property a score measures.
    higher_is_better : bool or Mapping[str, bool], default True
        Whether a larger score means a better representation: one direction for every
        score, or sub-score -> direction (sub-scores left out are higher-is-better), as
        :func:`~metrics.registry.register_metric` takes it.
    stochastic : bool, default False
        Whether the metric draws random numbers.  A stochastic metric should accept a
        ``random_state`` argument (an int or a numpy Generator) and draw only from it.
    name : str, optional
        Name written in the results' ``metric`` column (default: the function's name).
    env : sequence of str, default ()
        The environment variables the metric reads (``("GAP_POWER",)``).  The harness records the modules a metric
        imports and the files it opens as it runs, but cannot see what it reads from the environment: a declared
        variable's value is part of its cells' identity (a stored score computed with another value is computed
        again, and the run names the variable); an undeclared one is not tracked.

    Returns
    -------
    callable
        A decorator returning the function itself, with ``harness_metadata`` set to
        ``{"property", "higher_is_better", "stochastic"[, "name"][, "env"]}`` (mappings as plain dicts, ``env`` a
        tuple).

    Raises
    ------
    ValueError
        When a property is not one of :data:`metrics.SCORE_PROPERTIES`, a mapping is empty,
        a sub-score name is empty, the directions name a sub-score the property mapping
        does not, ``name`` is empty, or ``env`` holds an empty name.
    TypeError
        When a flag is not a bool, or ``env`` is not a sequence of names (a lone string included).

    Examples
    --------
    >>> @describe_metric(property="modularity", higher_is_better=True)
    ... def my_metric(factors, codes):
    ...     return 1.0
    >>> my_metric.harness_metadata["property"]
    'modularity'
    >>> @describe_metric(property={"mod": "modularity", "expl": "explicitness"})
    ... def my_scores(factors, codes):
    ...     return {"mod": 1.0, "expl": 1.0}
    >>> my_scores.harness_metadata["property"]["expl"]
    'explicitness'
    >>> @describe_metric(env=("GAP_POWER",))
    ... def gap(factors, codes):
    ...     return 1.0
    >>> gap.harness_metadata["env"]
    ('GAP_POWER',)
    """
    claimed = check_property_claim(property)
    check_directions(higher_is_better, claimed if isinstance(claimed, dict) else None, name or "metric")
    if not isinstance(stochastic, bool):
        raise TypeError(f"stochastic must be True or False, got {stochastic!r}")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    directions = dict(higher_is_better) if isinstance(higher_is_better, Mapping) else higher_is_better
    if isinstance(env, (str, bytes)) or not isinstance(env, Sequence) or not all(isinstance(v, str) for v in env):
        raise TypeError(f"env must be a sequence of environment variable names, such as ('GAP_POWER',); got {env!r}")
    if not all(variable.strip() for variable in env):
        raise ValueError(f"env names an empty environment variable: {env!r}")
    metadata: dict[str, Any] = {"property": claimed, "higher_is_better": directions, "stochastic": stochastic}
    if name is not None:
        metadata["name"] = name.strip()
    if env:
        metadata["env"] = tuple(dict.fromkeys(variable.strip() for variable in env))

    def decorate(function: F) -> F:
        setattr(function, METADATA_ATTRIBUTE, {key: dict(value) if isinstance(value, dict) else value
                                               for key, value in metadata.items()})
        return function

    return decorate
