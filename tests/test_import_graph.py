"""The four packages import one another only along the data flow, and no module imports itself back.

Every ``import`` and ``from ... import`` in ``scenarios``, ``metrics``, ``harness`` and ``reports``
(at module level or inside a function: a lazy import is still a dependency) is read with
``ast``; the graph of module -> imported module must have no cycle, and no edge may run
against the flow ``scenarios, metrics -> harness -> reports`` except ``reports`` reading the
metric and scenario contracts' constants (``metrics.registry``, ``scenarios.base``).  The execution layer
(``harness.execution``) reads of ``reports`` the results contract, the characteristics' declarations and the
verdicts racing asks for, never an analysis: what a verdict reads is declared, not learnt from its analysis.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scenarios", "metrics", "harness", "reports")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        found.update(target for target in targets if target in known and target != name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle_among_the_four_packages():
    assert _cycle(_graph()) is None, f"import cycle: {' -> '.join(_cycle(_graph()))}"


def test_imports_follow_the_data_flow():
    allowed = {
        "scenarios": {"scenarios"},
        "metrics": {"metrics"},
        "harness": {"harness", "scenarios", "metrics", "reports"},
        "reports": {"reports"},
    }
    contracts = {"metrics.registry", "scenarios.base"}  # constants the results schema shares
    wrong = [
        f"{module} imports {target}"
        for module, targets in _graph().items()
        for target in targets
        if target.split(".")[0] not in allowed[module.split(".")[0]] and target not in contracts
    ]
    assert not wrong, "imports against the data flow: " + "; ".join(sorted(wrong))


#: What ``harness.execution`` may import of ``reports``: the results contract (its schema and option columns), the
#: interval rule (the seeds an interval needs), the characteristics (which cells a verdict reads a null at) and the
#: verdicts (racing asks which are undecided).  Never an analysis of its own.
EXECUTION_READS = {"reports.results.schema", "reports.results.options", "reports.analyses.intervals",
                   "reports.verdicts.characteristics", "reports.verdicts.bundle", "reports.verdicts.verdict_table"}


def test_execution_reads_declarations_never_an_analysis():
    wrong = [
        f"{module} imports {target}"
        for module, targets in _graph().items()
        if module.split(".")[:2] == ["harness", "execution"]
        for target in targets
        if target.split(".")[0] == "reports" and target not in EXECUTION_READS
    ]
    assert not wrong, "harness.execution imports of reports beyond its declarations: " + "; ".join(sorted(wrong))


#: The floors of ``reports``, bottom up: a sub-package's name says its floor, and the products (the report, the
#: report card, the stress and estimator reports) sit in the package itself, on top.
REPORT_FLOORS = ("reports.results", "reports.analyses", "reports.verdicts", "reports.rendering", "reports.review",
                 "reports")


def _floor(module: str) -> int:
    """The floor of a module of ``reports``: its sub-package's, or the top for the package's own modules."""
    if module in REPORT_FLOORS:
        return REPORT_FLOORS.index(module)
    return REPORT_FLOORS.index(module.rpartition(".")[0] if module.count(".") >= 2 else "reports")


def test_every_report_module_lives_on_a_floor():
    strays = [module for module in _modules() if module.startswith("reports.") and module.count(".") >= 2
              and module.rpartition(".")[0] not in REPORT_FLOORS]
    assert not strays, f"modules of reports outside its floors {REPORT_FLOORS}: {strays}"


def test_reports_import_only_their_own_floor_or_below():
    graph = _graph()
    wrong = [
        f"{module} (floor {REPORT_FLOORS[_floor(module)]}) imports {target} (floor {REPORT_FLOORS[_floor(target)]})"
        for module, targets in graph.items()
        if module.startswith("reports.")
        for target in targets
        if target.startswith("reports.") and _floor(target) > _floor(module)
    ]
    assert not wrong, "reports importing a floor above their own: " + "; ".join(sorted(wrong))


def test_the_floor_rule_finds_an_import_upwards():
    assert _floor("reports.results.table") < _floor("reports.analyses.calibration") < _floor("reports.verdicts.bundle")
    assert _floor("reports.rendering.figures") < _floor("reports.review.figures") < _floor("reports.report")
    assert _floor("reports.results") == 0  # a sub-package's own __init__ is on its floor


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
