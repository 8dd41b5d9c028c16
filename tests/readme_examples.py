"""Run the marked examples of a Markdown file (the README, a guide) and compare what they print with its output blocks.

Which blocks are checked is marked in the README itself, with an HTML comment on the line before a
fenced block (invisible in the rendered page):

* ``<!-- readme-example: NAME -->`` before a ``bash`` block: a command block, run with bash; before a ``python``
  block: a script, run with ``python`` as a whole (as a setup line: it must exit with status 0);
* ``<!-- readme-output: NAME -->`` before a block: what example NAME prints on stdout;
* ``<!-- readme-output: NAME last-line -->`` before a block: what the last line of example NAME prints
  (the output of the lines before it is not shown);
* ``<!-- readme-output: NAME file=PATH -->`` before a block: the file PATH (relative to the working
  directory) as example NAME leaves it.

Every marked example runs, in README order, in one fresh temporary working directory (later examples
use what earlier ones wrote, as a reader following the README would), with bash, the environment of
the calling process, ``python`` meaning this interpreter (:data:`sys.executable`) and the repository
root first on ``PYTHONPATH``.  An example's last line runs in a shell of its own (so it must be a whole
command; its exit status may be anything, as in ``...; echo "exit status $?"``), after the lines before
it, which run with ``set -e``: a failing setup command fails the check.  The README's absolute ``/tmp/``
paths are redirected to ``WORKDIR/tmp/`` so concurrent runs never share files.  stderr (progress bars)
is not compared.

An output block may be abridged with one line that is ``...`` (surrounding spaces aside): the lines above
it must be the first lines of the output and the lines below it the last ones.  What was printed is read
as the README shows it (:func:`printed`):

* ``WORKDIR/tmp`` reads ``/tmp`` again and ``WORKDIR`` reads ``.``;
* the harness version of a source tree that is not installed, ``X+source``, reads ``X``, which is what
  an installed package (the README's ``pip install -e .``) writes;

and then both sides are normalised (:func:`normalise`):

* durations are masked: the cells of a Markdown-table column named ``seconds`` and, in the report card's
  criteria table, the ``value``, ``rank`` and ``best built-in`` cells of the ``cost`` row (all timings);
* Markdown-table rows are compared cell by cell with the padding stripped (a masked duration can change
  a column's width), and trailing whitespace and trailing blank lines are ignored.

Nothing else is masked: every score is compared exactly as printed, so a score that drifts fails the
check.  The version hashes of user metrics' source files are not masked either: they are the SHA-256 of
the file's bytes, and the files are written by the examples themselves.

Usage::

    python tests/readme_examples.py README.md            # check; print the differences, exit 1 on any
    python tests/readme_examples.py --update README.md   # rewrite every checked output block from a real run
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_MARKER = re.compile(r"^<!-- readme-example: (?P<name>[\w-]+) -->$")
OUTPUT_MARKER = re.compile(r"^<!-- readme-output: (?P<name>[\w-]+)(?: (?P<last_line>last-line)| file=(?P<file>\S+))? -->$")
ELLIPSIS = "..."
MASK = "<duration>"
TMP_PATH = re.compile(r"(?<![\w.~/-])/tmp/")
"""An absolute ``/tmp/`` path in a command (not ``runs/tmp/``)."""
SOURCE_VERSION = re.compile(r"\b(\d+\.\d+\.\d+)\+source\b")
DURATION_COLUMNS = ("seconds",)
DURATION_ROWS = {"cost": ("value", "rank", "best built-in")}
"""Report-card rows whose cells in the named columns are durations."""


@dataclass(frozen=True)
class Block:
    """A marked fenced block of the README: its marker's name, what it shows, its content lines."""

    name: str
    file: str | None
    """The file an output block shows (``None``: it shows stdout)."""
    last_line: bool
    """Whether an output block shows only what its example's last line prints."""
    lines: tuple[str, ...]
    first: int
    """Index (0-based) of the block's first content line in the README."""
    language: str = ""
    """The fenced block's language (``bash``, ``python``, ...)."""

    def commands(self) -> list[str]:
        """The example as bash lines: a Python block becomes one here-document run by ``python``, then ``:``."""
        if self.language == "python":
            return ["python - <<'README_PYTHON'", *self.lines, "README_PYTHON", ":"]
        return list(self.lines)


