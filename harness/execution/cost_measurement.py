"""The measuring tool: what a metric call costs on this machine, written to the cost model's data file.

Each mode measures one table of :mod:`harness.execution.cost_records` and prints the run, or with ``--write`` adds it
to the data file the cost model (:mod:`harness.execution.costs`) reads::

    python -m harness.execution.cost_measurement seconds --write   # every metric and swept variant (minutes)
    python -m harness.execution.cost_measurement alone --write     # the sharing families' costs alone (minutes)
    python -m harness.execution.cost_measurement widths --write    # growth with the number of codes (about 15 min)
    python -m harness.execution.cost_measurement widths --metrics mcc,r2 --n-samples 100000 --widths 8,512 --write
    python -m harness.execution.cost_measurement wide --write      # every metric at 10 x 4096, n = 1e5 (about an hour)

A run keeps the date, the machine (:func:`harness.execution.cost_records.machine_description`) and its settings;
its rows replace those of earlier runs, so a run of a few metrics (``--metrics``) updates those alone.  Every call
runs with one BLAS thread and is timed in CPU seconds (``time.process_time``); the median of ``--repeats`` is kept.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import math
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.execution import cost_records
from harness.execution.cost_records import WIDE_ADDRESS_SLACK
from harness.execution.costs import MEASURED_SHAPE, SHARING_FAMILIES

#: A variant of an option sweep gets its own row in the ``seconds`` table only where its cost differs from its
#: metric's by more than this fraction at some measured size ...
VARIANT_TOLERANCE = 0.25

#: ... and by more than this many seconds (smaller differences are timing noise, 0.002 CPU-hours a paper study).
VARIANT_MIN_SECONDS = 0.001

#: A metric's cost alone enters the ``alone_seconds`` table when it exceeds its cost in the measuring order, measured
#: in the same run, this many times at the largest size: the estimates an earlier metric of its family computes for
#: it.  Smaller differences are the measuring machine's load (the same metric measured on two days differed 2x).
ALONE_FACTOR = 3.0

#: The sample sizes of the ``seconds`` and ``alone`` tables (representation metrics, then population metrics, whose
#: calls cost far more).
SIZES, POPULATION_SIZES = (1000, 10000, 20000), (1000, 10000)

#: The numbers of codes and the sample size of the ``widths`` table.
WIDTHS, WIDTH_SAMPLES = (8, 32, 128, 256), 2000

#: ``dci_gbt`` (8000 trees a call) is left out of the measuring passes and timed once, at the smallest size.
SLOWEST = "dci_gbt"


def measure_costs(
    entries: Sequence[Any],
    sizes: Sequence[int] = SIZES,
    population_sizes: Sequence[int] = POPULATION_SIZES,
    repeats: int = 3,
) -> dict[str, dict[int, float]]:
    """Measure median CPU seconds per call of each metric at each sample size, as a task runs them.

    For each size and repeat one data draw is generated and every entry is called on it,
    in the given order, inside one :func:`metrics.shared_estimates` scope (a fresh scope
    per repeat): a metric whose estimates an earlier one already computed is charged only
    for what it adds, as in a study.

    Parameters
    ----------
    entries : sequence of harness.execution.metric_refs.MetricEntry
        Registered metrics and variants, in the order a task runs them.  Population metrics
        are measured on the ``udr_population`` scenario, the others on ``noise`` at 0.2.
    sizes : sequence of int
        Sample sizes of the representation metrics.
    population_sizes : sequence of int
        Sample sizes of the population metrics.
    repeats : int
        Calls per (entry, size); the median is kept.

    Returns
    -------
    dict
        Entry name -> {size: median CPU seconds}.
    """
    import numpy as np
    from threadpoolctl import threadpool_limits

    import metrics
    import scenarios

    timings: dict[str, dict[int, list[float]]] = {}
    with threadpool_limits(limits=1):
        for population, chosen_sizes in ((False, sizes), (True, population_sizes)):
            group = [entry for entry in entries if entry.population == population]
            for size, repeat in itertools.product(chosen_sizes if group else (), range(repeats)):
                if population:
                    members = list(scenarios.get("udr_population").generate(0.5, n=size, seed=0).members)
                else:
                    data = scenarios.get("noise").generate(0.2, n=size, seed=0)
                with metrics.shared_estimates():
                    for entry in group:
                        random_state = repeat if entry.stochastic else None
                        started = time.process_time()
                        if population:
                            metrics.evaluate_population(entry.target, members, random_state=repeat, **dict(entry.options))
                        else:
                            metrics.evaluate(entry.target, data.factors, data.codes, discrete=data.discrete,
                                             random_state=random_state, **dict(entry.options))
                        timings.setdefault(entry.name, {}).setdefault(size, []).append(time.process_time() - started)
    return {name: {size: float(np.median(values)) for size, values in row.items()} for name, row in timings.items()}


def measure_alone_costs(entries: Sequence[Any], **options: Any) -> dict[str, dict[int, float]]:
    """:func:`measure_costs` of each entry in a scope of its own: its cost with nothing shared."""
    return {entry.name: measure_costs([entry], **options)[entry.name] for entry in entries}


def overcomplete_draw(n: int, n_factors: int, n_codes: int, *, factorial: bool = False,
                      seed: int | Sequence[int] = 0) -> tuple[Any, Any]:
    """Factors uniform on [0, 1] (on {0, 1}, flagged discrete by the caller, for the intervention metrics' factorial
    design) and codes whose first ``min(K, L)`` columns are noisy copies of them, the others independent N(0, 1):
    an overcomplete code with nuisance columns, as the null and overcomplete settings build.  ``seed`` is anything
    :func:`numpy.random.default_rng` takes (``(seed, block)`` for one block of rows of :func:`write_wide_draw`)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    factors = rng.random((n, n_factors))
    if factorial:
        factors = np.floor(2 * factors)
    codes = rng.standard_normal((n, n_codes))
    shared = min(n_factors, n_codes)
    codes[:, :shared] = factors[:, :shared] + 0.1 * codes[:, :shared]
    return factors, codes


