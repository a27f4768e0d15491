"""Searches run in worker processes, never on the server's event loop.

Datasette serves every request from one asyncio loop. A search is CPU work (decoding a
form of up to 16 MB, cleaning, extracting, matching), and CPU work on the loop holds up
every other request, table pages included. So the web UI hands the raw request body to
a small pool of worker processes (`spawn`ed: the server may run threads, and a fork of
a threaded process is unsafe), each of which keeps the matcher of the database it was
asked about. The loop only awaits the answer.

Two bounds keep one client from taking the pool: at most MAX_PENDING searches wait or
run at once (more get `Busy`, which the UI answers with 503 and Retry-After), and a
search that has not answered in TIMEOUT_S gives up (the extractor's bound and the
decoding of only the ends of a long form value make every paste up to the size limit
answer in under a second; bench/bench_server.py times it).
"""
from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote_plus

from kb import permalink
from kb.answer import shown, where_matched
from kb.graph_breaks import found_in
from kb.matcher import SearchResult
from kb.normalize import clean
from kb.site.languages import LANGUAGES
from kb.textin import MAX_INPUT_BYTES, EmptyInput, read_input

from .results import entry_facts, render

WORKERS = max(1, min(2, os.cpu_count() or 1))
MAX_PENDING = 32
TIMEOUT_S = 20.0
# Matches a page or an API answer shows at most, per tier.
LIMIT = 5


class Busy(RuntimeError):
    """Too many searches are waiting, or the pool could not answer in time."""


@dataclass
class Answer:
    """A search's answer, small enough to send back from a worker."""
    result: object = None  # matcher.SearchResult, its `ranked` cut to what is shown
    facts: dict[str, dict] = field(default_factory=dict)  # entry id -> what a result shows of it
    html: str = ""  # the results, rendered (kb/ui/results.py)
    notes: list[str] = field(default_factory=list)
    where: dict[str, list[dict]] = field(default_factory=dict)  # entry id -> lines of the paste
    link: str = ""  # the query string of a link that reproduces this search
    query: str = ""  # the text to show back in the form
    lang: str = "en"  # the docs language the request asked for
    error: str | None = None
    status: int = 200
    graph_breaks: list[dict] = field(default_factory=list)  # kb.graph_breaks.found_in


# -- in the worker ------------------------------------------------------------------
_loaded: dict[tuple[str, int], tuple[object, dict]] = {}


def _matcher_and_facts(db: str, mtime_ns: int):
    key = (db, mtime_ns)
    if key not in _loaded:
        from kb.build import load_matcher  # the worker's one heavy import, on its first search

        _loaded.clear()  # a rebuilt database replaces the old matcher
        _loaded[key] = (load_matcher(Path(db)), entry_facts(db))
    return _loaded[key]


# What the form echoes back into its text box, in characters.
ECHO_CHARS = 200_000
# A form value longer than this is not decoded whole: the matcher reads only the last
# MAX_INPUT_BYTES of a paste, and percent-encoding at most triples a byte.
_TAIL_ENCODED = 3 * MAX_INPUT_BYTES


@dataclass
class Pasted:
    """The paste a request carries, with the request's other fields."""
    text: str | bytes  # bytes for a plain body: textin.read_input decodes it as the CLI decodes a file
    fields: dict[str, str] = field(default_factory=dict)
    size: int | None = None  # the paste's size in bytes, when `text` holds only its tail
    echo: str | None = None  # the start of the paste, when `text` holds only its tail


def _unquote(raw: bytes) -> str:
    # Leniently: a paste of binary junk must not take the page down.
    return unquote_plus(raw.decode("latin-1"), encoding="utf-8", errors="replace")


def _form(body: bytes, field_name: str) -> Pasted:
    """A urlencoded form, decoding of a long paste only the two ends that are used: the tail the
    matcher reads and the start the text box echoes (a 16 MB paste would take seconds whole)."""
    fields: dict[str, str] = {}
    pasted = Pasted("")
    for part in body.split(b"&"):
        raw_name, _, value = part.partition(b"=")
        name = _unquote(raw_name)
        if name not in (field_name, "q"):
            fields.setdefault(name, _unquote(value))
        elif len(value) <= _TAIL_ENCODED:
            pasted = Pasted(_unquote(value))
        else:
            # Every %XX is one byte of the paste, every other character one byte.
            pasted = Pasted(_unquote(value[-_TAIL_ENCODED:]), size=len(value) - 2 * value.count(b"%"),
                            echo=_unquote(value[:3 * ECHO_CHARS])[:ECHO_CHARS])
    pasted.fields = fields
    return pasted


