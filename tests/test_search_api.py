"""Search by link and by API, through Datasette's own client: the app `exportkb serve` runs.

The CLI's --json output and the API's must agree, links must reproduce answers, and the
search must run in the worker pool, not on the server's event loop."""
import asyncio
import json
import os
import re
import subprocess
import sys
from urllib.parse import quote

import pytest

from kb.ui import search_pool
from conftest import REPO

STATIC = "AssertionError: Guard failed: x.size()[0] == 2"
TRACEBACK = """Traceback (most recent call last):
  File "/home/u/export.py", line 12, in <module>
    torch.onnx.export(model, (x,), "m.onnx", dynamo=False)
  File "/usr/lib/python3.11/site-packages/torch/onnx/utils.py", line 516, in export
    _export(
torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::special_erfcx' to ONNX opset version 17 is not supported. Please feel free to request support or submit a pull request on PyTorch GitHub: https://github.com/pytorch/pytorch/issues."""


def call(ds, method, path, **kw):
    return asyncio.run(getattr(ds.client, method)(path, **kw))


def shown(html):
    return re.findall(r'data-(?:entry|possible)="([^"]+)"', html)


def page_link(html):
    m = re.search(r'id="permalink" type="url" readonly value="([^"]+)"', html)
    return m.group(1).replace("&amp;", "&").split("://", 1)[1].split("/", 1)[1] if m else None


def cli_json(text):
    r = subprocess.run([sys.executable, "-m", "kb.cli", "search", "--json", "-"], input=text.encode(),
                       capture_output=True, cwd=REPO, timeout=120, env=dict(os.environ))
    return json.loads(r.stdout)


# -- links -------------------------------------------------------------------------

def test_a_get_link_answers_like_the_form(ds):
    posted = call(ds, "post", "/", data={"error": STATIC, "lang": "ko"})
    link = page_link(posted.text)
    assert link == "?q=" + quote(STATIC, safe="").replace("%20", "+") + "&lang=ko&e=static-batch-size"
    got = call(ds, "get", "/" + link)
    assert got.status_code == 200
    assert shown(got.text) == shown(posted.text) == ["static-batch-size"]
    assert 'href="/docs/ko/entries/static-batch-size.html"' in got.text  # the language travels with the link
    assert STATIC in got.text  # the query is back in the box


def test_a_traceback_link_carries_the_excerpt_and_gives_the_same_answer(ds):
    noisy = "".join(f"epoch {i} ok\n" for i in range(5000)) + TRACEBACK
    posted = call(ds, "post", "/", data={"error": noisy})
    link = page_link(posted.text)
    assert link.startswith("?z=") and len(link) < 1500
    got = call(ds, "get", "/" + link)
    assert shown(got.text) == shown(posted.text) and shown(got.text)[0] == "onnx-unsupported-opset"
    assert "epoch 17 ok" not in got.text  # the log's noise stayed out of the link
    assert "aten::special_erfcx" in got.text


def test_a_link_made_before_the_catalogue_changed_says_what_it_answered_then(ds):
    got = call(ds, "get", "/?q=" + quote(STATIC) + "&e=static-batch-size,retired-entry,<script>")
    assert 'id="shared-then"' in got.text and 'href="/entry/retired-entry?lang=en"' in got.text
    assert "<script>" not in got.text.split('id="shared-then"')[1].split("</p>")[0]
    same = call(ds, "get", "/?q=" + quote(STATIC) + "&e=static-batch-size")
    assert 'id="shared-then"' not in same.text


def test_a_damaged_link_is_a_clear_400(ds):
    good = page_link(call(ds, "post", "/", data={"error": TRACEBACK * 3}).text)
    token = re.search(r"z=([^&]+)", good).group(1)
    r = call(ds, "get", "/?z=" + token[:-8])
    assert r.status_code == 400 and "copy it again, whole" in r.text
    assert call(ds, "get", "/").status_code == 200


# -- the result --------------------------------------------------------------------

