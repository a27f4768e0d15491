"""`exportkb collect`: every chosen exporter over every chosen corpus model.

The parent imports the heavy libraries and runs one export (pool.warm_up), then forks
one child per model. The child builds the model once and forks a grandchild per
exporter, so a build failure is a `build` observation and an exporter that hangs,
crashes or runs out of memory costs only its own attempt. Results stream back as they
finish and the parent, the only writer, appends each as one whole line.

Resuming: an attempt whose key (source, model, exporter, case definition, versions) is
already in observations/ is not run again, so a killed run picks up where it stopped,
with nothing lost and nothing twice.
"""
from __future__ import annotations

import fnmatch
import hashlib
import inspect
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from kb import paths
from kb.catalogue import CORPUS_SOURCES, EXPORTERS
from kb.observations import SCHEMA, append_observation, existing_keys, observation_key, read_observations

from . import corpus, fixes
from .corpus.base import ModelSpec
from .pool import imap_forked, run_forked, warm_up
from .portable import portable, trim
from .versions import environment, library_versions

# The list kb.catalogue keeps (kb never imports collectors), so adding a source is one edit.
DEFAULT_SOURCES = CORPUS_SOURCES


@dataclass
class ModelTask:
    module: object  # the source module that builds it (the child is a fork: no pickling)
    spec: ModelSpec
    case_hash: str
    exporters: list[str]
    build_key: str
    keys: dict[str, str]
    corpus: str = ""  # the --corpus name it came from (a module:path for a custom source)


@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=dict)
    attempts: int = 0
    # Attempts planned for a model that built but whose child ended before running them
    # (killed at its time or memory budget between attempts, or an error in the child).
    # They get no record: a passing fault of the machine is not an outcome of the model,
    # and a resume runs them again. The summary says how many and why.
    lost: int = 0
    lost_why: dict[str, int] = field(default_factory=dict)

    def add_lost(self, count: int, why: str) -> None:
        self.lost += count
        self.lost_why[why] = self.lost_why.get(why, 0) + count

    def add(self, outcome: str) -> None:
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        self.attempts += 1


def _source_module(name: str):
    """A corpus source: a name from corpus.SOURCE_MODULES, or `module:dotted.path` for others."""
    if name.startswith("module:"):
        import importlib

        return importlib.import_module(name.removeprefix("module:"))
    return corpus.source(name)


def _definition_hash(module, spec: ModelSpec) -> str:
    """What defines a case before it is built: the source's code, and an entry's script."""
    h = hashlib.sha256(inspect.getsource(module).encode())
    if spec.source == "entry":
        entry_id, script = spec.id.split("/", 1)
        h.update((paths.entries_dir() / entry_id / script).read_bytes())
    h.update(spec.id.encode())
    return h.hexdigest()[:16]


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard takes i/n, like 2/8; got {text!r}") from None
    if not 1 <= i <= n:
        raise ValueError(f"--shard {text}: i must be between 1 and n")
    return i, n


def output_path(versions: dict, shard: tuple[int, int] | None, folder: Path | None = None) -> Path:
    folder = folder or paths.observations_dir()
    name = f"corpus-torch-{versions.get('torch') or 'none'}"
    if shard:
        name += f".shard-{shard[0]}-of-{shard[1]}"
    return folder / f"{name}.jsonl"


