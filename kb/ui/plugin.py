"""The exportkb Datasette plugin: the paste-an-error home page, the search API, entry pages, the matrix.

Search results come from the same matcher as `exportkb search`, run in worker processes
(kb/ui/search_pool.py) so that no paste holds up the server's event loop. Pasted text is
only ever rendered through Jinja's autoescaping; entry prose is rendered from Markdown
with raw HTML disabled. Every search can be reached by a GET link (kb/permalink.py).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from datasette import Response, hookimpl
from markupsafe import Markup

from kb import paths
from kb.answer import results_obj
from kb.catalogue import EXPORTERS
from kb.permalink import BadLink, decode
from kb.releases import RUNS_SQL, chart_svg
from kb.site.data import COMPAT_SQL, compat_grids, release_comparison
from kb.site.languages import LANGUAGES as LANGS

from . import search_pool
from .prose import markdown
from .results import docs_url
from .search_pool import Busy

# Pastes beyond this are refused before parsing: the matcher reads at most 1 MB of the
# tail anyway, and the form is for errors and logs, not uploads.
MAX_POST_BYTES = 16_000_000
# The paths that only search: read-only, so a request from another site can forge nothing
# and needs no CSRF token (the API is meant to be called from anywhere).
SEARCH_PATHS = ("/", "/search.json")
CORS = {"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
        "Access-Control-Allow-Headers": "Content-Type", "Access-Control-Max-Age": "86400"}
API_LIMIT = 3  # as `exportkb search --json`
_ENTRY_ID = re.compile(r"[a-z0-9-]{1,100}")


def _db(datasette):
    return datasette.get_database("kb")


def _lang(value: str | None) -> str:
    return value if value in LANGS else "en"


def _base(request) -> str:
    return f"{request.scheme}://{request.host}"


async def _search(datasette, request, *, field_name: str, lang: str, limit: int = search_pool.LIMIT):
    """Run the request's search in the pool: a POST body is parsed there, a GET's q or z here."""
    key = search_pool.db_key(_db(datasette).path)
    if request.method == "POST":
        body = await request.post_body()  # at most MAX_POST_BYTES: asgi_wrapper refuses more as it streams in
        return await search_pool.run(search_pool.answer, *key, None, body, request.headers.get("content-type", ""),
                                     field_name, lang, limit)
    if "z" in request.args:
        try:
            text = decode(request.args["z"])
        except BadLink as exc:
            return search_pool.Answer(error=str(exc), status=400, lang=lang)
    else:
        text = request.args.get("q", "")
    return await search_pool.run(search_pool.answer, *key, text, None, "", field_name, lang, limit)


def _shared_ids(request) -> list[str]:
    """The entries a shared link says were shown when it was made (`e`), valid ids only."""
    return [i for i in (request.args.get("e") or "").split(",") if _ENTRY_ID.fullmatch(i)][:10]


async def home(datasette, request):
    lang = _lang(request.args.get("lang"))
    context = {"langs": LANGS, "lang": lang, "query": "", "results_html": None, "notes": [], "error": None,
               "link": None, "then": [],
               "site_url": _base(request)}
    status, headers = 200, {}
    searching = request.method == "POST" or "q" in request.args or "z" in request.args
    if searching:
        try:
            ans = await _search(datasette, request, field_name="error", lang=lang)
        except Busy as exc:
            ans = search_pool.Answer(error=f"The server is busy ({exc}); try again in a few seconds.", status=503,
                                     lang=lang)
            headers["Retry-After"] = "2"
        lang = context["lang"] = _lang(ans.lang)
        context["query"], context["notes"], status = ans.query, ans.notes, ans.status
        if ans.error:
            context["error"] = ans.error
        else:
            context["results_html"] = Markup(ans.html)  # rendered in the worker, escaped there
            context["link"] = f"{_base(request)}/?{ans.link}"
            then = _shared_ids(request)
            if "e" in request.args and then != [m.id for m in ans.result.ranked]:
                context["then"] = then  # the catalogue changed since the link was made
    html = await datasette.render_template("exportkb_home.html", context, request=request)
    return Response.html(html, status=status, headers=headers)


def _json_error(message: str, status: int, headers: dict[str, str] | None = None) -> Response:
    """An API error: the answer's shape, empty, with what went wrong."""
    return Response.json({"error": message, "results": [], "possible": []}, status=status,
                         headers={**CORS, **(headers or {})})


