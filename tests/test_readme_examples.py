"""The marked examples of every Markdown file (the README and the guides) print what their output blocks show.

The markers, how the examples run and the normalisation are documented in ``tests/readme_examples.py``;
``python tests/readme_examples.py --update FILE.md`` regenerates every checked block of FILE.md from a real run.
Each file's examples run in order in a working directory of their own.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCUMENTED_FOLDERS = ("harness", "metrics", "scenarios", "reports", "tests")
"""The repository's fixed top-level folders, whose Markdown files (guides) are checked besides the top level's."""


def _load_helper():
    spec = importlib.util.spec_from_file_location("readme_examples", Path(__file__).with_name("readme_examples.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


readme_examples = _load_helper()


def markdown_files() -> list[Path]:
    """Every Markdown file of the repository: the top level's and those of its fixed folders."""
    found = sorted(ROOT.glob("*.md"))
    for folder in DOCUMENTED_FOLDERS:
        found += sorted(path for path in (ROOT / folder).rglob("*.md") if "__pycache__" not in path.parts)
    return found


DOCUMENTS = {path.relative_to(ROOT).as_posix(): readme_examples.parse(path.read_text()) for path in markdown_files()}


def test_the_guides_are_found_and_the_documented_examples_are_marked():
    assert {"README.md", "harness/README.md", "metrics/README.md", "scenarios/README.md", "reports/README.md"} <= set(DOCUMENTS)
    shown = {(output.name, output.file) for output in DOCUMENTS["harness/README.md"][1]}
    for name in ("validate", "baseline", "baseline-drift", "baseline-tolerance", "evaluate", "estimators"):
        assert (name, None) in shown, f"harness/README.md output block {name!r} is not marked"
    assert ("baseline", "baselines/small.json") in shown
    assert ("own-metric", None) in {(output.name, output.file) for output in DOCUMENTS["metrics/README.md"][1]}


RUN_DOCUMENTS = [document for document, (examples, _) in DOCUMENTS.items() if examples]


