"""A search's results as data and as HTML, made in the search worker.

The worker already holds the matcher; it also holds what a result shows of each entry
(`EntryFacts`, read once from kb.db), so that a search neither queues on Datasette's SQL
threads nor renders its results on the server's event loop, where a table page is
waiting its turn. The home page only inserts the fragment (exportkb_results.html).
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from kb.catalogue import first_paragraph
from kb.version_status import release_key

from .prose import markdown

TEMPLATES = Path(__file__).parent / "templates"
CONTRIBUTE_URL = "/contribute"  # CONTRIBUTING.md, served from the checkout
_ENV = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]))
_ENV.filters["markdown"] = markdown


def docs_url(entry_id: str, lang: str) -> str:
    return f"/docs/{lang}/entries/{entry_id}.html"


def entry_facts(db: str) -> dict[str, dict]:
    """What a result shows of every entry: its prose, release status, the error as observed,
    and the torch versions on which an observed failure was classified under it."""
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        con.row_factory = sqlite3.Row
        facts = {r["id"]: dict(r) for r in con.execute(
            "select id, cause, fix, exporters, stage, version_summary, error_text, verified from entries")}
        for r in con.execute(
                "select coalesce(entry, matched_entry) as eid, group_concat(distinct torch) as versions "
                "from observations where coalesce(entry, matched_entry) is not null and outcome = 'fail' group by eid"):
            if r["eid"] in facts:
                facts[r["eid"]]["torch_versions"] = sorted((r["versions"] or "").split(","), key=release_key)
    finally:
        con.close()
    return facts


def render(result, facts: dict[str, dict], where: dict[str, list[dict]], lang: str,
           graph_breaks: list[dict] = ()) -> str:
    """The results fragment: the Dynamo graph breaks the paste shows, with their entries; the
    confident answers, or "no confident match"; then possible matches."""
    items = []
    for m in result.ranked:
        f = facts.get(m.id)
        if f is None:
            continue
        items.append({"match": m, "cause": first_paragraph(f["cause"]), "fix": f["fix"],
                      "torch_versions": f.get("torch_versions", []), "version_summary": f.get("version_summary"),
                      "observed": f["error_text"] or "", "verified": bool(f["verified"]), "docs": docs_url(m.id, lang), "where": where.get(m.id, [])})
    confident = [i for i in items if i["match"].tier == "confident"]
    # Below the threshold, the matches still above the `possible` tier are offered as such.
    possible = [i for i in items if i["match"].tier == "possible"][:3]
    breaks = [{**gb, "docs": docs_url(gb["entry"], lang)} for gb in graph_breaks]
    return _ENV.get_template("exportkb_results.html").render(
        results=confident, possible=possible, lang=lang, contribute_url=CONTRIBUTE_URL, graph_breaks=breaks)
