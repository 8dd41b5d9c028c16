"""The wide-code measurement: every metric on 10 factors x 8, 512 and 4096 codes at n = 1e5, one call per process.

A sparse autoencoder's dictionary has thousands of features.  Each call here runs in a child process of its own, one
at a time, with one BLAS thread, under a CPU limit and an address-space cap (:func:`measure_wide_call`), on a draw
written once and memory-mapped by every child (:func:`write_wide_draw`).  It records the call's CPU seconds and the
memory it allocates above its inputs, or the limit it ran into; :func:`wide_runs` turns that into the ``wide_codes``
and ``width_factors`` runs of the cost model's data file (``python -m harness.execution.cost_measurement wide``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.execution import cost_records
from harness.execution.cost_measurement import estimator_variants, overcomplete_draw
from harness.execution.cost_records import WIDE_ADDRESS_SLACK

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
    code = ("import json, sys; from harness.execution.cost_measurement.wide import wide_call; "
            "print(json.dumps(wide_call(json.loads(sys.argv[1]))))")
    log = log or directory / "calls.log"
    with open(log, "a", encoding="utf-8") as errors, open(directory / "call.out", "w+", encoding="utf-8") as out:
        errors.write(f"--- {entry.name} at {n_codes} codes\n")
        errors.flush()
        child = subprocess.Popen([sys.executable, "-c", code, json.dumps(request)], stdout=out, stderr=errors,
                                 env={**os.environ, **one_thread}, cwd=Path(__file__).resolve().parents[3])
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
