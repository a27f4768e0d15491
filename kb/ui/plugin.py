"""The exportkb Datasette plugin: the paste-an-error home page, entry pages, the matrix.

Search results come from the same matcher as `exportkb search`, loaded from the
database Datasette serves. Pasted text is only ever rendered through Jinja's
autoescaping, and the search form posts with Datasette's CSRF token.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qsl

from datasette import Response, hookimpl

from kb import paths
from kb.build import load_matcher
from kb.catalogue import EXPORTERS, first_sentence
from kb.site.languages import LANGUAGES as LANGS
from kb.textin import EmptyInput, read_input

CONTRIBUTE_URL = "/contribute"  # CONTRIBUTING.md, served from the checkout
# Pastes beyond this are refused before parsing: the matcher reads at most 1 MB of the
# tail anyway, and the form is for errors and logs, not uploads.
MAX_POST_BYTES = 16_000_000


def _db(datasette):
    return datasette.get_database("kb")


@lru_cache(maxsize=4)
def _matcher(path: str, mtime_ns: int):
    return load_matcher(Path(path))


def matcher_for(datasette):
    path = _db(datasette).path
    return _matcher(path, Path(path).stat().st_mtime_ns)


def _lang(value: str | None) -> str:
    return value if value in LANGS else "en"


def docs_url(entry_id: str, lang: str) -> str:
    return f"/docs/{lang}/entries/{entry_id}.html"


async def _entry_details(db, ids: list[str]) -> dict[str, dict]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = (await db.execute(
        f"select id, cause, fix, exporters, stage, version_summary, error_text from entries where id in ({marks})",
        ids)).rows
    details = {r["id"]: dict(r) for r in rows}
    seen = await db.execute(
        f"select coalesce(entry, matched_entry) as eid, group_concat(distinct torch) as versions from observations "
        f"where coalesce(entry, matched_entry) in ({marks}) and outcome = 'fail' group by eid", ids)
    for r in seen.rows:
        details[r["eid"]]["torch_versions"] = sorted((r["versions"] or "").split(","))
    return details


async def _parse_form(request) -> tuple[dict[str, str], str | None]:
    body = await request.post_body()
    if len(body) > MAX_POST_BYTES:
        return {}, f"the paste is {len(body) / 1e6:.1f} MB; the limit is {MAX_POST_BYTES // 1_000_000} MB"
    # Decode leniently: a paste of binary junk must not take the page down.
    form = dict(parse_qsl(body.decode("latin-1"), keep_blank_values=True, encoding="utf-8", errors="replace"))
    return form, None


async def home(datasette, request):
    lang = _lang(request.args.get("lang"))
    context = {"langs": LANGS, "lang": lang, "query": "", "results": None, "notes": [], "error": None,
               "possible": [], "contribute_url": CONTRIBUTE_URL}
    status = 200
    if request.method == "POST":
        form, error = await _parse_form(request)
        lang = context["lang"] = _lang(form.get("lang"))
        text = form.get("error", "")
        context["query"] = text[:200_000]  # echo back (escaped) what fits in a textarea
        if error:
            context["error"], status = error, 413
        else:
            try:
                inp = read_input(text)
            except EmptyInput as exc:
                context["error"], status = str(exc), 400
            else:
                result = matcher_for(datasette).search(inp)
                confident = result.confident[:5]
                details = await _entry_details(_db(datasette), [m.id for m in confident])
                context["notes"] = inp.notes
                # Below the threshold, the matches still above the `possible` tier are offered as such.
                context["possible"] = result.possible[:3]
                context["results"] = [
                    {"match": m, "cause": first_sentence(details[m.id]["cause"]),
                     "torch_versions": details[m.id].get("torch_versions", []),
                     "version_summary": details[m.id].get("version_summary"),
                     "observed": details[m.id]["error_text"] or "", "docs": docs_url(m.id, lang)}
                    for m in confident
                ]
    html = await datasette.render_template("exportkb_home.html", context, request=request)
    return Response.html(html, status=status)


async def entry_page(datasette, request):
    entry_id = request.url_vars["entry_id"]
    lang = _lang(request.args.get("lang"))
    db = _db(datasette)
    rows = (await db.execute("select * from entries where id = ?", [entry_id])).rows
    if not rows:
        html = await datasette.render_template("exportkb_404.html", {"what": f"entry '{entry_id}'"}, request=request)
        return Response.html(html, status=404)
    entry = dict(rows[0])
    for key in ("exporters", "tags", "patterns"):
        entry[key] = json.loads(entry[key])
    entry["refs"] = json.loads(entry["refs"])
    cases = [dict(r) for r in (await db.execute(
        "select \"case\", kind, exporter, code from cases where entry = ? order by kind desc, \"case\"", [entry_id])).rows]
    observations = [dict(r) for r in (await db.execute(
        "select key, model, source, exporter, stage, outcome, exc_type, signature, torch, match_score "
        "from observations where entry = ? or matched_entry = ? order by torch desc, source, model, exporter",
        [entry_id, entry_id])).rows]
    models = sorted({o["model"] for o in observations if o["source"] != "entry" and o["outcome"] != "ok"})
    releases = [dict(r) for r in (await db.execute(
        "select torch, status, fix, failing_run, failing_reproduced, fixed_run, fixed_ok, error_text "
        "from entry_versions where entry = ? order by release_order", [entry_id])).rows]
    fix_results = [dict(r) for r in (await db.execute(
        "select fix, exporter, torch, models_tried, models_fixed, models_past from entry_fixes where entry = ? "
        "order by fix, exporter, torch", [entry_id])).rows]
    context = {"entry": entry, "cases": cases, "observations": observations, "models": models, "langs": LANGS,
               "releases": releases, "fix_results": fix_results,
               "lang": lang, "docs": {code: docs_url(entry_id, code) for code in LANGS}}
    return Response.html(await datasette.render_template("exportkb_entry.html", context, request=request))


async def matrix(datasette, request):
    """Models x exporters, each cell coloured by the outcome on the newest torch observed."""
    source = request.args.get("source") or None
    db = _db(datasette)
    sql = ("select model, exporter, outcome, torch, matched_entry from observations "
           + ("where source = ? " if source else "") + "order by model, exporter, torch")
    latest: dict[tuple[str, str], dict] = {}
    for r in (await db.execute(sql, [source] if source else [])).rows:
        latest[(r["model"], r["exporter"])] = dict(r)  # rows are ordered, so the newest torch wins
    models = sorted({m for m, _ in latest})
    exporters = [e for e in (await _exporters(db)) if any((m, e) in latest for m in models)]
    sources = [r[0] for r in (await db.execute("select distinct source from observations order by source")).rows]
    context = {"models": models, "exporters": exporters, "cells": latest, "sources": sources, "source": source}
    return Response.html(await datasette.render_template("exportkb_matrix.html", context, request=request))


async def _exporters(db) -> list[str]:
    seen = {r[0] for r in (await db.execute("select distinct exporter from observations")).rows}
    return [e for e in EXPORTERS if e in seen] + sorted(seen - set(EXPORTERS))


_LANG_RE = "|".join(LANGS)
GUIDES = {"en": "CONTRIBUTING.md", "ko": "CONTRIBUTING.ko.md", "zh_CN": "CONTRIBUTING.zh.md"}


async def contribute(datasette, request):
    lang = _lang(request.args.get("lang"))
    guide = paths.root() / GUIDES[lang]
    text = guide.read_text(encoding="utf-8") if guide.exists() else f"See {GUIDES[lang]} in the repository."
    context = {"guide": text, "lang": lang, "langs": LANGS}
    html = await datasette.render_template("exportkb_contribute.html", context, request=request)
    return Response.html(html)


async def docs_entry(datasette, request):
    """An entry's docs page; until the site has been built, the entry page stands in."""
    lang, entry_id = _lang(request.url_vars["lang"]), request.url_vars["entry_id"]
    page = paths.docs_dir() / lang / "entries" / f"{entry_id}.html"
    if page.is_file():
        return Response(page.read_text(encoding="utf-8"), content_type="text/html; charset=utf-8")
    return Response.redirect(f"/entry/{entry_id}?lang={lang}")


