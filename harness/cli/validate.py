"""``python -m harness validate``: the report card of a user's metric (see :mod:`harness.workflows.validate`)."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from harness.errors import UsageError, did_you_mean

EXIT_FAILED_CELLS = 1
"""Cells of the validated metric failed (raised or timed out); the card is still written."""
EXIT_NOT_PASSED = 3
"""A criterion named by ``--fail-on`` is not passed (failed, undecided or not measured); the card is still written."""


def _probe(text: str) -> tuple[str, float | str]:
    """``SCENARIO:VALUE`` split at the last colon, so that SCENARIO may be ``path/to/file.py:name``."""
    scenario, sep, value = text.rpartition(":")
    if not sep or not scenario or not value:
        raise argparse.ArgumentTypeError(f"expected SCENARIO:VALUE such as mixing:0.2, got {text!r}")
    try:
        return scenario, float(value)
    except ValueError:
        return scenario, value


PROPERTY_CHOICES = "modularity, compactness, explicitness or holistic"
"""The properties of :data:`metrics.SCORE_PROPERTIES`, written out so that ``--help`` need not import the metrics
(a test keeps the two equal)."""


FAIL_ON_CHOICES = ("the card's calibration, linearity, robustness, entanglement_attacks, sample_efficiency, or the "
                   "property matrix's modularity, compactness, explicitness, calibrated, linear, robust_noise, "
                   "robust_non_measured, nonlinear_relation, follows_attacks, discretization_free, few_hyperparameters, "
                   "data_efficient, or the axioms: axioms (every one), permute_codes_axiom, permute_samples_axiom, "
                   "flip_sign_axiom, rescale_axiom, monotone_axiom, duplicate_code_axiom, determinism_axiom, "
                   "chance_axiom")
"""The names of :data:`reports.report_card.FAIL_ON`, written out so that ``--help`` need not import the reports
(a test keeps the two equal)."""


#: ``--direction``'s words, and the ``higher_is_better`` each stands for.
DIRECTIONS = {"higher": True, "lower": False}


def _per_sub_score(text: str, option: str, form: str, example: str) -> str | dict[str, str]:
    """A claim option's text (``--property``, ``--direction``): one word for every sub-score, or ``SUB=WORD,...``
    split into sub-score -> word; the words are checked by the caller.

    Parameters
    ----------
    text : str
        What the user typed.
    option, form, example : str
        The option (``--property``), its per-sub-score form (``SUB=PROPERTY``) and an example item
        (``mod=modularity``), for messages.

    Raises
    ------
    harness.errors.UsageError
        For an item that is not ``SUB=WORD``, or a sub-score named twice.
    """
    if "=" not in text:
        return text
    claims: dict[str, str] = {}
    for item in text.split(","):
        sub_score, sep, word = (part.strip() for part in item.partition("="))
        if not sep or not sub_score:
            raise UsageError(f"{option}: expected {form} such as {example}, got {item.strip()!r}")
        if sub_score in claims:
            raise UsageError(f"{option} names sub-score {sub_score!r} twice")
        claims[sub_score] = word
    return claims


def property_claim(text: str) -> str | dict[str, str]:
    """``--property``: one property (``modularity``), or ``SUB=PROPERTY,...`` (``mod=modularity,comp=compactness``),
    the sub-score -> property mapping of :func:`metrics.describe.describe_metric`.

    Raises
    ------
    harness.errors.UsageError
        For an unknown property, an item that is not ``SUB=PROPERTY``, or a sub-score named twice.
    """
    from metrics.registry import SCORE_PROPERTIES, check_properties

    claim = _per_sub_score(text, "--property", "SUB=PROPERTY", "mod=modularity")
    if isinstance(claim, str):
        if claim not in SCORE_PROPERTIES:
            raise UsageError(f"--property must be one of {', '.join(SCORE_PROPERTIES)}, or SUB=PROPERTY,... per sub-score; "
                             f"got {claim!r}{did_you_mean([claim], SCORE_PROPERTIES)}")
        return claim
    try:
        return check_properties(claim)
    except ValueError as error:
        raise UsageError(f"--property: {error}") from None


def direction_claim(text: str) -> bool | dict[str, bool]:
    """``--direction``: ``higher`` or ``lower`` for every sub-score, or ``SUB=higher|lower,...``
    (``miss=lower``), the sub-score -> ``higher_is_better`` mapping of :func:`metrics.describe.describe_metric`
    (unlisted sub-scores higher-is-better).

    Raises
    ------
    harness.errors.UsageError
        For a word other than ``higher`` or ``lower``, an item that is not ``SUB=DIRECTION``, or a sub-score
        named twice.
    """
    claim = _per_sub_score(text, "--direction", "SUB=DIRECTION", "miss=lower")
    if isinstance(claim, str):
        if claim not in DIRECTIONS:
            raise UsageError(f"--direction must be {' or '.join(DIRECTIONS)}, or SUB=DIRECTION,... per sub-score; "
                             f"got {claim!r}")
        return DIRECTIONS[claim]
    for sub_score, word in claim.items():
        if word not in DIRECTIONS:
            raise UsageError(f"--direction: direction of sub-score {sub_score!r} must be {' or '.join(DIRECTIONS)}; "
                             f"got {word!r}")
    return {sub_score: DIRECTIONS[word] for sub_score, word in claim.items()}


def fail_on(text: str) -> list[str]:
    """``--fail-on``: comma-separated criteria of the card or characteristics of the property matrix, checked here
    (:data:`reports.report_card.FAIL_ON`) so that a typo is said before the battery runs."""
    from harness.workflows.validate import FAIL_ON_AXIOMS
    from reports.report_card import FAIL_ON

    known = [*FAIL_ON, *FAIL_ON_AXIOMS]
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown criteria {unknown}{did_you_mean(unknown, known)}; known: "
                                         f"{', '.join(known)}")
    if not names:
        raise argparse.ArgumentTypeError("expected comma-separated criteria such as calibration,linearity")
    return names


def score_range(text: str) -> tuple[float, float]:
    """``--score-range LOW,HIGH``: two finite numbers, LOW < HIGH."""
    low, sep, high = text.partition(",")
    try:
        bounds = (float(low), float(high)) if sep else None
    except ValueError:
        bounds = None
    if bounds is None or not all(map(math.isfinite, bounds)) or bounds[0] >= bounds[1]:
        raise argparse.ArgumentTypeError(f"expected LOW,HIGH, two finite numbers with LOW < HIGH, such as -1,1; got {text!r}")
    return bounds


def add_command(commands: argparse._SubParsersAction) -> None:
    """Add ``validate`` to the command line."""
    from harness.cli._args import add_grid, add_study_selection, non_negative_int, positive_int
    from harness.execution.presets import PRESETS

    parser = commands.add_parser(
        "validate",
        help="validate your own metric: report card against the built-ins, and axiom checks",
        description=(
            "Run METRIC (path/to/file.py:function or package.module:function; no registration needed) through the "
            "scenario battery of --preset next to the built-in metrics, on the same data, and write a report card "
            "into --out: its calibration, linearity, robustness, sample efficiency and cost with its rank among the "
            "built-ins, its property-matrix verdicts, and axiom checks (invariance to permuting codes and samples, "
            "sign flips, rescaling and monotone maps of codes; no reward for a duplicated code; determinism; "
            "chance-level score on independent codes), each with the measured number and its tolerance. Every "
            "criterion carries its verdict (the property matrix's rule), and the card opens with an overall line. "
            "Metadata flags override the function's @describe_metric decorator: each replaces the decorator's claim "
            "of its kind as a whole (--property the properties, a direction flag the directions). Exit status: 0 "
            "when every cell of METRIC was scored (and every --fail-on criterion passes), 1 when some failed (raised "
            "or timed out, in the battery or the --stress search; the card is still written and lists them, as do "
            "failures.csv and stress/search/failures.csv), 3 when a --fail-on "
            "criterion is not passed, 2 for a usage error (nothing runs)."
        ),
    )
    parser.add_argument("metric", metavar="METRIC", help="path/to/file.py:function or package.module:function")
    parser.add_argument("--property", metavar="PROPERTY|SUB=PROPERTY,...",
                        help=f"the property your metric claims to measure: {PROPERTY_CHOICES} (default: holistic); for a "
                        "metric returning a dict of sub-scores, one per sub-score, e.g. "
                        "mod=modularity,comp=compactness,expl=explicitness (unlisted sub-scores: holistic; a sub-score "
                        "it does not return is refused)")
    direction = parser.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher_is_better", action="store_const", const=True,
                           help="a larger score is better (the default)")
    direction.add_argument("--lower-is-better", dest="higher_is_better", action="store_const", const=False,
                           help="a smaller score is better, for every sub-score")
    direction.add_argument("--direction", metavar="higher|lower|SUB=DIRECTION,...",
                           help="whether a larger or a smaller score is better, per sub-score for a metric returning "
                           "a dict, e.g. miss=lower,rho=higher (unlisted sub-scores: higher; a sub-score it does not "
                           "return is refused); 'higher' or 'lower' alone is --higher-is-better or --lower-is-better")
    randomness = parser.add_mutually_exclusive_group()
    randomness.add_argument("--stochastic", dest="stochastic", action="store_const", const=True,
                            help="the metric draws random numbers from its random_state argument (refused for a "
                            "function that takes none: the harness could not seed it)")
    randomness.add_argument("--deterministic", dest="stochastic", action="store_const", const=False,
                            help="the metric draws no random numbers (the default)")
    parser.add_argument("--name", help="name of your metric in the results and of the card's directory "
                        "validation/NAME: a plain file name, with no '/' or '\\' (default: the function's name)")
    parser.add_argument("--preset", help=f"scenario battery: {', '.join(PRESETS)} (default: validate, every scenario "
                        "of the default study with seeds raced from 3 to 12 where a verdict is undecided; quick: noise "
                        "and mixing, 1 seed, a smoke test)")
    add_study_selection(
        parser, metrics_help="comma-separated built-in metrics to compare with, or their variants as the results name "
        "them, mig[bins=5] (default: the preset's)",
        jobs_help="parallel worker processes for the battery's cells, -1 for all cores (default: %(default)s); "
        "scores do not depend on it",
        cell_timeout_help="stop a metric call that runs longer than this: in the battery, its cell is recorded as "
        "failed; on the probe, its axiom check fails with 'timed out after S s' (default: no limit)",
    )
    add_grid(parser)
    parser.add_argument("--fail-on", type=fail_on, metavar="CRITERIA",
                        help="exit with status 3 when METRIC does not pass one of these (fails it, is undecided or is "
                        f"not measured by the battery), for a CI job: comma-separated criteria: {FAIL_ON_CHOICES}; "
                        "e.g. --fail-on calibration,linearity")
    parser.add_argument("--score-range", type=score_range, metavar="LOW,HIGH",
                        help="the range METRIC's scores are declared to lie in: the card warns about scores outside it "
                        "(scores outside [0, 1], which every verdict's threshold assumes, are warned about whatever it "
                        "is); default: the score_range METRIC declares with @describe_metric, if any")
    parser.add_argument("--out", type=Path, help="output directory of the report card (default: validation/NAME)")
    parser.add_argument("--builtins-dir", type=Path,
                        help="run directory caching the built-in metrics' scores, shared by validations so that they are "
                        "computed once (default: builtins/ beside the card's directory: validation/builtins for the "
                        "default --out, DIR/../builtins for --out DIR)")
    parser.add_argument("--probe", type=_probe, help="SCENARIO:VALUE the axioms are checked on, SCENARIO a representation "
                        "scenario named as in --scenarios (default: mixing:0.2)")
    parser.add_argument("--probe-samples", type=positive_int, help="samples of the probe (default: 2000)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the probe and of the metric there (default: %(default)s)")
    parser.add_argument("--stress", action="store_true",
                        help="also search --scenarios (default: every representation scenario but sample_size) for "
                        "where the metric departs most from its ideal, and add the cases to the card (see 'stress')")
    parser.add_argument("--stress-budget", type=positive_int, metavar="CELLS",
                        help="with --stress: cells of the metric per scenario in the stress search (default: "
                        "stress's)")
    parser.add_argument("--no-progress", action="store_true",
                        help="hide the progress bars (\"built-in metrics' cells\", then \"NAME's cells\")")
    parser.set_defaults(handler=_validate)


def _status(line: str) -> None:
    """A status line (cells reused, failures, the axiom checks starting) goes to stderr, with the progress bars,
    so that stdout is the report card alone (``validate ... > card.md``)."""
    print(line, file=sys.stderr)


def _validate(args: argparse.Namespace) -> int:
    """Run the validation the arguments describe; exit status 1 when cells of the user's metric failed, 3 when a
    ``--fail-on`` criterion is not passed."""
    from harness.cli._args import grids, study_options
    from harness.outputs import writable_output
    from harness.workflows.user_metric import metric_entry, reference_of
    from harness.workflows.validate import validate

    if args.stress_budget is not None and not args.stress:  # it was ignored, and the card had no stress section
        raise UsageError("--stress-budget sets the budget of the --stress search: add --stress, or leave it out")
    claimed = property_claim(args.property) if args.property is not None else None
    direction = direction_claim(args.direction) if args.direction is not None else args.higher_is_better
    name = metric_entry(reference_of(args.metric), name=args.name).name
    out = writable_output(args.out or Path("validation") / name, "--out", directory=True)
    builtins_dir = writable_output(args.builtins_dir or out.parent / "builtins", "--builtins-dir", directory=True)
    card = validate(
        args.metric,
        property=claimed,
        higher_is_better=direction,
        stochastic=args.stochastic,
        name=args.name,
        preset=args.preset,
        builtins=args.metrics,
        out=out,
        builtins_dir=builtins_dir,
        progress=not args.no_progress,
        seed=args.seed,
        grids=grids(args.grid),
        score_range=args.score_range,
        **study_options(args),
        stress=args.stress,
        log=_status,
        **{key: value for key, value in (("probe", args.probe), ("probe_samples", args.probe_samples),
                                         ("stress_budget", args.stress_budget)) if value is not None},
    )
    print(card.to_markdown())
    written = ["report_card.json", "results.parquet", "results.csv"] + (["failures.csv"] if len(card.failures) else [])
    _status(f"report card: {out / 'report_card.md'} (also {', '.join(written)})")
    failed = len(card.own_failures)
    stressed = card.stress.failed if card.stress is not None else 0  # the stress search's cells count too
    if failed or stressed:  # as `run` does: a script or CI job must not read a metric that failed cells as validated
        where = [str(out / "failures.csv")] * bool(failed) + [str(out / "stress" / "search" / "failures.csv")] * bool(stressed)
        _status(f"{failed + stressed} cell(s) of {card.entry.name} failed (see {' and '.join(where)}): exit status 1"
                + (" (before --fail-on, which reads the cells that scored)" if args.fail_on else ""))
        return EXIT_FAILED_CELLS
    not_passed = card.not_passed(args.fail_on or [])
    if not_passed:
        _status(f"{card.entry.name} does not pass {'; '.join(not_passed)}: exit status {EXIT_NOT_PASSED} (--fail-on)")
        return EXIT_NOT_PASSED
    return 0