def test_cause_and_fix_are_rendered_from_markdown_and_the_matched_line_is_marked(ds):
    html = call(ds, "post", "/", data={"error": TRACEBACK}).text
    first = html.split('data-entry="onnx-unsupported-opset"', 1)[1].split('<p class="links">', 1)[0]
    fix = first.split('<section class="fix">', 1)[1].split("</section>", 1)[0]
    assert "<code>" in fix and "`" not in fix  # Markdown code spans, not raw backticks
    assert '<section class="cause"><h3>Cause</h3><p>' in first
    marked = re.findall(r'<mark class="matched-line">([^<]*)</mark>', first)
    assert marked == ["torch.onnx.errors.UnsupportedOperatorError: Exporting the operator &#39;aten::special_erfcx&#39; "
                      "to ONNX opset version 17 is not supported. Please feel free to request support or submit a "
                      "pull request on PyTorch GitHub: https://github.com/pytorch/pytorch/issues."]
    assert '<span class="ln">    6</span>' in first  # the paste's own line number


def test_markdown_from_an_entry_cannot_inject_html():
    from kb.ui.prose import markdown

    html = str(markdown("Use `x<y>` and <script>alert(1)</script> [a](javascript:alert(1))"))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html
    assert "<code>x&lt;y&gt;</code>" in html


# -- the API -----------------------------------------------------------------------

def test_search_json_answers_what_the_cli_prints(ds):
    r = call(ds, "get", "/search.json?q=" + quote(TRACEBACK))
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "*"
    api = r.json()
    link = api.pop("link")
    assert "/?z=" in link
    assert api == cli_json(TRACEBACK)
    assert api["results"][0]["id"] == "onnx-unsupported-opset"
    assert api["results"][0]["matched_line"]["line"] == 6


@pytest.mark.parametrize("content,ctype", [
    (json.dumps({"q": STATIC}), "application/json"),
    ("q=" + quote(STATIC), "application/x-www-form-urlencoded"),
    (STATIC, "text/plain"),
])
def test_search_json_takes_a_post_as_json_form_or_plain_text(ds, content, ctype):
    r = call(ds, "post", "/search.json", content=content.encode(), headers={"content-type": ctype})
    assert r.status_code == 200, r.text
    assert [m["id"] for m in r.json()["results"]] == ["static-batch-size"]


def test_the_home_page_describes_the_api_with_this_server_address(ds):
    html = call(ds, "get", "/").text
    assert "curl -s --data-binary @build.log -H 'Content-Type: text/plain' http://localhost/search.json" in html


def test_search_json_preflight_allows_any_origin(ds):
    r = call(ds, "options", "/search.json", headers={"origin": "https://example.org",
                                                     "access-control-request-method": "POST"})
    assert r.status_code == 204
    assert r.headers["access-control-allow-origin"] == "*" and "POST" in r.headers["access-control-allow-methods"]


@pytest.mark.parametrize("method,path,kw,status,says", [
    ("get", "/search.json", {}, 400, "give the error text as q"),
    ("get", "/search.json?q=", {}, 400, "no input"),
    ("get", "/search.json?q=x&limit=lots", {}, 400, "limit"),
    ("get", "/search.json?z=%%%", {}, 400, "damaged"),
    ("post", "/search.json", {"content": b"{not json", "headers": {"content-type": "application/json"}}, 400,
     "not valid JSON"),
    ("post", "/search.json", {"content": b"[1, 2]", "headers": {"content-type": "application/json"}}, 400,
     "JSON object"),
    ("post", "/search.json", {"content": b'{"q": 5}', "headers": {"content-type": "application/json"}}, 400,
     "must be a string"),
    ("post", "/search.json", {"content": bytes(range(128, 256)) * 40, "headers": {"content-type": "text/plain"}}, 400,
     "binary"),
])
def test_search_json_bad_input_is_a_clear_json_error(ds, method, path, kw, status, says):
    r = call(ds, method, path, **kw)
    assert r.status_code == status
    body = r.json()
    assert says in body["error"] and body["results"] == [] and r.headers["access-control-allow-origin"] == "*"


