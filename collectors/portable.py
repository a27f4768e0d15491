"""Make tracebacks portable: machine-specific paths become stable placeholders."""
from __future__ import annotations

import re
import site
import sys
import sysconfig
from pathlib import Path

MAX_TRACEBACK_LINES = 400
MAX_TRACEBACK_CHARS = 60_000


def _prefixes(repo: Path) -> list[tuple[str, str]]:
    pairs = []
    for sp in {*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        pairs.append((str(Path(sp)), "<site-packages>"))
    pairs.append((str(Path(sysconfig.get_paths()["stdlib"])), "<python>"))
    pairs.append((str(repo.resolve()), "<repo>"))
    pairs.append((str(Path(sys.prefix)), "<venv>"))
    pairs.append((str(Path.home()), "~"))
    # Longest first, so a venv's site-packages wins over the venv itself.
    return sorted(pairs, key=lambda p: -len(p[0]))


def portable(text: str, repo: Path) -> str:
    for prefix, name in _prefixes(repo):
        text = text.replace(prefix, name)
    # Process ids and timestamps in torch's own glog-style lines vary on every run.
    text = re.sub(r"(?m)^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d+ +\d+ ", r"\1 ", text)
    return text


def trim(text: str) -> str:
    """Keep the end of a long stderr: the exception is last."""
    lines = text.rstrip("\n").split("\n")
    if len(lines) > MAX_TRACEBACK_LINES:
        lines = [f"[... {len(lines) - MAX_TRACEBACK_LINES} earlier lines trimmed ...]", *lines[-MAX_TRACEBACK_LINES:]]
    out = "\n".join(lines)
    return out[-MAX_TRACEBACK_CHARS:]