def request_text(body: bytes, content_type: str, field_name: str) -> Pasted:
    """The paste in a request body (a form, JSON or plain text) and the request's other fields."""
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind == "application/json":
        try:
            obj = json.loads(body.decode("utf-8", errors="replace") or "null")
        except json.JSONDecodeError as exc:
            raise ValueError(f"the body is not valid JSON ({exc.msg} at line {exc.lineno})") from None
        if not isinstance(obj, dict):
            raise ValueError('send a JSON object: {"q": "the error text"}')
        text = obj.get("q", obj.get("text", obj.get(field_name)))
        if text is not None and not isinstance(text, str):
            raise ValueError('"q" must be a string')
        return Pasted(text or "", {k: v for k, v in obj.items() if isinstance(v, str)})
    if kind == "application/x-www-form-urlencoded":
        return _form(body, field_name)
    return Pasted(body)


def answer(db: str, mtime_ns: int, text: str | bytes | None, body: bytes | None = None, content_type: str = "",
           field_name: str = "error", lang: str = "en", limit: int = LIMIT) -> Answer:
    """Run one search; `text`, or the raw `body` of a POST to parse here, off the loop."""
    if text is None:
        try:
            pasted = request_text(body or b"", content_type, field_name)
        except ValueError as exc:
            return Answer(error=str(exc), status=400, lang=lang)
        lang = pasted.fields.get("lang") or lang
    else:
        pasted = Pasted(text)
    lang = lang if lang in LANGUAGES else "en"
    # Echoed back into the form (escaped).
    query = pasted.echo if pasted.echo is not None else pasted.text[:ECHO_CHARS] if isinstance(pasted.text, str) else ""
    try:
        inp = read_input(pasted.text, size=pasted.size)
    except EmptyInput as exc:
        return Answer(query=query, error=str(exc), status=400, lang=lang)
    matcher, facts = _matcher_and_facts(db, mtime_ns)
    result = matcher.search(inp)
    matches = shown(result, limit)
    cleaned = clean(inp.text)
    small = SearchResult(matches, [], list(inp.notes))
    where = where_matched(cleaned, matches)
    breaks = found_in(Path(db), cleaned)
    return Answer(small, {m.id: facts[m.id] for m in matches if m.id in facts},
                  render(small, facts, where, lang, breaks), list(inp.notes), where,
                  permalink.query(cleaned, lang=lang, shown=[m.id for m in matches], keep=matcher.context_lines(cleaned)),
                  query, lang=lang,
                  graph_breaks=breaks)


def warm(db: str, mtime_ns: int) -> bool:
    _matcher_and_facts(db, mtime_ns)
    return True


def _die_with_server(server_pid: int) -> None:
    """A worker's initializer: the worker ends when the server does.

    The workers wait on a queue whose write end they hold themselves, so nothing tells
    them that a server stopped by a signal or by SIGKILL has gone; they would idle on,
    each with a matcher in memory. A daemon thread checks once a second that the server
    is still the worker's parent. (Linux's PR_SET_PDEATHSIG would fire when the server's
    *thread* that started the worker ends, which need not be the server's end.)"""
    def watch() -> None:
        while os.getppid() == server_pid:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="exportkb-server-watch", daemon=True).start()


# -- in the server ------------------------------------------------------------------
_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_pending = 0


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=WORKERS, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_die_with_server, initargs=(os.getpid(),))
        return _pool


def _reset(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


def db_key(path: str) -> tuple[str, int]:
    return path, Path(path).stat().st_mtime_ns


async def run(fn, *args):
    """Run `fn(*args)` in the pool; Busy when MAX_PENDING are already waiting or it times out."""
    global _pending
    with _lock:
        if _pending >= MAX_PENDING:
            raise Busy(f"{MAX_PENDING} searches are already waiting")
        _pending += 1
    try:
        pool = _executor()
        try:
            future = pool.submit(fn, *args)
            return await asyncio.wait_for(asyncio.wrap_future(future), TIMEOUT_S)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool for the next search.
            _reset(pool)
            raise Busy("a search worker stopped; try again") from None
        except asyncio.TimeoutError:
            raise Busy(f"the search took longer than {TIMEOUT_S:.0f} s") from None
    finally:
        with _lock:
            _pending -= 1


def prewarm(db: str) -> None:
    """Start the workers and load the matcher in them, without waiting for it."""
    pool = _executor()
    key = db_key(db)
    for _ in range(WORKERS):
        pool.submit(warm, *key)
