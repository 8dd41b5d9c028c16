"""Where a score comes from: the source code that computes it and the libraries it runs on.

A cell's key (:func:`harness.execution.plan.cell_key`) ends with the digests of its metric's and its
scenario's provenance, so a stored score is reused only when the code and libraries that would compute
it again are those that computed it (as asv and ``joblib.Memory`` key on source):

* **code**: the source file of the metric's module (a registered metric's, or the user's file or module),
  and of every module of the project or of the user's that it imports, transitively.  Imports are read
  from the source with :mod:`ast` (import statements at any depth: a lazy import inside a function counts)
  and resolved with :func:`importlib.util.find_spec`, as the interpreter resolves them, so nothing is a
  hand-kept list.  The scenario's likewise: the modules defining its callables and the module that builds it, a composition's
  base and transform, a user's scenario file.  Both also cover :mod:`metrics.evaluation` (every metric is
  called through it) and :mod:`harness.execution.seeds` (every draw and random state is seeded by it).
* **libraries**: a module installed in site-packages or the standard library is not read; the version of
  its distribution stands for it, with the versions of the distributions it requires (scikit-learn
  brings numpy, SciPy, joblib and threadpoolctl), found as :func:`importlib.metadata.packages_distributions`
  finds them; the Python version stands for the standard library.  An import that cannot be resolved (an
  optional dependency not installed) is recorded as absent, so installing it recomputes too.

Editing a comment recomputes the cells of the metrics and scenarios whose code it is in; a stale score is
never served.  The harness's own execution code (how cells are run, not what they compute) is covered
by :data:`harness.execution.plan.STUDY_FORMAT`, bumped by hand.

Every provenance is computed once per process (a plan of the paper preset asks for it 705,200 times).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import site
import subprocess
import sys
import sysconfig
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

DIGEST_LENGTH = 12
"""Hex digits of a provenance's digest in a cell's key (48 bits)."""

#: Modules whose code every metric call runs (it validates inputs and returns the sub-scores).
METRIC_CALLER = "metrics.evaluation"
#: The module every seed of a cell is derived from (its data and a stochastic metric's random state).
SEEDING = "harness.execution.seeds"
#: Modules whose code every composed scenario runs besides its base's.
COMPOSITION = ("scenarios.composition", "scenarios.transforms")
#: Where the harness's own checkout lives (its git commit is recorded with a baseline).
PROJECT_ROOT = Path(__file__).resolve().parents[2]
ABSENT = "not installed"
#: The value of a declared environment variable that is not set.
UNSET = "unset"


@dataclass(frozen=True)
class Provenance:
    """The code and libraries a computation depends on.

    Attributes
    ----------
    files : Mapping[str, str]
        Source file (``metrics/information.py``; a user's ``labconf.py``) -> a hash of its bytes.
    libraries : Mapping[str, str]
        Distribution (``scikit-learn``; ``python`` for the standard library) -> its version, or
        ``"not installed"`` for an import that does not resolve.
    """

    files: Mapping[str, str]
    libraries: Mapping[str, str]
    environment: Mapping[str, str] = dataclasses.field(default_factory=lambda: MappingProxyType({}))

    @functools.cached_property
    def digest(self) -> str:
        """A short hash of everything it holds (:data:`DIGEST_LENGTH` hex digits)."""
        payload = json.dumps(self.to_json(), sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:DIGEST_LENGTH]

    def to_json(self) -> dict[str, dict[str, str]]:
        """``{"files": ..., "libraries": ...}`` with sorted keys, and ``"environment"`` when it holds variables (so
        that a provenance without them keeps the digest it had before they were recorded)."""
        found = {"files": dict(sorted(self.files.items())), "libraries": dict(sorted(self.libraries.items()))}
        return {**found, "environment": dict(sorted(self.environment.items()))} if self.environment else found

    @classmethod
    def from_json(cls, data: Any) -> Provenance | None:
        """The provenance :meth:`to_json` wrote, or None for anything else (a damaged file)."""
        if not isinstance(data, Mapping):
            return None
        parts = [data.get("files"), data.get("libraries"), data.get("environment", {})]
        if not all(isinstance(part, Mapping) and all(isinstance(v, str) for v in part.values()) for part in parts):
            return None
        return cls(*(MappingProxyType(dict(part)) for part in parts))


def union(*provenances: Provenance) -> Provenance:
    """One provenance holding the files and libraries of all of them."""
    parts: tuple[dict[str, str], ...] = ({}, {}, {})
    for provenance in provenances:
        for part, found in zip(parts, (provenance.files, provenance.libraries, provenance.environment)):
            part.update(found)
    return Provenance(*(MappingProxyType(part) for part in parts))


def changes(before: Provenance, after: Provenance) -> list[str]:
    """What differs from ``before`` to ``after``, one phrase each: ``labconf.py changed``, ``weights.json changed``
    (a data file, named relative to the working directory), ``scikit-learn 1.8.0 -> 1.9.1``, ``metrics/_knn.py
    added``, ``numba removed``, ``GAP_POWER 2 -> 3`` (a declared environment variable; ``unset`` when it is not set)."""
    found = []
    for label in sorted(set(before.files) | set(after.files)):
        old, new = before.files.get(label), after.files.get(label)
        if old != new:
            found.append(f"{shown(label)} {'added' if old is None else 'removed' if new is None else 'changed'}")
    for name in sorted(set(before.libraries) | set(after.libraries)):
        old, new = before.libraries.get(name), after.libraries.get(name)
        if old != new:
            found.append(f"{name} {old} -> {new}" if old and new else f"{name} {new} added" if new else f"{name} removed")
    for name in sorted(set(before.environment) | set(after.environment)):
        old, new = before.environment.get(name, UNSET), after.environment.get(name, UNSET)
        if old != new:
            found.append(f"{name} {old} -> {new}")
    return found


def shown(label: str) -> str:
    """A file's label as a message names it: a data file's absolute path relative to the working directory when it
    lies below it (``weights.json``), every other label as it is."""
    path = Path(label)
    if path.is_absolute() and path.is_relative_to(Path.cwd()):
        return path.relative_to(Path.cwd()).as_posix()
    return label


# --------------------------------------------------------------------------- what a metric or a scenario runs


def metric_provenance(target: str, registered: bool, environment: tuple[str, ...] = ()) -> Provenance:
    """The provenance of a metric: a registry name (``registered``) or a ``module:function`` /
    ``file.py:function`` reference, with :data:`METRIC_CALLER` and :data:`SEEDING`, and the values of the
    ``environment`` variables it declares (:func:`metrics.describe.describe_metric`'s ``env``) as they are now."""
    return _metric_provenance(target, registered, tuple((name, os.environ.get(name, UNSET)) for name in environment))


@functools.cache
def _metric_provenance(target: str, registered: bool, environment: tuple[tuple[str, str], ...]) -> Provenance:
    if environment:
        code = _metric_provenance(target, registered, ())
        return _known(Provenance(code.files, code.libraries, MappingProxyType(dict(environment))))
    if registered:
        import metrics

        roots: tuple[str | Path, ...] = (metrics.get(target).function.__module__,)
    else:
        roots = (_reference_root(target),)
    return _known(_provenance((*roots, METRIC_CALLER, SEEDING)))


_KNOWN: dict[str, Provenance] = {}


def _known(provenance: Provenance) -> Provenance:
    """``provenance``, noted as one that the keys of this process's cells name (:func:`computed`)."""
    _KNOWN[provenance.digest] = provenance
    return provenance


def computed(digest: str) -> Provenance | None:
    """The metric or scenario provenance of that digest that this process computed (the keys of the cells it
    planned name them), or None."""
    return _KNOWN.get(digest)


@functools.cache
def scenario_provenance(reference: str) -> Provenance:
    """The provenance of a scenario reference as a study's cells carry it
    (:func:`harness.execution.scenario_refs.canonical_reference`): a registered name, a composition
    ``TRANSFORM@BASE=VALUE`` (its base's provenance and :data:`COMPOSITION`'s) or a user's ``file.py:name``, with the
    values of the environment variables the scenario declares (:attr:`scenarios.base.ScenarioFamily.environment`) as
    they are now."""
    from harness.execution.scenario_refs import scenario_for
    from scenarios.composition import parse_composition

    composition = parse_composition(reference)
    if composition is not None:
        return _known(union(scenario_provenance(composition.base), _provenance((*COMPOSITION, SEEDING))))
    scenario = scenario_for(reference)
    modules = _defining_modules(scenario)
    roots: tuple[str | Path, ...] = (_reference_root(reference),) if ":" in reference else _holders(scenario, modules)
    code = _provenance((*roots, *modules, SEEDING))
    environment = {name: os.environ.get(name, UNSET) for name in getattr(scenario, "environment", ())}
    return _known(Provenance(code.files, code.libraries, MappingProxyType(environment)) if environment else code)


def module_provenance(*modules: str) -> Provenance:
    """The provenance of project modules: the files they reach through their imports and the libraries those import
    (what racing's recorded decisions depend on besides the cells, :mod:`harness.execution.racing`)."""
    return _provenance(tuple(modules))


def _reference_root(target: str) -> str | Path:
    """The file (``path/file.py:name``) or module (``package.module:name``) a reference names."""
    module_part = target.rpartition(":")[0]
    return Path(module_part).expanduser().resolve() if module_part.endswith(".py") else module_part


def _defining_modules(scenario: Any) -> tuple[str, ...]:
    """The modules defining a scenario's callables (its builder, ideal trajectory, range check, ...)."""
    found = (getattr(getattr(scenario, field.name), "__module__", None) for field in dataclasses.fields(scenario))
    return tuple(sorted({module for module in found if isinstance(module, str) and module in sys.modules}))


def _holders(scenario: Any, modules: tuple[str, ...]) -> tuple[str, ...]:
    """The modules of the packages of ``modules`` that hold ``scenario`` itself (where it is built and
    registered: ``scenarios.synergy_attack`` builds its scenario with ``scenarios.gaussian_toy``'s functions)."""
    packages = {module.partition(".")[0] for module in modules}
    return tuple(sorted(name for name, module in list(sys.modules.items())
                        if name.partition(".")[0] in packages and module is not None
                        and any(value is scenario for value in vars(module).values())))


# --------------------------------------------------------------------------- walking imports


@functools.cache
def _provenance(roots: tuple[str | Path, ...]) -> Provenance:
    """The files reached from ``roots`` (module names, or paths of files loaded by path) through their
    imports, and the libraries they import."""
    files: dict[str, str] = {}
    libraries: dict[str, str] = {}
    seen: set[Path] = set()
    queue: list[tuple[str, Path, str]] = []  # (label, file, package for relative imports)

    def visit(module: str) -> None:
        found = classified(module)
        if found is None:
            return
        kind, value = found
        if kind == "libraries":
            libraries.update(value)
        elif value[1] not in seen:
            seen.add(value[1])
            queue.append(value)

    for root in roots:
        if isinstance(root, Path):
            if root not in seen and root.is_file():
                seen.add(root)
                queue.append((root.name, root, ""))
        else:
            visit(root)
    while queue:
        label, path, package = queue.pop()
        digest, imports = _file_facts(path)
        files[label] = digest
        for module, name in imports:
            absolute = _absolute(module, package)
            if absolute is None:
                continue
            if name is not None:
                submodule = classified(f"{absolute}.{name}")
                if submodule is not None and submodule[0] == "file":
                    absolute = f"{absolute}.{name}"  # ``from package import submodule``
            visit(absolute)
    return Provenance(MappingProxyType(files), MappingProxyType(libraries))


def _absolute(module: str, package: str) -> str | None:
    """``module`` (``..x`` relative, or absolute) as an absolute name; None when it cannot be (a relative import
    in a file loaded by path)."""
    if not module.startswith("."):
        return module
    if not package:
        return None
    try:
        return importlib.util.resolve_name(module, package).rstrip(".")
    except (ImportError, ValueError):
        return None


@functools.cache
def _file_facts(path: Path) -> tuple[str, tuple[tuple[str, str | None], ...]]:
    """A hash of a source file's bytes and the imports it makes: ``(module, None)`` for ``import module``,
    ``(module, name)`` for ``from module import name`` (``module`` with its leading dots when relative)."""
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:16]
    if path.suffix != ".py":
        return digest, ()
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):  # the import of the file reports it; nothing more to follow
        return digest, ()
    return digest, tuple(_imports(tree))


