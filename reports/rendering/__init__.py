"""Rendering, floor 3 of ``reports``: figures (styles, label placement, small multiples, the comparison plot, chance
levels and phase diagrams drawn) and the file formats (HTML, Markdown, LaTeX).

Rendering reads the results contract, the analyses' tables and the verdicts; it judges nothing.
"""