@pytest.mark.slow
@pytest.mark.parametrize("document", RUN_DOCUMENTS)
def test_every_example_runs_and_prints_what_its_output_blocks_show(document, tmp_path):
    # One test per document, not one per example and block: a document's examples run in order in one working
    # directory, and under pytest-xdist every worker given one of its tests ran them all again (the harness guide's
    # two minutes, twice).
    examples, outputs = DOCUMENTS[document]
    results = readme_examples.run_examples(examples, outputs, tmp_path)
    problems = [f"example {name!r}: the lines before the last exited with status {run.setup_status}:\n{run.stderr[-2000:]}"
                for name, run in results.items() if run.setup_status != 0]
    for output in outputs:
        run = results[output.name]
        if run.setup_status == 0:
            problems += [f"output block {output.name!r}{' (' + output.file + ')' if output.file else ''}: {problem}"
                         for problem in readme_examples.differences(output, readme_examples.printed(run, output, tmp_path))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("document", sorted(DOCUMENTS))
def test_every_command_a_document_shows_is_real_and_its_python_compiles(document):
    # the fast tier's check of the examples (the slow tier runs them): every `python -m harness` line parses, every
    # inline command names a real command and options, every piece of Python compiles
    assert not readme_examples.command_problems((ROOT / document).read_text())


def test_the_example_check_finds_a_misspelled_command_an_unknown_option_and_broken_python():
    text = ("Run `python -m harness rnu --seeds 2` or `python -m harness baseline save|chek`, then\n"
            "`python -m harness run --seedz 3` and `python -m harness --debug COMMAND --anything`.\n"
            "```bash\npython -m harness run --preset quick \\\n    --n-sampels 500 --out runs/x; echo done\n"
            "python -m harness validate m.py:f --fail-on calibration && python -m harness list --help\n"
            "cat > m.py <<'EOF'\ndef f(factors, codes:\n    return 1.0\nEOF\n```\n"
            "```python\nimport metrics\nprint(metrics.available()\n```\n")
    problems = readme_examples.command_problems(text)
    assert len(problems) == 6, problems
    for expected in ("no command 'rnu'", "no command 'save|chek'", "no option '--seedz'", "--n-sampels",
                     "the Python of line 8", "the Python of line 14"):
        assert sum(expected in problem for problem in problems) == 1, (expected, problems)
    fixed = (text.replace("rnu", "run").replace("chek", "check").replace("seedz", "seeds").replace("sampels", "samples")
             .replace("codes:", "codes):")
             .replace("available()", "available())"))
    assert readme_examples.command_problems(fixed) == []


def test_a_python_example_runs_as_one_script_and_must_succeed(tmp_path):
    examples, outputs = readme_examples.parse("<!-- readme-example: a -->\n```python\nx = 6\nprint(x * 7)\n```\n"
                                              "<!-- readme-example: b -->\n```python\nraise SystemExit(3)\n```\n")
    runs = readme_examples.run_examples(examples, outputs, tmp_path)
    assert runs["a"].stdout == "42\n" and runs["a"].setup_status == 0
    assert runs["b"].setup_status == 3


def _block(lines: str, name: str = "example") -> readme_examples.Block:
    return readme_examples.Block(name, None, False, tuple(lines.splitlines()), 0)


EVALUATE = """5000 samples, 4 factors
| metric | score  | seconds |
| ------ | ------ | ------- |
| mig    | 0.5461 | 0.012   |
scores written"""


def test_durations_and_table_padding_are_masked_but_scores_are_not():
    slower = EVALUATE.replace("| mig    | 0.5461 | 0.012   |", "| mig | 0.5461 | 10.250 |").replace("| ------ | ------ | ------- |", "| --- | --- | --- |")
    assert readme_examples.differences(_block(EVALUATE), slower.splitlines()) == []
    drifted = EVALUATE.replace("0.5461", "0.5462")
    assert readme_examples.differences(_block(EVALUATE), drifted.splitlines()) != []


def test_the_cost_row_of_a_report_card_is_masked_and_the_others_are_not():
    card = """| criterion   | value  | rank   | best built-in        |
| ----------- | ------ | ------ | -------------------- |
| linearity   | 0.9501 | 3 of 4 | mig (0.979)          |
| cost        | 0.0038 | 3 of 4 | modularity (0.00129) |"""
    printed = card.replace("0.0038 | 3 of 4 | modularity (0.00129)", "0.0114 | 2 of 4 | mig (0.00156)")
    assert readme_examples.differences(_block(card), printed.splitlines()) == []
    assert readme_examples.differences(_block(card), printed.replace("3 of 4 | mig (0.979)", "2 of 4 | mig (0.979)").splitlines()) != []
    assert readme_examples.differences(_block(card), printed.replace("0.9501", "0.9502").splitlines()) != []


def test_an_ellipsis_line_matches_anything_between_the_first_and_last_lines():
    block = _block("first\nsecond\n...\nlast")
    assert readme_examples.differences(block, ["first", "second", "a", "b", "last"]) == []
    assert readme_examples.differences(block, ["first", "second", "last"]) == []
    assert readme_examples.differences(block, ["first", "changed", "a", "last"]) != []
    assert readme_examples.differences(block, ["first", "second", "a", "other"]) != []
    assert readme_examples.differences(block, ["first", "last"]) != []
    assert readme_examples.regenerated(block, ["one", "two", "three", "four", "five"]) == ["one", "two", "...", "five"]
    assert readme_examples.regenerated(_block("whole"), ["new", "output"]) == ["new", "output"]


def test_temporary_paths_and_the_source_tree_version_read_as_the_readme_shows_them(tmp_path):
    run = readme_examples.Run(f'wrote {tmp_path}/tmp/scores.csv\n"harness_versions": ["0.1.0+source"]\n{tmp_path}/runs\n\n', "", "", 0, {})
    assert readme_examples.printed(run, _block(""), tmp_path) == ["wrote /tmp/scores.csv", '"harness_versions": ["0.1.0"]', "./runs"]


def test_only_absolute_tmp_paths_are_redirected():
    line = 'cat > /tmp/m.py; python x.py --out runs/tmp/a "/tmp/b"'
    assert readme_examples.TMP_PATH.sub("/work/tmp/", line) == 'cat > /work/tmp/m.py; python x.py --out runs/tmp/a "/work/tmp/b"'


def test_markers_must_precede_a_fenced_block_and_outputs_name_an_example_above_them():
    with pytest.raises(ValueError, match="followed by a fenced block"):
        readme_examples.parse("<!-- readme-example: a -->\ntext\n")
    with pytest.raises(ValueError, match="names no example above it"):
        readme_examples.parse("<!-- readme-output: a -->\n```\nx\n```\n<!-- readme-example: a -->\n```bash\necho x\n```\n")
    examples, outputs = readme_examples.parse("<!-- readme-example: a -->\n```bash\necho x\necho y\n```\n\n<!-- readme-output: a last-line -->\n```\ny\n```\n")
    assert [example.lines for example in examples] == [("echo x", "echo y")]
    assert outputs[0].last_line and outputs[0].lines == ("y",)


@pytest.mark.parametrize("document", sorted(DOCUMENTS))
def test_every_source_path_a_document_names_exists(document):
    # a reader follows `harness/workflows/axioms.py` to read the checks' tolerances; a moved module leaves a dead pointer
    import re

    named = set(re.findall(r"`((?:harness|metrics|scenarios|reports|tests)/[\w/]+\.py)`", (ROOT / document).read_text()))
    assert not sorted(path for path in named if not (ROOT / path).is_file())


@pytest.mark.parametrize("document", sorted(DOCUMENTS))
def test_every_relative_link_of_a_document_leads_to_a_file(document):
    import re

    path = ROOT / document
    targets = re.findall(r"\]\(((?!https?:|#)[^)#\s]+)(?:#[^)]*)?\)", path.read_text())
    assert not sorted(target for target in targets if not (path.parent / target).exists())


def _headings(path: Path) -> set[str]:
    """The anchors a code host gives the headings of a Markdown file (lower case, punctuation dropped, spaces to -)."""
    import re

    anchors, fenced = set(), False
    for line in path.read_text().splitlines():
        fenced ^= line.startswith("```")
        if not fenced and line.startswith("#"):
            anchors.add(re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("document", sorted(DOCUMENTS))
def test_every_anchor_of_a_document_names_a_heading(document):
    import re

    path = ROOT / document
    dead = [f"{target}#{anchor}" for target, anchor in re.findall(r"\]\(((?!https?:)[^)#\s]*)#([^)]+)\)", path.read_text())
            if anchor not in _headings((path.parent / target) if target else path)]
    assert not dead


def test_the_readme_stays_short_and_its_headings_are_anchors():
    # the README is the entry point (what, for whom, quick start, the three jobs); everything else goes in a guide
    assert len(README.read_text().splitlines()) <= 250
    anchors = _headings(README)
    assert {"quick-start", "validate-a-new-metric", "where-next"} <= anchors and "no-such-heading" not in anchors
    assert "python--m-harness-validate-validate-a-new-metric" in _headings(ROOT / "harness" / "README.md")
