"""The collector as a process of its own, for any interpreter: `python -m collectors.remote`.

A driver that is not the interpreter doing the work (a Ray task on another node, or a
release's venv from the sweep) talks to this module through JSON, never pickles:

    python -m collectors.remote plan  < {"sources": [...], "exporters": [...], "models": [...]|null}
        one JSON object: this interpreter's versions and environment, and every planned
        attempt with its key (computed with *these* versions, so the driver can resume);
    python -m collectors.remote run   < {"exporters": [...], "sources": [...], "models": [[source, id], ...],
                                         "attempt_timeout": s, "build_timeout": s, "memory_mb": mb}
        one JSON line per observation as it is made: {"record": {...}, "settled": n}.

`run` isolates exactly like the local pool (collectors.collect.run_tasks: a forked child
per model, a grandchild per exporter, time and memory limits). It writes no file: the
driver is the only writer of observations, so whatever kills this process loses only
the lines it had not printed, and those attempts are run again.

What the project's torch-free side needs here is the standard library and RE2 (kb's
patterns); sweep venvs get it next to their torch (collectors.cluster.release_python).
"""
from __future__ import annotations

import json
import os
import sys


def _plan(spec: dict) -> dict:
    from .collect import check_exporters, plan
    from .versions import environment, library_versions

    check_exporters(spec["exporters"])
    versions = library_versions()
    tasks = plan(spec["sources"], spec["exporters"], spec.get("models"), None, versions, set())
    return {"versions": versions, "env": environment(),
            "tasks": [{"corpus": t.corpus, "source": t.spec.source, "model": t.spec.id, "family": t.spec.family, "case_hash": t.case_hash,
                       "build_key": t.build_key, "keys": t.keys} for t in tasks]}


def _run(spec: dict, write) -> None:
    from .collect import run_tasks, tasks_for
    from .pool import warm_up
    from .versions import environment, library_versions, model_lib_versions

    versions, env = library_versions(), environment()
    items = [tuple(item) for item in spec["models"]]
    tasks = tasks_for(items, spec["exporters"], versions)
    # Each task may name its own exporters (those the driver has not recorded yet).
    wanted = spec.get("exporters_for") or {}
    for task in tasks:
        only = wanted.get(f"{task.corpus}/{task.spec.id}")
        if only:
            task.exporters = [e for e in task.exporters if e in only]
    warm_up(tuple(spec["exporters"]), tuple(sorted({s for s, _ in items})))

    model_libs = model_lib_versions()

    def on_record(_task, record: dict, settled: int) -> None:
        record = {**record, "model_libs": model_libs}
        write(json.dumps({"record": record, "settled": settled}, default=str) + "\n")

    def on_lost(task, exporters: list[str], why: str) -> None:
        write(json.dumps({"lost": exporters, "why": why, "model": f"{task.corpus}/{task.spec.id}"}) + "\n")

    run_tasks(tasks, versions, env, jobs=int(spec.get("jobs", 1)), attempt_timeout=float(spec["attempt_timeout"]),
              build_timeout=float(spec["build_timeout"]), memory_mb=float(spec["memory_mb"]), on_record=on_record,
              on_lost=on_lost)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in ("plan", "run"):
        sys.stderr.write("usage: python -m collectors.remote plan|run  < spec.json\n")
        return 2
    try:
        spec = json.load(sys.stdin)
    except json.JSONDecodeError as exc:
        sys.stderr.write(f"collectors.remote: the spec on stdin is not JSON: {exc}\n")
        return 2
    # Observations leave on a private copy of stdout; whatever a library prints (to
    # stdout or stderr) goes to stderr, so it can never tear or fake a JSON line.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)

    def write(line: str) -> None:
        out.write(line)
        out.flush()  # each observation leaves as soon as it exists

    if argv[0] == "plan":
        write(json.dumps(_plan(spec)) + "\n")
    else:
        _run(spec, write)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
