"""The process table as /proc shows it, for the tests that start servers, pools and clusters
and must check what is left running after them.

One reader for every such test: the parsing of /proc/<pid>/stat (whose second field, the
command name, may itself hold spaces and parentheses) lives here and nowhere else.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class Process:
    pid: int
    parent: int
    state: str  # "R", "S", "Z" (exited, not yet reaped), ...
    cmdline: tuple[bytes, ...]


def read(pid: int) -> Process | None:
    """The process `pid`, or None when it is gone (or was never there)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
        cmdline = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None
    # The command name is in parentheses and may contain ") ", so split at the last one.
    fields = stat.rsplit(")", 1)[1].split()
    return Process(pid, int(fields[1]), fields[0], tuple(cmdline.split(b"\0")))


def table(*, but_me: bool = True) -> dict[int, Process]:
    """Every process readable now; processes that end while it is read are left out."""
    found = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and not (but_me and int(entry.name) == os.getpid()):
            process = read(int(entry.name))
            if process is not None:
                found[process.pid] = process
    return found


def children(pid: int) -> set[int]:
    return {p.pid for p in table().values() if p.parent == pid}


def alive(pid: int) -> bool:
    """Running, or stopped, but not exited: a zombie only waits for its parent to reap it."""
    process = read(pid)
    return process is not None and process.state != "Z"


def environ(pid: int) -> list[bytes]:
    """The `NAME=value` entries the process was started with; empty when it is gone or not ours."""
    try:
        return (PROC / str(pid) / "environ").read_bytes().split(b"\0")
    except OSError:
        return []
