"""The baseline file's format name, cell keys and default tolerances (no heavy imports: the CLI reads them)."""

FORMAT = "disentanglement-harness-baseline/1"
#: Columns identifying a cell of a baseline.
CELL_KEYS = ("scenario", "parameter", "value", "value_label", "n_samples", "metric", "sub_score")
#: Default absolute tolerance: far above floating-point noise, far below any real change of a score.
DEFAULT_ATOL = 1e-6
#: Default relative tolerance.
DEFAULT_RTOL = 0.0
#: Failing cells a check's report shows before folding the rest (``baseline check --max-rows``; 0 shows all).
DEFAULT_MAX_ROWS = 20
