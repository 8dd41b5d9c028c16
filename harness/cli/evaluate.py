"""``python -m harness evaluate``: score your own factors and codes with every metric (see :mod:`harness.workflows.evaluate`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.errors import UsageError

EXIT_METRIC_FAILED = 1


def add_command(commands: argparse._SubParsersAction) -> None:
    """Add ``evaluate`` to the command line."""
    from harness.cli._args import csv_list, non_negative_int

    parser = commands.add_parser(
        "evaluate",
        help="score your own representation (factors and codes files) with every metric",
        description="Load the ground-truth factors (n x K) and the codes (n x L) of the same n samples from .npy, "
        ".npz or .csv files (an .npz holding several arrays: FILE.npz:KEY; a CSV header row is skipped, pandas' row index dropped; a note says so), run every "
        "registered metric (or --metrics) on them, print the score table and write it to --out. Exit status 1 when "
        "a metric failed on the data (its error is in the table), 0 otherwise.",
    )
    parser.add_argument("--factors", required=True, metavar="FILE", help="factors: .npy, .npz[:KEY] or .csv")
    parser.add_argument("--codes", required=True, metavar="FILE", help="codes: .npy, .npz[:KEY] or .csv")
    parser.add_argument("--discrete", metavar="INDICES",
                        help="which factors are discrete (categorical): comma-separated column indices such as 0,2, "
                        "or 'all' (default: none)")
    parser.add_argument("--metrics", type=csv_list,
                        help="comma-separated metric names, variants as the results name them (mig[bins=5]: the metric "
                        "with those options), or module:function / file.py:function (default: every metric)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="random_state of stochastic metrics (default: %(default)s)")
    parser.add_argument("--permutations", type=non_negative_int, default=0, metavar="B",
                        help="also score every metric on B row permutations of the codes (seeded by --seed): each "
                        "sub-score gets its null mean, 95%% chance level and permutation p-value, (1 + #null at least "
                        "as good) / (B + 1), so B = 99 reaches 0.01 (default: 0, no null)")
    parser.add_argument("--out", type=Path, default=Path("scores.csv"),
                        help="score table to write: .csv, .json or .md (default: %(default)s); an existing file is kept "
                        "unless --force")
    parser.add_argument("--force", action="store_true", help="overwrite --out when it exists (default: refuse, exit 2, "
                        "as baseline save does)")
    parser.set_defaults(handler=_evaluate)


def _evaluate(args: argparse.Namespace) -> int:
    from harness.outputs import writable_output
    from harness.workflows.evaluate import (
        categorical_looking,
        check_score_file,
        continuous_looking,
        evaluate_representation,
        format_scores,
        load_array,
        parse_discrete,
        write_scores,
    )
    from metrics.validation import constant_columns

    writable_output(check_score_file(args.out), "--out")  # before any metric runs
    if args.out.is_file() and not args.force:
        raise UsageError(f"--out {str(args.out)!r} exists; pass --force to overwrite it, or --out to write elsewhere")
    read_notes: list[str] = []  # how a CSV's header or index was read
    factors = load_array(args.factors, "factors", read_notes)
    codes = load_array(args.codes, "codes", read_notes)
    discrete = parse_discrete(args.discrete, factors.shape[1])
    table = evaluate_representation(factors, codes, metric_names=args.metrics, discrete=discrete, random_state=args.seed,
                                    permutations=args.permutations)
    for note in read_notes:
        print(f"note: {note}")
    print(f"{factors.shape[0]} samples, {factors.shape[1]} factors "
          f"({sum(discrete)} discrete), {codes.shape[1]} codes")
    constant = constant_columns(factors)
    if constant:
        columns = ",".join(map(str, constant))
        print(f"hint: factor column(s) {columns} hold a single value; drop them: some metrics score a constant factor 0 "
              "and average it in (mig), others refuse it (dci_lasso, sap)")
    hint = categorical_looking(factors, discrete)
    if hint:
        columns = ",".join(map(str, hint))
        print(f"hint: factor column(s) {columns} hold few integer values; if categorical, pass --discrete {columns}")
    hint = continuous_looking(factors, discrete)
    if hint:
        columns = ",".join(map(str, hint))
        print(f"hint: factor column(s) {columns}, marked discrete, hold many values that are not whole numbers: each "
              "value is read as a category of its own (information metrics fall to about 0); if continuous, leave "
              f"{'them' if len(hint) > 1 else 'it'} out of --discrete")
    print(format_scores(table))
    for note in table.attrs.get("sub_score_notes", []):
        print(f"note: {note}")
    for metric, error in table.attrs.get("null_failures", {}).items():
        print(f"note: no permutation null for {metric} (its score stands): {error}")
    path = write_scores(table, args.out)
    failed = sorted(set(table.loc[table["error"] != "", "metric"]))
    print(f"scores written to {path}" + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return EXIT_METRIC_FAILED if failed else 0
