"""Load test of a running `exportkb serve` on loopback: do the worst pastes slow anyone else?

    .venv/bin/python bench/bench_server.py [--clients 20] [--seconds 30] [--repo PATH]

Twenty clients search real tracebacks (the evidence base's train reports and the
entries' recorded errors) through the search form, back to back, and one more client
fetches a table page, for `--seconds`; then the same again while one client sends the
worst pastes the form accepts: the 800 KB paste of 50,000 short exception lines that
stalled the server before the search pool, and a 12 MB CI log. It prints p50 and p95
of the normal clients' searches and of the table page, without and with the worst
client, as JSON. Everything stops by itself; no request waits more than 120 s.

Before the load, it times one search worker alone on each worst paste, in process (the
body parsed, searched and rendered as the server's pool does it).

`--repo` serves another checkout of the project (say, a `git worktree` of an older
commit) with the same clients, for a before/after comparison on one machine.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser import free_port  # noqa: E402
from kb import devset, paths  # noqa: E402
from kb.observations import read_observations  # noqa: E402


def real_tracebacks() -> list[str]:
    texts = [r.text for r in devset.train()]
    texts += [r["traceback"] for r in read_observations(paths.observations_dir()).records
              if r.get("source") == "entry" and r["outcome"] == "fail" and r.get("traceback")]
    return texts


def worst_pastes() -> list[str]:
    lines = "".join(f"ValueError: bad value {i}\n" for i in range(50_000))  # ~1.3 MB, 50,000 exceptions
    log = "".join(f"2024-05-01T10:00:{i % 60:02d}Z step {i} ok loss=0.{i % 997}\n" for i in range(330_000))
    return [lines, log[:12_000_000] + "AssertionError: Guard failed: x.size()[0] == 2\n"]


class Server:
    """`exportkb serve --no-docs` of a checkout, on a free loopback port."""

    def __init__(self, repo: Path):
        self.repo, self.port = repo, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PYTHONPATH=str(repo), EXPORTKB_ROOT=str(repo))
        env.pop("EXPORTKB_DB", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "kb.cli", "serve", "--no-docs", "--port", str(self.port)],
                                     cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def wait(self, timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(self.proc.stdout.read().decode()[-2000:])
            try:
                if httpx.get(self.url + "/", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.5)
        raise TimeoutError("the server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


async def form_fields(client: httpx.AsyncClient) -> dict:
    """What a browser's form post carries: a CSRF token where the page has one (older checkouts)."""
    page = await client.get("/")
    token = re.search(r'name="csrftoken" value="([^"]+)"', page.text)
    return {"csrftoken": token.group(1)} if token else {}


async def searcher(url, texts, stop_at, times, statuses, seed):
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        extra = await form_fields(client)
        while time.monotonic() < stop_at:
            start = time.perf_counter()
            r = await client.post("/", data={"error": rng.choice(texts), "lang": "en", **extra})
            times.append((time.perf_counter() - start) * 1000)
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1


async def browser_of_tables(url, stop_at, times):
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        while time.monotonic() < stop_at:
            start = time.perf_counter()
            r = await client.get("/kb/entries?_size=10")
            assert r.status_code == 200
            times.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.05)


async def worst_client(url, pastes, stop_at, times, statuses):
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        extra = await form_fields(client)
        bodies = [httpx.QueryParams({"error": p, "lang": "en", **extra}).__str__().encode() for p in pastes]
        i = 0
        while time.monotonic() < stop_at:
            start = time.perf_counter()
            r = await client.post("/", content=bodies[i % len(bodies)],
                                  headers={"content-type": "application/x-www-form-urlencoded"})
            times.append((time.perf_counter() - start) * 1000)
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            i += 1


def worker_times(pastes) -> list[dict]:
    """One search worker's time on each worst paste, sent as the browser's form sends it."""
    from kb.build import ensure_built
    from kb.ui import search_pool

    db, _ = ensure_built()
    key = search_pool.db_key(str(db))
    search_pool.answer(*key, "warm up")
    out = []
    for paste in pastes:
        body = str(httpx.QueryParams({"error": paste, "lang": "en"})).encode()
        start = time.perf_counter()
        search_pool.answer(*key, None, body, "application/x-www-form-urlencoded")
        out.append({"body_mb": round(len(body) / 1e6, 1), "worker_s": round(time.perf_counter() - start, 2)})
    return out


def pct(values, q):
    values = sorted(values)
    return round(values[max(0, int(q * len(values)) - 1)], 1) if values else None


async def phase(url, texts, pastes, clients, seconds, with_worst) -> dict:
    stop_at = time.monotonic() + seconds
    search_ms, table_ms, worst_ms, statuses, worst_statuses = [], [], [], {}, {}
    tasks = [searcher(url, texts, stop_at, search_ms, statuses, k) for k in range(clients)]
    tasks.append(browser_of_tables(url, stop_at, table_ms))
    if with_worst:
        tasks.append(worst_client(url, pastes, stop_at, worst_ms, worst_statuses))
    await asyncio.gather(*tasks)
    return {"worst_client": with_worst, "searches": len(search_ms), "search_p50_ms": pct(search_ms, 0.5),
            "search_p95_ms": pct(search_ms, 0.95), "table_p50_ms": pct(table_ms, 0.5),
            "table_p95_ms": pct(table_ms, 0.95), "statuses": statuses,
            "worst_pastes": len(worst_ms), "worst_p50_ms": pct(worst_ms, 0.5), "worst_statuses": worst_statuses}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--repo", type=Path, default=ROOT, help="the checkout to serve (default: this one)")
    args = ap.parse_args()
    texts, pastes = real_tracebacks(), worst_pastes()
    if args.repo.resolve() == ROOT:
        print(json.dumps({"benchmark": "search-worker-worst-pastes", "pastes": worker_times(pastes)}), flush=True)
    server = Server(args.repo.resolve())
    try:
        server.wait()
        commit = subprocess.run(["git", "-C", str(args.repo), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        asyncio.run(phase(server.url, texts, pastes, 2, 5, False))  # warm the server and its workers
        for with_worst in (False, True):
            result = asyncio.run(phase(server.url, texts, pastes, args.clients, args.seconds, with_worst))
            print(json.dumps({"benchmark": "server-under-load", "commit": commit, "clients": args.clients,
                              "seconds": args.seconds, "cpus": os.cpu_count(), **result}), flush=True)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
