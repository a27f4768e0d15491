"""The search UI through Datasette's own test client: the app `exportkb serve` runs."""
import asyncio
import json
import re

import pytest

from kb.build import build
from kb.catalogue import load_catalogue
from kb.observations import append_observation, read_observations, run_of
from kb.ui.app import make_datasette
from kb.version_status import current_case_hashes
from conftest import PINNED_TORCH, REPO

CATALOGUE = load_catalogue(REPO / "entries")
STATIC = "AssertionError: Guard failed: x.size()[0] == 2"


def get(ds, path):
    return asyncio.run(ds.client.get(path))


def search(ds, text, lang="en"):
    """The form's POST, as a browser sends it (searching needs no CSRF token: it changes nothing)."""
    return asyncio.run(ds.client.post("/", data={"error": text, "lang": lang}))


def result_ids(html):
    return re.findall(r'data-entry="([^"]+)"', html)


def shown_ids(html):
    """Every entry the page shows, in order: the confident answers, then the possible matches."""
    return re.findall(r'data-(?:entry|possible)="([^"]+)"', html)


def recorded_errors():
    """Real error texts, recorded when each entry's failing scripts, as they are now, ran on torch 2.13."""
    current = current_case_hashes(CATALOGUE)
    for rec in read_observations(REPO / "observations").records:
        if rec["versions"].get("torch") != PINNED_TORCH:
            continue  # older releases: tests/test_version_status.py
        case = rec.get("case") or ""
        if rec["source"] == "entry" and rec["outcome"] == "fail" and case.startswith("failing") and \
                current.get((rec.get("entry"), case)) == rec.get("case_hash"):
            yield pytest.param(rec["entry"], rec["traceback"], id=f"{rec['entry']}/{rec['case']}")


def first_answer(html) -> set[str]:
    """The entry shown first, or every entry of the tie it opens: the page marks each tied
    result, and a tie means the text cannot order them (trace-torch-cond and
    jit-trace-compiled-module print one message)."""
    items = [(entry, 'class="tie"' in body) for entry, body
             in re.findall(r'<li class="exportkb-result" data-entry="([^"]+)">(.*?)</li>', html, re.S)]
    if not items:  # no confident answer: the possible matches, where a tie says "· tie"
        items = [(entry, "· tie</span>" in body) for entry, body
                 in re.findall(r'<li data-possible="([^"]+)">(.*?)</li>', html, re.S)]
    if not items:
        return set()
    tied = {entry for entry, tie in items if tie}
    return tied if items[0][0] in tied else {items[0][0]}


@pytest.mark.parametrize("entry_id,text", list(recorded_errors()))
def test_search_by_each_real_error_puts_its_entry_first(ds, entry_id, text):
    r = search(ds, text)
    assert r.status_code == 200
    assert entry_id in first_answer(r.text)


def test_tutorial_static_batch_error_with_links_in_the_chosen_language(ds):
    r = search(ds, STATIC, lang="ko")
    assert result_ids(r.text)[0] == "static-batch-size"
    assert 'href="/docs/ko/entries/static-batch-size.html"' in r.text
    assert 'href="/kb/observations?matched_entry=static-batch-size"' in r.text
    seen = re.search(r"seen on torch ([^<·]+)", r.text).group(1).strip().split(", ")
    assert "2.13.0+cpu" in seen and "2.4.1" in seen and seen.index("2.4.1") < seen.index("2.13.0+cpu")
    assert "Guard failed: x.size()[0] == 2" in r.text  # the error as observed


def test_older_wording_finds_the_same_entry(ds):
    r = search(ds, "RuntimeError: Expected input at *args[0].shape[0] to be equal to 2, but got 4")
    assert result_ids(r.text)[0] == "static-batch-size"


def test_unrelated_error_says_no_confident_match_and_how_to_contribute(ds):
    r = search(ds, "ZeroDivisionError: division by zero")
    assert r.status_code == 200
    assert result_ids(r.text) == []
    assert 'id="no-match"' in r.text and 'href="/contribute?lang=en"' in r.text
    guide = get(ds, "/contribute")
    assert guide.status_code == 200 and "exportkb new" in guide.text


