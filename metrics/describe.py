"""Optional metadata for a user's metric, without registering it.

A plain function ``fn(factors, codes) -> float | Mapping[str, float]`` already works
with the harness (``python -m harness run --metrics my_file.py:fn``, ``validate``,
``evaluate``).  :func:`describe_metric` only tells the harness how to label and read its
scores: which property it claims to measure, whether higher is better, whether it is
stochastic, the name its rows are written under, the environment variables it reads, the legal values of its options
and the range of its scores.  The metadata is stored as a
plain dict in the function's ``harness_metadata`` attribute, which the harness reads
when it resolves a ``module:function`` or ``file.py:function`` reference; the function
itself is returned unchanged.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from metrics.constraints import Interval, Rule, check_rules
from metrics.registry import check_directions, check_property_claim, score_ranges

F = TypeVar("F", bound=Callable[..., Any])

METADATA_ATTRIBUTE = "harness_metadata"


def describe_metric(
    function: Callable[..., Any] | None = None,
    /,
    *,
    property: str | Mapping[str, str] = "holistic",  # noqa: A002 - the word the rest of the project uses
    higher_is_better: bool | Mapping[str, bool] = True,
    stochastic: bool = False,
    name: str | None = None,
    env: Sequence[str] = (),
    constraints: Mapping[str, Rule] | None = None,
    score_range: Interval | Mapping[str, Interval] | None = None,
) -> Callable[[F], F]:
    """Decorator attaching harness metadata to a plain metric function.

    Parameters
    ----------
    function : callable, optional
        Positional only, never to be given: a bare ``@describe_metric`` (no parentheses) hands it the function, which
        is refused with a message saying to write ``@describe_metric(...)``.
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
        as a score of modularity, compactness and explicitness (:mod:`reports.analyses.linearity`,
        :mod:`reports.verdicts.property_matrix`).  Robustness judges it only where the scenario's
        three ideals agree (1 under a nonlinear map or non-measured factors;
        :func:`reports.results.table.ideal_table`), so not under an entanglement attack, and under
        noise it judges modularity and compactness scores only: a holistic score is left out of
        robustness to noise and to entanglement attacks ("not measured" on a card), so claim the
        property a score measures.
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
    constraints : Mapping[str, Rule], optional
        Option -> the rule of its legal values (:mod:`metrics.constraints`), as a built-in metric registers them:
        ``{"window": Interval(int, 1, None)}``.  :func:`metrics.evaluate` refuses a value its rule refuses, and the
        harness refuses it when it plans a study, before any cell runs, in one line naming the legal values.  An
        option without a rule is passed as given, and a value your function rejects fails its cells (each recorded
        in ``failures.csv``).
    score_range : Interval or Mapping[str, Interval], optional
        The range your scores lie in (``Interval(float, -1.0, 1.0)``), or sub-score -> its range: the reports flag
        a score outside it, as they do for the built-ins.  Without it the card warns about scores outside [0, 1],
        which every verdict's threshold assumes.

    Returns
    -------
    callable
        A decorator returning the function itself, with ``harness_metadata`` set to
        ``{"property", "higher_is_better", "stochastic"[, "name"][, "env"][, "constraints"][, "score_range"]}``
        (mappings as plain dicts, ``env`` a tuple, ``score_range`` sub-score -> interval when the property claim
        names the sub-scores, else the one interval).

    Raises
    ------
    ValueError
        When a property is not one of :data:`metrics.SCORE_PROPERTIES`, a mapping is empty,
        a sub-score name is empty, the directions or score ranges name a sub-score the property mapping
        does not, ``name`` is empty, ``env`` holds an empty name, or (when decorating) a constraint names no
        parameter of the function or refuses its default.
    TypeError
        When a flag is not a bool, ``env`` is not a sequence of names (a lone string included), a constraint is not
        a :class:`metrics.constraints.Constraint` (or a tuple of them), or a range not an ``Interval`` of float.

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
    >>> from metrics.constraints import Interval
    >>> @describe_metric(constraints={"window": Interval(int, 1, None)}, score_range=Interval(float, -1.0, 1.0))
    ... def windowed(factors, codes, *, window=100):
    ...     return 1.0
    >>> str(windowed.harness_metadata["constraints"]["window"])
    'an integer >= 1'
    """
    if function is not None:  # @describe_metric without parentheses handed it the function
        raise TypeError(f"describe_metric takes its claims as keywords: write @describe_metric(...) with parentheses "
                        f"above {getattr(function, '__name__', 'the function')} (@describe_metric() for no claim)")
    claimed = check_property_claim(property)
    check_directions(higher_is_better, None, name or "metric")  # the types; the names once the function's is known
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
        if isinstance(claimed, dict) and isinstance(higher_is_better, Mapping):
            unnamed = sorted(set(higher_is_better) - set(claimed))
            if unnamed:  # a typo ('explicit' for 'expl') would leave its sub-score higher-is-better, silently
                raise ValueError(f"describe_metric of {name or function.__name__!r}: higher_is_better names sub-score(s) "
                                 f"{unnamed} that property does not ({', '.join(claimed)}); name each in property too "
                                 f"(a sub-score's property may be 'holistic': property={{..., {unnamed[0]!r}: "
                                 "'holistic'}), or correct the name")
        if score_range is not None:
            ranges = score_ranges(name or function.__name__, score_range, list(claimed) if isinstance(claimed, dict) else [])
            metadata["score_range"] = ranges if isinstance(claimed, dict) else score_range
        if constraints:
            parameters = option_parameters(function)
            defaults = {option: default for option, default in parameters.items() if default is not inspect.Parameter.empty}
            metadata["constraints"] = check_rules(name or function.__name__, constraints, parameters, defaults)
        setattr(function, METADATA_ATTRIBUTE, {key: dict(value) if isinstance(value, dict) else value
                                               for key, value in metadata.items()})
        return function

    return decorate


def option_parameters(function: Callable[..., Any]) -> dict[str, Any]:
    """The parameters of a user's metric that can be options (all but ``factors``, ``codes``, ``discrete``,
    ``random_state`` and ``*args``/``**kwargs``), each with its default (:data:`inspect.Parameter.empty` for none)."""
    kinds = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return {parameter.name: parameter.default for parameter in inspect.signature(function).parameters.values()
            if parameter.kind in kinds and parameter.name not in ("factors", "codes", "discrete", "random_state")}
