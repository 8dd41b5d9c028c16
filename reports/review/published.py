"""What the review prints, as data: its Table 2, its section-5 experiments and figures, and its Table 1.

Zaidi, Boilard, Gagnon and Carbonneau (2022), *Measuring Disentanglement: A Review of Metrics*.  Nothing
here is measured; the reports set these printed values beside the measurements.

* Table 2 ("Summary of findings from experiments and analysis"): 13 metric rows by 10 characteristic
  columns, each cell ✓, ✗ or n/a.  :data:`PRINTED` holds the rows exactly as printed (the metric's name
  and reference numbers, then its ten marks in the printed column order); :func:`published_table` reads
  them into a tidy table, which :mod:`reports.review.comparison` sets beside the verdicts.  The printed
  row "MIG-RMIG [8,9]" covers two metrics, which the review scores alike ("our results apply to both in
  the same way", section 4.4.1): here ``mig`` and ``rmig``, each compared with it.
* Section 5: one figure per controlled experiment (noise 5.2, Figure 4; decreasing modularity and
  compactness 5.3, Figure 5; nonlinear relation 5.5, Figure 7; non-measured factors 5.6, Figure 8;
  sample efficiency 5.7, Figure 9), each drawing the metrics of its three families (intervention,
  predictor, information) against the experiment's parameter.  :data:`EXPERIMENTS` names the scenario of
  this project that reproduces each one (each scenario's module cites the section it reproduces) and
  :data:`LINES` the sub-score of each of the review's metrics, with the review's name for it;
  :mod:`reports.review.figures` draws the figures in that arrangement.
* Table 1 (5.4, modular but not compact): :data:`TABLE_1`, which :mod:`reports.review.sections` sets beside
  the measured scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

#: Where the table comes from.
REFERENCE = ("Zaidi, Boilard, Gagnon and Carbonneau (2022), Measuring Disentanglement: A Review of Metrics, "
             "Table 2")
#: The printed column headings, in order, and the characteristic of :mod:`reports.verdicts.characteristics` each is.
COLUMNS = {
    "Modularity": "modularity",
    "Compactness": "compactness",
    "Explicitness": "explicitness",
    "Calibrated": "calibrated",
    "Robust to Noise": "robust_noise",
    "Robust to Non-measured Factors": "robust_non_measured",
    "Nonlinear Relation": "nonlinear_relation",
    "Discretization-free": "discretization_free",
    "Few Hyper-parameters": "few_hyperparameters",
    "Data Efficient": "data_efficient",
}
#: The printed marks and the verdict mark (:mod:`reports.analyses.checks`) each stands for.
MARKS = {"✓": "yes", "✗": "no", "n/a": "n/a"}

#: The rows as printed: ``name [references]`` then the ten marks, tab-separated, in the printed order.
PRINTED = """\
Z-diff [1]\t✗\t✗\t✗\t✓\t✓\t✓\t✗\t✗\t✗\t✓
Z-min Variance [2]\t✗\t✗\t✗\t✓\t✓\t✓\t✗\t✗\t✗\t✓
Z-max Variance [3]\t✗\t✗\t✗\t✗\t✗\t✗\t✗\t✗\t✗\t✗
IRS [4]\t✓\t✗\t✓\t✗\tn/a\t✗\t✗\t✗\t✗\t✓
DCI - Lasso [5]\t✓\t✗\t✓\t✗\t✓\t✓\t✗\t✓\t✓\t✓
DCI - Random Forest [5]\t✓\t✓\t✓\t✓\t✓\t✓\t✓\t✓\t✗\t✓
Explicitness Score [6]\t✗\t✗\t✓\t✗\tn/a\t✓\t✗\t✗\t✓\t✗
SAP [7]\t✗\t✓\t✓\t✓\tn/a\t✓\t✗\t✓\t✓\t✓
MIG-RMIG [8,9]\t✗\t✓\t✗\t✓\t✗\t✓\t✗\t✗\t✓\t✓
MIG-sup [10]\t✓\t✗\t✗\t✓\t✗\t✗\t✗\t✗\t✓\t✓
JEMMIG [9]\t✓\t✓\t✓\t✓\t✗\t✓\t✗\t✗\t✓\t✓
Modularity Score [6]\t✗\t✗\t✗\t✗\t✓\t✗\t✗\t✗\t✓\t✓
DCIMIG [11]\t✓\t✗\t✓\t✓\t✗\t✓\t✗\t✗\t✓\t✓
"""

#: The review's name of each printed row (without its references) -> the project's metrics it covers.
METRICS = {
    "Z-diff": ("z_diff",),
    "Z-min Variance": ("z_min_var",),
    "Z-max Variance": ("z_max_var",),
    "IRS": ("irs",),
    "DCI - Lasso": ("dci_lasso",),
    "DCI - Random Forest": ("dci_rf",),
    "Explicitness Score": ("explicitness",),
    "SAP": ("sap",),
    "MIG-RMIG": ("mig", "rmig"),
    "MIG-sup": ("mig_sup",),
    "JEMMIG": ("jemmig",),
    "Modularity Score": ("modularity",),
    "DCIMIG": ("dcimig",),
}
#: The review's reference list entries of the rows' numbers (its section "References").
REFERENCES = {
    "1": "Higgins et al. 2017", "2": "Kim and Mnih 2018", "3": "Kim et al. 2019", "4": "Suter et al. 2019",
    "5": "Eastwood and Williams 2018", "6": "Ridgeway and Mozer 2018", "7": "Kumar et al. 2018",
    "8": "Chen et al. 2018", "9": "Do and Tran 2020", "10": "Li et al. 2020", "11": "Sepliarskaia et al. 2020",
}


@dataclass(frozen=True)
class PrintedRow:
    """One printed row: the review's name of the metric, its reference numbers, its marks by column heading."""

    name: str
    references: tuple[str, ...]
    marks: dict[str, str]


