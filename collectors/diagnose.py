"""`exportkb diagnose`: every exporter on one model of the user's, each failure explained.

The model comes from the user's own file (collectors.corpus.user_script) or from one of
the corpus builders (a transformers model type, a timm or a torchvision model). It is
built in a forked worker, never in the command's process, so a file that hangs or
crashes while it is imported costs that worker only. The worker then forks one process
per exporter, `jobs` at a time, each under the attempt's time and memory limits, exactly
as the corpus runs them (collect.run_attempt): the stages, the numeric check and the
error texts are the ones the knowledge base was built from.

Each failure goes through the one classification rule (kb.classify.classify). Where the
entry that explains it declares an automatic fix for that exporter (collectors.fixes),
the model is built again and the exporter retried with the fix, numeric check included;
the result says whether that exporter then passes.
"""
from __future__ import annotations

import re
import shlex
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from kb import paths
from kb.catalogue import EXPORTERS, ID_RE

from . import corpus, fixes
from .collect import ModelTask, attempt_done, attempt_record, run_attempt
from .corpus.base import ModelSpec
from .corpus.inputs import BuildError
from .corpus.user_script import UnusableScript
from .pool import imap_forked, warm_up
from .versions import environment, library_versions

# The builders a model can come from besides a file: option name -> corpus source.
BUILDERS = {"hf": "transformers", "timm": "timm", "torchvision": "torchvision"}
PASSING = ("ok", "skip")  # skip: export-dynamic on a model that declares no dynamic dims


@dataclass(frozen=True)
class Target:
    """The model to diagnose: a user's file (source "user") or a corpus builder's model."""
    source: str
    id: str

    @property
    def label(self) -> str:
        return Path(self.id).name if self.source == "user" else f"{self.source}/{self.id}"

    def module(self):
        if self.source == "user":
            from .corpus import user_script

            return user_script
        return corpus.source(self.source)


@dataclass
class FixTry:
    id: str
    summary: str
    entry: str
    outcome: str
    stage: str | None
    exc_type: str | None = None
    message: str | None = None
    then_entry: str | None = None  # the entry that explains the failure left after the fix, if any


@dataclass
class ExporterResult:
    exporter: str
    outcome: str  # ok | skip | fail | timeout | crash | oom
    stage: str | None  # where it failed (or "numeric" once every stage passed)
    duration_s: float
    peak_rss_mb: float
    exc_type: str | None = None
    message: str | None = None
    traceback: str | None = None
    entry: str | None = None
    entry_title: str | None = None
    entry_url: str | None = None
    match_score: float | None = None
    fix: FixTry | None = None
    new_entry: str | None = None  # an `exportkb new` command to start an entry, when none explains it

    @property
    def passed(self) -> bool:
        return self.outcome in PASSING or (self.fix is not None and self.fix.outcome == "ok")


@dataclass
class Diagnosis:
    target: Target
    exporters: list[str]
    versions: dict
    results: list[ExporterResult] = field(default_factory=list)
    unusable: str | None = None  # why the model could not be built; then there are no results
    unusable_details: str = ""
    wall_s: float = 0.0

    @property
    def exit_code(self) -> int:
        """0: every requested exporter passes (with or without a fix); 1: some do not; 2: unusable input."""
        if self.unusable is not None:
            return 2
        return 0 if all(r.passed for r in self.results) else 1

    def as_json(self) -> dict:
        return {"model": self.target.label, "source": self.target.source, "exporters": self.exporters,
                "versions": self.versions, "wall_s": self.wall_s, "exit_code": self.exit_code,
                "passed": self.exit_code == 0, "unusable": self.unusable, "unusable_details": self.unusable_details,
                "results": [{**asdict(r), "passed": r.passed} for r in self.results]}