@dataclass(frozen=True)
class Run:
    """What one example did: its stdout, that of its last line alone, stderr, and the files its output blocks show."""

    stdout: str
    last_line_stdout: str
    stderr: str
    setup_status: int
    """Exit status of the lines before the last (run with ``set -e``)."""
    files: dict[str, str]


def _fenced_block(lines: list[str], marker_index: int) -> tuple[int, int]:
    """The (first, end) content line indexes of the fenced block right after the marker line."""
    opening = marker_index + 1
    if opening >= len(lines) or not lines[opening].startswith("```"):
        raise ValueError(f"line {marker_index + 1}: the marker must be followed by a fenced block (```)")
    for index in range(opening + 1, len(lines)):
        if lines[index] == "```":
            return opening + 1, index
    raise ValueError(f"line {opening + 1}: fenced block is never closed")


def parse(text: str) -> tuple[list[Block], list[Block]]:
    """The marked example blocks and output blocks of a README, in order.

    Raises ``ValueError`` when a marker is not followed by a fenced block, two examples share a name,
    or an output block names no example above it.
    """
    lines = text.splitlines()
    examples: list[Block] = []
    outputs: list[Block] = []
    for index, line in enumerate(lines):
        example, output = EXAMPLE_MARKER.match(line), OUTPUT_MARKER.match(line)
        if not (example or output):
            continue
        first, end = _fenced_block(lines, index)
        if example:
            if example["name"] in {block.name for block in examples}:
                raise ValueError(f"line {index + 1}: example {example['name']!r} is defined twice")
            examples.append(Block(example["name"], None, False, tuple(lines[first:end]), first, lines[first - 1][3:].strip()))
        else:
            if output["name"] not in {block.name for block in examples}:
                raise ValueError(f"line {index + 1}: output {output['name']!r} names no example above it")
            outputs.append(Block(output["name"], output["file"], bool(output["last_line"]), tuple(lines[first:end]), first))
    return examples, outputs


def run_examples(examples: list[Block], outputs: list[Block], workdir: Path) -> dict[str, Run]:
    """Run every example in order in ``workdir``; return what each did (see the module docstring)."""
    workdir = workdir.resolve()
    (workdir / "tmp").mkdir(parents=True, exist_ok=True)
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [environment.get("PYTHONPATH")])])
    environment["README_PYTHON"] = sys.executable
    prelude = 'python() { "$README_PYTHON" "$@"; }\n'
    runs = {}
    for example in examples:
        lines = [TMP_PATH.sub(f"{workdir}/tmp/", line) for line in example.commands()]
        setup, last = (subprocess.run(["bash", "-c", prelude + "\n".join(part)], cwd=workdir, env=environment,
                                      capture_output=True, text=True, check=False)
                       for part in (["set -e", *lines[:-1]], lines[-1:]))
        files = {}
        for output in outputs:
            if output.name == example.name and output.file is not None:
                path = workdir / output.file
                files[output.file] = path.read_text() if path.is_file() else f"<no file {output.file}>"
        runs[example.name] = Run(setup.stdout + last.stdout, last.stdout, setup.stderr + last.stderr, setup.returncode, files)
    return runs


def printed(run: Run, output: Block, workdir: Path) -> list[str]:
    """The lines an output block shows, from a run, with the temporary paths and the version normalised."""
    if output.file is not None:
        text = run.files[output.file]
    else:
        text = run.last_line_stdout if output.last_line else run.stdout
    text = text.replace(f"{workdir.resolve()}/tmp", "/tmp").replace(str(workdir.resolve()), ".")
    text = SOURCE_VERSION.sub(r"\1", text)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def normalise(lines: list[str] | tuple[str, ...]) -> list[str]:
    """Mask durations and strip table padding (see the module docstring); other lines are kept as they are."""
    normalised = []
    header: list[str] | None = None
    for line in lines:
        line = line.rstrip()
        if not line.startswith("|"):
            header = None
            normalised.append(line)
            continue
        cells = _cells(line)
        if header is None:
            header = cells
        elif all(cell and set(cell) <= {"-", ":"} for cell in cells):
            cells = ["---"] * len(cells)
        else:
            masked = {column for column in DURATION_COLUMNS if column in header}
            masked.update(DURATION_ROWS.get(cells[0], ()))
            cells = [MASK if index < len(header) and header[index] in masked else cell for index, cell in enumerate(cells)]
        normalised.append("| " + " | ".join(cells) + " |")
    while normalised and not normalised[-1]:
        normalised.pop()
    return normalised