def printed_rows() -> list[PrintedRow]:
    """:data:`PRINTED` read row by row (a row without ten marks, or with an unknown mark, is a ValueError)."""
    rows = []
    for line in PRINTED.splitlines():
        label, *marks = line.split("\t")
        name, _, numbers = label.rpartition(" [")
        if len(marks) != len(COLUMNS) or not set(marks) <= set(MARKS) or not numbers.endswith("]"):
            raise ValueError(f"malformed printed row of Table 2: {line!r}")
        rows.append(PrintedRow(name, tuple(numbers[:-1].split(",")), dict(zip(COLUMNS, marks))))
    return rows


def published_table() -> pd.DataFrame:
    """The published cells, one row per (printed row, project metric it covers, column).

    Returns
    -------
    pandas.DataFrame
        Columns ``review_metric`` (the printed name), ``references`` (``"8,9"``), ``metric`` (the project's),
        ``heading`` (the printed column), ``characteristic`` (its key in :mod:`reports.verdicts.characteristics`),
        ``published`` (the printed mark: ✓, ✗ or n/a) and ``published_mark`` (yes, no or n/a).  In the printed
        order; the MIG-RMIG row appears once for ``mig`` and once for ``rmig``.
    """
    records = [
        {"review_metric": row.name, "references": ",".join(row.references), "metric": metric, "heading": heading,
         "characteristic": COLUMNS[heading], "published": mark, "published_mark": MARKS[mark]}
        for row in printed_rows() for metric in METRICS[row.name] for heading, mark in row.marks.items()
    ]
    return pd.DataFrame(records)


#: The review's families, in the order of its figures' panels.
GROUPS = ("intervention", "predictor", "information")


@dataclass(frozen=True)
class Line:
    """One of the review's curves: its family panel, the project's metric and sub-score, the review's name."""

    group: str
    metric: str
    sub_score: str
    label: str


#: Every curve of the review's section-5 figures, panel by panel, in the order of its Table 1's columns (MIG-RMIG
#: drawn as the project's two metrics).
LINES = (
    Line("intervention", "z_diff", "z_diff", "Z-diff"),
    Line("intervention", "z_min_var", "z_min_var", "Z-min Variance"),
    Line("intervention", "z_max_var", "z_max_var", "Z-max Variance"),
    Line("intervention", "irs", "irs", "IRS"),
    Line("predictor", "dci_lasso", "modularity", "DCI Lasso Modularity"),
    Line("predictor", "dci_lasso", "compactness", "DCI Lasso Compactness"),
    Line("predictor", "dci_lasso", "explicitness", "DCI Lasso Explicitness"),
    Line("predictor", "dci_rf", "modularity", "DCI RF Modularity"),
    Line("predictor", "dci_rf", "compactness", "DCI RF Compactness"),
    Line("predictor", "dci_rf", "explicitness", "DCI RF Explicitness"),
    Line("predictor", "explicitness", "explicitness", "Explicitness Score"),
    Line("predictor", "sap", "sap", "SAP"),
    Line("information", "mig", "mig", "MIG"),
    Line("information", "rmig", "rmig", "RMIG"),
    Line("information", "mig_sup", "mig_sup", "MIG-sup"),
    Line("information", "jemmig", "jemmig", "JEMMIG"),
    Line("information", "modularity", "modularity", "Modularity Score"),
    Line("information", "dcimig", "dcimig", "DCIMIG"),
)


