"""The CLI as a user runs it: a real process, real stdin, real exit codes."""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO

STATIC = "AssertionError: Guard failed: x.size()[0] == 2"
OLD_STATIC = "RuntimeError: Expected input at *args[0].shape[0] to be equal to 2, but got 4"


def run(*args, input=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "kb.cli", *args], input=input, capture_output=True, cwd=REPO,
        env={**os.environ, **(env or {})}, timeout=120,
    )


def test_search_text_prints_title_cause_fix_and_link():
    r = run("search", STATIC)
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr.decode()
    assert out.startswith("1. Exported program called with a batch size it was not exported for")
    assert "Cause:" in out and "Fix:" in out
    assert "/docs/en/entries/static-batch-size.html" in out


def test_search_json_has_exactly_the_documented_shape():
    r = run("search", "--json", OLD_STATIC)
    assert r.returncode == 0
    data = json.loads(r.stdout)
    assert list(data) == ["results", "possible", "graph_breaks", "notes"]
    assert data["graph_breaks"] == []  # not a graph break
    best = data["results"][0]
    assert list(best) == ["id", "title", "score", "confidence", "tier", "tie", "exporters", "url", "cause", "fix",
                          "verified", "matched_line"]
    assert best["verified"] is True  # its scripts ran here
    assert best["id"] == "static-batch-size" and best["tier"] == "confident" and data["possible"] == []
    assert best["matched_line"] == {"line": 1, "text": OLD_STATIC}
    assert "dynamic_shapes" in best["fix"] and best["cause"].endswith(".")
    assert 0.0 < best["confidence"] <= 1.0
    scores = [x["score"] for x in data["results"]]
    assert scores == sorted(scores, reverse=True)


def test_search_stdin_and_file(tmp_path):
    r = run("search", "--json", "-", input=f"some log line\n{STATIC}\n".encode())
    assert json.loads(r.stdout)["results"][0]["id"] == "static-batch-size"
    log = tmp_path / "ci.log"
    log.write_bytes(b"\x1b[31m" + STATIC.encode() + b"\x1b[0m\n")
    r = run("search", "--json", "--file", str(log))
    assert json.loads(r.stdout)["results"][0]["id"] == "static-batch-size"


def test_search_jsonl_batch():
    lines = [json.dumps({"text": STATIC}), "not json", json.dumps({"text": "ZeroDivisionError: division by zero"}),
             json.dumps({"text": ""})]
    r = run("search", "--jsonl", input=("\n".join(lines) + "\n").encode())
    assert r.returncode == 0
    out = [json.loads(x) for x in r.stdout.decode().splitlines()]
    assert len(out) == 4
    assert out[0]["results"][0]["id"] == "static-batch-size"
    assert out[1]["results"] == [] and "line 2" in out[1]["error"]
    assert out[2]["results"] == []
    assert out[3]["results"] == [] and "no input" in out[3]["error"]


@pytest.mark.parametrize("args,stdin", [(("search", ""), None), (("search", "-"), b""), (("search", "-"), b"  \n \n")])
def test_empty_input_exits_2_with_a_message(args, stdin):
    r = run(*args, input=stdin)
    assert r.returncode == 2
    assert "no input" in r.stderr.decode()


def test_binary_input_does_not_crash():
    r = run("search", "-", input=os.urandom(200_000))
    assert r.returncode in (1, 2), r.stderr.decode()
    assert "Traceback" not in r.stderr.decode()


def test_unrelated_error_gets_no_confident_match():
    r = run("search", "ZeroDivisionError: division by zero")
    assert r.returncode == 1
    assert "No confident match" in r.stdout.decode()
    assert "exportkb new" in r.stdout.decode()


def test_huge_log_is_cut_to_its_tail_and_says_so(tmp_path):
    log = tmp_path / "big.log"
    with log.open("wb") as fh:
        fh.write(b"step ok\n" * 1_500_000)
        fh.write(STATIC.encode() + b"\n")
    r = run("search", "--json", "--file", str(log))
    assert json.loads(r.stdout)["results"][0]["id"] == "static-batch-size"
    assert "analysed only its last" in r.stderr.decode()