def _worker(jobs: int, attempt_timeout: float, memory_mb: float):
    """The work of the model's process: build once, then one forked attempt per label."""
    def work(task: ModelTask, emit: Callable[[dict], None]) -> None:
        try:
            case = task.module.build(task.spec.id)
        except UnusableScript as exc:
            emit({"type": "unusable", "message": str(exc), "details": exc.details})
            return
        except BuildError as exc:
            emit({"type": "unusable", "message": str(exc), "details": ""})
            return
        except Exception as exc:  # a builder's own bug: show the whole traceback
            emit({"type": "unusable", "message": f"building the model raised {type(exc).__name__}: {exc}",
                  "details": traceback.format_exc()})
            return
        emit({"type": "built"})

        def forward(label, message):
            if message.get("type") == "stage":
                emit({"type": "stage", "exporter": label, "stage": message["stage"]})

        for label, out in imap_forked(list(task.exporters), lambda label, emit2: run_attempt(case, label, emit2),
                                      jobs=jobs, on_message=forward, timeout_s=attempt_timeout, memory_mb=memory_mb):
            emit(attempt_done(label, out))
    return work


def _run(target: Target, labels: list[str], *, jobs: int, attempt_timeout: float, build_timeout: float,
         memory_mb: float, versions: dict, env: dict,
         on_event: Callable[[str, str, dict], None]) -> tuple[list[dict], dict | None]:
    """Build the model in a worker and run each label; returns (attempt records, unusable message or None)."""
    spec = ModelSpec(target.source, target.id, target.source)
    task = ModelTask(target.module(), spec, case_hash="", exporters=labels, build_key="", keys={})
    records: list[dict] = []
    unusable: dict | None = None
    repo = paths.root()

    def on_message(_task, message: dict) -> None:
        nonlocal unusable
        kind = message.get("type")
        if kind == "unusable":
            unusable = message
        elif kind == "built":
            on_event("", "built", message)
        elif kind == "stage":
            on_event(message["exporter"], "stage", message)
        elif kind == "attempt-done":
            record = attempt_record(task, message, versions, env, repo)
            record["exporter_label"] = message["exporter"]
            records.append(record)
            on_event(message["exporter"], "done", record)

    def budget_after(messages: list[dict]) -> float:
        # Once built, each message from an attempt gives the worker another attempt's budget.
        return attempt_timeout + 30 if any(m.get("type") == "built" for m in messages) else 0.0

    work = _worker(jobs, attempt_timeout, memory_mb)
    for _task, outcome in imap_forked([task], work, jobs=1, on_message=on_message, timeout_s=build_timeout,
                                      memory_mb=memory_mb, budget_after=budget_after):
        built = any(m.get("type") == "built" for m in outcome.messages)
        if unusable is None and not built:
            what = {"timeout": f"building the model did not finish in {build_timeout:.0f} s",
                    "oom": f"building the model used more than {memory_mb:.0f} MB",
                    "crash": f"building the model crashed ({outcome.signal})"}
            error = next((m for m in outcome.messages if m.get("type") == "error"), None)
            message = (f"building the model raised {error['exc_type']}: {error['message']}" if error
                       else what.get(outcome.outcome, "building the model failed"))
            unusable = {"message": message, "details": outcome.output[-4000:]}
    return records, unusable


def _explain(record: dict, matcher, entries) -> ExporterResult:
    from kb.classify import classify

    outcome = record["outcome"]
    result = ExporterResult(
        exporter=record["exporter"], outcome=outcome,
        stage=record.get("stage") if outcome != "ok" else None,
        duration_s=record.get("duration_s") or 0.0, peak_rss_mb=record.get("peak_rss_mb") or 0.0,
        exc_type=record.get("exc_type"), message=record.get("message"), traceback=record.get("traceback"))
    if outcome == "fail":
        found = classify(record, matcher, entries)
        if found is not None and found.matched_entry:
            entry = next(e for e in entries if e.id == found.matched_entry)
            result.entry, result.entry_title = entry.id, entry.title
            result.entry_url, result.match_score = paths.entry_url(entry.id), found.match_score
    return result


