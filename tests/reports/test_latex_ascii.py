"""Every LaTeX table the report writes is plain ASCII: each symbol the tables use is translated, so a standard
pdflatex compiles them without unicode set-up (an untranslated ∈ in the sensitivity table stopped it)."""

from __future__ import annotations

import pytest

from reports.rendering.latex import escape


@pytest.mark.slow
def test_every_written_table_is_ascii(realistic_report):
    tables = sorted((realistic_report.parent / "tables").glob("*.tex"))
    assert len(tables) >= 8 and any(path.name == "sensitivity.tex" for path in tables)
    for path in tables:
        text = path.read_text()
        offending = sorted({character for character in text if ord(character) > 127})
        assert not offending, f"{path.name} holds untranslated characters {offending}"


def test_the_symbols_of_the_tables_are_translated():
    assert escape("bins ∈ {5, 10}") == r"bins $\in$ \{5, 10\}"
    assert escape("✓ ρ 1.00 ≥ 0.8; ✗ R² 0.5 × 2 ≈ 1 …") == (
        r"$\checkmark$ $\rho$ 1.00 $\geq$ 0.8; $\times$ R$^2$ 0.5 $\times$ 2 $\approx$ 1 \ldots{}"
    )