def _imports(tree: ast.Module) -> Iterator[tuple[str, str | None]]:
    """The import statements of a module at any depth (in functions, classes, ``if`` and ``try`` blocks); only
    statements are visited, not expressions, which hold no import statement."""
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.Import):
            yield from ((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            yield from ((base, None if alias.name == "*" else alias.name) for alias in node.names)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                statements.extend(getattr(node, field, ()))


@functools.cache
def classified(module: str) -> tuple[str, Any] | None:
    """What importing ``module`` brings: ``("libraries", {distribution: version})`` for the standard library or an
    installed distribution (``{module: "not installed"}`` when it does not resolve), ``("file", (label, path,
    package))`` for source to read, None for a module without a file (a namespace package)."""
    top = module.partition(".")[0]
    if top in sys.stdlib_module_names:
        return "libraries", {"python": platform.python_version()}
    top_spec = _spec(top)
    if top_spec is None:
        return "libraries", {top: ABSENT}
    if _is_installed(top_spec):
        return "libraries", _distribution_versions(top)
    spec = _spec(module) if module != top else top_spec
    if spec is None or not spec.has_location or not spec.origin:
        return None
    path = Path(spec.origin).resolve()
    parts = module.split(".")
    package = module if spec.submodule_search_locations is not None else module.rpartition(".")[0]
    label = "/".join([*parts, path.name] if path.stem == "__init__" else [*parts[:-1], path.name])
    return "file", (label, path, package)


def library_of(path: Path) -> dict[str, str] | None:
    """The versions standing for a file of the standard library or of an installed library (the distribution
    providing its top-level folder, with what it requires; none for the installations' metadata, such as a
    ``*.dist-info`` folder's ``entry_points.txt``, which changes with what it describes), or None for a file of
    neither."""
    resolved = path.resolve()
    holding = [root for root in _library_roots() if resolved.is_relative_to(root)]
    if not holding:
        return None
    root = max(holding, key=lambda found: len(found.parts))  # site-packages lies inside the standard library's folder
    if root == Path(sysconfig.get_paths()["stdlib"]).resolve():
        return {"python": platform.python_version()}
    top = resolved.relative_to(root).parts[0].removesuffix(".py")
    return _distribution_versions(top) if top.isidentifier() else {}  # else installation metadata (``*.dist-info``)


def _spec(module: str) -> Any:
    """:func:`importlib.util.find_spec`, or None when the module does not resolve (whatever the import of its
    parent package raises: the user's own import reports it)."""
    try:
        return importlib.util.find_spec(module)
    except Exception:  # noqa: BLE001 - a parent package of a user's module may raise anything on import
        return None


def _is_installed(spec: Any) -> bool:
    """Whether a top-level module lies in site-packages or the standard library (else it is source to read:
    the project, the user's files, a package installed in editable mode)."""
    locations = [spec.origin] if spec.origin and spec.has_location else list(spec.submodule_search_locations or ())
    if not locations:
        return True  # built in to the interpreter
    return any(Path(location).resolve().is_relative_to(root) for location in locations for root in _library_roots())


@functools.cache
def _library_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = [paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")]
    roots += [*getattr(site, "getsitepackages", lambda: [])(), site.getusersitepackages()]
    return tuple(sorted({Path(root).resolve() for root in roots if root}))


@functools.cache
def _distribution_versions(top: str) -> dict[str, str]:
    """The versions of the distributions providing the top-level module ``top`` and of those they require."""
    providers = _providers().get(top)
    if not providers:
        return {top: "unknown"}
    versions: dict[str, str] = {}
    queue: list[Any] = list(providers)
    while queue:
        distribution = queue.pop()
        if isinstance(distribution, str):  # a requirement's name
            try:
                distribution = _distribution(distribution)
            except importlib.metadata.PackageNotFoundError:
                continue  # an optional requirement not installed
        name = _canonical(distribution.metadata["Name"])
        if name in versions:
            continue
        versions[name] = distribution.version
        for requirement in distribution.requires or ():
            found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
            if found and "extra" not in requirement.partition(";")[2]:
                queue.append(found[1])
    return versions


@functools.cache
def _distribution(name: str) -> Any:
    return importlib.metadata.distribution(name)


@functools.cache
def _providers() -> dict[str, list[Any]]:
    """Top-level module -> the installed distributions providing it: what
    :func:`importlib.metadata.packages_distributions` finds (a distribution's ``top_level.txt``, else the first part
    of every path its ``RECORD`` lists), read without a path object per file (ten times faster)."""
    providers: dict[str, list[Any]] = {}
    for distribution in importlib.metadata.distributions():
        listed = distribution.read_text("top_level.txt")
        if listed is not None:
            tops = set(listed.split())
        else:
            paths = (line.partition(",")[0].partition("/")[0] for line in (distribution.read_text("RECORD") or "").splitlines())
            tops = {path[:-3] if path.endswith(".py") else path for path in paths}
        for top in tops:
            if top and top.isidentifier():
                providers.setdefault(top, []).append(distribution)
    return providers


def _canonical(name: str) -> str:
    """A distribution's name as PEP 503 normalises it (``scikit_learn`` -> ``scikit-learn``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


# --------------------------------------------------------------------------- the environment


def git_commit(directory: Path = PROJECT_ROOT) -> str | None:
    """``git rev-parse HEAD`` of the checkout holding ``directory``, or None when there is none (no git, not a
    repository, an error of any kind)."""
    try:
        done = subprocess.run(["git", "-C", str(directory), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", commit) else None


def registered_libraries() -> dict[str, str]:
    """The libraries (with Python) every registered metric and scenario runs on, with their versions here."""
    import metrics
    import scenarios

    found = [metric_provenance(name, True) for name in metrics.available(population=None)]
    found += [scenario_provenance(name) for name in scenarios.available(kind=None)]
    return dict(sorted(union(*found).libraries.items()))