def plan(sources: list[str], exporters: list[str], models: list[str] | None, shard: tuple[int, int] | None,
         versions: dict, done: set[str], limit: int | None = None) -> list[ModelTask]:
    tasks = []
    specs: list[tuple[object, ModelSpec]] = []
    names: dict[int, str] = {}
    for name in sources:
        module = _source_module(name)
        names[id(module)] = name
        specs.extend((module, s) for s in module.list_models())
    specs.sort(key=lambda ms: (ms[1].source, ms[1].id))
    if models:
        specs = [ms for ms in specs if any(fnmatch.fnmatch(ms[1].id, p) or fnmatch.fnmatch(f"{ms[1].source}/{ms[1].id}", p)
                                           for p in models)]
    if shard:
        specs = [ms for i, ms in enumerate(specs) if i % shard[1] == shard[0] - 1]
    for module, spec in specs:
        case_hash = _definition_hash(module, spec)
        build_key = observation_key(spec.source, spec.id, "build", case_hash, versions)
        if build_key in done:
            continue
        keys = {e: observation_key(spec.source, spec.id, e, case_hash, versions) for e in exporters}
        todo = [e for e in _for_spec(spec, exporters) if keys[e] not in done]
        if todo:
            tasks.append(ModelTask(module, spec, case_hash, todo, build_key, keys, names[id(module)]))
    return tasks[:limit] if limit else tasks


def _for_spec(spec: ModelSpec, exporters: list[str]) -> list[str]:
    """The requested exporters that the model is for (ModelSpec.exporters)."""
    return [e for e in exporters if spec.exporters is None or e in spec.exporters]


def fixes_output_path(versions: dict, folder: Path | None = None) -> Path:
    """Fix retries live apart from the corpus run: they are not part of its pass rates."""
    return (folder or paths.observations_dir()) / "fixes" / f"corpus-torch-{versions.get('torch') or 'none'}.jsonl"


def fix_plan(sources: list[str], models: list[str] | None, shard: tuple[int, int] | None, versions: dict,
             done: set[str], limit: int | None = None) -> list[ModelTask]:
    """One task per corpus model that failed in a way an entry with an automatic fix explains.

    The failures come from kb.db, where the matcher classified every committed observation;
    only failures on the installed torch release and of the model's current definition count.
    """
    from kb.build import ensure_built
    import sqlite3

    db, _ = ensure_built()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "select source, model, exporter, matched_entry, case_hash from observations "
            "where outcome = 'fail' and source != 'entry' and matched_entry is not null and torch = ? "
            "order by source, model, exporter", [versions.get("torch")]).fetchall()
    finally:
        conn.close()
    wanted: dict[tuple[str, str], dict] = {}
    for source, model, exporter, entry, case_hash in rows:
        labels = [fixes.label(exporter, f.id) for f in fixes.fixes_for(entry, exporter)]
        if labels:
            item = wanted.setdefault((source, model), {"labels": [], "hash": case_hash})
            item["labels"].extend(lb for lb in labels if lb not in item["labels"])
    keys_sorted = sorted(wanted)
    if models:
        keys_sorted = [k for k in keys_sorted if any(fnmatch.fnmatch(k[1], p) or fnmatch.fnmatch(f"{k[0]}/{k[1]}", p)
                                                     for p in models)]
    if shard:
        keys_sorted = [k for i, k in enumerate(keys_sorted) if i % shard[1] == shard[0] - 1]
    specs: dict[tuple[str, str], tuple[object, ModelSpec]] = {}
    for name in sources:
        module = _source_module(name)
        specs.update({(sp.source, sp.id): (module, sp) for sp in module.list_models()})
    tasks = []
    for source, model in keys_sorted:
        if (source, model) not in specs:
            continue  # a source not selected, or a model it no longer lists
        module, spec = specs[(source, model)]
        case_hash = _definition_hash(module, spec)
        if case_hash != wanted[(source, model)]["hash"]:
            continue  # the model's definition changed since that failure was recorded
        keys = {lb: observation_key(source, model, lb, case_hash, versions) for lb in wanted[(source, model)]["labels"]}
        todo = [lb for lb in keys if keys[lb] not in done]
        if todo:
            build_key = observation_key(source, model, "build", case_hash, versions)
            tasks.append(ModelTask(module, spec, case_hash, todo, build_key, keys))
    return tasks[:limit] if limit else tasks


