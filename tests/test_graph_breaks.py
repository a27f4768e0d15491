"""Dynamo's graph-break registry in search (kb/graph_breaks.py): every registry message, in
the form Dynamo prints it, gets an answer that names its id; real graph breaks from the
entries' own runs land on the entry that was written for them."""
import json
import re
import sqlite3
import subprocess
import sys

from conftest import REPO
from kb import graph_breaks
from kb.graph_breaks import found_in, printed

URL = re.compile(r"compile-graph-break-site/gb/(gb\d{4})\.html")


def rows(db, sql, *args):
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, args)]
    finally:
        conn.close()


def test_every_registry_message_names_its_id_and_an_entry(kb_db):
    breaks = graph_breaks.load(REPO / "observations" / "graph-breaks")
    stored = {r["id"]: r for r in rows(kb_db, "select * from graph_breaks")}
    entries = {r["id"] for r in rows(kb_db, "select id from entries")}
    assert len(breaks) >= 517 and set(stored) == set(breaks)  # 2.13.0's registry alone holds 517
    tied = 0
    for gb in breaks.values():
        # From 2.9.1 on Dynamo links the id's page (seen in the sweep's runs): the answer is that id.
        [first, *_] = found_in(kb_db, printed(gb))
        assert first["id"] == gb.id and first["url"] == gb.url
        assert first["entry"] in entries and first["entry"] == stored[gb.id]["answer"]
        # Without the link (older releases, a cut paste), the type line still finds it; a
        # few types are shared by two ids, and then both are offered.
        found = [x["id"] for x in found_in(kb_db, printed(gb, with_url=False))]
        assert gb.id in found, gb.id
        tied += len(found) > 1
    assert tied <= 6


def test_every_graph_break_printed_by_a_real_run_on_any_release_is_identified(kb_db):
    runs = rows(kb_db, "select torch, traceback from observations where traceback like '%compile-graph-break-site%'")
    releases = {r["torch"].split("+")[0] for r in runs}
    assert {"2.9.1", "2.10.0", "2.13.0"} <= releases, releases  # the sweep's releases that print the link
    for r in runs:
        printed_id = URL.findall(r["traceback"])[-1].upper()
        assert found_in(kb_db, r["traceback"])[0]["id"] == printed_id, (r["torch"], printed_id)


def test_graph_breaks_of_the_entries_own_runs_land_on_their_entries(kb_db):
    runs = rows(kb_db, "select entry, \"case\", traceback from observations where run = 'check' "
                       "and traceback like '%compile-graph-break-site%'")
    links = {(r["entry"], r["id"]) for r in rows(kb_db, "select * from entry_graph_breaks")}
    assert len(runs) >= 8  # strict-mode failing scripts on the pinned release
    for r in runs:
        printed_id = URL.findall(r["traceback"])[-1].upper()
        answer = found_in(kb_db, r["traceback"])[0]
        assert answer["id"] == printed_id, (r["entry"], r["case"])
        assert (r["entry"], printed_id) in links, (r["entry"], printed_id)
        assert answer["own_entry"] and answer["entry"] in {e for e, g in links if g == printed_id}


def test_an_id_with_no_entry_of_its_own_goes_to_the_class_entry(kb_db):
    [lstm] = rows(kb_db, "select * from graph_breaks where gb_type = 'Attempted to wrap RNN, GRU, or LSTM'")
    assert lstm["answer"] == graph_breaks.CLASS_ENTRY and not lstm["own_entry"]
    assert json.loads(lstm["hints"]) and lstm["url"].endswith(f"/gb/{lstm['id'].lower()}.html")


def _cli(*args, text):
    return subprocess.run([sys.executable, "-m", "kb.cli", "search", *args, "-"], input=text.encode(),
                          capture_output=True, cwd=REPO, timeout=120)


def test_search_names_the_graph_break_its_explanation_hints_and_entry(kb_db):
    [run] = rows(kb_db, "select traceback from observations where run = 'check' and entry = ? and \"case\" = ?",
                 "export-strict-graph-break", "failing_hook.py")
    gb_id = URL.findall(run["traceback"])[-1].upper()
    r = _cli(text=run["traceback"])
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr.decode()
    assert f"Dynamo graph break {gb_id}: setattr() on unsupported type" in out
    assert "Entry (its entry):" in out and "export-strict-graph-break" in out and "Dynamo explains:" in out
    data = json.loads(_cli("--json", text=run["traceback"]).stdout)
    [gb] = data["graph_breaks"]
    assert (gb["id"], gb["entry"], gb["own_entry"]) == (gb_id, "export-strict-graph-break", True)
    assert gb["entry_url"].endswith("/entries/export-strict-graph-break.html") and gb["hints"]


def test_a_graph_break_with_no_confident_entry_still_has_an_answer(kb_db):
    [lstm] = rows(kb_db, "select * from graph_breaks where gb_type = 'Attempted to wrap RNN, GRU, or LSTM'")
    text = ("torch._dynamo.exc.Unsupported: Attempted to wrap RNN, GRU, or LSTM\n"
            "  Explanation: Dynamo does not support RNN, GRU, or LSTM.\n")
    r = _cli(text=text)
    out = r.stdout.decode()
    assert r.returncode == 0 and f"Dynamo graph break {lstm['id']}" in out
    assert "Entry (strict-mode graph breaks as a class)" in out and "No confident match" not in out
    plain = _cli(text="ZeroDivisionError: division by zero")
    assert plain.returncode == 1 and b"graph break" not in plain.stdout