def measure_width_factors(entries: Sequence[Any], widths: Sequence[int] = WIDTHS, n_samples: int = WIDTH_SAMPLES,
                          repeats: int = 3, cap_seconds: float = 60.0) -> dict[str, dict[int, float]]:
    """Each metric's cost on ``widths`` codes (8 factors, :func:`overcomplete_draw`) relative to the first width.

    Every call runs in a scope of its own (nothing shared); the median of ``repeats`` calls is kept, one call when
    the first took over 5 s, and the wider widths are skipped once a width took over ``cap_seconds``.

    Returns
    -------
    dict
        Entry name -> {width: cost ratio to ``widths[0]``}.
    """
    import numpy as np
    from threadpoolctl import threadpool_limits

    import metrics

    table = {}
    with threadpool_limits(limits=1):
        for entry in (entry for entry in entries if not entry.population):
            factorial = entry.family == "intervention"
            seconds: dict[int, float] = {}
            for width in widths:
                factors, codes = overcomplete_draw(n_samples, MEASURED_SHAPE[0], width, factorial=factorial)
                calls = []
                for repeat in range(repeats):
                    with metrics.shared_estimates():
                        started = time.process_time()
                        metrics.evaluate(entry.target, factors, codes, discrete=factorial,
                                         random_state=repeat if entry.stochastic else None, **dict(entry.options))
                        calls.append(time.process_time() - started)
                    if calls[0] > 5.0:
                        break
                seconds[width] = float(np.median(calls))
                if seconds[width] > cap_seconds:
                    break
            table[entry.name] = {width: value / seconds[widths[0]] for width, value in seconds.items()}
    return table


def shared_alone_rows(alone: Mapping[str, Mapping[int, float]], in_order: Mapping[str, Mapping[int, float]],
                      factor: float = ALONE_FACTOR) -> dict[str, Mapping[int, float]]:
    """The rows of ``alone`` (costs with nothing shared) above ``factor`` times the same metric's row of ``in_order``
    (its costs in the measuring order, from the same run) at the largest size both measured."""
    kept = {}
    for name, row in alone.items():
        size = max(set(row) & set(in_order.get(name, {})), default=None)
        if size is not None and row[size] > factor * in_order[name][size]:
            kept[name] = row
    return kept


def estimator_variants() -> list[Any]:
    """``NAME[estimator=gaussian]`` of every registered metric with an ``estimator`` option: what a user picks for wide
    codes or large n, at a cost unlike the k-NN default's, so measured on its own (each call alone: the Gaussian
    variants of a draw share one Gram matrix, which the first pays)."""
    import metrics
    from harness.execution.metric_refs import registered_entry, variants

    entries = [registered_entry(name) for name in metrics.available(population=False)]
    return [variants(entry, {"estimator": ("gaussian",)})[0] for entry in entries if "estimator" in dict(entry.options)]