async def search_json(datasette, request):
    """`/search.json?q=...` (or `z=`), or a POST of JSON {"q": ...}, a form or plain text:
    what `exportkb search --json` prints, plus the notes, the matched lines and a link."""
    if request.method == "OPTIONS":
        return Response("", status=204, headers=CORS)
    try:
        limit = max(1, min(20, int(request.args.get("limit") or API_LIMIT)))
    except ValueError:
        return _json_error("limit must be a number from 1 to 20", 400)
    lang = _lang(request.args.get("lang"))
    if request.method == "GET" and "q" not in request.args and "z" not in request.args:
        return _json_error("give the error text as q (GET ?q=... or POST)", 400)
    try:
        ans = await _search(datasette, request, field_name="q", lang=lang, limit=limit)
    except Busy as exc:
        return _json_error(f"busy: {exc}", 503, {"Retry-After": "2"})
    if ans.error:
        return _json_error(ans.error, ans.status)
    obj = results_obj(ans.result, limit, ans.facts, ans.where, ans.graph_breaks)
    obj["link"] = f"{_base(request)}/?{ans.link}"
    return Response.json(obj, headers=CORS)


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
        "select \"case\", kind, exporter, code, companions from cases where entry = ? order by kind desc, \"case\"",
        [entry_id])).rows]
    for c in cases:
        c["companions"] = json.loads(c["companions"] or "[]")
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
    graph_breaks = [dict(r) for r in (await db.execute(
        "select g.id, g.gb_type, g.url from graph_breaks g join entry_graph_breaks l on l.id = g.id "
        "where l.entry = ? order by g.id", [entry_id])).rows]
    quotes = [dict(r) for r in (await db.execute(
        "select source, torch, text from entry_quotes where entry = ? order by seq", [entry_id])).rows]
    context = {"entry": entry, "cases": cases, "observations": observations, "models": models, "langs": LANGS,
               "quotes": quotes, "releases": releases, "fix_results": fix_results, "graph_breaks": graph_breaks,
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


async def compat(datasette, request):
    """The compatibility matrix: per exporter, artifacts written on one release and loaded on another.

    The docs page is built from the same rows by the same function, so the two agree."""
    grids = compat_grids((await _db(datasette).execute(COMPAT_SQL)).rows)
    return Response.html(await datasette.render_template("exportkb_compat.html", {"grids": grids}, request=request))


async def releases(datasette, request):
    """The corpus sample across torch releases: the chart and the changes, as on the docs page."""
    found = release_comparison((await _db(datasette).execute(RUNS_SQL)).rows)
    context = {"r": found, "chart": Markup(chart_svg(found.rates)) if found else ""}
    return Response.html(await datasette.render_template("exportkb_releases.html", context, request=request))


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
        (r"^/search\.json$", search_json),
        (r"^/entry/(?P<entry_id>[a-z0-9-]{1,100})$", entry_page),
        (r"^/matrix$", matrix),
        (r"^/compat$", compat),
        (r"^/releases$", releases),
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
        {"href": "/releases", "label": "Corpus across releases"},
        {"href": "/compat", "label": "Artifacts across releases"},
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
        async def bound_posts(scope, receive, send):
            """Refuse a POST body over MAX_POST_BYTES while it streams in, before anything
            buffers it; and make a form body that the CSRF middleware will parse ASCII."""
            if scope["type"] != "http" or scope.get("method") != "POST":
                return await app(scope, receive, send)
            headers = dict(scope.get("headers") or [])
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
            body = b"".join(chunks)
            # The search paths skip the CSRF middleware and parse their body in a worker.
            if scope.get("path") not in SEARCH_PATHS and \
                    headers.get(b"content-type", b"").startswith(b"application/x-www-form-urlencoded"):
                body = _ascii_form_body(body)
            sent = False

            async def replay():
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            return await app(scope, replay, send)

        return bound_posts

    return wrap


@hookimpl
def skip_csrf(datasette, scope):
    """Searching changes nothing, so there is nothing for a cross-site request to forge; the
    JSON API must take POSTs from scripts and other sites, which have no CSRF cookie."""
    return scope.get("type") == "http" and scope.get("path") in SEARCH_PATHS


@hookimpl
def startup(datasette):
    """Start the search workers with the server, so the first search does not wait for them."""
    db = datasette.databases.get("kb")
    if db is not None and db.path:
        search_pool.prewarm(db.path)


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["markdown"] = markdown


@hookimpl
def extra_js_urls(template, database, table, columns, view_name, request, datasette):
    # A module script runs after the page is parsed (deferred), when the form exists.
    return [{"url": "/exportkb-static/exportkb.js", "module": True}] if template == "exportkb_home.html" else []


@hookimpl
def extra_css_urls():
    return ["/exportkb-static/exportkb.css"]
