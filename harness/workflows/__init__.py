"""User workflows built on studies: evaluate arrays, validate a new metric (report card and axiom
checks), save and check baselines, load a user's metric with its metadata, the estimator report."""