@dataclass(frozen=True)
class Experiment:
    """One experiment of the review's section 5 and the scenario reproducing it.

    Attributes
    ----------
    section, figure : str
        The review's section and the figure (or table) showing its results.
    scenario : str
        The scenario of this project that reproduces it.
    axis : str
        The paper's parameter axis, as its figure labels it.
    what : str
        What the figure shows, in this project's words.
    descending : bool
        Whether the paper's axis runs from the largest value down (the measured factors of 5.6).
    """

    section: str
    figure: str
    scenario: str
    axis: str
    what: str
    descending: bool = False


#: The experiments drawn as figures, in the paper's order (5.4 is a table: :data:`TABLE_1`).
EXPERIMENTS = (
    Experiment("5.2", "Figure 4", "noise", "noise level α",
               "a perfect code drowned in uniform noise of weight α (eq. 9)"),
    Experiment("5.3", "Figure 5", "mixing", "α",
               "each factor leaks α into the next code: less modular and less compact, as explicit"),
    Experiment("5.5", "Figure 7", "nonlinear", "α",
               "a perfect code through an increasingly nonlinear tan map (eq. 10)"),
    Experiment("5.6", "Figure 8", "partial", "measured factors (of 8)",
               "a perfect code of 8 factors of which only the first k are measured", descending=True),
    Experiment("5.7", "Figure 9", "sample_size", "number of samples",
               "mean |score(n) − score(n_max)| of random sparse codes z = v R"),
)
#: The modular-but-not-compact experiment (5.4), whose results the review gives as Table 1.
TABLE_1_EXPERIMENT = Experiment("5.4", "Table 1", "modular_not_compact", "case",
                                "each factor held by 2 or 4 codes (cos/sin of an angle, or copies)")

#: The review's Table 1 as printed (one decimal): case (the scenario's value) -> its row, in :data:`TABLE_1_COLUMNS`
#: order.  Its rows are the printed θ → [cos θ, sin θ], θ → [θ, θ] and θ → [θ, θ, θ, θ].
TABLE_1_COLUMNS = ("Z-diff", "Z-min Variance", "Z-max Variance", "IRS", "DCI Lasso Modularity", "DCI Lasso Compactness",
                   "DCI Lasso Explicitness", "DCI RF Modularity", "DCI RF Compactness", "DCI RF Explicitness",
                   "Explicitness Score", "SAP", "MIG-RMIG", "MIG-sup", "JEMMIG", "Modularity Score", "DCIMIG")
TABLE_1 = {
    "cos_sin": (1.0, 1.0, 1.0, 0.8, 0.8, 1.0, 0.6, 1.0, 0.7, 1.0, 1.0, 0.6, 0.0, 0.7, 0.4, 1.0, 0.6),
    "duplicate_2": (1.0, 1.0, 1.0, 0.9, 1.0, 1.0, 1.0, 1.0, 0.7, 1.0, 1.0, 0.0, 0.0, 1.0, 0.5, 1.0, 1.0),
    "duplicate_4": (1.0, 1.0, 1.0, 0.9, 1.0, 1.0, 1.0, 1.0, 0.4, 1.0, 1.0, 0.0, 0.0, 1.0, 0.5, 1.0, 1.0),
}
#: How the review prints each case.
TABLE_1_CASES = {"cos_sin": "θ → [cos θ, sin θ]", "duplicate_2": "θ → [θ, θ]", "duplicate_4": "θ → [θ, θ, θ, θ]"}
#: Table 1's column of each line (MIG-RMIG holds both mig and rmig).
TABLE_1_COLUMN_OF = {line: ("MIG-RMIG" if line.label in ("MIG", "RMIG") else line.label) for line in LINES}
