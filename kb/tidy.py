"""`exportkb check --catalogue`: the cross-references of the project, checked without torch.

Every name that points somewhere must land:

* every automatic fix an entry declares ([auto_fix]) names a transform that
  collectors/fixes.py implements (when the collectors are importable);
* every table and column of kb.db is described in the Datasette metadata (kb/ui/metadata.py),
  and the metadata describes nothing kb.db lacks;
* every repository path named in the documentation, in the code's docstrings and comments,
  or in the site templates (`collectors/fixes.py`, `entries/static-batch-size/`) exists;
* every dotted name of kb or collectors named in the documentation, the code or the site
  templates (`kb.site.fork`, `collectors.check.case_observation`) is a module, or a name
  that module defines.

It reads files and kb.db only, so it is fast and runs in CI as a test.
"""
from __future__ import annotations

import ast
import io
import re
import sqlite3
import tokenize
from pathlib import Path

from . import paths
from .catalogue import Entry

# The example id the contributing guides tell a reader to replace with their own.
_PLACEHOLDERS = ("entries/my-failure-id/",)
_TOP = ("kb", "collectors", "site", "tests", "entries", "observations", "docs", "bench", "devset")
_PATH = re.compile(r"(?<![\w./-])(?:%s)/[\w./-]*" % "|".join(_TOP))
_DOTTED = re.compile(r"(?<![\w./-])(?:kb|collectors)(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_FILES = ("kb.db", "kb.css")  # file names that read like module names
_GENERATED = ("site/generated", "observations/fixes/")  # made by a build or a run, may not exist yet
_DEFINES = r"^\s*(?:def|class)\s+{0}\b|^\s*{0}\s*(?::[^=]*)?=|^\s*from\s+\S+\s+import\s+.*\b{0}\b|^\s*import\s+.*\b{0}\b"


def _texts(root: Path) -> list[Path]:
    """The files whose words name paths and modules: docs, code, templates, entry prose.

    Not the tests: they speak of the trees they make (a temporary root, a broken entry), and
    a name of the project they get wrong fails them anyway."""
    files = [*root.glob("*.md"), *root.glob("docs/*.md"), root / "conf.py", root / "Makefile",
             *root.glob("kb/**/*.py"), *root.glob("collectors/**/*.py"), *root.glob("site/templates/**/*"),
             *root.glob("bench/*.py"), *root.glob("entries/*/entry.toml")]
    return sorted(f for f in files if f.is_file())


def _prose(rel: str, text: str) -> str:
    """What of a file is written for a reader: a Python file's docstrings and comments, else all of it.

    Code builds paths of other trees too (a page of the site's sources under site/generated/,
    a URL path), so only what the code says in words is held to name the repository's files."""
    if not rel.endswith(".py"):
        return text
    said = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            said.append(ast.get_docstring(node, clean=False) or "")
    return "\n".join(said)


def _path_problems(root: Path, rel: str, text: str) -> list[str]:
    problems = []
    for m in _PATH.finditer(_prose(rel, text)):
        name = m.group(0).rstrip(".")
        if any(c in m.string[m.end():m.end() + 1] for c in "<*{") or name in _PLACEHOLDERS:
            continue  # a pattern such as observations/sweep-torch-<version>.jsonl
        if any(part.isupper() for part in name.split("/")):
            continue  # a placeholder such as entries/ENTRY_ID
        if name.startswith(_GENERATED) or name.endswith("/") and name.count("/") == 1 and name[:-1] in _TOP:
            continue
        if not (root / name).exists():
            problems.append(f"{rel}: names {name}, which does not exist")
    return problems


def _resolves(root: Path, dotted: str) -> bool:
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        base = root.joinpath(*parts[:n])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if not module.is_file():
            continue
        rest = parts[n:]
        if not rest:
            return True
        # One name further must be defined in that module (a function, class or constant);
        # a member of it (Class.method) is not checked.
        return re.search(_DEFINES.format(re.escape(rest[0])), module.read_text(encoding="utf-8"), re.M) is not None
    return False


def _name_problems(root: Path, rel: str, text: str) -> list[str]:
    problems = []
    for name in sorted({m.group(0).rstrip(".") for m in _DOTTED.finditer(text)}):
        if name in _FILES or name.startswith(tuple(f + "." for f in _FILES)) or "__" in name:
            continue
        if not _resolves(root, name):
            problems.append(f"{rel}: names {name}, which is neither a module nor a name one defines")
    return problems


def reference_problems(root: Path | None = None) -> list[str]:
    root = Path(root or paths.root())
    problems = []
    for f in _texts(root):
        rel = str(f.relative_to(root))
        try:
            text = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        problems += _path_problems(root, rel, text) + _name_problems(root, rel, text)
    return problems


def fix_problems(entries: list[Entry], transforms) -> list[str]:
    """Every declared automatic fix names a transform that exists, and no two entries claim one (fix, exporter)."""
    problems, claimed = [], {}
    for e in entries:
        fix = e.auto_fix
        if fix is None:
            continue
        if fix.transform is not None and transforms is not None and fix.transform not in transforms:
            problems.append(f"entries/{e.id}: [auto_fix] transform '{fix.transform}' is not one of "
                            f"{', '.join(sorted(transforms))} (collectors/fixes.py)")
        for x in fix.exporters:
            other = claimed.setdefault((fix.id, x), e.id)
            if other != e.id:
                problems.append(f"entries/{e.id}: [auto_fix] '{fix.id}' on {x} is already declared by entries/{other}")
    return problems


def metadata_problems(db: Path) -> list[str]:
    """kb.db's tables and columns against the Datasette metadata, both ways."""
    from .ui.metadata import metadata

    described = metadata()["databases"]["kb"]["tables"]
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("select name from sqlite_master where type = 'table' order by name")]
        # Full-text indexes are sqlite-utils' own tables (entries_fts, entries_fts_data, ...).
        tables = [t for t in tables if "_fts" not in t and not t.startswith("sqlite_")]
        columns = {t: [r[1] for r in conn.execute(f"pragma table_info([{t}])")] for t in tables}
    finally:
        conn.close()
    problems = [f"kb.db table {t} is not described in kb/ui/metadata.py" for t in tables if t not in described]
    problems += [f"kb/ui/metadata.py describes table {t}, which kb.db does not have" for t in described if t not in columns]
    for t, cols in columns.items():
        if t not in described:
            continue  # reported above, once
        said = described[t].get("columns", {})
        problems += [f"kb.db column {t}.{c} is not described in kb/ui/metadata.py" for c in cols if c not in said]
        problems += [f"kb/ui/metadata.py describes {t}.{c}, which kb.db does not have" for c in said if c not in cols]
    return problems


def check_catalogue(entries: list[Entry], db: Path, transforms=None, root: Path | None = None) -> list[str]:
    """Every problem found; empty when every cross-reference lands. `transforms` None: not checked."""
    return fix_problems(entries, transforms) + metadata_problems(db) + reference_problems(root)