@pytest.mark.parametrize("lang,heading", [("en", "Contributing an export failure"), ("ko", "내보내기 실패 사례 기여하기"),
                                          ("zh_CN", "贡献导出失败案例")])
def test_contribution_guide_in_each_language(ds, lang, heading):
    r = search(ds, "ZeroDivisionError: division by zero", lang=lang)
    assert f'href="/contribute?lang={lang}"' in r.text
    guide = get(ds, f"/contribute?lang={lang}")
    assert guide.status_code == 200 and heading in guide.text
    assert "exportkb check my-failure-id" in guide.text  # commands stay verbatim in every language


@pytest.mark.parametrize("entry", CATALOGUE, ids=[e.id for e in CATALOGUE])
def test_entry_page(ds, entry):
    r = get(ds, f"/entry/{entry.id}")
    assert r.status_code == 200
    html = r.text
    assert entry.title.replace("'", "&#39;").replace('"', "&#34;") in html or entry.title in html
    # The code shown is the code that ran, escaped for HTML.
    first_line = (entry.folder / "failing.py").read_text().splitlines()[0]
    assert first_line.replace('"', "&#34;").replace("'", "&#39;").replace("<", "&lt;") in html
    assert "Observations that hit it" in html and "Corpus models affected" in html


def test_unknown_entry_is_404(ds):
    assert get(ds, "/entry/no-such-entry").status_code == 404


def test_facets_on_observations_and_entries(ds):
    data = get(ds, "/kb/observations.json?_size=0").json()
    assert {"exporter", "stage", "outcome", "torch", "source", "matched_entry"} <= set(data["facet_results"])
    outcomes = {f["value"] for f in data["facet_results"]["outcome"]["results"]}
    assert {"ok", "fail"} <= outcomes
    entries = get(ds, "/kb/entries.json?_size=0").json()
    exporters = {f["value"] for f in entries["facet_results"]["exporters"]["results"]}
    assert {"export", "jit-script", "onnx-legacy"} <= exporters


def test_every_table_and_column_is_described(ds):
    meta = get(ds, "/-/metadata.json").json()["databases"]["kb"]["tables"]
    for table in ("entries", "cases", "observations", "entry_texts", "meta"):
        columns = [c["name"] for c in get(ds, f"/kb/{table}.json?_size=0&_extra=columns").json().get("columns_detail", [])] \
            or get(ds, f"/kb/{table}.json?_size=0").json()["columns"]
        assert meta[table]["description"]
        missing = [c for c in columns if c != "rowid" and c not in meta[table]["columns"]]
        assert not missing, (table, missing)


def test_stored_queries(ds):
    rows = get(ds, "/kb/pass_rate_per_exporter.json?_shape=array").json()
    assert rows and all(0 <= r["pass_rate_percent"] <= 100 for r in rows)
    assert {r["exporter"] for r in rows} >= {"export", "jit-script"}
    hits = get(ds, "/kb/models_for_entry.json?_shape=array&entry=static-batch-size").json()
    # The same rows as Datasette's own table filter; the entry's script is always one.
    table = get(ds, "/kb/observations.json?_shape=array&_size=max&matched_entry=static-batch-size").json()
    assert "static-batch-size/failing.py" in {r["model"] for r in hits}
    assert sorted((r["model"], r["exporter"]) for r in hits) == sorted((r["model"], r["exporter"]) for r in table)
    fails = get(ds, "/kb/failures_on_model.json?_shape=array&model=cache-output").json()
    assert fails and all("cache-output" in r["model"] for r in fails)


