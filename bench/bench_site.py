"""Documentation site build time: a full build of en, ko and zh_CN, then an incremental one.

    .venv/bin/python bench/bench_site.py [--entry static-batch-size] [--runs 1]

1. Full: all three languages from empty output and doctree directories.
2. No-op: the same build again with nothing changed (the floor of every rebuild).
3. Incremental: one entry's prose changes (a sentence is added to the cause in its
   entry.toml), then kb.db and the site are rebuilt; the entry.toml is restored after.
   Target: under 15 s.

Everything is built into a temporary directory with a copy of site/locale, so the
repository's _build/ is not touched. The translated languages are built with
require_translations=False: a prose change leaves the ko/zh_CN catalogues one message
short by definition, and the committed catalogues may not be complete yet. Untranslated
messages are rendered in English, which costs the same as rendering a translation.
Prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from anywhere

from kb import paths  # noqa: E402
from kb.site import builder as site  # noqa: E402
from kb.build import ensure_built  # noqa: E402

TARGET_INCREMENTAL_S = 15.0


def _cpu() -> float:
    """CPU seconds used so far by this process and its finished children (the sphinx runs).

    Reported next to wall time: on a shared machine the wall time mostly measures the
    neighbours, while CPU time is what the build itself costs.
    """
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _edit(toml: Path, stamp: str) -> None:
    """Add one sentence at the start of the entry's cause: a new message for translators too."""
    text = toml.read_text(encoding="utf-8")
    marker = 'cause = """\n'
    if marker not in text:
        raise SystemExit(f"{toml}: no 'cause = \"\"\"' block to edit")
    toml.write_text(text.replace(marker, f"{marker}Benchmark edit {stamp}.\n\n", 1), encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entry", default="static-batch-size", help="entry whose prose is changed")
    ap.add_argument("--runs", type=int, default=1, help="incremental rebuilds to time (each a new edit)")
    args = ap.parse_args()
    toml = paths.entries_dir() / args.entry / "entry.toml"
    original = toml.read_bytes()

    t = time.perf_counter()
    ensure_built()
    kbdb_s = time.perf_counter() - t

    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        tmp = Path(tmp)
        locale = tmp / "locale"
        shutil.copytree(paths.root() / "site" / "locale", locale, ignore=shutil.ignore_patterns("*.mo"))
        opts = dict(locale=locale, out=tmp / "out", src=tmp / "src", require_translations=False)

        t, c = time.perf_counter(), _cpu()
        full = site.build_site(site.LANGS, incremental=False, **opts)
        full_s, full_cpu = time.perf_counter() - t, _cpu() - c

        t, c = time.perf_counter(), _cpu()
        site.build_site(site.LANGS, **opts)
        noop_s, noop_cpu = time.perf_counter() - t, _cpu() - c

        incremental = []
        try:
            for run in range(args.runs):
                _edit(toml, f"{run}-{time.time_ns()}")
                t, c = time.perf_counter(), _cpu()
                ensure_built()  # what `exportkb docs` does first: the entry.toml changed
                kb_s = time.perf_counter() - t
                result = site.build_site(site.LANGS, **opts)
                total = time.perf_counter() - t
                incremental.append({"total_s": round(total, 2), "cpu_s": round(_cpu() - c, 2),
                                    "kbdb_s": round(kb_s, 2),
                                    "pages_rewritten": result["pages_written"],
                                    "steps_s": {k: round(v, 2) for k, v in result["seconds"].items()}})
                toml.write_bytes(original)
        finally:
            toml.write_bytes(original)
        ensure_built()  # leave kb.db matching the restored sources

    worst = max(r["total_s"] for r in incremental)
    print(json.dumps({
        "benchmark": "site build",
        "langs": list(site.LANGS),
        "pages_per_lang": full["pages"],
        "kbdb_build_s": round(kbdb_s, 2),
        "full_s": round(full_s, 2),
        "full_cpu_s": round(full_cpu, 2),
        "full_steps_s": {k: round(v, 2) for k, v in full["seconds"].items()},
        "noop_s": round(noop_s, 2),
        "noop_cpu_s": round(noop_cpu, 2),
        "incremental": incremental,
        "incremental_target_s": TARGET_INCREMENTAL_S,
        "incremental_ok": worst < TARGET_INCREMENTAL_S,
        "translations": full["coverage"],
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
    }, indent=2))
    return 0 if worst < TARGET_INCREMENTAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
