"""The modules a Python script imports, read from its syntax tree (nothing is imported).

Used to decide what a script needs before it runs: the zygote preloads the slow ones,
and a sweep installs a companion library (torchao) only for the entries that import it.
An import inside a function counts: entries import ExecuTorch and torchao in `main`.
"""
from __future__ import annotations

import ast


def imported_modules(source: str) -> set[str] | None:
    """Every dotted name the source imports (`import a.b`, `from a.b import c` gives
    `a.b` and `a.b.c`); relative imports are skipped. None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    named: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            named.add(node.module)
            named.update(f"{node.module}.{alias.name}" for alias in node.names)
    return named


def imports_package(named: set[str], package: str) -> bool:
    """Whether any of the names is the package or a module inside it."""
    return any(n == package or n.startswith(package + ".") for n in named)
