"""Shared helpers for the real-browser tests: Debian's Chromium driven by Playwright,
and a real `exportkb serve` on a free localhost port."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
# As root, in a closed network: no sandbox, and no background connections that the
# network would refuse (see DESIGN.md).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]

needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing (make setup installs it)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(*args: str, timeout: float = 300.0):
    """Run `exportkb serve` and yield its base URL once it answers."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kb.cli", "serve", "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ))
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"exportkb serve exited: {proc.stdout.read().decode()[-2000:]}")
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.contextmanager
def chromium_page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # Playwright gives every launch a fresh temporary profile (--user-data-dir).
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()