def cost_table_passes() -> list[list[Any]]:
    """What the ``seconds`` table measures, one list per kind of task.

    First every registered metric but :data:`SLOWEST` at its defaults, in registry order; then,
    for each preset that sweeps options, the same metrics as that preset's tasks run them:
    each swept metric replaced by its variants (so the first variant of a sweep pays for the
    estimates the others share, as it does in a study).
    """
    import metrics
    from harness.execution.metric_refs import registered_entry, variants
    from harness.execution.presets import PRESETS

    base = [registered_entry(name) for name in metrics.available(population=None) if name != SLOWEST]
    passes = [base]
    for preset in PRESETS.values():
        if preset.metric_options:
            passes.append([variant for entry in base if not entry.population
                           for variant in variants(entry, preset.metric_options.get(entry.name, {}))])
    return passes


def variant_passes(passes: Sequence[Sequence[Any]]) -> list[tuple[Sequence[Any], list[str]]]:
    """The passes after the first that measure a variant no earlier pass ran, each with the names of those variants
    (a variant's cost is taken from the first pass that runs it)."""
    seen = {entry.name for entry in passes[0]}
    found = []
    for entries in passes[1:]:
        new = [entry.name for entry in entries if entry.variant_of and entry.name not in seen]
        seen.update(entry.name for entry in entries)
        if new:
            found.append((entries, new))
    return found


def measure_cost_table(passes: Sequence[Sequence[Any]], **options: Any) -> dict[str, dict[int, float]]:
    """Every metric's cost from the first pass, every variant's from the first later pass
    that runs it (:func:`measure_costs` with ``options`` on each pass)."""
    table = measure_costs(passes[0], **options)
    for entries, swept in variant_passes(passes):
        measured = measure_costs(entries, **options)
        table.update({name: measured[name] for name in swept})
    return table


def after_sibling(passes: Sequence[Sequence[Any]]) -> set[str]:
    """The variants whose cost is taken from a pass (:func:`variant_passes`) that runs another variant of their metric
    before them on the draw: their measured cost holds only what they add to that sibling's work."""
    followers = set()
    for entries, measured in variant_passes(passes):
        first_of: dict[str, str] = {}
        for entry in entries:
            if entry.variant_of and first_of.setdefault(entry.variant_of, entry.name) != entry.name and entry.name in measured:
                followers.add(entry.name)
    return followers


def distinct_variant_costs(table: Mapping[str, Mapping[int, float]], entries: Sequence[Any],
                           tolerance: float = VARIANT_TOLERANCE) -> dict[str, Mapping[int, float]]:
    """The table without the variants whose cost is within ``tolerance`` (relative) or
    :data:`VARIANT_MIN_SECONDS` of their metric's at every size: those are estimated with
    their metric's cost."""
    kept = {}
    for entry in entries:
        row = table[entry.name]
        base = table.get(entry.variant_of) if entry.variant_of else None
        if base is None or any(
                abs(row[size] - base[size]) > max(tolerance * base[size], VARIANT_MIN_SECONDS) for size in row):
            kept[entry.name] = row
    return kept


def seconds_run(chosen: set[str] | None, sizes: Sequence[int], population_sizes: Sequence[int],
                repeats: int) -> dict[str, Any]:
    """The ``seconds`` table's run: the measuring passes (:func:`cost_table_passes`, limited to the ``chosen`` metrics
    and their variants where given), each variant kept where its cost is its own (:func:`distinct_variant_costs`), the
    Gaussian-estimator variants each alone, and :data:`SLOWEST` once at the smallest size."""
    from harness.execution.metric_refs import registered_entry

    def wanted(entry: Any) -> bool:
        return chosen is None or entry.name in chosen or entry.variant_of in chosen

    passes = [[entry for entry in entries if wanted(entry)] for entries in cost_table_passes()]
    passes = [passes[0], *(entries for entries in passes[1:] if entries)]
    options = {"sizes": sizes, "population_sizes": population_sizes, "repeats": repeats}
    rows = distinct_variant_costs(measure_cost_table(passes, **options), [entry for group in passes for entry in group])
    gaussian = [entry for entry in estimator_variants() if wanted(entry)]
    rows.update(measure_alone_costs(gaussian, **options))
    if chosen is None or SLOWEST in chosen:
        rows.update(measure_costs([registered_entry(SLOWEST)], sizes=sizes[:1], repeats=1))
    measured = {entry.name for group in passes[1:] for entry in group if entry.variant_of}
    return cost_records.new_run(rows, {**options, "blas_threads": 1},
                                after_sibling=after_sibling(passes) & set(rows),
                                like_their_metric=measured - set(rows))