def test_a_plain_body_with_some_binary_is_searched_with_a_note(ds):
    body = bytes(range(256)) * 4 + STATIC.encode()
    r = call(ds, "post", "/search.json", content=body, headers={"content-type": "application/octet-stream"})
    assert r.status_code == 200
    assert any("not text" in n for n in r.json()["notes"])


def test_limit_bounds_each_tier(ds):
    one = call(ds, "get", "/search.json?limit=1&q=" + quote(TRACEBACK)).json()
    assert len(one["results"]) <= 1 and len(one["possible"]) <= 1


# -- the pool ----------------------------------------------------------------------

def test_searches_run_in_worker_processes_not_the_server(ds):
    pids = {asyncio.run(search_pool.run(os.getpid)) for _ in range(4)}
    assert os.getpid() not in pids and 1 <= len(pids) <= search_pool.WORKERS


def test_when_too_many_searches_wait_the_server_says_busy(ds, monkeypatch):
    monkeypatch.setattr(search_pool, "MAX_PENDING", 0)
    r = call(ds, "get", "/search.json?q=" + quote(STATIC))
    assert r.status_code == 503 and r.headers["retry-after"] == "2" and "busy" in r.json()["error"]
    page = call(ds, "post", "/", data={"error": STATIC})
    assert page.status_code == 503 and "try again" in page.text
    assert call(ds, "get", "/kb/entries").status_code == 200  # the rest of the site is unaffected


def test_a_killed_worker_costs_one_search_at_most(ds):
    import signal

    asyncio.run(search_pool.run(os.getpid))
    for pid in list(search_pool._executor()._processes):
        os.kill(pid, signal.SIGKILL)
    statuses = [call(ds, "get", "/search.json?q=" + quote(STATIC)).status_code for _ in range(3)]
    assert statuses[-1] == 200 and set(statuses) <= {200, 503}


def test_a_long_form_paste_is_decoded_only_where_it_is_read():
    from urllib.parse import urlencode

    from kb.textin import MAX_INPUT_BYTES

    head = "first line of the log: café\n"
    paste = head + "".join(f"step {i} ok: 100% done\n" for i in range(400_000)) + STATIC + "\n"
    body = urlencode({"lang": "ko", "error": paste}).encode()
    pasted = search_pool.request_text(body, "application/x-www-form-urlencoded", "error")
    assert pasted.fields == {"lang": "ko"}
    assert pasted.size == len(paste.encode("utf-8"))  # the whole paste's size, counted without decoding it
    assert pasted.text.endswith(STATIC + "\n") and len(pasted.text) < len(paste)
    assert len(pasted.text.encode()) >= MAX_INPUT_BYTES  # at least what the matcher reads
    assert pasted.echo.startswith(head) and len(pasted.echo) == search_pool.ECHO_CHARS
    # A short paste is decoded whole, as before.
    short = search_pool.request_text(urlencode({"error": STATIC}).encode(), "application/x-www-form-urlencoded", "error")
    assert (short.text, short.size, short.echo) == (STATIC, None, None)


def test_the_search_workers_end_when_the_server_is_killed():
    """`exportkb serve` killed with SIGKILL (or stopped by a test's terminate) must not
    leave its search workers idling, each with a matcher in memory."""
    import signal
    import time
    import urllib.request

    import procfs
    from browser import serving

    with serving("--no-docs") as url:  # the search pool is what matters, not the docs
        urllib.request.urlopen(url + "search.json?q=" + quote(STATIC), timeout=60).read()
        server = next(p.pid for p in procfs.table().values()
                      if p.parent == os.getpid() and b"serve" in p.cmdline)
        workers = procfs.children(server)
        assert len(workers) >= 1
        os.kill(server, signal.SIGKILL)
        deadline = time.monotonic() + 15
        while any(procfs.alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [w for w in workers if procfs.alive(w)]
