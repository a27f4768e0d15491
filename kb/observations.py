"""Observations: one JSON object per line, committed, append-only.

An observation is what happened when one case (an entry's script or a corpus model) met
one exporter on one set of library versions. Classification is not stored here: kb.db
recomputes it at build time, so a better matcher reclassifies all history.

Writers append whole lines with a single write to a file opened in append mode, then
fsync; a reader that finds a torn last line (a killed writer) reports it and skips it.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

SCHEMA = 1
# skip: the exporter does not apply (export-dynamic on a model without a batch dim).
# build: the model could not even be built; kept apart from export failures.
OUTCOMES = ("ok", "fail", "timeout", "crash", "oom", "build", "skip")
REQUIRED = ("key", "source", "model", "exporter", "stage", "outcome", "versions")
VERSIONED_LIBS = ("torch", "transformers", "onnx", "onnxscript", "onnxruntime", "executorch")
# Libraries recorded in `versions` (and so in the key) only for the runs of an entry whose
# scripts import them (Entry.libraries): recording them for every run would re-key every
# observation already made.
ENTRY_LIBS = ("torchao",)


RUNS = ("collect", "check", "sweep")


def run_of(record: dict) -> str:
    """Which command recorded this observation.

    `collect` (the corpus, on the installed torch) is what pass rates, unexplained
    signatures and the explained share are measured on; `check` and `sweep` runs prove
    entries, the latter on other torch releases. Older lines carry no `run` field:
    sweep records are flagged `sweep`, and only the collector records per-stage outcomes."""
    if record.get("run") in RUNS:
        return record["run"]
    if record.get("sweep"):
        return "sweep"
    return "collect" if "stages" in record else "check"


def observation_key(source: str, model: str, exporter: str, case_hash: str, versions: dict) -> str:
    """Identity of an attempt: the same case, exporter and versions is the same observation."""
    lib_versions = {k: versions.get(k) for k in sorted(versions)}
    payload = json.dumps([source, model, exporter, case_hash, lib_versions], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


@dataclass
class LoadReport:
    records: list[dict]
    problems: list[str]


def read_observations(folder: Path) -> LoadReport:
    """Every valid observation under `folder` (sorted by file), deduplicated by key."""
    records: list[dict] = []
    problems: list[str] = []
    seen: set[str] = set()
    folder = Path(folder)
    if not folder.is_dir():
        return LoadReport(records, problems)
    for path in sorted(folder.glob("*.jsonl")):
        with path.open("rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                where = f"{path.name}:{lineno}"
                try:
                    rec = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    problems.append(f"{where}: not a JSON line ({exc.__class__.__name__}); skipped")
                    continue
                if not isinstance(rec, dict):
                    problems.append(f"{where}: not a JSON object; skipped")
                    continue
                missing = [k for k in REQUIRED if k not in rec]
                if missing:
                    problems.append(f"{where}: missing {', '.join(missing)}; skipped")
                    continue
                if rec["outcome"] not in OUTCOMES:
                    problems.append(f"{where}: unknown outcome {rec['outcome']!r}; skipped")
                    continue
                if rec["key"] in seen:
                    continue
                seen.add(rec["key"])
                records.append(rec)
    return LoadReport(records, problems)


def existing_keys(path: Path) -> set[str]:
    path = Path(path)
    if not path.exists():
        return set()
    keys = set()
    with path.open("rb") as fh:
        for raw in fh:
            try:
                keys.add(json.loads(raw)["key"])
            except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
                continue
    return keys


def append_observation(path: Path, record: dict) -> None:
    """Append one record as one line, atomically with respect to readers and kills.

    The line is written with a single os.write on an O_APPEND descriptor, so a
    concurrent or later reader sees either the whole line or none of it.
    """
    line = (json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A previous writer killed mid-write can leave a torn last line; start on a new one.
    prefix = b""
    if path.exists() and path.stat().st_size:
        with path.open("rb") as fh:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                prefix = b"\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, prefix + line)
        os.fsync(fd)
    finally:
        os.close(fd)