def _split(expected: tuple[str, ...], name: str) -> tuple[list[str], list[str] | None]:
    """The lines before and after the block's ``...`` line (``None`` after: the block is not abridged)."""
    wildcards = [index for index, line in enumerate(expected) if line.strip() == ELLIPSIS]
    if len(wildcards) > 1:
        raise ValueError(f"output block {name!r} has {len(wildcards)} '...' lines; at most one is allowed")
    if not wildcards:
        return list(expected), None
    return list(expected[:wildcards[0]]), list(expected[wildcards[0] + 1:])


def differences(output: Block, actual: list[str]) -> list[str]:
    """How the README's output block differs from what was printed; empty when they match."""
    head, tail = _split(output.lines, output.name)
    expected_head, got = normalise(head), normalise(actual)
    problems = []
    if tail is None:
        if expected_head != got:
            problems.append(f"expected (normalised):\n{chr(10).join(expected_head)}\ngot:\n{chr(10).join(got)}")
        return problems
    expected_tail = normalise(tail)
    if len(expected_head) + len(expected_tail) > len(got):
        return [f"printed only {len(got)} lines, fewer than the {len(expected_head) + len(expected_tail)} the block shows:\n" + "\n".join(got)]
    for label, expected, printed_part in (("first", expected_head, got[:len(expected_head)]),
                                          ("last", expected_tail, got[len(got) - len(expected_tail):])):
        for index, (want, have) in enumerate(zip(expected, printed_part)):
            if want != have:
                problems.append(f"{label} lines, line {index + 1}: README {want!r}, printed {have!r}")
    return problems


def regenerated(output: Block, actual: list[str]) -> list[str]:
    """The output block's new content: the printed lines, abridged as the block is."""
    head, tail = _split(output.lines, output.name)
    if tail is None:
        return actual
    if len(head) + len(tail) > len(actual):
        raise ValueError(f"output {output.name!r} printed {len(actual)} lines, fewer than the block shows")
    ellipsis = next(line for line in output.lines if line.strip() == ELLIPSIS)
    return [*actual[:len(head)], ellipsis, *actual[len(actual) - len(tail):]]


SHELL_LANGUAGES = ("bash", "sh", "shell", "console", "")
"""Fenced blocks read as shell commands (an untyped block too: the guides' short command blocks are untyped)."""
HEREDOC = re.compile(r"<<-?\s*'?(?P<end>\w+)'?")
HARNESS_COMMAND = ("python", "-m", "harness")


def shell_lines(text: str) -> list[str]:
    """The shell command lines of every fenced shell block of a Markdown text, marked or not.

    A line ending in ``\\`` is joined to the next; the body of a here-document (a file the example writes, usually
    Python) is left out: :func:`python_sources` reads it.
    """
    lines, inside, language, heredoc_end, pending = [], False, "", None, ""
    for line in text.splitlines():
        if line.startswith("```"):
            inside, language, heredoc_end, pending = not inside, line[3:].strip(), None, ""
            continue
        if not inside or language not in SHELL_LANGUAGES:
            continue
        if heredoc_end is not None:
            heredoc_end = None if line.strip() == heredoc_end else heredoc_end
            continue
        heredoc = HEREDOC.search(line)
        heredoc_end = heredoc["end"] if heredoc else None
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    return lines