async def docs_index(request):
    lang = _lang((request.url_vars.get("lang") or "en").strip("/"))
    return Response.redirect(f"/docs/{lang}/index.html")


@hookimpl
def register_routes():
    return [
        (r"^/$", home),
        (r"^/entry/(?P<entry_id>[a-z0-9-]{1,100})$", entry_page),
        (r"^/matrix$", matrix),
        (r"^/contribute$", contribute),
        (r"^/docs/?$", docs_index),
        (rf"^/docs/(?P<lang>{_LANG_RE})/entries/(?P<entry_id>[a-z0-9-]{{1,100}})\.html$", docs_entry),
        (rf"^/docs/(?P<lang>{_LANG_RE})/?$", docs_index),
    ]


@hookimpl
def menu_links(datasette):
    return [
        {"href": "/", "label": "Search an error"},
        {"href": "/kb/entries", "label": "Entries"},
        {"href": "/kb/observations", "label": "Observations"},
        {"href": "/matrix", "label": "Corpus matrix"},
        {"href": "/docs/en/index.html", "label": "Documentation"},
    ]


def _ascii_form_body(body: bytes) -> bytes:
    """Percent-encode every non-ASCII byte of a urlencoded body.

    Browsers already send forms this way; a hand-made request with raw invalid UTF-8
    would otherwise crash the CSRF middleware's decoding before our view runs. Valid
    UTF-8 survives the round trip, since form parsing decodes %XX as UTF-8.
    """
    if body.isascii():
        return body
    return b"".join(b"%%%02X" % b if b >= 0x80 else bytes((b,)) for b in body)


@hookimpl
def asgi_wrapper(datasette):
    def wrap(app):
        async def sanitise_form_posts(scope, receive, send):
            headers = dict(scope.get("headers") or [])
            if (scope["type"] != "http" or scope.get("method") != "POST"
                    or not headers.get(b"content-type", b"").startswith(b"application/x-www-form-urlencoded")):
                return await app(scope, receive, send)
            chunks, size = [], 0
            while True:
                message = await receive()
                chunks.append(message.get("body", b""))
                size += len(chunks[-1])
                if size > MAX_POST_BYTES:
                    response = Response.text(f"The paste is over {MAX_POST_BYTES // 1_000_000} MB.", status=413)
                    return await response.asgi_send(send)
                if not message.get("more_body"):
                    break
            body = _ascii_form_body(b"".join(chunks))
            sent = False

            async def replay():
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            return await app(scope, replay, send)

        return sanitise_form_posts

    return wrap


@hookimpl
def extra_css_urls():
    return ["/exportkb-static/exportkb.css"]
