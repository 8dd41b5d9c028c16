"""Each review metric's CPU time against the review authors' own code, on identical inputs (issue 38, item 3).

Not a test, and nothing of the authors' code is in this project: their repository (Zaidi et al. 2022,
``github.com/ubisoft/ubisoft-laforge-disentanglement-metrics``) runs in its own environment, with the releases its
``requirements.txt`` pins (numpy 1.19, scikit-learn 0.23, pyitlib 0.2.2: Python 3.8), and this script drives it
through a subprocess.  Both sides score the same draw (the review's noise scenario at ``alpha = 0.2``, section 5.2,
written once to an ``.npz``), with the same options where both have them (10 bins, batches of 200, the authors'
training and evaluation sizes), under one BLAS thread, and each side's time is the median of ``--repeats`` calls of
``time.process_time`` after one untimed call (the libraries' lazy imports).  The ratio is ``authors / project``.

The reference implementations that every clone can rerun are in ``test_bench_review_ratios.py``; this script is
for the one comparison that needs the authors' environment::

    git clone https://github.com/ubisoft/ubisoft-laforge-disentanglement-metrics /tmp/authors
    python3.8 -m venv /tmp/authors/venv
    /tmp/authors/venv/bin/pip install -r /tmp/authors/requirements.txt threadpoolctl
    python tests/benchmarks/authors_code.py --checkout /tmp/authors --python /tmp/authors/venv/bin/python

Pairs of metrics (the authors' function, its keyword arguments; the project's metric, its options):
DCI is the authors' ``dci`` with ``model="lasso"`` against ``dci_lasso`` (its default penalty path, then the review's
fixed grid), and with
``model="random_forest"`` against ``dci_rf`` (a different model selection: out-of-bag leaf sizes, not a 10-fold grid;
so the same definition, another protocol).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from any directory

import metrics  # noqa: E402
import scenarios  # noqa: E402

#: (the authors' module and function, their keyword arguments, the project's metric, its options).
PAIRS: tuple[tuple[str, dict, str, dict], ...] = (
    ("mig", {"nb_bins": 10}, "mig", {"bins": 10}),
    ("mig_sup", {"nb_bins": 10}, "mig_sup", {"bins": 10}),
    ("jemmig", {"nb_bins": 10}, "jemmig", {"bins": 10}),
    ("dcimig", {"nb_bins": 10}, "dcimig", {"bins": 10}),
    ("modularity", {"nb_bins": 10}, "modularity", {"bins": 10}),
    ("sap", {"nb_bins": 10}, "sap", {}),
    ("irs", {"nb_bins": 10}, "irs", {"bins": 10}),
    ("explicitness", {"nb_bins": 10}, "explicitness", {"bins": 10}),
    ("z_diff", {"nb_bins": 10, "batch_size": 200}, "z_diff", {"bins": 10, "batch_size": 200}),
    ("z_min_var", {"nb_bins": 10, "batch_size": 200}, "z_min_var", {"bins": 10, "batch_size": 200}),
    ("z_max_var", {"nb_bins": 10, "batch_size": 200}, "z_max_var", {"bins": 10, "batch_size": 200}),
    ("dci", {"model": "lasso"}, "dci_lasso", {}),
    ("dci", {"model": "lasso"}, "dci_lasso", {"alpha_grid": "review"}),
    ("dci", {"model": "random_forest"}, "dci_rf", {}),
)

#: Run by the authors' Python: imports their metric, times it on the inputs, prints one JSON line per pair.
_DRIVER = """
import json, sys, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
checkout, inputs, repeats, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
sys.path.insert(0, checkout + "/src")
warnings.simplefilter("ignore")
data = np.load(inputs)
factors, codes = data["factors"], data["codes"]
for module, kwargs in pairs:
    function = getattr(__import__("metrics." + module, fromlist=[module]), module)
    times, score = [], None
    with threadpool_limits(limits=1):
        np.random.seed(repeats)
        function(factors, codes, **kwargs)  # untimed: the libraries' lazy imports and first-call set-up
        for repeat in range(repeats):
            np.random.seed(repeat)
            start = time.process_time()
            score = function(factors, codes, **kwargs)
            times.append(time.process_time() - start)
    values = [float(value) for value in np.atleast_1d(np.asarray(score, dtype=float))]
    print(json.dumps({"seconds": float(np.median(times)), "scores": values}), flush=True)
"""


def _project_seconds(name: str, options: dict, factors: np.ndarray, codes: np.ndarray, repeats: int) -> tuple[float, dict]:
    """The median CPU seconds of ``repeats`` calls of the project's metric, and its last scores."""
    stochastic = metrics.get(name).stochastic
    times, scores = [], {}
    with threadpool_limits(limits=1):
        metrics.evaluate(name, factors, codes, **options)  # untimed, as the authors' first call
        for repeat in range(repeats):
            start = time.process_time()
            scores = metrics.evaluate(name, factors, codes, **options, **({"random_state": repeat} if stochastic else {}))
            times.append(time.process_time() - start)
    return float(np.median(times)), scores


def _listed(scores) -> str:
    """Scores to two decimals, comma-separated (DCI's three in the order modularity, compactness, explicitness)."""
    return ", ".join(f"{float(score):.2f}" for score in scores)


def main(argv: list[str] | None = None) -> int:
    """Time every pair of :data:`PAIRS` on both sides and print a markdown table of the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, required=True, help="the authors' repository (its src/metrics)")
    parser.add_argument("--python", required=True, help="a Python with the authors' requirements installed")
    parser.add_argument("--n", type=int, default=20_000, help="samples (default: the review's 20000)")
    parser.add_argument("--repeats", type=int, default=3, help="calls per side and metric; the median is kept")
    parser.add_argument("--only", default=None,
                        help="comma-separated project metric names (default: every pair; the authors' random-forest DCI "
                             "grows 16000 trees a call at n = 20000, about an hour)")
    args = parser.parse_args(argv)
    if not (args.checkout / "src" / "metrics").is_dir():
        parser.error(f"{args.checkout} has no src/metrics: give the authors' repository")
    chosen = [pair for pair in PAIRS if args.only is None or pair[2] in args.only.split(",")]
    data = scenarios.get("noise").generate(0.2, n=args.n, seed=0)
    factors, codes = np.array(data.factors), np.array(data.codes)
    with tempfile.TemporaryDirectory() as folder:
        inputs = Path(folder) / "inputs.npz"
        np.savez(inputs, factors=factors, codes=codes)
        print(f"n = {args.n}, {factors.shape[1]} factors x {codes.shape[1]} codes, median of {args.repeats} calls, one thread")
        print("| authors' function | project metric | authors' scores | project scores | authors' CPU-s | project CPU-s | ratio |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for module, kwargs, name, options in chosen:
            # one process per pair, so that no pair runs in a process warmed or fragmented by another
            done = subprocess.run([args.python, "-c", _DRIVER, str(args.checkout), str(inputs), str(args.repeats),
                                   json.dumps([[module, kwargs]])], capture_output=True, text=True, cwd=folder)
            if done.returncode != 0:
                raise SystemExit(f"the authors' {module} failed:\n{done.stderr}")
            theirs = json.loads(done.stdout.strip().splitlines()[-1])
            ours, scores = _project_seconds(name, options, factors, codes, args.repeats)
            label = f"{module}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"
            print(f"| {label} | {name} | {_listed(theirs['scores'])} | {_listed(scores.values())} | {theirs['seconds']:.3f} "
                  f"| {ours:.3f} | {theirs['seconds'] / ours:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
