"""Disentanglement metrics: ``(factors, codes) -> scores``.

Public API
----------
available()
    Sorted names of the registered single-representation metrics.
get(name)
    The :class:`MetricSpec` of a registered metric.
evaluate(metric, factors, codes, **options)
    Score a representation with a registered metric or any plain callable.
evaluate_population(metric, population, **options)
    Score each member of a population of representations (UDR).
register_metric
    Decorator used by the built-in metrics (and available to plug-ins).
shared_estimates()
    Context manager: estimates shared by the metrics scored on one data draw.
permutation_null(metric, factors, codes, permutations=B, seed=...)
    A metric's scores on ``B`` row permutations of the codes (:class:`NullDistribution`):
    null mean, 95% chance level and permutation p-value per sub-score.

Every module of this package that does not start with an underscore is imported on the
registry's first lookup (:func:`available`, :func:`get`, a registration), so a new metric module
registers itself just by existing, and a process that only reads results (a report's, a plot's) imports
no metric's code.
"""

from __future__ import annotations

from metrics.evaluation import evaluate, evaluate_population, metric_name
from metrics.null_distribution import NullDistribution, permutation_null
from metrics.registry import FAMILIES, INVARIANCES, SCORE_PROPERTIES, MetricSpec, available, get, register_metric
from metrics.shared import shared_estimates

__all__ = [
    "FAMILIES",
    "INVARIANCES",
    "SCORE_PROPERTIES",
    "MetricSpec",
    "NullDistribution",
    "available",
    "evaluate",
    "evaluate_population",
    "get",
    "metric_name",
    "permutation_null",
    "register_metric",
    "shared_estimates",
]