def alone_run(chosen: set[str] | None, sizes: Sequence[int], repeats: int) -> dict[str, Any]:
    """The ``alone_seconds`` table's run: each metric of a sharing family alone, kept where it costs over
    :data:`ALONE_FACTOR` times its share in the measuring order (both measured now), and each Gaussian-estimator
    variant alone."""
    sharing = [entry for entry in cost_table_passes()[0] if entry.family in SHARING_FAMILIES and not entry.population
               and (chosen is None or entry.name in chosen)]
    gaussian = [entry for entry in estimator_variants() if chosen is None or {entry.name, entry.variant_of} & chosen]
    options = {"sizes": sizes, "population_sizes": (), "repeats": repeats}
    rows = {**shared_alone_rows(measure_alone_costs(sharing, **options), measure_costs(sharing, **options)),
            **measure_alone_costs(gaussian, **options)}
    return cost_records.new_run(rows, {**options, "blas_threads": 1, "alone_factor": ALONE_FACTOR})


def widths_run(chosen: set[str] | None, widths: Sequence[int], n_samples: int, repeats: int) -> dict[str, Any]:
    """The ``width_factors`` table's run at ``n_samples``: every metric at its defaults and every Gaussian-estimator
    variant (the ``chosen`` ones where given) on ``widths`` codes."""
    entries = [entry for entry in cost_table_passes()[0] + estimator_variants() if chosen is None or entry.name in chosen]
    settings = {"n_samples": n_samples, "widths": list(widths), "repeats": repeats, "cap_seconds": 60.0, "blas_threads": 1}
    return cost_records.new_run(measure_width_factors(entries, widths, n_samples, repeats, settings["cap_seconds"]),
                                settings)


#: The wide-code measurement (issue 42): K factors x L codes at n samples, as a sparse autoencoder's dictionary ...
WIDE_FACTORS, WIDE_CODES, WIDE_SAMPLES = 10, 4096, 100_000

#: ... each call measured at these numbers of codes (the first the base of its width factors) ...
WIDE_WIDTHS = (8, 512, WIDE_CODES)

#: ... within these limits: CPU seconds of the call (the child's ``RLIMIT_CPU``, the 60 s target with slack for the
#: load of a shared machine) and bytes the call allocates above its inputs (:func:`wide_call`).
WIDE_CPU_SECONDS, WIDE_MEMORY_BYTES = 70.0, 4 * 2**30

#: The target a wide call is held to (issue 42): within this many CPU seconds and :data:`WIDE_MEMORY_BYTES`, or
#: refused when a study of its shape is planned under them (``run --max-cell-seconds 60``).
WIDE_TARGET_SECONDS = 60.0


#: Where the wide draw is written once and memory-mapped by every child, and the calls' logs.
WIDE_DATA_DIR = Path("/tmp/wide")


def write_wide_draw(directory: Path, n: int = WIDE_SAMPLES, n_factors: int = WIDE_FACTORS, n_codes: int = WIDE_CODES,
                    seed: int = 0, block: int = 10_000) -> Path:
    """The wide draw in ``directory``: ``factors.npy`` (uniform), ``factorial.npy`` (the same thresholded at 1/2, for the
    intervention metrics) and ``codes.npy`` (float64, :func:`overcomplete_draw` block by block of ``block`` rows, so
    that the 3.3 GB of 1e5 x 4096 codes are never twice in memory); kept and reused while ``draw.json`` names the same
    shape and seed.  Returns ``directory``."""
    import numpy as np
    from numpy.lib.format import open_memmap

    settings = {"n_samples": n, "n_factors": n_factors, "n_codes": n_codes, "seed": seed, "block": block}
    described = directory / "draw.json"
    if described.exists() and json.loads(described.read_text(encoding="utf-8")) == settings:
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    described.unlink(missing_ok=True)
    factors = open_memmap(directory / "factors.npy", mode="w+", dtype=np.float64, shape=(n, n_factors))
    codes = open_memmap(directory / "codes.npy", mode="w+", dtype=np.float64, shape=(n, n_codes))
    for index, start in enumerate(range(0, n, block)):
        rows = min(block, n - start)
        factors[start:start + rows], codes[start:start + rows] = overcomplete_draw(rows, n_factors, n_codes,
                                                                                   seed=(seed, index))
    np.save(directory / "factorial.npy", np.floor(2 * factors))
    factors.flush()
    codes.flush()
    del factors, codes
    described.write_text(json.dumps(settings), encoding="utf-8")
    return directory


