"""`exportkb collect --ray [ADDRESS]`, `collect --torch VERSION` and `sweep --ray`: the
corpus and the entry sweep as tasks on a cluster.

The corpus plan is the local pool's (collectors.collect.plan), made by the interpreter
that will do the work, because the keys carry its library versions and a release's
transformers lists its own model types. Models go out in small batches. Each batch is one
task: it prepares the release's interpreter on its node if needed (release_python), then
runs `python -m collectors.remote run` there, which isolates every attempt exactly like
the local pool (a forked child per model, a grandchild per exporter, time and memory
limits) and prints one JSON line per observation. The sweep sends one task per entry
and release, which runs the entry's scripts like `exportkb check` (collectors.isolate).

The driver is the only writer. It appends each record whose key is not yet recorded,
as one whole line (kb.observations.append_observation), so resume by key, no duplicates
and no torn lines hold as they do locally. A task lost with its worker or node is run
again by Ray (`max_retries`): its results come back only with the task, so a lost
task's attempts are run again, and each is recorded once.

Two backends run the same corpus tasks:
* `ray`: a Ray cluster at ADDRESS, or without one a local Ray started for the run;
* `local`: threads on this machine (`--torch` without `--ray`), no Ray needed.
Ray is imported only for the first; it is the optional `cluster` extra.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Callable

from kb import paths
from kb.observations import append_observation
from kb.version_status import release_of

from .collect import Tally, check_exporters, known_keys, output_path
from .isolate import interpreter_env
from .pool import die_with_parent
from .versions import library_versions

RETRIES = 3  # a task whose worker or node died is run again this many times


class ClusterError(RuntimeError):
    """The run could not start or a task could not run; the message says where and why."""


@dataclass
class ClusterReport:
    backend: str
    torch: str | None = None
    versions: dict = field(default_factory=dict)
    planned: int = 0  # attempts the plan holds for the chosen models
    skipped: int = 0  # of those, already recorded: not run again
    batches: int = 0
    recorded: int = 0  # new lines written
    nodes: dict[str, int] = field(default_factory=dict)  # node -> batches it ran
    errors: list[str] = field(default_factory=list)  # batches whose interpreter failed
    lost: int = 0  # attempts a failed batch left unrecorded (run again on resume)
    wall_s: float = 0.0


# --- what runs on a node (plain functions: Ray ships them by reference) ---------------

def release_python(torch_version: str | None, executorch: bool, *, corpus: bool = True) -> str:
    """This node's interpreter for a torch release, prepared once per node under a lock.

    The installed release is the project's own interpreter. Another release gets the
    sweep's venv (collectors.sweep.create_venv: that torch and the companions of its
    time) and, when asked, the paired executorch. For the corpus (`collect`) it also gets
    the model libraries and onnx-ir of its time (sweep.CORPUS_LIBS) and the project's RE2
    pin, in a folder of its own (corpus-torch-X): an entry sweep must see the release
    without them, and the local sweep deletes its torch-X folder when done. A marker
    records what was installed, so a venv prepared for less, or cut short by a kill, is
    completed, never trusted."""
    if torch_version is None or torch_version == release_of(library_versions()["torch"]):
        return sys.executable
    from . import sweep

    folder = sweep.sweep_dir() / f"{'corpus' if corpus else 'sweep'}-torch-{torch_version}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    extras = [f"google-re2=={metadata.version('google-re2')}",
              *(f"{lib}=={pin}" for lib, pin in sorted(sweep.CORPUS_LIBS.get(torch_version, {}).items()))] if corpus else []
    recipe = json.dumps({"extras": extras, "executorch": executorch}, sort_keys=True)
    ready = folder / "ready.json"
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one task per node prepares; the others wait for it
        python = folder / "venv" / "bin" / "python"
        if python.exists() and ready.exists() and ready.read_text() == recipe:
            return str(python)
        try:
            if not (folder / "venv-made").exists() or not python.exists():  # none, or one a kill cut short
                python = sweep.create_venv(torch_version, folder)
                (folder / "venv-made").write_text("made\n")
            if extras:  # with the release's torch named, so pip can never swap it for another
                sweep.run_pip(python, ["install", "--only-binary", ":all:", *extras, f"torch=={torch_version}"],
                              sweep.pip_log(torch_version))
            if executorch and sweep.probe_versions(python)["versions"].get("executorch") is None:
                # A release with no executorch still runs; its executorch attempts record why.
                sweep.add_executorch(python, torch_version)
        except sweep.SweepError as exc:
            raise ClusterError(f"{socket.gethostname()}: torch {torch_version}: {exc}") from None
        ready.write_text(recipe)
        return str(python)


def _remote(python: str, command: str, spec: dict) -> tuple[list[dict], int, str]:
    env = interpreter_env(python)
    # The project first; then whatever the node was started with (a custom corpus source).
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(paths.root()), env.get("PYTHONPATH", "")) if p)
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([python, "-m", "collectors.remote", command], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, cwd=paths.root(), env=env,
                                preexec_fn=die_with_parent)
        stdout, _ = proc.communicate(json.dumps(spec).encode())
        err.seek(0, os.SEEK_END)
        err.seek(max(0, err.tell() - 4000))
        tail = err.read().decode("utf-8", "replace")
    rows = []
    for line in stdout.decode("utf-8", "replace").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut by a kill: that attempt is run again
    return rows, proc.returncode, tail


def plan_task(torch_version: str | None, spec: dict) -> dict:
    python = release_python(torch_version, "executorch" in spec["exporters"])
    rows, code, tail = _remote(python, "plan", spec)
    if code or not rows:
        raise ClusterError(f"{socket.gethostname()}: planning in {python} failed (exit {code}):\n{tail}")
    return rows[0]


def run_batch(torch_version: str | None, spec: dict) -> dict:
    python = release_python(torch_version, "executorch" in spec["exporters"])
    rows, code, tail = _remote(python, "run", spec)
    return {"rows": [r for r in rows if "record" in r], "lost": [r for r in rows if "lost" in r],
            "returncode": code, "stderr": tail,
            "node": _node_name(), "pid": os.getpid()}


def _node_name() -> str:
    """The Ray node a task ran on (several may share a host), or the host without Ray."""
    try:
        import ray

        if ray.is_initialized():
            return f"{socket.gethostname()}:{ray.get_runtime_context().get_node_id()[:8]}"
    except ImportError:
        pass
    return socket.gethostname()


def sweep_prepare(torch_version: str, executorch: bool) -> dict:
    """Prepare the release's sweep venv on this node; its versions and environment."""
    from . import sweep

    python = release_python(torch_version, executorch, corpus=False)
    probed = sweep.probe_versions(Path(python))
    return {"versions": probed["versions"], "env": {"python": probed["python"], "platform": probed["platform"]},
            "node": _node_name()}


