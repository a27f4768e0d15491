"""The corpus across releases (kb/releases.py): the comparison rule, the kb.db tables
built from the committed runs, and the chart on the UI's /releases page."""
import re
import sqlite3

from kb import releases


def row(model, exporter, torch, outcome, entry=None, message=None, source="timm"):
    return {"source": source, "model": model, "exporter": exporter, "torch": torch, "outcome": outcome,
            "stage": "capture", "exc_type": "RuntimeError" if outcome == "fail" else None,
            "message": message, "matched_entry": entry}


ROWS = [
    # a: exported on 2.4.1, broke on 2.9.1 (an entry explains it), fixed again on 2.13.0
    row("a", "export", "2.4.1", "ok"), row("a", "export", "2.9.1", "fail", "data-dependent-branch", "guard on u0\nmore"),
    row("a", "export", "2.13.0", "ok"),
    # b: failed on 2.4.1 with no entry, fine later
    row("b", "export", "2.4.1", "timeout", message="the export attempt timed out"), row("b", "export", "2.9.1", "ok"),
    row("b", "export", "2.13.0", "ok"),
    # c: 2.4.1's transformers lacks it: never compared
    row("c", "export", "2.9.1", "ok"), row("c", "export", "2.13.0", "fail"),
    # d: did not build on 2.9.1: the build row is no exporter's failure, and d's export is not compared
    row("d", "export", "2.4.1", "ok"), row("d", "build", "2.9.1", "build"), row("d", "export", "2.13.0", "ok"),
    row("a", "onnx", "2.4.1", "fail"), row("a", "onnx", "2.9.1", "fail"), row("a", "onnx", "2.13.0", "fail"),
]


def test_only_models_every_release_ran_are_compared():
    order, cells = releases.compared(ROWS)
    assert order == ["2.4.1", "2.9.1", "2.13.0"]  # by release, not by string
    assert set(cells) == {("timm", "a", "export"), ("timm", "b", "export"), ("timm", "a", "onnx")}
    got = {(r.exporter, r.torch): (r.ok, r.models) for r in releases.rates(ROWS)}
    assert got == {("export", "2.4.1"): (1, 2), ("export", "2.9.1"): (1, 2), ("export", "2.13.0"): (2, 2),
                   ("onnx", "2.4.1"): (0, 1), ("onnx", "2.9.1"): (0, 1), ("onnx", "2.13.0"): (0, 1)}


def test_a_skipped_attempt_is_not_a_failure_and_a_release_that_skips_an_exporter_drops_out_of_its_line():
    rows = [*ROWS,
            # 2.4.1 has no Dim.DYNAMIC: it skips export-dynamic for every model
            row("a", "export-dynamic", "2.4.1", "skip"), row("a", "export-dynamic", "2.9.1", "fail"),
            row("a", "export-dynamic", "2.13.0", "ok"),
            row("b", "export-dynamic", "2.4.1", "skip"), row("b", "export-dynamic", "2.9.1", "ok"),
            row("b", "export-dynamic", "2.13.0", "ok"),
            # e declares no dynamic dims: skipped everywhere, compared nowhere
            row("e", "export-dynamic", "2.4.1", "skip"), row("e", "export-dynamic", "2.9.1", "skip"),
            row("e", "export-dynamic", "2.13.0", "skip"),
            # c brings its own dynamic dims, so 2.4.1 runs it: one model is not a line
            row("c", "export-dynamic", "2.4.1", "ok"), row("c", "export-dynamic", "2.9.1", "ok"),
            row("c", "export-dynamic", "2.13.0", "ok"),
            # a skip on one release that ran the exporter for other models leaves the model out
            row("a", "aoti", "2.4.1", "skip"), row("a", "aoti", "2.9.1", "ok"), row("a", "aoti", "2.13.0", "ok"),
            row("b", "aoti", "2.4.1", "ok"), row("b", "aoti", "2.9.1", "ok"), row("b", "aoti", "2.13.0", "fail")]
    order, cells = releases.compared(rows)
    assert order == ["2.4.1", "2.9.1", "2.13.0"]
    assert set(cells[("timm", "a", "export-dynamic")]) == {"2.9.1", "2.13.0"}
    assert ("timm", "e", "export-dynamic") not in cells and ("timm", "a", "aoti") not in cells
    got = {(r.exporter, r.torch): (r.ok, r.models) for r in releases.rates(rows)}
    assert ("export-dynamic", "2.4.1") not in got
    assert got[("export-dynamic", "2.9.1")] == (2, 3) and got[("export-dynamic", "2.13.0")] == (3, 3)
    assert set(cells[("timm", "c", "export-dynamic")]) == {"2.9.1", "2.13.0"}
    assert got[("aoti", "2.4.1")] == (1, 1) and got[("aoti", "2.13.0")] == (0, 1)
    found = {(c.model, c.exporter, c.before, c.after, c.direction) for c in releases.changes(rows)}
    assert ("a", "export-dynamic", "2.9.1", "2.13.0", "fixed") in found
    assert ("b", "aoti", "2.9.1", "2.13.0", "broke") in found
    assert not any(c[1] == "export-dynamic" and c[2] == "2.4.1" for c in found)


def test_changes_name_the_entry_of_the_failing_side():
    found = [(c.model, c.before, c.after, c.direction, c.entry, c.error) for c in releases.changes(ROWS)]
    assert found == [
        ("a", "2.4.1", "2.9.1", "broke", "data-dependent-branch", "RuntimeError: guard on u0"),
        ("b", "2.4.1", "2.9.1", "fixed", None, "the export attempt timed out"),
        ("a", "2.9.1", "2.13.0", "fixed", "data-dependent-branch", "RuntimeError: guard on u0"),
    ]


def test_the_chart_draws_a_line_per_exporter_with_its_counts():
    svg = releases.chart_svg(releases.rates(ROWS))
    assert svg.count("<polyline") == 2 and svg.count("<circle") == 6
    assert "<title>export 2.4.1: 1/2</title>" in svg and "<title>onnx 2.13.0: 0/1</title>" in svg
    labels = re.findall(r'<text class="kb-chart-label"[^>]*>([^<]+)</text>', svg)
    assert labels[5:8] == ["2.4.1", "2.9.1", "2.13.0"] and labels[-2:] == ["export", "onnx"]
    assert releases.chart_svg([]) == ""
    hostile = [releases.ReleaseRate("<script>", "2.4.1", 1, 1)]
    assert "<script>" not in releases.chart_svg(hostile)


def test_kb_db_holds_the_committed_runs_and_their_comparison(kb_db):
    conn = sqlite3.connect(kb_db)
    conn.row_factory = sqlite3.Row
    runs = [dict(r) for r in conn.execute(releases.RUNS_SQL)]
    stored = {(r["exporter"], r["torch"]): (r["ok"], r["models"]) for r in conn.execute("select * from release_rates")}
    changes = conn.execute("select count(*) from release_changes").fetchone()[0]
    conn.close()
    assert stored == {(r.exporter, r.torch): (r.ok, r.models) for r in releases.rates(runs)}
    assert changes == len(releases.changes(runs))
    order, _ = releases.compared(runs)
    assert len(order) >= 2, "the committed runs of other releases are missing from kb.db"