def run_attempt(case, label: str, emit: Callable[[dict], None]) -> None:
    """One attempt, in its own forked process: `label` is an exporter, or a fix retry of one.

    Streams a "stage" message as each stage starts and ends with an "attempt" message."""
    from . import exporters as ex

    ex.STAGE_LISTENER = lambda stage: emit({"type": "stage", "stage": stage})
    emit({"type": "stage", "stage": "capture"})
    # A fix retry ("export-strict~strict-false") changes the case in this process only,
    # so the next attempt starts from the model as built.
    failed, fix = fixes.parse_label(label)
    fixed_case = fix.transform(case) if fix and fix.transform else case
    run_as = fix.exporter_for(failed) if fix else label
    emit({"type": "attempt", **asdict(ex.attempt(run_as, fixed_case))})


def attempt_done(label: str, out) -> dict:
    """The message that reports one finished attempt process (its ChildOutcome) to the parent."""
    return {"type": "attempt-done", "exporter": label, "outcome": out.outcome, "signal": out.signal,
            "duration_s": out.duration_s, "peak_rss_mb": out.peak_rss_mb, "returncode": out.returncode,
            "messages": out.messages, "output": out.output[-6000:]}


def _model_worker(attempt_timeout: float, memory_mb: float):
    def work(task: ModelTask, emit: Callable[[dict], None]) -> None:
        case = task.module.build(task.spec.id)
        emit({"type": "built"})
        for exporter in task.exporters:
            out = run_forked(lambda emit2, exporter=exporter: run_attempt(case, exporter, emit2),
                             timeout_s=attempt_timeout, memory_mb=memory_mb)
            emit(attempt_done(exporter, out))
    return work


def _record(task: ModelTask, exporter: str, versions: dict, env: dict, **fields) -> dict:
    record = {"schema": SCHEMA, "key": task.keys.get(exporter, task.build_key), "run": "collect",
              "source": task.spec.source, "model": task.spec.id, "family": task.spec.family,
              "exporter": exporter, "versions": versions, **env, "case_hash": task.case_hash, **fields}
    failed, fix = fixes.parse_label(exporter)
    if fix:  # a fix retry: recorded under the exporter that failed, with the fix named
        record.update(exporter=failed, fix=fix.id, fix_entry=fix.entry, ran_as=fix.exporter_for(failed))
    return record


def attempt_record(task: ModelTask, done: dict, versions: dict, env: dict, repo: Path) -> dict:
    messages = done["messages"]
    result = next((m for m in messages if m.get("type") == "attempt"), None)
    stage = next((m["stage"] for m in reversed(messages) if m.get("type") == "stage"), "capture")
    common = {"duration_s": done["duration_s"], "peak_rss_mb": done["peak_rss_mb"],
              "returncode": done["returncode"], "signal": done["signal"]}
    if done["outcome"] == "ok" and result:
        tb = result["traceback"]
        return _record(task, done["exporter"], versions, env, stage=result["failed_stage"] or "numeric",
                       outcome=result["outcome"] if result["outcome"] != "ok" else "ok",
                       exc_type=result["exc_type"], message=result["message"],
                       traceback=trim(portable(tb, repo)) if tb else None, stages=result["stages"], **common)
    # The attempt's process hung, crashed, ran out of memory or died before reporting.
    outcome = done["outcome"] if done["outcome"] in ("timeout", "crash", "oom") else "crash"
    what = {"timeout": "timed out", "oom": "exceeded the memory limit", "crash": "crashed"}[outcome]
    message = f"the {done['exporter']} attempt {what} in stage {stage}" + (f" ({done['signal']})" if done["signal"] else "")
    output = trim(portable(done["output"], repo)) if done["output"].strip() else None
    return _record(task, done["exporter"], versions, env, stage=stage, outcome=outcome, exc_type=None,
                   message=message, traceback=output, stages=[], **common)


