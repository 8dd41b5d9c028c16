"""A study and its report, run back to back from two commits of this project: decided verdicts per CPU second and the
report's time (issue 38, "Done when").

Not a test: each side is a whole run (the default study: 5 to 11 minutes on 2 cores, by the machine's speed), each
from a clean export of its commit (``git archive``; ``.`` is the checkout as it stands) into an empty run directory,
one after the other on the same machine, with one BLAS thread; ``--pairs N`` alternates them N times and keeps each
side's medians (one pair can mislead: the machine's speed drifts over minutes; three pairs of the default study on
this project's 2-core machine on 2026-11-30 gave ratios 0.80 to 1.00).  A side's time is what its ``python -m harness
run`` process and its workers took: wall time, and user + system CPU time of the child processes
(``resource.getrusage(RUSAGE_CHILDREN)``, what ``/usr/bin/time`` reports), the report included.  A headline verdict
is decided when it reads ✓ or ✗ (``tables/headline.csv``: ``yes`` or ``no``), measured when it is not ``unmeasured``
(the cost column holds no verdict).  Then each side's report is drawn again from its own results
(``python -m harness report``), alternating between the sides ``--report-repeats`` times: the best wall time of each
counts (the machine's speed moves by a third for seconds at a time; the best is the least disturbed).  The load
average is printed before and after: compare pairs measured under the same load only::

    python tests/benchmarks/back_to_back.py --pairs 2              # 74e9172 (the issue's day) against HEAD
    python tests/benchmarks/back_to_back.py --baseline 2c9dc0c     # against the last commit before racing
    python tests/benchmarks/back_to_back.py --candidate . -- --preset quick --scenarios noise   # run options after --

74e9172 is the commit whose README recorded the figures issue 38 quotes (213 of 253 verdicts decided, 9 min 51 s,
1151 CPU-s on 2026-11-27).  Prints a Markdown table (the README's) and, with ``--json``, writes the numbers.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

#: The commit whose README recorded the figures of the issue's day (2026-11-27).
ISSUE_DAY = "74e9172"
#: One BLAS thread in every process of a side, as the README's measurements were taken.
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
#: ``tables/headline.csv`` verdicts: decided ones, and the one that is no measurement.
DECIDED, UNMEASURED = ("yes", "no"), "unmeasured"


@dataclass(frozen=True)
class Timing:
    """What a command took: seconds of wall-clock time, and CPU seconds (user + system) of its processes."""

    wall: float
    cpu: float


@dataclass(frozen=True)
class Side:
    """One side: its commit, headline verdicts, its runs' times and its best report's."""

    name: str
    commit: str
    decided: int
    measured: int
    runs: tuple[Timing, ...]
    report: Timing | None

    @property
    def run(self) -> Timing:
        """The median run: the median wall time and the median CPU time of :attr:`runs`."""
        return Timing(statistics.median(run.wall for run in self.runs), statistics.median(run.cpu for run in self.runs))

    @property
    def cpu_per_decided(self) -> float:
        """Median CPU seconds of a run per decided headline verdict (infinite when none was decided)."""
        return self.run.cpu / self.decided if self.decided else float("inf")


def headline_counts(headline: Path) -> tuple[int, int]:
    """The decided and the measured headline verdicts of a report's ``tables/headline.csv``.

    Raises
    ------
    ValueError
        When the file has no ``verdict`` column (not a report's headline table).
    """
    with headline.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if rows and "verdict" not in rows[0]:
        raise ValueError(f"{headline} has no 'verdict' column: not a report's headline table")
    verdicts = [row["verdict"] for row in rows if row["verdict"]]  # the cost column's rows hold none
    return sum(verdict in DECIDED for verdict in verdicts), sum(verdict != UNMEASURED for verdict in verdicts)


def timed(command: list[str], cwd: Path, log: Path) -> Timing:
    """Run ``command`` in ``cwd`` (output to ``log``) with one BLAS thread and ``cwd`` first on Python's path; its time.

    Raises
    ------
    subprocess.CalledProcessError
        When the command fails (its output is in ``log``).
    """
    env = {**os.environ, **ONE_THREAD, "PYTHONPATH": str(cwd)}
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    with log.open("w", encoding="utf-8") as out:
        subprocess.run(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, check=True)
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    return Timing(wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))


def export(revision: str, repository: Path, directory: Path) -> tuple[Path, str]:
    """The source tree of ``revision`` (``.``: ``repository`` as it stands, uncommitted changes included) and its
    short commit hash (``.``: HEAD's, with ``+`` when the checkout has uncommitted changes).

    Raises
    ------
    ValueError
        When git cannot name or export ``revision`` (git's message).
    """

    def git(*args: str) -> bytes:
        done = subprocess.run(["git", "-C", str(repository), *args], capture_output=True)
        if done.returncode:
            raise ValueError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")
        return done.stdout

    if revision == ".":
        dirty = bool(git("status", "--porcelain", "--untracked-files=no").strip())
        return repository, git("rev-parse", "--short", "HEAD").decode().strip() + ("+" if dirty else "")
    commit = git("rev-parse", "--short", f"{revision}^{{commit}}").decode().strip()
    directory.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(git("archive", "--format=tar", commit))) as archive:
        # the "data" filter where this Python has it (3.10.12, 3.11.4 and later); the archive is this repository's own
        archive.extractall(directory, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return directory, commit


def _python_m(*args: str) -> list[str]:
    return [sys.executable, "-m", "harness", *args]


def measure(baseline: str, candidate: str, run_options: list[str], *, repository: Path, work: Path, pairs: int,
            report_repeats: int) -> list[Side]:
    """Run the study from each commit, baseline then candidate, ``pairs`` times, then redraw each side's report (from
    its first run) ``report_repeats`` times, alternating; the two sides, baseline first."""
    sources = {}
    for name, revision in (("baseline", baseline), ("candidate", candidate)):
        sources[name] = export(revision, repository, work / f"{name}_source")
    runs: dict[str, list[Timing]] = {name: [] for name in sources}
    counts: dict[str, set[tuple[int, int]]] = {name: set() for name in sources}
    for pair in range(pairs):
        for name, (source, commit) in sources.items():
            run_dir = work / f"{name}_run_{pair}"
            print(f"{name} ({commit}), run {pair + 1} of {pairs}: python -m harness run --out {run_dir} "
                  f"{' '.join(run_options)}", flush=True)
            runs[name].append(timed(_python_m("run", "--out", str(run_dir), "--no-progress", *run_options), source,
                                    work / f"{name}_run_{pair}.log"))
            counts[name].add(headline_counts(run_dir / "tables" / "headline.csv"))
    reports: dict[str, list[Timing]] = {name: [] for name in sources}
    for attempt in range(report_repeats):
        for name, (source, _) in sources.items():
            reports[name].append(timed(_python_m("report", str(work / f"{name}_run_0"), "--out",
                                                 str(work / f"{name}_report_{attempt}")),
                                       source, work / f"{name}_report_{attempt}.log"))
    sides = []
    for name, (_, commit) in sources.items():
        if len(counts[name]) > 1:  # seeds derive from the cells: a rerun decides the same verdicts
            raise RuntimeError(f"the {name} side's runs decided different verdicts ({sorted(counts[name])}): "
                               "not a deterministic study")
        best = min(reports[name], key=lambda report: report.wall) if reports[name] else None
        sides.append(Side(name, commit, *counts[name].pop(), tuple(runs[name]), best))
    return sides


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:.0f} s"


def table(sides: list[Side], report_repeats: int) -> str:
    """The Markdown table of ``sides`` and a line of the candidate's ratios to the baseline."""
    runs = len(sides[0].runs)
    median = f"median of {runs} runs: " if runs > 1 else ""
    lines = [f"| side | commit | headline verdicts decided | CPU (user + sys; {median}range) | CPU per decided verdict | "
             f"wall | report (best of {report_repeats}: wall, CPU) |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for side in sides:
        report = f"{side.report.wall:.1f} s, {side.report.cpu:.1f} CPU-s" if side.report else "not drawn again"
        spread = (f" ({min(run.cpu for run in side.runs):.0f} to {max(run.cpu for run in side.runs):.0f})"
                  if runs > 1 else "")
        lines.append(f"| {side.name} | {side.commit} | {side.decided} of {side.measured} | {side.run.cpu:.0f} s{spread} | "
                     f"{side.cpu_per_decided:.2f} s | {_minutes(side.run.wall)} | {report} |")
    baseline, candidate = sides
    ratios = [f"CPU per decided verdict {candidate.cpu_per_decided / baseline.cpu_per_decided:.2f} times the baseline's",
              f"run wall {candidate.run.wall / baseline.run.wall:.2f} times"]
    if baseline.report and candidate.report:
        ratios.append(f"report wall {candidate.report.wall / baseline.report.wall:.2f} times "
                      f"(CPU {candidate.report.cpu / baseline.report.cpu:.2f})")
    return "\n".join(lines) + "\n\ncandidate: " + "; ".join(ratios) + "."


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module's docstring."""
    arguments = sys.argv[1:] if argv is None else argv
    split = arguments.index("--") if "--" in arguments else len(arguments)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Options after -- go to both sides' 'python -m harness run'.")
    parser.add_argument("--baseline", default=ISSUE_DAY,
                        help=f"commit (any git revision) of the baseline side (default: {ISSUE_DAY}, the issue's day)")
    parser.add_argument("--candidate", default="HEAD", help="commit of the candidate side; '.' is this checkout as it "
                        "stands (default: HEAD)")
    parser.add_argument("--pairs", type=int, default=1,
                        help="runs of each side, alternating baseline and candidate; the medians count (default: 1)")
    parser.add_argument("--report-repeats", type=int, default=2,
                        help="times each side's report is drawn again, alternating; the best counts (0: none)")
    parser.add_argument("--work", type=Path, default=None,
                        help="directory for the exports, runs and logs (default: a new temporary one, kept)")
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers to this file")
    args = parser.parse_args(arguments[:split])
    if args.pairs < 1:
        parser.error(f"--pairs must be 1 or more, got {args.pairs}")
    if args.report_repeats < 0:
        parser.error(f"--report-repeats must be 0 or more, got {args.report_repeats}")
    repository = Path(__file__).resolve().parents[2]
    if args.work is not None and args.work.exists() and any(args.work.iterdir()):
        parser.error(f"--work {args.work} is not empty: give a new or empty directory")
    work = args.work or Path(tempfile.mkdtemp(prefix="back_to_back_"))
    work.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    try:
        sides = measure(args.baseline, args.candidate, arguments[split + 1:], repository=repository, work=work,
                        pairs=args.pairs, report_repeats=args.report_repeats)
    except ValueError as error:  # a revision git does not know
        print(f"error: {error}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as error:  # a side's run or report failed: its log says why
        print(f"error: {' '.join(error.cmd[1:])} exited with status {error.returncode}; its output is in the logs "
              f"under {work}", file=sys.stderr)
        return 1
    load_after = os.getloadavg()
    print(f"\nload average (1, 5, 15 min): {' '.join(f'{v:.2f}' for v in load_before)} before, "
          f"{' '.join(f'{v:.2f}' for v in load_after)} after; runs, reports and logs in {work}\n")
    print(table(sides, args.report_repeats))
    if args.json is not None:
        args.json.write_text(json.dumps({"sides": [asdict(side) | {"run": asdict(side.run),
                                                                    "cpu_per_decided": side.cpu_per_decided}
                                                   for side in sides],
                                         "load_before": load_before, "load_after": load_after}, indent=2),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