def sweep_scripts(torch_version: str, executorch: bool, scripts: list[tuple[str, str, str]],
                  timeout_s: float) -> dict:
    """Run (entry folder, script, kind) with the release's sweep venv on this node, isolated
    like `exportkb check`; the results, for the driver to record."""
    from . import sweep
    from .check import CaseResult
    from .isolate import run_script
    from .portable import trim

    python = release_python(torch_version, executorch, corpus=False)
    venv = Path(python).parent.parent
    results = []
    for folder, script, kind in scripts:
        run = run_script(Path(folder) / script, timeout_s=timeout_s, python=python)
        text = trim(sweep.portable_for(venv, run.stderr)) if run.stderr else ""
        results.append(CaseResult(script, kind, run, text))
    return {"results": results, "versions": sweep.probe_versions(Path(python))["versions"], "node": _node_name()}


# --- backends -------------------------------------------------------------------------

class LocalBackend:
    """Tasks in threads of this process; each task's work is its own subprocess."""
    name = "local"

    def __init__(self, jobs: int):
        self.pool = ThreadPoolExecutor(max_workers=jobs)

    def call(self, fn, *args):
        return fn(*args)

    def submit(self, fn, *args):
        return self.pool.submit(fn, *args)

    def wait_any(self, pending: list) -> tuple[list, list]:
        done, rest = wait(pending, return_when=FIRST_COMPLETED)
        return list(done), list(rest)

    def result(self, handle):
        return handle.result()

    def close(self) -> None:
        self.pool.shutdown(wait=True)


class RayBackend:
    name = "ray"

    def __init__(self, address: str | None, jobs: int):
        try:
            import ray
        except ImportError:
            raise ClusterError("--ray needs Ray: pip install 'exportkb[cluster]' -c constraints.txt") from None
        import logging

        self.ray = ray
        options = {"logging_level": logging.WARNING, "include_dashboard": False, "log_to_driver": False}
        if address:
            ray.init(address=address, **options)
        else:  # a Ray of our own on this machine, for this run, even where another one runs
            ray.init(address="local", num_cpus=jobs, object_store_memory=256 * 2**20, **options)
        self._remote = {}

    def _fn(self, fn):
        if fn not in self._remote:
            self._remote[fn] = self.ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=False)(fn)
        return self._remote[fn]

    def call(self, fn, *args):
        return self.ray.get(self._fn(fn).remote(*args))

    def submit(self, fn, *args):
        return self._fn(fn).remote(*args)

    def wait_any(self, pending: list) -> tuple[list, list]:
        return self.ray.wait(pending, num_returns=1)

    def result(self, handle):
        return self.ray.get(handle)

    def close(self) -> None:
        self.ray.shutdown()


