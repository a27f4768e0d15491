"""Tools that one entry script needs at an exact version the project does not install.

An entry's `[companions]` table pins them per script (kb.catalogue.Entry.companions): a
delegate's vendor compiler, for example, at the version a user had (failing.py) and at the
version the backend expects (fixed.py). Two versions of one package cannot share a venv,
so each pin is installed on its own, once per interpreter ABI, into
build/companions/<cache tag>/<name>-<version>, and a script's pins go first on its
PYTHONPATH. Nothing else in the venv changes, so no other entry sees them.

`--no-deps`: the entry pins the whole set, and a wheel's own requirements must not
replace the venv's torch or numpy. Binary wheels only: nothing compiles here or in CI.
"""
from __future__ import annotations

import fcntl
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from kb import paths


class CompanionError(RuntimeError):
    """A pin did not install; the message says which and pip's last words."""


def versions_of(pins: tuple[str, ...]) -> dict[str, str]:
    """{"ethos-u-vela": "4.3.0", ...}: what a run with these pins ran with, for its record."""
    return {name.lower().replace("_", "-"): version for name, version in (p.split("==", 1) for p in pins)}


@functools.cache
def _cache_tag(python: str) -> str:
    out = subprocess.run([python, "-c", "import sys; print(sys.implementation.cache_tag)"],
                         capture_output=True, text=True, timeout=120)
    if out.returncode or not out.stdout.strip():
        raise CompanionError(f"cannot ask {python} for its ABI: {out.stderr.strip()[-300:]}")
    return out.stdout.strip()


def companions_dir() -> Path:
    return paths.root() / "build" / "companions"


def install_pin(pin: str, python: str | Path = sys.executable) -> Path:
    """The folder holding `pin` for `python`'s ABI, installed there first if need be.

    Safe to call from several processes at once (pytest's workers): one installs under a
    lock, into a temporary folder renamed into place, so nobody sees half a package."""
    python = str(python)
    base = companions_dir() / _cache_tag(python)
    target = base / pin.replace("==", "-")
    if target.is_dir():
        return target
    base.mkdir(parents=True, exist_ok=True)
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_dir():
            return target
        staging = Path(tempfile.mkdtemp(prefix=".installing-", dir=base))
        try:
            done = subprocess.run(
                [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                 "--only-binary", ":all:", "--target", str(staging), pin],
                capture_output=True, text=True, timeout=900)
            if done.returncode:
                raise CompanionError(f"{pin} did not install for {python}: {done.stderr.strip()[-600:]}")
            os.rename(staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target


def import_path(pins: tuple[str, ...], python: str | Path = sys.executable) -> tuple[Path, ...]:
    """The folders to put first on a script's import path, in the order of its pins."""
    return tuple(install_pin(pin, python) for pin in pins)


def prepare(entries, python: str | Path = sys.executable) -> tuple[dict[tuple[str, str], tuple[Path, ...]], dict[str, str]]:
    """For `check` and `sweep` alike: each (entry id, script) with companions -> its import
    path, and each entry whose pins did not install -> why. Such an entry is not run:
    without its companions its scripts would measure the venv, not the entry."""
    paths_of: dict[tuple[str, str], tuple[Path, ...]] = {}
    failed: dict[str, str] = {}
    for entry in entries:
        for case, pins in entry.companions.items():
            try:
                paths_of[(entry.id, case)] = import_path(pins, python)
            except CompanionError as exc:
                failed[entry.id] = str(exc)
    return paths_of, failed