def tasks_for(items: list[tuple[str, str]], exporters: list[str], versions: dict) -> list[ModelTask]:
    """Tasks for exact (corpus source name, model id) pairs, keyed with `versions`: how a
    remote interpreter rebuilds the tasks a driver planned (collectors.remote)."""
    by_source: dict[str, tuple[object, dict[str, ModelSpec]]] = {}
    tasks = []
    for source, model_id in items:
        if source not in by_source:
            module = _source_module(source)
            by_source[source] = (module, {s.id: s for s in module.list_models()})
        module, specs = by_source[source]
        spec = specs.get(model_id)
        if spec is None:
            raise ValueError(f"{source} lists no model {model_id!r} here")
        case_hash = _definition_hash(module, spec)
        keys = {e: observation_key(spec.source, spec.id, e, case_hash, versions) for e in exporters}
        tasks.append(ModelTask(module, spec, case_hash, _for_spec(spec, exporters),
                               observation_key(spec.source, spec.id, "build", case_hash, versions), keys, source))
    return tasks


def build_failure_record(task: ModelTask, outcome, versions: dict, env: dict, repo: Path, build_timeout: float,
                         memory_mb: float) -> dict:
    """The one `build` observation of a model whose child never reported it was built."""
    error = next((m for m in outcome.messages if m.get("type") == "error"), None)
    if error:
        message = f"{error['exc_type']}: {error['message']}"
    else:
        message = {"timeout": f"building the model timed out after {build_timeout:.0f}s",
                   "oom": f"building the model exceeded {memory_mb:.0f} MB",
                   "crash": f"building the model crashed ({outcome.signal})"}.get(outcome.outcome, "building the model failed")
    record = _record(task, "build", versions, env, stage="build", outcome="build",
                     exc_type=error["exc_type"] if error else None, message=message,
                     traceback=trim(portable(outcome.output, repo)) if outcome.output.strip() else None,
                     stages=[], duration_s=outcome.duration_s, peak_rss_mb=outcome.peak_rss_mb,
                     returncode=outcome.returncode, signal=outcome.signal)
    record["key"] = task.build_key
    return record


def lost_attempts(task: ModelTask, outcome) -> list[str]:
    """The exporters a built model's child never reported: it ended before their attempts."""
    reported = {m.get("exporter") for m in outcome.messages if m.get("type") == "attempt-done"}
    return [e for e in task.exporters if e not in reported]


def why_lost(outcome) -> str:
    """Why a built model's child ended early, in the words of the run's summary."""
    error = next((m for m in outcome.messages if m.get("type") == "error"), None)
    if error:
        return f"{error.get('exc_type')}: {str(error.get('message'))[:120]}"
    if outcome.outcome == "timeout":
        return "the model's worker ran out of time"
    if outcome.outcome == "oom":
        return "the model's worker exceeded its memory limit"
    if outcome.signal:
        return f"the model's worker was killed by {outcome.signal}"
    return f"the model's worker exited with code {outcome.returncode}"


def run_tasks(tasks: list[ModelTask], versions: dict, env: dict, *, jobs: int, attempt_timeout: float,
              build_timeout: float, memory_mb: float, on_record: Callable[[ModelTask, dict, int], None],
              on_lost: Callable[[ModelTask, list[str], str], None] | None = None) -> None:
    """Run planned tasks in forked children, `jobs` models at a time.

    `on_record(task, record, settled)` gets every observation as it is made, with the
    number of planned attempts it settles (a model that did not build settles them all).
    `on_lost(task, exporters, why)` hears of a built model's attempts that never ran.
    The caller decides where records go: a file here, stdout in a remote interpreter."""
    repo = paths.root()

    def on_message(task: ModelTask, message: dict) -> None:
        if message.get("type") == "attempt-done":
            on_record(task, attempt_record(task, message, versions, env, repo), 1)

    def budget_after(messages: list[dict]) -> float:
        # Once built, the model's child gets a full attempt budget per remaining exporter.
        return attempt_timeout + 30 if any(m.get("type") == "built" for m in messages) else 0.0

    work = _model_worker(attempt_timeout, memory_mb)
    for task, outcome in imap_forked(tasks, work, jobs=jobs, on_message=on_message, timeout_s=build_timeout,
                                     memory_mb=memory_mb, budget_after=budget_after):
        if not any(m.get("type") == "built" for m in outcome.messages):
            on_record(task, build_failure_record(task, outcome, versions, env, repo, build_timeout, memory_mb),
                      len(task.exporters))
        elif on_lost and (lost := lost_attempts(task, outcome)):
            on_lost(task, lost, why_lost(outcome))