# --- the driver -----------------------------------------------------------------------

def releases_output_path(versions: dict) -> Path:
    """The pinned release's corpus file; any other release's run goes to observations/releases/.

    Apart on purpose, like fix retries: the corpus run's pass rates, unexplained signatures
    and README figures are about the pinned release, and the releases comparison reads
    this folder (kb.releases) with the pinned release's results for the same models."""
    if release_of(versions.get("torch")) == release_of(library_versions()["torch"]):
        return output_path(versions, None)
    return output_path(versions, None, paths.observations_dir() / "releases")


@dataclass
class _Release:
    """One release of a cluster run, as the driver tracks it."""
    torch: str | None
    report: ClusterReport
    out: Path | None = None
    done: set[str] = field(default_factory=set)
    tally: Tally = field(default_factory=Tally)
    total: int = 0


def collect_cluster(sources: list[str], exporters: list[str], *, models: list[str] | None = None,
                    address: str | None = None, use_ray: bool = True, torch_versions: list[str | None] = (None,),
                    jobs: int = 2, batch: int = 2, attempt_timeout: float = 600.0, build_timeout: float = 300.0,
                    memory_mb: float = 8000.0, out: Path | None = None, limit: int | None = None,
                    progress: Callable[[int, int, Tally, str], None] | None = None
                    ) -> list[tuple[Path, Tally, int, ClusterReport]]:
    """Collect on each release named, all on one cluster at once: every release is planned
    by its own interpreter, then all their batches share the cluster's workers. One
    (file, tally, attempts planned, report) per release."""
    check_exporters(exporters)
    if batch < 1:
        raise ValueError("--batch takes a positive number of models per task")
    torch_versions = list(dict.fromkeys(torch_versions)) or [None]
    bad = [v for v in torch_versions if v is not None and not re.fullmatch(r"\d+\.\d+(\.\d+)?", v)]
    if bad:
        raise ValueError(f"--torch takes a release such as 2.9.1; got {', '.join(map(repr, bad))}")
    if out is not None and len(torch_versions) > 1:
        raise ValueError("--out names one file: give one --torch with it")
    start = time.monotonic()
    backend = RayBackend(address, jobs) if use_ray else LocalBackend(jobs)
    runs = [_Release(v, ClusterReport(backend.name, v)) for v in torch_versions]
    try:
        spec = {"sources": sources, "exporters": exporters, "models": models}
        plans = {id(run): backend.submit(plan_task, run.torch, spec) for run in runs}
        limits = {"attempt_timeout": attempt_timeout, "build_timeout": build_timeout, "memory_mb": memory_mb}
        pending, owner = [], {}
        for run in runs:
            report = run.report
            try:
                planned = backend.result(plans[id(run)])
            except Exception as exc:  # that release cannot run here; the others go on
                report.errors.append(f"torch {run.torch}: {type(exc).__name__}: {exc}"[-2000:])
                continue
            report.versions = planned["versions"]
            run.out = out or releases_output_path(report.versions)
            run.done = known_keys(run.out)
            todo = []  # (corpus source, model, exporters still to record)
            for t in planned["tasks"]:
                report.planned += len(t["keys"])
                if t["build_key"] in run.done:
                    report.skipped += len(t["keys"])
                    continue
                left = [e for e in exporters if t["keys"][e] not in run.done]
                report.skipped += len(exporters) - len(left)
                if left:
                    todo.append((t["corpus"], t["model"], left))
            todo = todo[:limit] if limit else todo
            run.total = sum(len(left) for _, _, left in todo)
            for i in range(0, len(todo), batch):
                chunk = todo[i:i + batch]
                task = {"exporters": exporters, "models": [[s, m] for s, m, _ in chunk],
                        "exporters_for": {f"{s}/{m}": left for s, m, left in chunk}, **limits}
                handle = backend.submit(run_batch, run.torch, task)
                pending.append(handle)
                owner[handle] = run
                report.batches += 1
        while pending:
            finished, pending = backend.wait_any(pending)
            for handle in finished:
                run = owner.pop(handle)
                report = run.report
                try:
                    result = backend.result(handle)
                except Exception as exc:  # Ray gave up on the task after its retries
                    report.errors.append(f"a task failed after {RETRIES} retries: {type(exc).__name__}: {exc}"[:2000])
                    continue
                report.nodes[result["node"]] = report.nodes.get(result["node"], 0) + 1
                for row in result["rows"]:
                    record = row["record"]
                    if record["key"] not in run.done:
                        append_observation(run.out, record)
                        run.done.add(record["key"])
                        report.recorded += 1
                    run.tally.add(record["outcome"])
                    run.tally.attempts += int(row.get("settled", 1)) - 1
                    if progress:
                        what = record["exporter"] if record["outcome"] != "build" else "(build failed)"
                        progress(sum(r.tally.attempts for r in runs), sum(r.total for r in runs), run.tally,
                                 f"{record['versions'].get('torch')}: {record['source']}/{record['model']} {what}")
                for row in result.get("lost", ()):
                    run.tally.add_lost(len(row["lost"]), row["why"])
                if result["returncode"]:
                    report.errors.append(f"{result['node']}: the collector exited with {result['returncode']}:\n"
                                         + result["stderr"][-1500:])
        for run in runs:
            run.report.lost = max(0, run.total - run.tally.attempts)
    finally:
        backend.close()
        wall = round(time.monotonic() - start, 1)
        for run in runs:
            run.report.wall_s = wall
    return [(run.out, run.tally, run.total, run.report) for run in runs]


