"""No function imports a module of the project: every import of one is at module level.

An import inside a function hides a dependency (and a cycle, which ``lint-imports`` then
cannot see). The one exception is Django's own place for it: ``AppConfig.ready``, which
runs once the app registry is ready. ruff has no rule for a project's own modules, so
this reads every file's syntax tree (no database).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED_DIRS = {".venv", "node_modules", "migrations", "var", ".git"}


def _packages() -> set[str]:
    """The project's top-level packages (a directory with ``__init__.py``) and modules."""
    names = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    return names | {p.stem for p in ROOT.glob("*.py")}


def _sources() -> list[Path]:
    return [p for p in ROOT.rglob("*.py") if not SKIPPED_DIRS & set(p.relative_to(ROOT).parts)]


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.ImportFrom):
        return ["."] if node.level else [node.module or ""]
    return [alias.name for alias in node.names]


def _function_level_imports(path: Path, project: set[str]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    allowed: set[int] = set()  # AppConfig.ready's imports
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        if any(isinstance(b, ast.Name | ast.Attribute) and ast.unparse(b).endswith("AppConfig") for b in cls.bases):
            for fn in cls.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "ready":
                    allowed |= {id(n) for n in ast.walk(fn)}
    found = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        for node in ast.walk(fn):
            if not isinstance(node, ast.Import | ast.ImportFrom) or id(node) in allowed:
                continue
            if any(name == "." or name.split(".")[0] in project for name in _imported(node)):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_function_imports_a_project_module() -> None:
    project = _packages()
    assert {"liamemory", "usecases", "bench", "tests"} <= project
    found = sorted({line for path in _sources() for line in _function_level_imports(path, project)})
    assert not found, "imports of project modules inside functions:\n" + "\n".join(found)