def test_missing_file_is_a_usage_error(tmp_path):
    r = run("search", "--file", str(tmp_path / "nope.log"))
    assert r.returncode == 2
    assert "nope.log" in r.stderr.decode()


def test_entries_json_lists_the_catalogue():
    r = run("entries", "--json")
    assert r.returncode == 0
    entries = json.loads(r.stdout)
    ids = [e["id"] for e in entries]
    assert ids == sorted(ids) and "static-batch-size" in ids
    frozen = next(e for e in entries if e["id"] == "frozen-storage-mutation")
    assert frozen["reproduces"] is False


def test_search_works_without_a_prior_build(kb_root):
    r = run("search", "--json", STATIC, env={"EXPORTKB_ROOT": str(kb_root)})
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout)["results"][0]["id"] == "static-batch-size"
    assert (kb_root / "build" / "kb.db").exists()


def test_broken_entry_is_a_clear_error_not_a_traceback(kb_root):
    (kb_root / "entries" / "half-written").mkdir()
    r = run("search", STATIC, env={"EXPORTKB_ROOT": str(kb_root)})
    assert r.returncode == 1
    err = r.stderr.decode()
    assert "entries/half-written: missing entry.toml" in err and "Traceback" not in err


def test_new_scaffolds_an_entry_that_loads_and_check_rejects_until_filled(kb_root):
    env = {"EXPORTKB_ROOT": str(kb_root)}
    r = run("new", "my-new-case", env=env)
    assert r.returncode == 0, r.stderr.decode()
    folder = kb_root / "entries" / "my-new-case"
    assert sorted(p.name for p in folder.iterdir()) == ["entry.toml", "failing.py", "fixed.py"]
    listed = json.loads(run("entries", "--json", env=env).stdout)
    assert "my-new-case" in [e["id"] for e in listed]
    assert run("new", "my-new-case", env=env).returncode == 1  # never overwrites
    assert run("new", "Bad_Id", env=env).returncode == 2


@pytest.mark.parametrize("args, builds, mounted", [
    ((), True, "default"), (("--no-docs",), False, "default"), (("--docs-dir", "{tmp}"), False, "{tmp}"),
])
def test_serve_builds_the_docs_unless_told_not_to_or_given_a_built_site(args, builds, mounted, monkeypatch, tmp_path):
    """The wiring of `exportkb serve` (the browser tests run the real server, with --docs-dir):
    the site is built incrementally first unless --no-docs or --docs-dir says otherwise, and
    the folder mounted under /docs/ is the one given, else build/html."""
    from click.testing import CliRunner

    import uvicorn
    from kb import build, cli, paths
    from kb.site import builder
    from kb.ui import app

    calls = {"build": [], "docs": [], "served": 0}

    class App:
        async def invoke_startup(self):
            pass

        def app(self):
            return None

    def fake_datasette(db, *, docs=None):
        calls["docs"].append(docs)
        return App()

    monkeypatch.setattr(build, "ensure_built", lambda: (tmp_path / "kb.db", None))
    monkeypatch.setattr(builder, "build_site", lambda **kw: calls["build"].append(kw))
    monkeypatch.setattr(app, "make_datasette", fake_datasette)
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: calls.__setitem__("served", calls["served"] + 1))
    args = [a.format(tmp=tmp_path) for a in args]
    result = CliRunner().invoke(cli.cli, ["serve", "--port", "0", *args])
    assert result.exit_code == 0, result.output
    assert calls["build"] == ([{"incremental": True}] if builds else []) and calls["served"] == 1
    assert calls["docs"] == [None if mounted == "default" else tmp_path]
    assert app.make_datasette is fake_datasette and paths.docs_dir().name == "html"