def wide_call(request: Mapping[str, Any]) -> dict[str, Any]:
    """One metric call on the wide draw, in this process (a child of :func:`measure_wide_call`), within its limits.

    The draw is memory-mapped and read whole (its ``n_codes`` first columns copied out when fewer than all), heavy
    libraries are imported, and then the baseline is taken: what the process holds with its inputs resident.  The
    call then runs with one BLAS thread under ``RLIMIT_CPU`` (``cpu_seconds`` past what the process used so far; the
    kernel stops it with SIGXCPU) and ``RLIMIT_AS`` (the baseline's address space plus ``memory_bytes`` and
    :data:`WIDE_ADDRESS_SLACK`: an allocation past it raises ``MemoryError``).  **Memory counts the call's own
    allocation above its inputs**: the peak resident set during the call (``VmHWM``, reset before it; else
    ``ru_maxrss``) less the baseline.  The codes the harness hands a metric are float64 (``metrics.validation``
    converts every input), 3.3 GB at 1e5 x 4096, the same for every metric of a draw and held once by the worker
    that generated it, so they are the study's shape, not a metric's cost.

    Prints ``baseline BYTES`` before the call (for the parent to read a stopped call's peak against), and returns
    ``cpu_seconds``, ``peak_bytes``, ``baseline_bytes``, ``data_bytes`` and ``exceeded`` (``""`` or ``"memory"``).
    """
    import resource

    import numpy as np

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU dumps core by default: not 3 GB of it
    for module in ("metrics", "scipy.stats", "scipy.spatial", "sklearn.linear_model", "sklearn.ensemble", "sklearn.neighbors",
                   "sklearn.model_selection", "sklearn.cross_decomposition"):
        importlib.import_module(module)
    directory, width = Path(request["directory"]), int(request["n_codes"])
    factors = np.load(directory / ("factorial.npy" if request["factorial"] else "factors.npy"))
    mapped = np.load(directory / "codes.npy", mmap_mode="r")
    codes = mapped if width == mapped.shape[1] else np.ascontiguousarray(mapped[:, :width])
    del mapped  # a narrower copy's file pages leave the resident set with their mapping
    float(np.max(codes))  # every page resident before the baseline
    _reset_peak()  # before the parent reads the peak: loading's is not the call's
    baseline = status_bytes("VmRSS")
    print(f"baseline {baseline}", flush=True)
    used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    limit = math.ceil(used + float(request["cpu_seconds"]))
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
    resource.setrlimit(resource.RLIMIT_AS, (status_bytes("VmSize") + int(request["memory_bytes"]) + WIDE_ADDRESS_SLACK,
                                            resource.RLIM_INFINITY))
    seconds, peak, exceeded = timed_wide_call(request, factors, codes)
    own = max(peak - baseline, 0)
    if own > int(request["memory_bytes"]):
        exceeded = "memory"
    return {"cpu_seconds": seconds, "peak_bytes": own, "baseline_bytes": baseline,
            "data_bytes": int(codes.nbytes + factors.nbytes), "exceeded": exceeded}


def timed_wide_call(request: Mapping[str, Any], factors: Any, codes: Any) -> tuple[float, int, str]:
    """The measured part of :func:`wide_call`: one call of ``request``'s metric (its ``target``, ``options``,
    ``stochastic``, ``population`` and ``factorial``) on ``factors`` and ``codes``, in this process and without limits.

    Returns
    -------
    tuple
        CPU seconds of the call, the process's resident high-water mark during it (reset before it where Linux
        allows, else the process's whole), and ``"memory"`` where it raised ``MemoryError``, else ``""``.
    """
    import resource

    import metrics

    reset = _reset_peak()
    options = dict(request["options"])
    exceeded = ""
    started = time.process_time()
    try:
        if request["population"]:  # two identical models: the cheapest population of this width
            metrics.evaluate_population(request["target"], [codes, codes], random_state=0, **options)
        else:
            metrics.evaluate(request["target"], factors, codes, discrete=bool(request["factorial"]),
                             random_state=0 if request["stochastic"] else None, **options)
    except MemoryError:
        exceeded = "memory"
    seconds = time.process_time() - started
    peak = status_bytes("VmHWM") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return seconds, peak, exceeded


