"""The results contract, floor 0 of ``reports``: the results table's schema, its loading and checking, options and
parameters as columns, and how a result is displayed as text.

``harness.execution`` writes rows by this contract and every other floor of ``reports`` reads them by it; nothing here
imports another floor (``tests/test_import_graph.py``).
"""