def sweep_cluster(entries: list, releases: list[str], *, address: str | None = None, jobs: int = 2,
                  timeout_s: float = 300.0, out_folder: Path | None = None,
                  progress: Callable[[int, int, str], None] | None = None) -> list[dict]:
    """`exportkb sweep --ray`: each entry's scripts on each release as Ray tasks, one task
    per entry and release. The releases run side by side on the cluster, each node
    preparing a release's venv the first time a task needs it (and keeping it for the
    tasks after). The driver writes observations/sweep-torch-<version>.jsonl, resuming
    by key like the local sweep."""
    from . import sweep
    from .check import case_key, case_observation
    from kb.observations import existing_keys

    backend = RayBackend(address, jobs)
    reports = []
    try:
        executorch = any("executorch" in e.exporters for e in entries)
        prepared = {v: backend.submit(sweep_prepare, v, executorch) for v in releases}
        pending, owner, state = [], {}, {}
        for version in releases:
            start = time.monotonic()
            report = {"torch": version, "scripts": 0, "skipped": 0, "recorded": 0, "outcomes": {}, "error": None,
                      "nodes": {}}
            reports.append(report)
            try:
                info = backend.result(prepared[version])
            except Exception as exc:  # the venv could not be made: that release is reported, the others go on
                report["error"] = f"{type(exc).__name__}: {exc}"[-2000:]
                continue
            out = sweep.output_path(version, out_folder)
            known = existing_keys(out)
            state[version] = (out, known, info, start)
            for entry in entries:
                scripts = [(c, "failing") for c in entry.failing_cases] + [(entry.fixed_case, "fixed")]
                report["scripts"] += len(scripts)
                todo = [(str(entry.folder), c, k) for c, k in scripts if case_key(entry, c, info["versions"]) not in known]
                report["skipped"] += len(scripts) - len(todo)
                if todo:
                    handle = backend.submit(sweep_scripts, version, executorch, todo, timeout_s)
                    pending.append(handle)
                    owner[handle] = (version, entry)
        total, done = len(pending), 0
        by_version = {r["torch"]: r for r in reports}
        while pending:
            finished, pending = backend.wait_any(pending)
            for handle in finished:
                version, entry = owner.pop(handle)
                report = by_version[version]
                out, known, info, _start = state[version]
                done += 1
                try:
                    result = backend.result(handle)
                except Exception as exc:
                    report["error"] = f"{entry.id}: {type(exc).__name__}: {exc}"[-2000:]
                    continue
                report["nodes"][result["node"]] = report["nodes"].get(result["node"], 0) + 1
                for res in result["results"]:
                    record = case_observation(entry, res, result["versions"], info["env"])
                    record["sweep"] = True
                    record["run"] = "sweep"
                    report["outcomes"][res.run.outcome] = report["outcomes"].get(res.run.outcome, 0) + 1
                    if record["key"] not in known:
                        append_observation(out, record)
                        known.add(record["key"])
                        report["recorded"] += 1
                if progress:
                    progress(done, total, f"torch {version}: {entry.id}")
        for version, (_out, _known, info, start) in state.items():
            by_version[version]["versions"] = info["versions"]
            by_version[version]["wall_s"] = round(time.monotonic() - start, 1)
    finally:
        backend.close()
    return reports
