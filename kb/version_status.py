"""Per-entry status on each torch release, derived from the entries' own script runs.

The runs come from `exportkb check --record` (the pinned release) and `exportkb sweep`
(other releases). Only runs of the scripts as they are now count: an observation whose
case hash differs from the current code recorded a script that no longer exists.

For one release, the failing scripts decide the status:
* reproduces: every failing script failed and one of the entry's patterns names the error;
* partly: some failing scripts reproduce and some do not;
* differs: no failing script reproduces, but some failed with another error: the error
  text is shown, and it is not learned by the matcher unless a pattern is widened to
  name it;
* unavailable: the failing scripts could not run at all on that release, because a
  package, a module or an API they use is missing there (`No module named 'executorch'`,
  `cannot import name ...`, `module 'torch._inductor' has no attribute ...`): it says
  nothing about the failure, so a later release that reproduces it did not start it;
* no-repro: every failing script ran cleanly;
* error: the scripts only timed out or crashed.

Across releases: `fixed_in` is the first release after the last one that reproduces,
provided it and every later release no longer reproduce. An entry that reproduces on no
release at all is `retired`, like a retired error code: kept for the text in old logs.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from .catalogue import Entry
from .classify import Classification

REPRODUCING = ("reproduces", "partly")
# An import or attribute error that names a missing module, name or module attribute: the
# release lacks what the script needs (an older API, a companion not installed there).
_MISSING = re.compile(r"(?:No module named |cannot import name |module '[\w.]+' has no attribute )")
_MISSING_TYPES = ("ModuleNotFoundError", "ImportError", "AttributeError")


def needs_missing_api(rec: dict) -> bool:
    """Did this run fail because its release lacks a module, package or API the script uses?"""
    exc = (rec.get("exc_type") or "").rsplit(".", 1)[-1]
    return exc in _MISSING_TYPES and bool(_MISSING.match(rec.get("message") or ""))


def code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()[:16]


def case_hash(entry: Entry, case: str) -> str:
    """Must agree with collectors.check.case_observation, which stamps each run with it."""
    return code_hash(entry.code(case))


def current_case_hashes(entries: list[Entry]) -> dict[tuple[str, str], str]:
    """(entry id, case) -> hash of that script as it is now. A record whose case_hash differs
    ran an older version of the script (edited or renamed since) and no longer counts."""
    return {(e.id, c): case_hash(e, c) for e in entries for c in (*e.failing_cases, e.fixed_case)}


def release_of(torch_version: str | None) -> str | None:
    """'2.4.1+cu121' and '2.4.1' are the same release for this purpose."""
    return torch_version.split("+")[0] if torch_version else None


def release_key(version: str) -> tuple:
    parts = []
    for piece in version.split("+")[0].split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


@dataclass
class ReleaseStatus:
    torch: str
    failing_run: int = 0
    failing_reproduced: int = 0
    failing_failed: int = 0
    fixed_run: int = 0
    fixed_ok: int = 0
    failing_clean: int = 0
    failing_unavailable: int = 0  # failed because the release lacks a module or API the script uses
    error_text: str = ""  # the first failing script's primary error on this release

    @property
    def status(self) -> str:
        if self.failing_reproduced:
            return "reproduces" if self.failing_reproduced == self.failing_run else "partly"
        if self.failing_failed:
            return "unavailable" if self.failing_unavailable == self.failing_failed else "differs"
        if self.failing_run and self.failing_run == self.failing_clean:
            return "no-repro"
        return "error"

    @property
    def fix(self) -> str:
        if not self.fixed_run:
            return "not-run"
        return "works" if self.fixed_ok == self.fixed_run else "fails"


@dataclass
class EntryVersions:
    entry: str
    releases: list[ReleaseStatus] = field(default_factory=list)  # oldest first

    @property
    def reproduces_on(self) -> list[str]:
        return [r.torch for r in self.releases if r.status in REPRODUCING]

    @property
    def fixed_in(self) -> str | None:
        last = max((i for i, r in enumerate(self.releases) if r.status in REPRODUCING), default=None)
        if last is None or last == len(self.releases) - 1:
            return None
        later = self.releases[last + 1:]
        return later[0].torch if all(r.status == "no-repro" for r in later) else None

    @property
    def retired(self) -> bool:
        """No release reproduces the entry, and at least one ran the failing scripts cleanly.

        Releases that only timed out, crashed or failed differently say nothing either way."""
        return not self.reproduces_on and any(r.status == "no-repro" for r in self.releases)

    def summary(self) -> str:
        if not self.releases:
            return "no runs recorded"
        if not self.reproduces_on:
            return "reproduces on none of " + ", ".join(r.torch for r in self.releases)
        text = "reproduces on " + ", ".join(self.reproduces_on)
        if self.fixed_in:
            text += f"; fixed in {self.fixed_in}"
        return text


def companions(versions: dict | None) -> int:
    """How many of a venv's companion libraries were installed (a record's `versions`)."""
    return sum(v is not None for v in (versions or {}).values())


def _one_run_per_script(observations: list[dict], by_entry: dict[str, Entry],
                        current: dict[tuple[str, str], str]) -> list[dict]:
    """The run that counts for each (entry, script, release): of the runs of the script as it
    is now, the one whose venv had the most companions installed. A release swept again
    once a companion could be installed there (executorch for an older torch) is then
    judged by the run that had it, not by both; between equals the key order decides."""
    best: dict[tuple[str, str, str], dict] = {}
    for rec in sorted(observations, key=lambda r: r["key"]):
        eid, case = rec.get("entry"), rec.get("case")
        if rec.get("source") != "entry" or eid not in by_entry or current.get((eid, case)) != rec.get("case_hash"):
            continue
        release = release_of((rec.get("versions") or {}).get("torch"))
        if not release:
            continue
        slot = (eid, case, release)
        if slot not in best or companions(rec.get("versions")) > companions(best[slot].get("versions")):
            best[slot] = rec
    return sorted(best.values(), key=lambda r: r["key"])


def compute(entries: list[Entry], observations: list[dict],
            classes: dict[str, Classification | None]) -> dict[str, EntryVersions]:
    """`classes` holds each observation's classification (kb.classify), by key."""
    current = current_case_hashes(entries)
    by_entry = {e.id: e for e in entries}
    tallies: dict[str, dict[str, ReleaseStatus]] = {e.id: {} for e in entries}
    first_case = {e.id: e.failing_cases[0] if e.failing_cases else None for e in entries}
    for rec in _one_run_per_script(observations, by_entry, current):
        eid, case = rec["entry"], rec["case"]
        release = release_of(rec["versions"]["torch"])
        tally = tallies[eid].setdefault(release, ReleaseStatus(release))
        outcome = rec.get("outcome")
        if case == by_entry[eid].fixed_case:
            tally.fixed_run += 1
            tally.fixed_ok += outcome == "ok"
            continue
        tally.failing_run += 1
        if outcome == "ok":
            tally.failing_clean += 1
            continue
        if outcome != "fail":
            continue
        tally.failing_failed += 1
        tally.failing_unavailable += needs_missing_api(rec)
        found = classes.get(rec["key"])
        if found is None:
            continue
        tally.failing_reproduced += bool(found.reproduces)
        if found.error_text and (case == first_case[eid] or not tally.error_text):
            tally.error_text = found.error_text
    return {
        eid: EntryVersions(eid, sorted(per.values(), key=lambda r: release_key(r.torch)))
        for eid, per in tallies.items()
    }
