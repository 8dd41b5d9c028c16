"""The review, floor 4 of ``reports``: what the review publishes (its Tables 1 and 2, its section-5 experiments) as
data, set beside the verdicts measured here, as report sections and redrawn figures.
"""
