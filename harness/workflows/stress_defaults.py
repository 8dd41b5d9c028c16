"""The stress search's defaults, in a module light enough for ``--help`` (no numpy stack imported)."""

#: Cells of the stressed metric a search runs per scenario by default (points x seeds: 5 explored, 5 refined).
DEFAULT_BUDGET = 30
#: Draws of every point by default.
DEFAULT_SEEDS = 3
#: The most draws a candidate case gets when the search races its seeds: the cap of
#: :data:`harness.execution.racing.MAX_SEEDS` (repeated here for a light ``--help``; a test keeps them equal).
DEFAULT_MAX_SEEDS = 12
#: The fewest draws of a point: the seed spread needs two.
MIN_SEEDS = 2
#: Sample sizes a search draws from by default.
DEFAULT_SAMPLE_SIZES = (250, 500, 1000)
#: Smallest departure reported as a case.
DEFAULT_MIN_DEPARTURE = 0.1
#: Cases returned by default in each direction (over- and under-scoring).
DEFAULT_TOP = 3