def suggested_id(result: ExporterResult) -> str:
    """An id to start an entry from: the exporter and the first words of the error."""
    words = re.findall(r"[a-z]+", (result.message or result.exc_type or "failure").lower())
    words = [w for w in words if len(w) > 2 and w not in {"the", "and", "for", "with", "not", "this", "that"}][:4]
    candidate = "-".join([result.exporter, *words]) or result.exporter
    return candidate if ID_RE.fullmatch(candidate) else f"{result.exporter}-new-failure"


def new_entry_command(result: ExporterResult, target: Target) -> str:
    """The `exportkb new` command that scaffolds an entry for an unexplained failure, error prefilled."""
    first = next((ln.strip() for ln in (result.message or "").splitlines() if ln.strip()), "")
    error = f"{result.exc_type}: {first}" if result.exc_type else first
    parts = ["exportkb", "new", suggested_id(result), "--exporter", result.exporter]
    if result.stage:
        parts += ["--stage", result.stage]
    parts += ["--error", error[:300]]
    if target.source == "user":
        parts += ["--script", target.id]
    return shlex.join(parts)


def diagnose(target: Target, exporters: list[str], *, jobs: int = 2, attempt_timeout: float = 600.0,
             build_timeout: float = 300.0, memory_mb: float = 8000.0, apply_fixes: bool = True,
             on_event: Callable[[str, str, dict], None] | None = None) -> Diagnosis:
    """Run each exporter on the target, explain each failure and retry the explained ones with their fix."""
    unknown = [e for e in exporters if e not in EXPORTERS]
    if unknown:
        raise ValueError(f"unknown exporter(s) {', '.join(unknown)}; known: {', '.join(EXPORTERS)}")
    on_event = on_event or (lambda *_: None)
    start = time.monotonic()
    versions, env = library_versions(), environment()
    diagnosis = Diagnosis(target, list(exporters), versions)
    warm_up(tuple(exporters), (target.source,) if target.source in BUILDERS.values() else ())
    limits = {"jobs": jobs, "attempt_timeout": attempt_timeout, "build_timeout": build_timeout,
              "memory_mb": memory_mb, "versions": versions, "env": env}
    records, unusable = _run(target, list(exporters), on_event=on_event, **limits)
    if unusable is not None:
        diagnosis.unusable, diagnosis.unusable_details = unusable["message"], unusable.get("details", "")
        diagnosis.wall_s = round(time.monotonic() - start, 1)
        return diagnosis

    from kb.build import ensure_built, load_matcher
    from kb.catalogue import load_catalogue

    db, _ = ensure_built()
    matcher, entries = load_matcher(db), load_catalogue(paths.entries_dir())
    by_exporter = {r["exporter"]: _explain(r, matcher, entries) for r in records}
    results = [by_exporter[e] for e in exporters if e in by_exporter]

    retries = {}
    if apply_fixes:
        for r in results:
            if r.outcome == "fail" and r.entry:
                for fix in fixes.fixes_for(r.entry, r.exporter)[:1]:
                    retries[fixes.label(r.exporter, fix.id)] = (r, fix)
    if retries:
        on_event("", "fixes", {"labels": list(retries)})
        fix_records, unusable = _run(target, list(retries), on_event=on_event, **limits)
        for record in fix_records:
            r, fix = retries[record["exporter_label"]]
            ok = record["outcome"] == "ok"
            r.fix = FixTry(fix.id, fix.summary, fix.entry, record["outcome"], None if ok else record.get("stage"),
                           None if ok else record.get("exc_type"), None if ok else record.get("message"),
                           None if ok else _explain(record, matcher, entries).entry)
        for label, (r, fix) in retries.items():
            if r.fix is None:  # the rebuild itself failed: say so rather than drop the try
                r.fix = FixTry(fix.id, fix.summary, fix.entry, "build", "build", None,
                               (unusable or {}).get("message", "the model could not be built again"))
    for r in results:
        if r.outcome == "fail" and r.entry is None:
            r.new_entry = new_entry_command(r, target)
    diagnosis.results = results
    diagnosis.wall_s = round(time.monotonic() - start, 1)
    return diagnosis
