"""Optional metadata for a user's metric, without registering it.

A plain function ``fn(factors, codes) -> float | Mapping[str, float]`` already works
with the harness (``python -m harness run --metrics my_file.py:fn``, ``validate``,
``evaluate``).  :func:`describe_metric` only tells the harness how to label and read its
scores: which property it claims to measure, whether higher is better, whether it is
stochastic, and the name its rows are written under.  The metadata is stored as a
plain dict in the function's ``harness_metadata`` attribute, which the harness reads
when it resolves a ``module:function`` or ``file.py:function`` reference; the function
itself is returned unchanged.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from metrics.registry import PROPERTIES

F = TypeVar("F", bound=Callable[..., Any])

METADATA_ATTRIBUTE = "harness_metadata"


def describe_metric(
    *,
    property: str = "holistic",  # noqa: A002 - the word the rest of the project uses
    higher_is_better: bool = True,
    stochastic: bool = False,
    name: str | None = None,
) -> Callable[[F], F]:
    """Decorator attaching harness metadata to a plain metric function.

    Parameters
    ----------
    property : {"modularity", "compactness", "explicitness", "holistic"}, default "holistic"
        The property every score of the metric claims to measure.  Calibration and
        linearity compare the scores with the scenarios' ideal trajectory of this
        property; ``"holistic"`` scores have no ideal trajectory.
    higher_is_better : bool, default True
        Whether a larger score means a better representation.
    stochastic : bool, default False
        Whether the metric draws random numbers.  A stochastic metric should accept a
        ``random_state`` argument (an int or a numpy Generator) and draw only from it.
    name : str, optional
        Name written in the results' ``metric`` column (default: the function's name).

    Returns
    -------
    callable
        A decorator returning the function itself, with ``harness_metadata`` set to
        ``{"property", "higher_is_better", "stochastic"[, "name"]}``.

    Raises
    ------
    ValueError
        When ``property`` is not one of :data:`metrics.PROPERTIES` or ``name`` is empty.
    TypeError
        When a flag is not a bool.

    Examples
    --------
    >>> @describe_metric(property="modularity", higher_is_better=True)
    ... def my_metric(factors, codes):
    ...     return 1.0
    >>> my_metric.harness_metadata["property"]
    'modularity'
    """
    if property not in PROPERTIES:
        raise ValueError(f"property must be one of {', '.join(PROPERTIES)}; got {property!r}")
    for flag, value in (("higher_is_better", higher_is_better), ("stochastic", stochastic)):
        if not isinstance(value, bool):
            raise TypeError(f"{flag} must be True or False, got {value!r}")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    metadata: dict[str, Any] = {"property": property, "higher_is_better": higher_is_better, "stochastic": stochastic}
    if name is not None:
        metadata["name"] = name.strip()

    def decorate(function: F) -> F:
        setattr(function, METADATA_ATTRIBUTE, dict(metadata))
        return function

    return decorate
