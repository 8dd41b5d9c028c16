"""Why a run recomputes cells its store already holds: what computes them or what they read changed.

A cell's key is ``IDENTITY.METRIC_CODE.SCENARIO_CODE`` (:func:`harness.execution.plan.cell_key`).  A
pending cell whose identity the store holds under other provenance digests was computed before by
other code, libraries or declared environment values; the provenances the digests name (``DIR/provenance.json``)
say what changed.  A pending cell the store holds under its very key was left out because a module or a data
file its metric or scenario read as it ran changed since (:meth:`harness.execution.store.ResultStore.reusable_records`
says which).  A pending cell whose identity the store does not hold, but whose place (scenario, value, seed, sample
size, metric) it holds under another version of the metric, was computed by that version: a user's metric is
versioned by its file's hash, which is part of the identity, so an edit of the file is found so; one it holds under the
same metric version with a user's scenario (``file.py:name``, versioned by its file's hash too) was drawn by another
version of that file.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.execution.plan import Cell, key_parts, null_part
from harness.execution.provenance import Provenance, changes, metric_provenance, scenario_provenance

#: Most distinct reasons a run's message lists (the rest are counted).
SHOWN_REASONS = 3
#: Most changes one reason lists (the rest are counted).
SHOWN_CHANGES = 4


def cell_provenances(cells: Iterable[Cell]) -> list[Provenance]:
    """The distinct provenances of the cells' metrics and scenarios (each computed once per process)."""
    cells = list(cells)
    metrics = {(cell.metric.target, cell.metric.registered, cell.metric.environment) for cell in cells}
    scenarios = {cell.scenario for cell in cells}
    return [metric_provenance(*metric) for metric in sorted(metrics)] + [scenario_provenance(s) for s in sorted(scenarios)]


def recompute_reasons(pending: Sequence[Cell], records: Mapping[str, Any], known: Mapping[str, Provenance],
                      stale: Mapping[str, str]) -> str:
    """One line saying how many of the ``pending`` cells the store holds computed from other inputs and why
    (``recomputing 12 stored cell(s) whose inputs changed: labconf.py changed (12)``, ``weights.json changed``,
    ``GAP_POWER 2 -> 3``, ``scikit-learn 1.8.0 -> 1.9.1``), how many it holds
    with a permutation null of another size (``recomputing 4 stored cell(s) with another null: 100 permutations, now
    20 (4)``), and how many are recomputed though stored unchanged (``run --recompute``); "" when none.

    ``records`` are the store's reusable ones, by key; ``known`` the provenances the store's keys name, by digest;
    ``stale`` the stored keys left out of ``records`` with what they read that changed
    (:attr:`harness.execution.store.ResultStore.stale`).
    """
    forced = sum(cell.key in records for cell in pending)
    stored: dict[str, str] = {}
    if len(pending) > forced:
        for key in records:  # in the order stored: the latest record of an identity wins
            stored[null_part(key_parts(key)[0])[0]] = key
    reasons: Counter[str] = Counter()
    nulls: Counter[str] = Counter()
    versions: dict[tuple[object, ...], str] | None = None  # built when a cell has no stored identity to compare with
    for cell in pending:
        if cell.key in stale:
            reasons[stale[cell.key]] += 1
            continue
        identity, digests = key_parts(cell.key)
        earlier = stored.get(null_part(identity)[0])
        if earlier is None and cell.key not in records:  # its identity holds the metric's version: did that change?
            versions = _stored_versions(records) if versions is None else versions
            before = versions.get(_place(cell))
            if before is not None and before != cell.metric.version:
                reasons[_version_reason(cell, before)] += 1
            elif before is not None and ":" in cell.scenario:  # the same metric: a user's scenario, versioned by its
                reasons[_scenario_reason(cell)] += 1  # file's hash, changed (an edit of its file gives new keys)
            continue
        if earlier is None or cell.key in records:
            continue
        before = key_parts(earlier)
        if before[1] != digests:
            reasons[_reason(before[1], digests, known)] += 1
        else:
            nulls[f"{_permutations(null_part(before[0])[1])}, now {_permutations(null_part(identity)[1])}"] += 1
    parts = []
    for counted, what in ((reasons, "whose inputs changed"), (nulls, "with another permutation null")):
        if counted:
            listed = [f"{reason} ({count})" for reason, count in counted.most_common(SHOWN_REASONS)]
            more = len(counted) - SHOWN_REASONS
            parts.append(f"recomputing {sum(counted.values())} stored cell(s) {what}: "
                         + "; ".join(listed) + (f"; {more} more reasons" if more > 0 else ""))
    if forced:
        parts.append(f"recomputing {forced} stored cell(s) as asked (--recompute)")
    return "\n".join(parts)


def _version_reason(cell: Cell, before: str) -> str:
    """``my_metric.py changed (metric 'mine', version 9b5e... -> 4676...)`` for a user's metric (versioned by its file's
    hash), ``metric 'mig' changed version 2 -> 3`` for a registered one."""
    change = f"version {before} -> {cell.metric.version}"
    if cell.metric.registered:
        return f"metric {cell.metric.name!r} changed {change}"
    return f"{os.path.basename(cell.metric.target.rsplit(':', 1)[0])} changed (metric {cell.metric.name!r}, {change})"


def _scenario_reason(cell: Cell) -> str:
    """``myscen.py changed (scenario 'copies'), or a user's file moved``: a user's scenario is versioned by its file's
    hash, which the results' rows do not hold; a cell stored at the same place under the same metric version was
    drawn by another version of that file, or named a user's file (the metric's, the scenario's) at another path,
    which the rows do not hold either."""
    return (f"{os.path.basename(cell.scenario.rsplit(':', 1)[0])} changed (scenario {cell.definition.name!r}), or a "
            "user's file moved")


def _place(cell: Cell) -> tuple[object, ...]:
    """Where a cell's rows lie in a results table, whatever its metric's version: scenario, value, seed, sample size,
    metric."""
    return cell.definition.name, cell.definition.label(cell.value), cell.seed, cell.n_samples, cell.metric.name


def _stored_versions(records: Mapping[str, Any]) -> dict[tuple[object, ...], str]:
    """The metric version of each stored cell, by :func:`_place` (a user's metric is versioned by its file's hash, so
    an edit gives its cells new keys, which no stored identity matches)."""
    found = {}
    for record in records.values():
        for row in record.get("rows", [])[:1]:  # every row of a cell has its place and version
            found[(row["scenario"], row["value_label"], row["seed"], row["n_samples"], row["metric"])] = str(
                row.get("metric_version", ""))
    return found


def _permutations(count: int) -> str:
    return f"{count} permutations" if count else "no null"


def _reason(before: tuple[str, str] | None, after: tuple[str, str] | None, known: Mapping[str, Provenance]) -> str:
    """What changed between two (metric, scenario) provenance digests, as one phrase."""
    if before is None or after is None:
        return "stored by an earlier harness, which did not record them"
    found: list[str] = []
    for old, new in zip(before, after):
        if old == new:
            continue
        if old not in known or new not in known:
            return "code or libraries changed (provenance.json lacks the earlier record)"
        found += [change for change in changes(known[old], known[new]) if change not in found]
    more = len(found) - SHOWN_CHANGES
    return ", ".join(found[:SHOWN_CHANGES]) + (f" and {more} more" if more > 0 else "") if found else "code changed"