def test_corpus_per_source_counts_what_the_committed_observations_hold(ds):
    """The stored query behind the closing note's figures agrees with a count made
    straight from the JSONL files, without SQL."""
    expected: dict[tuple[str, str], dict] = {}
    for rec in read_observations(REPO / "observations").records:
        if run_of(rec) != "collect":
            continue
        row = expected.setdefault((rec["source"], rec["versions"]["torch"]),
                                  {"models": set(), "built": set(), "attempts": 0, "ok": 0, "fail": 0})
        row["models"].add(rec["model"])
        if rec["outcome"] != "build":
            row["built"].add(rec["model"])
            row["attempts"] += 1
        if rec["outcome"] in ("ok", "fail"):
            row[rec["outcome"]] += 1
    rows = get(ds, "/kb/corpus_per_source.json?_shape=array").json()
    assert {(r["source"], r["torch"]) for r in rows} == set(expected)
    for r in rows:
        want = expected[(r["source"], r["torch"])]
        assert (r["models"], r["built"], r["attempts"], r["ok"], r["fail"]) == (
            len(want["models"]), len(want["built"]), want["attempts"], want["ok"], want["fail"]), r["source"]
        assert r["build_failures"] == r["models"] - r["built"]
        assert 0 <= r["explained_failures"] <= r["fail"]


def test_matrix_page(ds):
    r = get(ds, "/matrix?source=entry")
    assert r.status_code == 200
    assert "static-batch-size/failing.py" in r.text and "outcome-fail" in r.text and "outcome-ok" in r.text


def test_compat_page_counts_each_cell_as_kb_db_holds_it_and_links_the_entries(ds, kb_db):
    import sqlite3

    conn = sqlite3.connect(kb_db)
    cells = conn.execute("select exporter, runtime, written_on, loaded_on, sum(outcome = 'ok'), count(*) from compat "
                         "group by exporter, runtime, written_on, loaded_on").fetchall()
    explained = {r[0] for r in conn.execute("select matched_entry from compat where matched_entry is not null")}
    conn.close()
    assert cells, "the committed compat observations are missing from kb.db"
    r = get(ds, "/compat")
    assert r.status_code == 200 and "Artifacts across releases" in r.text
    for exporter, runtime, written, loaded, ok, total in cells:
        link = (f'/kb/compat?exporter={exporter}&amp;runtime={runtime}&amp;written_on={written}&amp;loaded_on={loaded}">'
                f"{ok}/{total}</a>")
        assert link in r.text, (exporter, runtime, written, loaded)
    for entry in explained:
        assert f'<a href="/entry/{entry}">{entry}</a>' in r.text
    assert 'href="/compat"' in get(ds, "/").text  # in the menu


# -- security ----------------------------------------------------------------------

def test_database_is_immutable_and_arbitrary_sql_is_off(ds):
    assert ds.get_database("kb").is_mutable is False
    assert get(ds, "/kb?sql=select+1").status_code == 403
    assert ds.setting("sql_time_limit_ms") == 1000


def test_search_needs_no_csrf_token_but_the_rest_of_datasette_keeps_it(ds):
    # A search is read-only: a form on another site can make a browser run one, and learn nothing.
    async def go():
        r = await ds.client.post("/", data={"error": STATIC}, cookies={"ds_csrftoken": "forged"})
        # Datasette's own POST endpoints still refuse a request whose token does not match its cookie.
        other = await ds.client.post("/-/logout", data={"x": "1"}, cookies={"ds_csrftoken": "forged"})
        return r, other
    r, other = asyncio.run(go())
    assert r.status_code == 200 and result_ids(r.text)[0] == "static-batch-size"
    assert other.status_code == 403 and "did not match cookie" in other.text  # refused by asgi-csrf
    assert ds.get_database("kb").is_mutable is False