def known_keys(out: Path) -> set[str]:
    """Keys already recorded: in the observations folder of `out`, and in `out` itself."""
    return {r["key"] for r in read_observations(out.parent).records} | existing_keys(out)


def collect(sources: list[str], exporters: list[str], *, models: list[str] | None = None, jobs: int = 2,
            shard: tuple[int, int] | None = None, attempt_timeout: float = 600.0, build_timeout: float = 300.0,
            memory_mb: float = 8000.0, out: Path | None = None, limit: int | None = None,
            apply_fixes: bool = False,
            progress: Callable[[int, int, Tally, str], None] | None = None) -> tuple[Path, Tally, int]:
    """Run the corpus; with `apply_fixes`, retry its explained failures with the entries' automatic fixes."""
    check_exporters(exporters)
    versions, env = library_versions(), environment()
    if apply_fixes:
        out = out or fixes_output_path(versions)
        done = known_keys(out)
        tasks = fix_plan(sources, models, shard, versions, done, limit)
    else:
        out = out or output_path(versions, shard)
        done = known_keys(out)
        tasks = plan(sources, exporters, models, shard, versions, done, limit)
    total = sum(len(t.exporters) for t in tasks)
    # Fix retries may run any exporter; a plain run only the chosen ones.
    warm_up(tuple(EXPORTERS) if apply_fixes else tuple(exporters), tuple(sources))
    tally = Tally()

    def on_record(task: ModelTask, record: dict, settled: int) -> None:
        if record["key"] not in done:
            append_observation(out, record)
            done.add(record["key"])
        tally.add(record["outcome"])
        tally.attempts += settled - 1  # the other exporters of an unbuildable model are settled too
        if progress:
            what = record["exporter"] if record["outcome"] != "build" else "(build failed)"
            progress(tally.attempts, total, tally, f"{task.spec.source}/{task.spec.id} {what}")

    def on_lost(task: ModelTask, exporters: list[str], why: str) -> None:
        tally.add_lost(len(exporters), why)

    run_tasks(tasks, versions, env, jobs=jobs, attempt_timeout=attempt_timeout, build_timeout=build_timeout,
              memory_mb=memory_mb, on_record=on_record, on_lost=on_lost)
    return out, tally, total


def check_exporters(exporters: list[str]) -> None:
    unknown = [e for e in exporters if e not in EXPORTERS]
    if unknown:
        raise ValueError(f"unknown exporter(s) {unknown}; known: {', '.join(EXPORTERS)}")


def merge(folder: Path | None = None) -> list[tuple[Path, int]]:
    """Merge shard files (corpus-*.shard-i-of-n.jsonl) into their unsharded file, deduplicated."""
    folder = folder or paths.observations_dir()
    merged = []
    groups: dict[Path, list[Path]] = {}
    for shard in sorted(folder.glob("*.shard-*-of-*.jsonl")):
        target = folder / (shard.name.split(".shard-")[0] + ".jsonl")
        groups.setdefault(target, []).append(shard)
    for target, shards in groups.items():
        keys = existing_keys(target)
        added = 0
        for shard in shards:
            for raw in shard.read_bytes().splitlines():
                try:
                    record = json.loads(raw)
                except json.JSONDecodeError:
                    continue  # a torn line from a killed shard: that attempt is redone on resume
                if record.get("key") and record["key"] not in keys:
                    append_observation(target, record)
                    keys.add(record["key"])
                    added += 1
        for shard in shards:
            shard.unlink()
        merged.append((target, added))
    return merged