def harness_commands(line: str) -> list[list[str]]:
    """The arguments of every ``python -m harness ...`` command of a shell line (split at ``;``, ``&&``, ``|``, with
    quotes and comments read as bash reads them)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split, lexer.commenters = True, "#"
    commands, command = [], []
    for token in [*lexer, ";"]:
        if set(token) <= set(";&|()"):
            if tuple(command[:3]) == HARNESS_COMMAND:
                commands.append(command[3:])
            command = []
        else:
            command.append(token)
    return commands


def python_sources(text: str) -> list[tuple[int, str]]:
    """``(line, source)`` of every piece of Python a Markdown text shows: its ``python`` fenced blocks, and the
    here-documents of its shell blocks that are fed to ``python`` or written to a ``.py`` file."""
    sources, lines = [], text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("```python"):
            end = lines.index("```", index + 1)
            sources.append((index + 2, "\n".join(lines[index + 1:end])))
            index = end
        else:
            heredoc = HEREDOC.search(line)
            if heredoc and (re.search(r"\bpython3?\s+-\s*<<", line) or re.search(r">\s*\S+\.py\b", line)):
                end = next(position for position in range(index + 1, len(lines)) if lines[position].strip() == heredoc["end"])
                sources.append((index + 2, "\n".join(lines[index + 1:end])))
                index = end
        index += 1
    return sources


INLINE_HARNESS_COMMAND = re.compile(r"`python -m harness (?P<arguments>[^`]*)`")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """``parser``'s subcommands by name (empty when it takes none)."""
    for action in parser._actions:  # argparse keeps its subcommands in a private action; no public accessor exists
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def command_problems(text: str) -> list[str]:
    """What is wrong with the ``python -m harness`` commands a Markdown text shows, without running them.

    Every command of a fenced shell block must parse as the command line parses it (a real command, real options,
    values of the right type); every inline ```python -m harness COMMAND --option ...``` span of the prose must name
    a real command (``save|check`` reads as two) and options that command takes.  Python (fenced or in a
    here-document) must compile.
    """
    from harness.cli import build_parser
    from harness.errors import UsageError

    problems = []
    for line in shell_lines(text):
        for arguments in harness_commands(line):
            try:
                with contextlib.redirect_stdout(io.StringIO()):  # what --help prints
                    build_parser().parse_args(arguments)
            except UsageError as error:
                problems.append(f"python -m harness {shlex.join(arguments)}: {error}")
            except SystemExit as stop:  # --help
                if stop.code:
                    problems.append(f"python -m harness {shlex.join(arguments)}: exit status {stop.code}")
    for span in INLINE_HARNESS_COMMAND.finditer(text):
        words = span["arguments"].split()
        words = words[1:] if words[:1] == ["--debug"] else words
        parser: argparse.ArgumentParser | None = build_parser()
        for word in words:
            subcommands = _subcommands(parser)
            if word.startswith("-") or not subcommands:
                break
            if word.isupper():  # a placeholder (COMMAND): which options it takes is not known
                parser = None
                break
            if any(name not in subcommands for name in word.split("|")):
                problems.append(f"`python -m harness {span['arguments']}`: no command {word!r}")
                parser = None
                break
            parser = subcommands[word.split("|")[0]]
        if parser is not None:
            problems += [f"`python -m harness {span['arguments']}`: no option {word.split('=')[0]!r}"
                         for word in words if word.startswith("--") and word.split("=")[0] not in parser._option_string_actions]
    for line_number, source in python_sources(text):
        try:
            compile(source, "<markdown>", "exec")
        except SyntaxError as error:
            problems.append(f"the Python of line {line_number + (error.lineno or 1) - 1}: {error.msg}")
    return problems


def check_readme(readme: Path, update: bool = False) -> list[str]:
    """Run the README's examples; return the problems found.

    With ``update``, rewrite every checked output block from the run instead of comparing, unless a
    setup line failed (then nothing is written and the failure is returned).
    """
    text = readme.read_text()
    examples, outputs = parse(text)
    with tempfile.TemporaryDirectory(prefix="readme-examples-") as directory:
        workdir = Path(directory)
        runs = run_examples(examples, outputs, workdir)
        actual = {index: printed(runs[output.name], output, workdir) for index, output in enumerate(outputs)}
    problems = [f"{name}: the lines before the last exited with status {run.setup_status}:\n{run.stderr[-2000:]}"
                for name, run in runs.items() if run.setup_status != 0]
    if not update:
        for index, output in enumerate(outputs):
            label = output.name + (f" (file {output.file})" if output.file else "")
            problems.extend(f"{label}: {problem}" for problem in differences(output, actual[index]))
    elif not problems:
        lines = text.splitlines()
        for index in reversed(range(len(outputs))):
            output = outputs[index]
            lines[output.first:output.first + len(output.lines)] = regenerated(output, actual[index])
        readme.write_text("\n".join(lines) + "\n")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Command line: check the README's examples, or regenerate its output blocks with ``--update``."""
    parser = argparse.ArgumentParser(description="Run the README's marked examples and compare or regenerate their output blocks.")
    parser.add_argument("readme", type=Path, help="the README to check (e.g. README.md)")
    parser.add_argument("--update", action="store_true", help="rewrite every checked output block from a real run")
    args = parser.parse_args(argv)
    problems = check_readme(args.readme, update=args.update)
    for problem in problems:
        print(problem)
    if args.update and not problems:
        print(f"regenerated the checked output blocks of {args.readme}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