def test_pasted_html_is_rendered_as_text(ds):
    r = search(ds, STATIC + "\n<script>alert('x')</script><img src=x onerror=alert(1)>")
    assert "<script>alert" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;alert(" in r.text
    # The markup is read as part of the message, so the match is less sure of itself:
    # confident or possible, the entry must still come first.
    assert shown_ids(r.text)[0] == "static-batch-size"


def test_ten_megabyte_paste_gets_a_note_and_a_result(ds):
    text = "step ok\n" * 1_300_000 + STATIC
    r = search(ds, text)
    assert r.status_code == 200
    assert "analysed only its last" in r.text
    assert result_ids(r.text)[0] == "static-batch-size"
    assert get(ds, "/").status_code == 200  # and the server is still up


def test_binary_junk_gets_a_clear_message(ds):
    body = b"error=" + bytes(range(256)) * 50
    r = asyncio.run(ds.client.post("/", content=body, headers={"content-type": "application/x-www-form-urlencoded"}))
    assert r.status_code in (200, 400)
    assert "exportkb-error" in r.text or 'id="no-match"' in r.text
    assert get(ds, "/").status_code == 200


def test_empty_paste_is_a_clear_message(ds):
    r = search(ds, "   ")
    assert r.status_code == 400 and "no input" in r.text


def test_stored_traceback_with_html_is_escaped_everywhere(kb_root):
    hostile = "AssertionError: Guard failed: x.size()[0] == 2 <script>alert('stored')</script>"
    append_observation(kb_root / "observations" / "runs.jsonl", {
        "key": "hostile", "source": "corpus", "model": "<b>evil</b>", "exporter": "export", "stage": "run",
        "outcome": "fail", "traceback": hostile, "message": hostile, "versions": {"torch": "2.13.0+cpu"}})
    db = kb_root / "build" / "kb.db"
    build(db)
    datasette = make_datasette(db, docs=kb_root / "_build" / "html")
    asyncio.run(datasette.invoke_startup())
    for path in ("/entry/static-batch-size", "/kb/observations", "/kb/observations/hostile", "/matrix"):
        html = asyncio.run(datasette.client.get(path)).text
        assert "<script>alert('stored')" not in html and "<b>evil</b>" not in html, path
    assert "&lt;b&gt;evil&lt;/b&gt;" in asyncio.run(datasette.client.get("/entry/static-batch-size")).text


def test_paste_over_the_size_limit_is_refused_clearly(ds):
    r = search(ds, "x" * 17_000_000)
    assert r.status_code == 413 and "over 16 MB" in r.text
    assert get(ds, "/").status_code == 200


def test_docs_links_serve_the_built_page_or_fall_back_to_the_entry_page(kb_root):
    db = kb_root / "build" / "kb.db"
    build(db)
    docs = kb_root / "_build" / "html"
    datasette = make_datasette(db, docs=docs)
    asyncio.run(datasette.invoke_startup())
    r = asyncio.run(datasette.client.get("/docs/ko/entries/static-batch-size.html"))
    assert r.status_code == 302 and r.headers["location"] == "/entry/static-batch-size?lang=ko"
    (docs / "ko" / "entries").mkdir(parents=True)
    (docs / "ko" / "entries" / "static-batch-size.html").write_text("<h1>정적 배치</h1>", encoding="utf-8")
    r = asyncio.run(datasette.client.get("/docs/ko/entries/static-batch-size.html"))
    assert r.status_code == 200 and "정적 배치" in r.text
    assert asyncio.run(datasette.client.get("/docs/ko")).headers["location"] == "/docs/ko/index.html"


def test_releases_page_draws_the_rates_kb_db_holds_and_links_the_changes_entries(ds, kb_db):
    import sqlite3

    conn = sqlite3.connect(kb_db)
    rates = conn.execute("select exporter, torch, ok, models from release_rates").fetchall()
    entries = {r[0] for r in conn.execute("select entry from release_changes where entry is not null")}
    conn.close()
    assert rates, "the committed release runs are missing from kb.db"
    r = get(ds, "/releases")
    assert r.status_code == 200 and "Corpus across releases" in r.text
    assert '<svg class="kb-chart kb-release-chart"' in r.text
    for exporter, torch, ok, models in rates:
        assert f"<title>{exporter} {torch}: {ok}/{models}</title>" in r.text
        assert f'/kb/release_runs?exporter={exporter}&amp;torch={torch}">{ok}/{models}</a>' in r.text
    for entry in entries:
        assert f'<a href="/entry/{entry}">{entry}</a>' in r.text
    assert 'href="/releases"' in get(ds, "/").text  # in the menu


def test_a_pasted_graph_break_shows_its_id_registry_text_and_entry(ds, kb_db):
    import sqlite3
    from urllib.parse import quote

    conn = sqlite3.connect(kb_db)
    gb_id, hints = conn.execute("select id, hints from graph_breaks where gb_type = ?",
                                ["Attempted to wrap RNN, GRU, or LSTM"]).fetchone()
    conn.close()
    text = ("torch._dynamo.exc.Unsupported: Attempted to wrap RNN, GRU, or LSTM\n"
            "  Explanation: Dynamo does not support RNN, GRU, or LSTM.\n")
    r = search(ds, text)
    assert r.status_code == 200
    assert f'data-graph-break="{gb_id}"' in r.text and f"Dynamo graph break {gb_id}" in r.text
    assert 'data-graph-break-entry="export-strict-graph-break"' in r.text
    assert f"/gb/{gb_id.lower()}.html" in r.text and json.loads(hints)[0] in r.text
    assert 'id="no-match"' not in r.text  # the graph break's entry is the answer
    api = get(ds, "/search.json?q=" + quote(text)).json()
    assert [g["id"] for g in api["graph_breaks"]] == [gb_id]
    assert api["graph_breaks"][0]["entry"] == "export-strict-graph-break"


def test_an_unverified_entry_says_so_in_results_on_its_page_and_in_json(ds):
    from urllib.parse import quote

    entry = next(e for e in CATALOGUE if e.id == "onnx-legacy-input-without-type")
    assert not entry.verified
    text = entry.quotes[0].text
    r = search(ds, text)
    assert result_ids(r.text)[0] == entry.id
    start = r.text.index(f'<li class="exportkb-result" data-entry="{entry.id}">')
    result = r.text[start:r.text.index("</ol>", start)].split('<li class="exportkb-result"')[1]
    assert "not verified here: the error is quoted from reports and the fix was not run" in result
    assert "<summary>Error as reported</summary>" in result
    api = get(ds, "/search.json?q=" + quote(text)).json()
    assert api["results"][0]["id"] == entry.id and api["results"][0]["verified"] is False
    page = get(ds, f"/entry/{entry.id}").text
    assert 'id="reported"' in page and f'href="{entry.quotes[0].source}"' in page and "torch 1.2" in page
    assert "does not reproduce on the pinned torch" not in page  # it was never run here
    # A verified entry says none of it.
    verified = search(ds, STATIC).text
    assert "not verified here" not in verified and "<summary>Error as observed</summary>" in verified
    assert 'id="reported"' not in get(ds, "/entry/static-batch-size").text


def test_an_entry_page_names_the_companions_each_script_ran_with(ds):
    entry = next(e for e in CATALOGUE if e.companions)
    page = get(ds, f"/entry/{entry.id}").text
    for case, pins in entry.companions.items():
        shown = page[page.index(f"<h3>{case} "):]
        shown = shown[:shown.index("<pre")]
        assert "installed for this script alone" in shown
        assert all(f"<code>{pin}</code>" in shown for pin in pins)
    assert "installed for this script alone" not in get(ds, "/entry/static-batch-size").text


def test_an_entry_page_lists_the_graph_breaks_it_explains(ds, kb_db):
    import sqlite3

    conn = sqlite3.connect(kb_db)
    links = conn.execute("select l.entry, l.id, g.url from entry_graph_breaks l join graph_breaks g on g.id = l.id"
                         ).fetchall()
    conn.close()
    assert links
    for entry, gb_id, url in links:
        html = get(ds, f"/entry/{entry}").text
        assert f'data-graph-break="{gb_id}"' in html and f'href="{url}"' in html, (entry, gb_id)
    assert "Dynamo graph breaks it explains" not in get(ds, "/entry/static-batch-size").text
