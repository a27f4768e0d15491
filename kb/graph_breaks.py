"""Dynamo's graph-break registry: every graph break strict export can stop at, by id.

torch ships `torch/_dynamo/graph_break_registry.json` (517 ids in 2.13), a peer's
catalogue of this space: for each id (GB0007) the wordings it has had, each with a type
(the message's first line), an explanation, hints and a debug context. Dynamo prints
them as

    torch._dynamo.exc.Unsupported: <type>
      Explanation: <explanation, its fields filled in>
      Hint: <hint>
      Developer debug context: <context>
     For more details about this graph break, please visit: https://.../gb/gb0007.html

(the last line on the releases recorded here, 2.9.1 and later). `collectors.graph_breaks` copies each release's registry
into observations/graph-breaks/; kb.build stores the ids in kb.db (`graph_breaks`), each
with the entries whose observed errors carry it and, for the rest, the class entry for
strict-mode graph breaks, whose fix is non-strict export. A search that finds a graph
break in the paste names its id, its own explanation, hints and page, and that entry.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .version_status import release_key, release_of

# Strict-mode graph breaks that no entry of their own explains go here: its fix is the
# non-strict path (entries/export-strict-graph-break).
CLASS_ENTRY = "export-strict-graph-break"
PAGE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{lower}.html"
_URL_ID = re.compile(r"compile-graph-break-site/gb/(gb\d{4})\.html", re.I)
_UNSUPPORTED = re.compile(r"(?:^|[\s.:])Unsupported: (.+?)\s*$", re.M)
_EXPLANATION = re.compile(r"^\s*Explanation: (.+?)\s*$", re.M)
_FIELD = re.compile(r"\{[^{}]*\}")


@dataclass
class GraphBreak:
    id: str  # GB0007
    gb_type: str  # the newest release's wording of the first line
    explanation: str
    hints: list[str]
    context: str
    releases: list[str] = field(default_factory=list)  # releases whose registry holds it, oldest first
    types: set[str] = field(default_factory=set)  # every wording of the type, on every release
    explanations: set[str] = field(default_factory=set)

    @property
    def url(self) -> str:
        return PAGE.format(lower=self.id.lower())


def load(folder: Path) -> dict[str, GraphBreak]:
    """Every id of every recorded release's registry, described by the newest release."""
    found: dict[str, GraphBreak] = {}
    files = sorted(Path(folder).glob("torch-*.json"), key=lambda p: release_key(p.stem.removeprefix("torch-")))
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        release = release_of(data["torch"])
        for gb_id, wordings in sorted(data["registry"].items()):
            if not wordings:
                continue
            newest = wordings[0]
            gb = found.get(gb_id)
            if gb is None:
                gb = found[gb_id] = GraphBreak(gb_id, "", "", [], "")
            # Files go oldest to newest release: the newest release's first wording describes it.
            gb.gb_type, gb.explanation = newest.get("Gb_type", ""), newest.get("Explanation", "")
            gb.hints, gb.context = list(newest.get("Hints") or []), newest.get("Context", "")
            gb.releases.append(release)
            gb.types.update(w.get("Gb_type", "") for w in wordings if w.get("Gb_type"))
            gb.explanations.update(w.get("Explanation", "") for w in wordings if w.get("Explanation"))
    return found


def _template(text: str) -> re.Pattern:
    """A registry string with `{fields}` as a pattern that any filled-in value matches."""
    parts = _FIELD.split(text)
    return re.compile(r"(?s)" + r".*?".join(re.escape(p) for p in parts) + r"$")


