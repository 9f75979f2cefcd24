"""Every third-party package our code imports is declared, pinned, in pyproject.toml.

A package that arrives only because a declared one depends on it (werkzeug through Flask,
webargs through flask-smorest) works until that library drops it or changes its version
under us: so the code's own imports are read (every ``import``, ``TYPE_CHECKING`` ones too)
and each must belong to a distribution the project declares itself, with ``==`` and a version.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Iterable
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: Our own top-level packages: the shipped ones, and the tests' and benchmarks' folders.
FIRST_PARTY = {"engine", "pbem", "web", "migrations", "config", "docs", "tests", "bench"}
#: What the service runs: declared in ``[project] dependencies``.
SHIPPED = ("engine", "pbem", "web", "migrations", "config", "docs")
#: What tests and benchmarks run: the ``dev`` extra may also provide it.
DEVELOPMENT = ("tests", "bench")


def _normalised(name: str) -> str:
    """A distribution's name as PEP 503 compares them (``Flask_WTF`` is ``flask-wtf``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(extra: str | None = None) -> list[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    if extra is None:
        return list(project["dependencies"])
    return list(project["optional-dependencies"][extra])


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    return _normalised(match.group())


def _imports(folders: Iterable[str]) -> dict[str, set[str]]:
    """Top-level modules imported by the Python files under ``folders``, with the files that
    import them, leaving out the standard library and our own packages."""
    found: dict[str, set[str]] = {}
    for folder in folders:
        for path in sorted((REPO / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.partition(".")[0]
                    if top not in sys.stdlib_module_names and top not in FIRST_PARTY:
                        found.setdefault(top, set()).add(str(path.relative_to(REPO)))
    return found


def _undeclared(folders: Iterable[str], declared: set[str]) -> list[str]:
    distributions = packages_distributions()
    missing = []
    for module, files in sorted(_imports(folders).items()):
        providers = {_normalised(d) for d in distributions.get(module, [])}
        if not providers & declared:
            provided = ", ".join(sorted(providers)) or "no installed distribution"
            missing.append(f"{module} ({provided}), imported by {', '.join(sorted(files))}")
    return missing


def test_every_package_the_service_imports_is_declared_in_pyproject() -> None:
    declared = {_name(r) for r in _requirements()}
    assert _undeclared(SHIPPED, declared) == []


def test_every_package_the_tests_and_benchmarks_import_is_declared_in_pyproject() -> None:
    declared = {_name(r) for r in _requirements() + _requirements("dev")}
    assert _undeclared(DEVELOPMENT, declared) == []


@pytest.mark.parametrize("extra", [None, "dev"])
def test_every_declared_package_is_pinned_to_one_version(extra: str | None) -> None:
    loose = [r for r in _requirements(extra) if not re.fullmatch(r"[^=<>~!;]+==[\w.]+", r)]
    assert loose == []


def test_the_check_finds_a_package_imported_but_not_declared() -> None:
    # The check itself: the service's own imports against a pyproject without Flask.
    declared = {_name(r) for r in _requirements()} - {"flask"}
    assert any(line.startswith("flask (flask)") for line in _undeclared(SHIPPED, declared))
