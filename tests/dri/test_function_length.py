"""No function of the library is longer than 80 lines (the developers' guide).

A function's length runs from its ``def`` line to its last line, docstring
and comments included, decorators not; nested functions count within their
parent and on their own. The package's folders are read from
``[tool.setuptools.package-dir]`` in pyproject.toml, as installed.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 80


def package_folders() -> list[Path]:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return sorted({ROOT / folder for folder in setuptools["package-dir"].values()})


def _parse(source: str, name: str) -> ast.Module:
    # CPython 3.11 keeps the AST converter's recursion depth in state that all
    # threads share (CPython gh-106905, pytest #10763): a background test thread parsing at the same
    # moment (pytest rewriting a module it imports) makes ast.parse raise
    # SystemError here. A second parse of the same source is unaffected.
    for _ in range(4):
        try:
            return ast.parse(source, filename=name)
        except SystemError:
            continue
    return ast.parse(source, filename=name)


def long_functions(source: str, name: str, limit: int = MAX_LINES) -> Iterator[str]:
    """``file:line name (n lines)`` for each function of ``source`` over ``limit`` lines."""
    for node in ast.walk(_parse(source, name)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > limit:
                yield f"{name}:{node.lineno} {node.name} ({lines} lines)"


def test_the_check_finds_a_long_function():
    body = "".join(f"        x{i} = {i}\n" for i in range(MAX_LINES))
    source = f"def short():\n    return 1\n\n\nclass A:\n    async def long(self):\n{body}"
    assert list(long_functions(source, "m.py")) == [f"m.py:6 long ({MAX_LINES + 1} lines)"]
    assert list(long_functions(source, "m.py", limit=MAX_LINES + 1)) == []


def test_no_library_function_over_80_lines():
    folders = package_folders()
    assert ROOT / "flows" in folders and ROOT / "dri" in folders
    found = [
        problem
        for folder in folders
        for path in sorted(folder.rglob("*.py"))
        for problem in long_functions(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert found == []