@dataclass
class Index:
    """Finds graph-break ids in a paste."""
    by_id: dict[str, GraphBreak]
    by_type: dict[str, list[str]] = field(default_factory=dict)  # a literal type wording -> ids
    templated: list[tuple[re.Pattern, str]] = field(default_factory=list)  # types with {fields}

    @classmethod
    def build(cls, breaks: dict[str, GraphBreak]) -> "Index":
        index = cls(breaks)
        for gb in breaks.values():
            for t in gb.types:
                if _FIELD.search(t):
                    index.templated.append((_template(t), gb.id))
                else:
                    index.by_type.setdefault(t.strip(), []).append(gb.id)
        return index

    def identify(self, text: str) -> list[str]:
        """The graph-break ids a paste shows, last raised first: from the registry page Dynamo
        links (2.9.1 and later), else from the type on the `Unsupported:` line, narrowed by the
        `Explanation:` line where several ids share a type."""
        ids: list[str] = []
        for m in reversed(list(_URL_ID.finditer(text))):
            gb_id = m.group(1).upper()
            if gb_id in self.by_id and gb_id not in ids:
                ids.append(gb_id)
        if ids:
            return ids
        explanations = [m.group(1) for m in _EXPLANATION.finditer(text)]
        for m in reversed(list(_UNSUPPORTED.finditer(text))):
            line = m.group(1).strip()
            found = list(self.by_type.get(line, []))
            found += [gb_id for pattern, gb_id in self.templated if pattern.match(line) and gb_id not in found]
            if len(found) > 1 and explanations:
                narrowed = [gb_id for gb_id in found
                            if any(_template(e).match(x) for e in self.by_id[gb_id].explanations for x in explanations)]
                found = narrowed or found
            ids += [gb_id for gb_id in found if gb_id not in ids]
        return ids


def printed(gb: GraphBreak, *, with_url: bool = True) -> str:
    """The message as Dynamo prints it for this id (its fields left as the registry writes
    them), for tests and for the registry page's examples."""
    lines = [f"torch._dynamo.exc.Unsupported: {gb.gb_type}", f"  Explanation: {gb.explanation}"]
    lines += [f"  Hint: {h}" for h in gb.hints]
    lines += ["", f"  Developer debug context: {gb.context}", ""]
    if with_url:
        lines.append(f" For more details about this graph break, please visit: {gb.url}")
    return "\n".join(lines)


# -- at search time, from kb.db --------------------------------------------------------
_cache: dict[tuple[str, int], tuple[Index, dict[str, dict]]] = {}


def from_db(db: Path) -> tuple[Index, dict[str, dict]]:
    """The index over kb.db's graph_breaks, and each id's row; cached per database file."""
    import sqlite3

    key = (str(db), Path(db).stat().st_mtime_ns)
    if key not in _cache:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        try:
            rows = {r["id"]: dict(r) for r in conn.execute(
                "select g.*, e.title as answer_title from graph_breaks g left join entries e on e.id = g.answer")}
            types = conn.execute("select gb_type, id from graph_break_types").fetchall()
        except sqlite3.OperationalError:  # a kb.db built before the registry was imported
            rows, types = {}, []
        finally:
            conn.close()
        breaks = {gb_id: GraphBreak(gb_id, r["gb_type"], r["explanation"], json.loads(r["hints"]), r["context"],
                                    r["releases"].split(", "), set(), {r["explanation"]}) for gb_id, r in rows.items()}
        for gb_type, gb_id in types:
            if gb_id in breaks:
                breaks[gb_id].types.add(gb_type)
        _cache.clear()
        _cache[key] = (Index.build(breaks), rows)
    return _cache[key]


def found_in(db: Path, text: str, limit: int = 3) -> list[dict]:
    """The graph breaks a paste shows, as every face of search describes them: the id, its
    registry text, its page, and the entry that answers it (its own, or the class entry)."""
    index, rows = from_db(db)
    out = []
    for gb_id in index.identify(text)[:limit]:
        r = rows[gb_id]
        out.append({"id": gb_id, "gb_type": r["gb_type"], "explanation": r["explanation"],
                    "hints": json.loads(r["hints"]), "url": r["url"], "releases": r["releases"],
                    "entry": r["answer"], "entry_title": r["answer_title"], "own_entry": bool(r["own_entry"])})
    return out
