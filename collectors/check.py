"""`exportkb check`: verify that each entry's cases do what the entry claims.

For every entry:
* each failing script fails on the installed torch, one of the entry's own patterns
  matches the real error, and the matcher ranks the entry first for that error;
* the fixed script runs, exports and agrees with eager (it prints a line "ok: ...");
* an entry marked `reproduces = false` is reported as not reproducing, not as a pass;
* an entry marked `verified = false` needs what this machine lacks, so its scripts are
  not run: each error it quotes from a report must be named by one of its patterns and
  ranked first (or tied first) by the matcher, and it is reported as unverified.

Each run is a fork of a torch-loaded interpreter (collectors.zygote), isolated like a
process of its own (collectors.isolate). With `record=True`, each run is also
appended to the observations as data.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from kb import paths, version_status
from kb.build import ensure_built, load_matcher
from kb.catalogue import Entry, runnable_here
from kb.classify import best_match, entry_ref, primary_block
from kb.extract import extract
from kb.matcher import Matcher
from kb.observations import SCHEMA, append_observation, existing_keys, observation_key

from . import companions
from .isolate import ScriptRun
from .portable import portable, trim
from .versions import environment, library_versions
from .zygote import ZygotePool, preloads_for

_MISMATCH_MARKERS = ("Tensor-likes are not close", "Mismatched elements", "Not equal to tolerance",
                     "Arrays are not almost equal", "Scalars are not close")


@dataclass
class CaseResult:
    case: str
    kind: str  # failing | fixed
    run: ScriptRun
    error_text: str = ""  # the portable, trimmed stderr
    problem: str | None = None


@dataclass
class EntryCheck:
    entry: Entry
    status: str = "pass"  # pass | no-repro | unverified | error
    problems: list[str] = field(default_factory=list)
    cases: list[CaseResult] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.status = "error"
        self.problems.append(message)


def _last_line(text: str) -> str:
    blocks = extract(text)
    if not blocks:
        return "(no output)"
    first = blocks[-1].text.strip().split("\n", 1)[0]
    return first[:300]


def _check_failing(entry: Entry, result: CaseResult, matcher: Matcher, torch_version: str, report: EntryCheck) -> None:
    run, case = result.run, result.case
    if run.outcome in ("timeout", "crash", "oom"):
        report.fail(f"{case}: {run.outcome}" + (f" ({run.signal})" if run.signal else "") + f" after {run.duration_s:.0f}s")
        return
    if run.outcome == "ok":
        if entry.reproduces:
            report.fail(f"{case} does not fail on torch {torch_version}: it exited 0. "
                        "If the failure no longer reproduces, set `reproduces = false` and say so in the entry")
        else:
            report.status = "no-repro" if report.status == "pass" else report.status
        return
    if not entry.reproduces:
        report.fail(f"{case} fails on torch {torch_version} although the entry says `reproduces = false`: "
                    f"{_last_line(result.error_text)}")
        return
    problem = _error_problem(entry, result.error_text, matcher, the_error="the real error",
                             for_it=" for its real error")
    if problem:
        report.fail(f"{case}: {problem}")


def _error_problem(entry: Entry, text: str, matcher: Matcher, *, the_error: str, for_it: str) -> str | None:
    """Why `text` does not count as `entry`'s error, for a run and for a quote alike; None if it does.

    It counts when one of the entry's own patterns names it and the entry is what its
    recorded run is classified as (kb.classify's rule): the best match, or this entry when
    it ties with the best, since the text cannot choose between them (torch.cond and a
    compiled module both meet Dynamo's guard against tracing).
    """
    blocks = extract(text)
    if matcher.pattern_hits(entry.id, blocks, text) is None:
        return f"none of the entry's patterns matches {the_error}: {_last_line(text)}"
    best = best_match(blocks, matcher, own=entry.id, text=text)
    if best is None:
        return f"the matcher finds no entry{for_it}"
    if best.id != entry.id:
        return f"the matcher ranks '{best.id}' ({best.score:.2f}) above this entry{for_it}"
    return None


def _check_quotes(entry: Entry, matcher: Matcher, report: EntryCheck) -> None:
    """An unverified entry's quoted errors stand in for its runs, and are judged as a run would be."""
    report.status = "unverified"
    for n, quote in enumerate(entry.quotes, 1):
        problem = _error_problem(entry, quote.text, matcher, the_error="it", for_it=" for it")
        if problem:
            report.fail(f"observed error #{n} ({quote.source}): {problem}")


def _check_fixed(result: CaseResult, torch_version: str, report: EntryCheck) -> None:
    run = result.run
    if run.outcome == "ok":
        if not any(line.startswith("ok:") for line in run.stdout.splitlines()):
            report.fail(f"{result.case} exited 0 but printed no 'ok:' line: it must compare the export with eager and say so")
        return
    if any(m in result.error_text for m in _MISMATCH_MARKERS):
        report.fail(f"{result.case} disagrees with eager on torch {torch_version}: {_last_line(result.error_text)}")
    elif run.outcome == "fail":
        report.fail(f"{result.case} still fails on torch {torch_version}: {_last_line(result.error_text)}")
    else:
        report.fail(f"{result.case}: {run.outcome}" + (f" ({run.signal})" if run.signal else ""))


def case_key(entry: Entry, case: str, versions: dict) -> str:
    """The identity of a run of one of the entry's scripts under these library versions."""
    return observation_key("entry", f"{entry.id}/{case}", entry.exporter_for(case),
                           version_status.case_hash(entry, case), versions)


def case_observation(entry: Entry, result: CaseResult, versions: dict, env: dict,
                     matcher: Matcher | None = None) -> dict:
    """One script run as an observation. `versions` are those of the interpreter that ran it."""
    matcher = matcher or Matcher([entry_ref(entry)])
    case_hash = version_status.case_hash(entry, result.case)
    model = f"{entry.id}/{result.case}"
    exporter = entry.exporter_for(result.case)
    blocks = extract(result.error_text) if result.run.outcome != "ok" else []
    main = primary_block(blocks, matcher, entry.id, result.error_text) if blocks else None
    return {
        "schema": SCHEMA,
        "key": case_key(entry, result.case, versions),
        "run": "check", "source": "entry", "model": model, "entry": entry.id, "case": result.case,
        "exporter": exporter, "stage": entry.stage, "outcome": result.run.outcome,
        "exc_type": main.type if main else None,
        "message": main.message if main else None,
        "traceback": result.error_text or None,
        "returncode": result.run.returncode, "signal": result.run.signal,
        "duration_s": result.run.duration_s, "peak_rss_mb": result.run.peak_rss_mb,
        "versions": versions, **env, "case_hash": case_hash,
    }


def check_entries(entries: list[Entry], *, jobs: int = 2, record: bool = False,
                  timeout_s: float = 300.0, progress=None) -> list[EntryCheck]:
    """Run every case of `entries` and judge them. `progress(n_done, n_total, label)` is optional."""
    versions = library_versions()
    env = environment()
    torch_version = versions.get("torch") or "(torch not installed)"
    # The whole catalogue competes in ranking, even when only some entries are checked,
    # with the error texts its scripts were seen to raise: the matcher kb.db holds.
    db, _ = ensure_built()
    matcher = load_matcher(db)

    runnable = runnable_here(entries)
    # Companions install before anything runs; an entry whose pins do not install is
    # reported as such, and its scripts are not run.
    import_paths, not_installed = companions.prepare(runnable)
    runnable = [e for e in runnable if e.id not in not_installed]
    jobs_list = ([(e, c, "failing") for e in runnable for c in e.failing_cases]
                 + [(e, e.fixed_case, "fixed") for e in runnable])
    results: dict[tuple[str, str], CaseResult] = {}
    repo = paths.root()

    # Each script runs in a fork of an interpreter that has already imported torch
    # (collectors.zygote): the same isolation and traceback as `python script.py`,
    # without importing torch three hundred times. Scripts that want the same slow imports
    # done in advance run one after another, so each zygote serves a run of them.
    jobs_list.sort(key=lambda job: preloads_for(job[0].folder / job[1]))
    with ZygotePool(jobs) as zygotes:
        def run(job):
            entry, case, kind = job
            r = zygotes.run(entry.folder / case, timeout_s=timeout_s,
                            import_first=import_paths.get((entry.id, case), ()))
            return job, CaseResult(case, kind, r, trim(portable(r.stderr, repo)) if r.stderr else "")

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for n, (job, res) in enumerate(pool.map(run, jobs_list), 1):
                results[(job[0].id, job[1])] = res
                if progress:
                    progress(n, len(jobs_list), f"{job[0].id}/{job[1]}")

    reports = []
    obs_path = paths.observations_dir() / "entries.jsonl"
    known = existing_keys(obs_path) if record else set()
    for entry in entries:
        report = EntryCheck(entry)
        if not entry.verified:
            _check_quotes(entry, matcher, report)
            reports.append(report)
            continue
        if entry.id in not_installed:
            report.fail(f"its companions did not install, so its scripts were not run: {not_installed[entry.id]}")
            reports.append(report)
            continue
        for case in (*entry.failing_cases, entry.fixed_case):
            res = results[(entry.id, case)]
            report.cases.append(res)
            if res.kind == "failing":
                _check_failing(entry, res, matcher, torch_version, report)
            else:
                _check_fixed(res, torch_version, report)
            if record:
                mine = library_versions(entry.libraries) if entry.libraries else versions
                mine = {**mine, **companions.versions_of(entry.companions.get(case, ()))}
                obs = case_observation(entry, res, mine, env, matcher)
                if obs["key"] not in known:
                    append_observation(obs_path, obs)
                    known.add(obs["key"])
        reports.append(report)
    return reports