def status_bytes(field: str, pid: int | str = "self") -> int:
    """A ``kB`` field of ``/proc/PID/status`` (``VmRSS``, ``VmHWM``, ``VmSize``) in bytes; 0 where it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _reset_peak() -> bool:
    """Reset this process's resident high-water mark (``VmHWM``; Linux's ``clear_refs``); whether it could."""
    try:
        Path("/proc/self/clear_refs").write_text("5", encoding="ascii")
    except OSError:
        return False
    return True


def wide_request(entry: Any) -> dict[str, Any]:
    """What :func:`timed_wide_call` needs of a metric entry (:class:`harness.execution.metric_refs.MetricEntry`), as
    JSON: its target, options, whether it is stochastic or scores a population, and whether it reads the factorial
    factors (the intervention family's design)."""
    return {"target": entry.target, "options": dict(entry.options), "stochastic": entry.stochastic,
            "population": entry.population, "factorial": entry.family == "intervention"}


def measure_wide_call(entry: Any, directory: Path, n_codes: int, cpu_seconds: float = WIDE_CPU_SECONDS,
                      memory_bytes: int = WIDE_MEMORY_BYTES, log: Path | None = None) -> dict[str, Any]:
    """:func:`wide_call` of ``entry`` on the first ``n_codes`` codes of the draw in ``directory``, in a fresh
    interpreter with one BLAS thread, its resident set watched meanwhile.

    Returns
    -------
    dict
        ``cpu_seconds`` (None where the call exceeded its time), ``peak_bytes`` (the call's own peak above its
        inputs: for a stopped call, the highest seen before it was stopped, a lower bound), ``exceeded`` (``""``
        within both limits, ``"time"`` or ``"memory"``) and ``detail`` (the child's last line of error output, for a
        call that failed otherwise).
    """
    import os
    import signal
    import subprocess

    request = {**wide_request(entry), "directory": str(directory), "n_codes": n_codes, "cpu_seconds": cpu_seconds,
               "memory_bytes": memory_bytes}
    one_thread = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    code = ("import json, sys; from harness.execution.cost_measurement import wide_call; "
            "print(json.dumps(wide_call(json.loads(sys.argv[1]))))")
    log = log or directory / "calls.log"
    with open(log, "a", encoding="utf-8") as errors, open(directory / "call.out", "w+", encoding="utf-8") as out:
        errors.write(f"--- {entry.name} at {n_codes} codes\n")
        errors.flush()
        child = subprocess.Popen([sys.executable, "-c", code, json.dumps(request)], stdout=out, stderr=errors,
                                 env={**os.environ, **one_thread}, cwd=Path(__file__).resolve().parents[2])
        highest, deadline = 0, time.monotonic() + 6 * cpu_seconds + 120  # a wall-clock guard on a shared machine
        baseline: int | None = None
        while child.poll() is None:
            if baseline is None:  # the peak of loading the draw is not the call's
                baseline = _baseline(out)
            else:
                highest = max(highest, status_bytes("VmHWM", child.pid))
            if time.monotonic() > deadline:
                child.kill()
            time.sleep(0.2)
        baseline = _baseline(out)
        out.seek(0)
        lines = out.read().splitlines()
    if child.returncode == 0:
        return {**json.loads(lines[-1]), "detail": ""}
    stopped = max(highest - baseline, 0) if baseline is not None else None
    if child.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return {"cpu_seconds": None, "peak_bytes": stopped, "exceeded": "time", "detail": ""}
    detail = _last_line(log)
    exceeded = "memory" if "MemoryError" in detail or "bad_alloc" in detail or "allocate" in detail else ""
    return {"cpu_seconds": None, "peak_bytes": stopped, "exceeded": exceeded, "detail": detail}


def _baseline(out: Any) -> int | None:
    """The baseline a child printed into the open file ``out`` (:func:`wide_call`), None before it did."""
    out.seek(0)
    return next((int(line.split()[1]) for line in out.read().splitlines() if line.startswith("baseline ")), None)


def _last_line(path: Path) -> str:
    """The last non-empty line of a log file."""
    lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def wide_entries(chosen: set[str] | None = None) -> list[Any]:
    """What the wide measurement runs: every registered metric at its defaults (``udr`` on a population of two
    models of the draw's codes), then every Gaussian-estimator variant (the cheaper variant a refusal names), the
    ``chosen`` ones where given."""
    import metrics
    from harness.execution.metric_refs import registered_entry

    entries = [registered_entry(name) for name in metrics.available(population=None)] + estimator_variants()
    return [entry for entry in entries if chosen is None or entry.name in chosen]


def measure_wide(entries: Sequence[Any], directory: Path, widths: Sequence[int] = WIDE_WIDTHS,
                 cpu_seconds: float = WIDE_CPU_SECONDS, memory_bytes: int = WIDE_MEMORY_BYTES,
                 echo: Any = None) -> dict[str, dict[int, dict[str, Any]]]:
    """:func:`measure_wide_call` of each entry at each width, one child at a time, narrowest first; once a call
    exceeds its time, the wider ones are recorded as exceeding it too, unrun (a call's time grows with its codes).

    Returns
    -------
    dict
        Entry name -> {width: the call's record}; a record inferred from a narrower width has ``"inferred": True``.
    """
    table: dict[str, dict[int, dict[str, Any]]] = {}
    for entry in entries:
        row = table[entry.name] = {}
        for width in widths:
            timed_out = next((record for record in row.values() if record["exceeded"] == "time"), None)
            if timed_out is not None:
                row[width] = {"cpu_seconds": None, "peak_bytes": None, "exceeded": "time", "detail": "",
                              "inferred": True}
                continue
            row[width] = measure_wide_call(entry, directory, width, cpu_seconds, memory_bytes,
                                           log=directory / "calls.log")
            if echo is not None:
                echo(f"{entry.name} at {width} codes: {_wide_cell(row[width], cpu_seconds, memory_bytes)}")
    return table


def _wide_cell(record: Mapping[str, Any], cpu_seconds: float, memory_bytes: int) -> str:
    """One measured call as the table states it: CPU seconds and own peak memory, or the limit it exceeded."""
    peak = record.get("peak_bytes")
    memory = f"{peak / 2**20:,.0f} MiB" if peak is not None else "?"
    if record["exceeded"] == "time":
        return f"exceeded {cpu_seconds:g} CPU-s" + (f" (peak so far {memory})" if peak else "")
    if record["exceeded"] == "memory":
        return f"exceeded {memory_bytes / 2**30:g} GiB (peak {memory})"
    if record["cpu_seconds"] is None:
        return f"failed: {record['detail']}"
    return f"{record['cpu_seconds']:.1f} CPU-s, {memory}"


def wide_runs(table: Mapping[str, Mapping[int, Mapping[str, Any]]], n_samples: int, n_factors: int,
              widths: Sequence[int], cpu_seconds: float, memory_bytes: int) -> dict[str, dict[str, Any]]:
    """The runs a wide measurement adds to the data file, by table: ``wide_codes`` (every call's CPU seconds, own
    peak bytes and the limit it exceeded, as measured) and ``width_factors`` at ``n_samples`` (the calls' time
    relative to the first width, at the widths whose calls finished, for the entries with two or more)."""
    settings = {"n_samples": n_samples, "n_factors": n_factors, "widths": list(widths), "cpu_limit_seconds": cpu_seconds,
                "memory_limit_bytes": memory_bytes, "memory": "the call's own peak above its float64 inputs",
                "blas_threads": 1}
    base = widths[0]
    finished = {name: [width for width in widths if row[width]["cpu_seconds"]] for name, row in table.items()}
    factors = {name: {width: row[width]["cpu_seconds"] / row[base]["cpu_seconds"] for width in finished[name]}
               for name, row in table.items() if base in finished[name] and len(finished[name]) > 1}
    calls = {name: {width: {key: record[key] for key in ("cpu_seconds", "peak_bytes", "exceeded")
                            if record.get(key) not in (None, "")}
                    for width, record in row.items() if not record.get("inferred")}
             for name, row in table.items()}
    wide = cost_records.new_wide_run(calls, settings)
    return {"wide_codes": wide, "width_factors": cost_records.new_run(
        factors, {**settings, "repeats": 1, "cap_seconds": cpu_seconds},
        note=f"from the wide-code measurement ({n_factors} factors, the first width the base)")}


def wide_table(table: Mapping[str, Mapping[int, Mapping[str, Any]]], width: int, cpu_seconds: float,
               memory_bytes: int) -> str:
    """The wide-code table at ``width`` codes as Markdown: each entry's CPU seconds and own peak memory, or the limit
    it exceeded."""
    lines = [f"| metric | at {width} codes |", "| --- | --- |"]
    lines += [f"| `{name}` | {_wide_cell(row[width], cpu_seconds, memory_bytes)} |" for name, row in table.items()
              if width in row]
    return "\n".join(lines)


def wide_main(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """The ``wide`` mode: write the draw (once), measure every entry, print the table; the runs to store."""
    directory = write_wide_draw(args.data_dir, args.n_samples, WIDE_FACTORS, max(args.widths))
    table = measure_wide(wide_entries(args.metrics), directory, args.widths, args.max_cpu_seconds,
                         int(args.max_memory_gib * 2**30), echo=lambda line: print(line, flush=True))
    print(wide_table(table, max(args.widths), args.max_cpu_seconds, int(args.max_memory_gib * 2**30)))
    return wide_runs(table, args.n_samples, WIDE_FACTORS, args.widths, args.max_cpu_seconds,
                     int(args.max_memory_gib * 2**30))


#: Each mode of the tool and the table it measures.
MODES = {"seconds": "seconds", "alone": "alone_seconds", "widths": "width_factors", "wide": "wide_codes"}


def main(argv: Sequence[str] | None = None) -> int:
    """Measure one table (``seconds``, ``alone``, ``widths``; ``wide``: the wide codes' calls and their width factors)
    and print its run, or add it to the data file."""
    parser = argparse.ArgumentParser(prog="python -m harness.execution.cost_measurement", description=main.__doc__)
    parser.add_argument("mode", choices=tuple(MODES))
    parser.add_argument("--write", action="store_true", help="add the run to the data file (default: print it)")
    parser.add_argument("--file", type=Path, default=cost_records.DATA_FILE, help="the data file (default: the package's)")
    parser.add_argument("--metrics", type=_names, default=None,
                        help="only these metrics and variants (A,B; in 'seconds' their variants too); a metric of a "
                             "sharing family is then charged what it adds to the named ones")
    parser.add_argument("--sizes", type=_integers, default=SIZES, help="sample sizes ('seconds', 'alone')")
    parser.add_argument("--population-sizes", type=_integers, default=POPULATION_SIZES, help="of the population metrics")
    parser.add_argument("--widths", type=_integers, default=None,
                        help=f"numbers of codes, the first the base ('widths': default {_listed(WIDTHS)}; "
                             f"'wide': {_listed(WIDE_WIDTHS)})")
    parser.add_argument("--n-samples", type=int, default=None,
                        help=f"sample size ('widths': default {WIDTH_SAMPLES}; 'wide': {WIDE_SAMPLES})")
    parser.add_argument("--repeats", type=int, default=3, help="calls per measurement; the median is kept")
    parser.add_argument("--data-dir", type=Path, default=WIDE_DATA_DIR,
                        help="'wide': where the draw is written once and memory-mapped, and the calls' log")
    parser.add_argument("--max-cpu-seconds", type=float, default=WIDE_CPU_SECONDS, help="'wide': CPU limit of a call")
    parser.add_argument("--max-memory-gib", type=float, default=WIDE_MEMORY_BYTES / 2**30,
                        help="'wide': limit of a call's own allocation above its inputs")
    args = parser.parse_args(argv)
    wide = args.mode == "wide"
    args.widths = args.widths or (WIDE_WIDTHS if wide else WIDTHS)
    args.n_samples = args.n_samples or (WIDE_SAMPLES if wide else WIDTH_SAMPLES)
    if args.mode == "seconds":
        runs = {"seconds": seconds_run(args.metrics, args.sizes, args.population_sizes, args.repeats)}
    elif args.mode == "alone":
        runs = {"alone_seconds": alone_run(args.metrics, args.sizes, args.repeats)}
    elif wide:
        runs = wide_main(args)
    else:
        runs = {"width_factors": widths_run(args.metrics, args.widths, args.n_samples, args.repeats)}
    for table, run in runs.items():
        if args.write:
            cost_records.add_run(table, run, args.file)
            print(f"{len(run['rows'])} rows of {table} written to {args.file}")
        else:
            json.dump(run, sys.stdout, indent=1)
            print()
    return 0


def _listed(values: Sequence[int]) -> str:
    return ",".join(map(str, values))


def _names(text: str) -> set[str]:
    return {name.strip() for name in text.split(",") if name.strip()}


def _integers(text: str) -> tuple[int, ...]:
    return tuple(int(value) for value in text.split(","))


if __name__ == "__main__":  # pragma: no cover - a measuring tool, run by hand
    sys.exit(main())
