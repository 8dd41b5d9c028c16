"""The verdicts, floor 2 of ``reports``: every analysis run once (:class:`reports.verdicts.bundle.Bundle`), the
characteristics as one declarative table, the table of verdicts, and its views (headline, property matrix, seeds).

They import the analyses and the results contract; they never draw.
"""
