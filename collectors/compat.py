"""`exportkb compat`: artifacts written on one torch release, loaded and run on others.

An export succeeds, and then the artifact is loaded somewhere else: an older torch in
production, libtorch, onnxruntime. Whether that works is policy stated in prose, per
format; this measures it. For each release (a sweep venv, collectors.sweep.create_venv,
or the project's own interpreter for the pinned release):

1. write: every case's artifact for each exporter that writes one (collectors.compat_worker),
   with the case's inputs and eager outputs beside it, under build/compat/<torch>/;
2. load: every artifact written so far, on this release, in a fresh forked process;
   run it on the saved inputs and compare with the eager outputs of the writing release.

A release's own artifacts are loaded on it too: the diagonal is the baseline. Artifacts
written by a release visited later are loaded on a second pass, so each cell of
(exporter, written on, loaded on) is filled. Every result is one observation, appended
to observations/compat/ by this process only, keyed by case, exporter and both sides'
versions: a killed run resumes where it stopped, and nothing is recorded twice.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kb import paths, version_status
from kb.catalogue import Entry, runnable_here
from kb.observations import SCHEMA, append_observation, existing_keys, observation_key

from . import sweep
from .compat_worker import NUMPY_EXPECTED
from .isolate import child_env, interpreter_env
from .portable import trim
from .versions import library_versions

WORKER = Path(__file__).with_name("compat_worker.py")
EXPORTERS = ("export", "jit-script", "jit-trace", "onnx-legacy", "onnx", "aoti", "executorch")


def compat_dir() -> Path:
    return paths.observations_dir() / "compat"


def artifacts_dir(torch_version: str) -> Path:
    return paths.root() / "build" / "compat" / torch_version


def written_path(torch_version: str) -> Path:
    return compat_dir() / f"written-on-{torch_version}.jsonl"


def loaded_path(torch_version: str) -> Path:
    return compat_dir() / f"loaded-on-{torch_version}.jsonl"


@dataclass
class Case:
    id: str  # entry-id/script, or source:model for a corpus model
    entry: str | None  # the entry whose fixed script it is; None for a corpus model
    path: Path  # a script that defines model, example_args and optionally example_kwargs
    case_hash: str
    source: str = "entry"  # "entry" or "corpus"


# The corpus slice: real models built from their configs on each release, by the corpus's
# own builders (collectors/corpus). Chosen once, by a rule fixed before any compat run:
# the transformers model types that exported with torch.export, jit.trace and both ONNX
# exporters on the pinned release's corpus run and that exist in the oldest release's
# transformers (4.44.2, next to torch 2.4.1), spread over the auto classes in proportion
# to their share and evenly by name within each; and every other ExportDB example, by
# name, of those that passed the same four. timm and torchvision are left out: the
# release venvs do not have them.
CORPUS_SLICE = {
    "transformers": (
        "albert", "big_bird", "canine", "data2vec-text", "deberta-v2", "electra", "flaubert", "layoutlm", "luke",
        "megatron-bert", "mpnet", "nystromformer", "roberta", "roformer", "xlm", "beit", "convnextv2",
        "data2vec-vision", "donut-swin", "focalnet", "mobilenet_v1", "mobilevit", "pvt", "regnet", "swiftformer",
        "vit", "bros", "clip_vision_model", "mgp-str", "splinter", "visual_bert", "data2vec-audio", "sew",
        "unispeech-sat", "detr", "timesformer", "audio-spectrogram-transformer", "glpn", "sam", "maskformer",
    ),
    "exportdb": (
        "assume_constant_result", "constrain_as_size_example", "decorator", "dynamic_shape_assert",
        "dynamic_shape_if_guard", "dynamic_shape_view", "list_unpack", "nested_function", "specialized_attribute",
        "static_if",
    ),
}


def entry_cases(entries: list[Entry]) -> list[Case]:
    """Every entry's fixed script: a model that exports, whose artifact can travel (not those
    of unverified entries, which need what this machine lacks)."""
    return [Case(f"{e.id}/{e.fixed_case}", e.id, e.folder / e.fixed_case, version_status.case_hash(e, e.fixed_case))
            for e in runnable_here(entries)]


_CORPUS_CASE = '''"""exportkb compat: the corpus model {source}:{name}, built on this release by the
corpus's own builder (collectors/corpus), from its config, without weights."""
import sys

sys.path.insert(0, {root!r})
from collectors.corpus import source

_case = source({source!r}).build({name!r})
model = _case.model
example_args = tuple(_case.args)
example_kwargs = dict(_case.kwargs or {{}})
'''


def corpus_cases(models: dict[str, tuple[str, ...]] | None = None) -> list[Case]:
    """A script per corpus model (build/compat/cases/), for the worker to import like an
    entry's. The case changes when its builder's code does: the hash covers the builder
    modules and the script."""
    from .corpus import SOURCE_MODULES

    folder = paths.root() / "build" / "compat" / "cases"
    folder.mkdir(parents=True, exist_ok=True)
    root = Path(__file__).resolve().parent.parent
    shared = "".join((root / "collectors" / "corpus" / f).read_text(encoding="utf-8")
                     for f in ("__init__.py", "base.py", "inputs.py", "torchvision_compat.py"))
    out = []
    for src, names in (models or CORPUS_SLICE).items():
        builder = (root / (SOURCE_MODULES[src].replace(".", "/") + ".py")).read_text(encoding="utf-8")
        for name in names:
            script = _CORPUS_CASE.format(source=src, name=name, root=str(root))
            path = folder / f"{src}__{name}.py"
            if not path.exists() or path.read_text(encoding="utf-8") != script:
                path.write_text(script, encoding="utf-8")
            digest = hashlib.sha256((shared + builder + script.replace(str(root), "<root>")).encode()).hexdigest()[:16]
            out.append(Case(f"{src}:{name}", None, path, digest, source="corpus"))
    return out


@dataclass
class ReleaseRun:
    torch: str
    name: str = ""  # how the report names the side: "torch <torch>" unless set
    written: int = 0
    loaded: int = 0
    install_s: float = 0.0
    write_s: float = 0.0
    load_s: float = 0.0
    error: str | None = None
    missing: str | None = None  # a companion the release could not have (executorch), with pip's reason
    outcomes: dict[str, int] = field(default_factory=dict)


def _run_worker(python: Path, command: str, spec: dict, extra: list[str], timeout_s: float) -> list[dict]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(spec, fh)
    try:
        proc = subprocess.run([str(python), str(WORKER), command, fh.name, *extra], capture_output=True, text=True,
                              timeout=timeout_s, env=interpreter_env(python))
    finally:
        Path(fh.name).unlink(missing_ok=True)
    rows = []
    for line in proc.stdout.splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut by a crash of the worker itself: that work is redone next time
    return rows


def _portable(text: str | None, venv: Path) -> str | None:
    # The venv's own paths first: portable() alone would name them after the repository.
    return trim(sweep.portable_for(venv, text)) if text else None


def _write_record(case: Case, row: dict, versions: dict, torch_version: str, venv: Path) -> dict:
    return {"schema": SCHEMA, "run": "compat", "phase": "write", "source": case.source, "model": case.id,
            "entry": case.entry, "exporter": row["exporter"], "case_hash": case.case_hash,
            "key": _write_key(case, row["exporter"], versions),
            "written_on": torch_version, "versions": versions, "outcome": row["outcome"], "stage": row.get("stage"),
            "exc_type": row.get("exc_type"), "message": _portable(row.get("message"), venv),
            "traceback": _portable(_printed(row), venv),
            "duration_s": row.get("duration_s")}


def _ran_record(phase: str, key: str, written: dict, row: dict, venv: Path, side: dict) -> dict:
    """One observation of an artifact (the `written` record) loaded and run; `side` says by what."""
    return {"schema": SCHEMA, "run": "compat", "phase": phase, "key": key, "source": written.get("source", "entry"),
            "model": written["model"], "entry": written["entry"], "exporter": written["exporter"],
            "case_hash": written["case_hash"], "written_on": written["written_on"],
            "writer_versions": written["versions"], **side,
            "outcome": row["outcome"], "stage": row.get("stage"), "exc_type": row.get("exc_type"),
            "message": _portable(row.get("message"), venv), "traceback": _portable(_printed(row), venv),
            "duration_s": row.get("duration_s")}


def _keep(report: ReleaseRun, verb: str, path: Path, known: set[str], record: dict) -> None:
    """Append one load's observation (this process is the only writer) and count it."""
    report.outcomes[f"{verb} {record['outcome']}"] = report.outcomes.get(f"{verb} {record['outcome']}", 0) + 1
    append_observation(path, record)
    known.add(record["key"])
    report.loaded += 1


def _printed(row: dict) -> str | None:
    """What a user's terminal shows for a failure: what the process printed, then the traceback."""
    return "\n".join(t.rstrip("\n") for t in (row.get("stderr"), row.get("traceback")) if t) or None


def _write_key(case: Case, exporter: str, versions: dict) -> str:
    return observation_key(case.source, case.id, f"write:{exporter}", case.case_hash, versions)


def _load_key(source: str, case_id: str, exporter: str, case_hash: str, writer: dict, loader: dict) -> str:
    return observation_key(source, case_id, f"load:{exporter}", case_hash,
                           {**{f"written:{k}": v for k, v in writer.items()}, **loader})


def _written_ok(releases: list[str]) -> list[dict]:
    """Every artifact written without error on these releases, whose files are still on disk.

    An artifact written again (the release's venv made anew) replaced the files of the
    earlier write, so only the last record of each (case, exporter) describes them."""
    out = []
    for r in releases:
        path = written_path(r)
        if not path.exists():
            continue
        last: dict[tuple[str, str], dict] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            last[(rec["model"], rec["exporter"])] = rec
        for rec in last.values():
            folder = artifacts_dir(r) / rec["model"].replace("/", "__") / rec["exporter"]
            if rec["outcome"] == "ok" and folder.is_dir():
                out.append({**rec, "artifact": str(folder)})
    return out


# The libraries under the dynamo ONNX exporter, at the versions of the release's own time
# (sweep.CORPUS_LIBS): left to pip, a venv for an older torch gets today's onnx-ir and
# protobuf, and its ONNX writes then fail on that drift, not on the exporter (2.9.1 with
# today's onnx-ir: every write stopped in onnxscript's version converter; 2.6.0 with
# protobuf 7: SerdeError). Recorded in `versions`, so a venv made with them is a new run.
TIME_LIBS = ("onnx-ir", "protobuf")


def _time_libs(torch_version: str) -> dict[str, str]:
    return {lib: pin for lib, pin in sorted(sweep.CORPUS_LIBS.get(torch_version, {}).items()) if lib in TIME_LIBS}


def _pin_time_libs(python: Path, torch_version: str) -> None:
    pins = [f"{lib}=={pin}" for lib, pin in _time_libs(torch_version).items()]
    if pins:
        sweep.run_pip(python, ["install", "--only-binary", ":all:", *pins], sweep.pip_log(torch_version))


def run_release(cases: list[Case], torch_version: str, all_releases: list[str], *, exporters: list[str],
                timeout_s: float = 300.0, write: bool = True, keep_venv: bool = False,
                progress: Callable[[str], None] | None = None) -> ReleaseRun:
    """Write this release's artifacts (unless `write` is off), then load every artifact not yet loaded here."""
    report = ReleaseRun(torch_version)
    say = progress or (lambda _msg: None)
    pinned = version_status.release_of(library_versions()["torch"]) == torch_version
    folder = sweep.sweep_dir() / f"torch-{torch_version}"
    try:
        start = time.monotonic()
        if pinned:
            python, versions = Path(sys.executable), library_versions()
        else:
            python = folder / "venv" / "bin" / "python"
            if not python.exists():
                say(f"torch {torch_version}: installing")
                python = sweep.create_venv(torch_version, folder)
                _pin_time_libs(python, torch_version)
            time_libs = _time_libs(torch_version)
            versions = sweep.probe_versions(python)["versions"] | time_libs
            if "executorch" in exporters and versions.get("executorch") is None:
                # Only when asked: another companion in the venv changes every record's key.
                say(f"torch {torch_version}: installing executorch")
                report.missing = sweep.add_executorch(python, torch_version)
                versions = sweep.probe_versions(python)["versions"] | time_libs
        report.install_s = round(time.monotonic() - start, 1)
        if write:
            start = time.monotonic()
            known = existing_keys(written_path(torch_version))
            out_dir = artifacts_dir(torch_version)
            todo = []
            for case in cases:
                keys = [_write_key(case, e, versions) for e in exporters]
                on_disk = all((out_dir / case.id.replace("/", "__") / e).is_dir() for e in exporters)
                if not (all(k in known for k in keys) and on_disk):
                    todo.append(case)
            for i, case in enumerate(todo, 1):
                say(f"torch {torch_version}: writing {case.id} ({i}/{len(todo)})")
                spec = {"exporters": exporters, "timeout_s": timeout_s,
                        "cases": [{"id": case.id, "path": str(case.path)}]}
                for row in _run_worker(python, "write", spec, [str(out_dir)], timeout_s * (len(exporters) + 1) + 60):
                    record = _write_record(case, row, versions, versions["torch"], folder / "venv")
                    report.outcomes[f"write {record['outcome']}"] = report.outcomes.get(f"write {record['outcome']}", 0) + 1
                    if record["key"] not in known:
                        append_observation(written_path(torch_version), record)
                        known.add(record["key"])
                        report.written += 1
            report.write_s = round(time.monotonic() - start, 1)
        start = time.monotonic()
        known = existing_keys(loaded_path(torch_version))
        wanted = []
        for rec in _written_ok(all_releases):
            key = _load_key(rec["source"], rec["model"], rec["exporter"], rec["case_hash"], rec["versions"], versions)
            if key not in known and rec["exporter"] in exporters:
                wanted.append((key, rec))
        batch = 40
        for i in range(0, len(wanted), batch):
            chunk = wanted[i:i + batch]
            say(f"torch {torch_version}: loading artifacts {i + 1}-{i + len(chunk)} of {len(wanted)}")
            spec = {"timeout_s": timeout_s,
                    "artifacts": [{"key": k, "exporter": r["exporter"], "artifact": r["artifact"]} for k, r in chunk]}
            rows = {row["key"]: row for row in _run_worker(python, "load", spec, [], timeout_s * len(chunk) + 60)}
            for key, rec in chunk:
                row = rows.get(key)
                if row is None:  # the worker died before answering: recorded next time
                    continue
                _keep(report, "load", loaded_path(torch_version), known,
                      _ran_record("load", key, rec, row, folder / "venv",
                                  {"loaded_on": versions["torch"], "versions": versions}))
        report.load_s = round(time.monotonic() - start, 1)
    except (sweep.SweepError, subprocess.SubprocessError, OSError) as exc:
        report.error = str(exc)
    finally:
        if not pinned and not keep_venv and folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
    return report


# -- ONNX files on onnxruntime releases of their own ------------------------------------
# In production an ONNX file is usually run by an onnxruntime installed without torch,
# often older or newer than the one beside the exporting torch. Each such runtime gets a
# small venv (onnxruntime and numpy only); every ONNX artifact written on any release is
# run there on its case's inputs, saved as .npz by the project's own torch.
ONNX_EXPORTERS = ("onnx-legacy", "onnx")


def runtime_path(version: str) -> Path:
    return compat_dir() / f"onnxruntime-{version}.jsonl"


def runtime_requirements(version: str) -> list[str]:
    # onnxruntime wheels before 1.19 were built against numpy 1.x and do not import under
    # numpy 2, though their metadata allows it: a runtime of that age runs with numpy 1.
    old = tuple(int(p) for p in version.split(".")[:2] if p.isdigit()) < (1, 19)
    return [f"onnxruntime=={version}", *(["numpy<2"] if old else [])]


def written_releases() -> list[str]:
    """The releases that have written artifacts, oldest first."""
    names = [p.name.removeprefix("written-on-").removesuffix(".jsonl") for p in compat_dir().glob("written-on-*.jsonl")]
    return sorted(names, key=version_status.release_key)


def _runtime_venv(version: str, folder: Path) -> Path:
    log = sweep.sweep_dir() / f"onnxruntime-{version}.pip.log"
    python = sweep.make_venv(folder, runtime_requirements(version), log)
    log.unlink(missing_ok=True)
    return python


def _runtime_versions(python: Path) -> dict:
    code = ("import json, numpy, onnxruntime; "
            "print(json.dumps({'onnxruntime': onnxruntime.__version__, 'numpy': numpy.__version__}))")
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120)
    if out.returncode:
        raise sweep.SweepError(f"onnxruntime does not import in its venv: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)


def _ensure_numpy(case_dirs: list[Path], timeout_s: float) -> dict[Path, dict]:
    """Save .npz copies of the inputs and outputs where missing; the failures, by case folder."""
    todo = [d for d in dict.fromkeys(case_dirs) if not (d / NUMPY_EXPECTED).exists()]
    failed: dict[Path, dict] = {}
    for i in range(0, len(todo), 40):
        chunk = todo[i:i + 40]
        proc = subprocess.run([sys.executable, str(WORKER), "numpy", *map(str, chunk)], capture_output=True,
                              text=True, timeout=timeout_s * len(chunk) + 60, env=child_env())
        for line in proc.stdout.splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if row.get("outcome") != "ok":
                failed[Path(row["case_dir"])] = row
    return failed


def _runtime_key(rec: dict, runtime: dict) -> str:
    return observation_key(rec["source"], rec["model"], f"runtime:{rec['exporter']}", rec["case_hash"],
                           {**{f"written:{k}": v for k, v in rec["versions"].items()}, **runtime})


def run_runtime(version: str, *, exporters: list[str], timeout_s: float = 300.0, keep_venv: bool = False,
                progress: Callable[[str], None] | None = None) -> ReleaseRun:
    """Run every ONNX artifact written so far on onnxruntime `version`, installed on its own."""
    report = ReleaseRun("", name=f"onnxruntime {version}")
    say = progress or (lambda _msg: None)
    folder = sweep.sweep_dir() / f"onnxruntime-{version}"
    try:
        start = time.monotonic()
        python = folder / "venv" / "bin" / "python"
        if not python.exists():
            say(f"onnxruntime {version}: installing")
            python = _runtime_venv(version, folder)
        runtime = _runtime_versions(python)
        report.install_s = round(time.monotonic() - start, 1)
        start = time.monotonic()
        known = existing_keys(runtime_path(version))
        wanted = [(_runtime_key(rec, runtime), rec) for rec in _written_ok(written_releases())
                  if rec["exporter"] in exporters and rec["exporter"] in ONNX_EXPORTERS]
        wanted = [(k, rec) for k, rec in wanted if k not in known]
        unconverted = _ensure_numpy([Path(rec["artifact"]).parent for _, rec in wanted], timeout_s)
        for i in range(0, len(wanted), 40):
            chunk = wanted[i:i + 40]
            say(f"onnxruntime {version}: running ONNX files {i + 1}-{i + len(chunk)} of {len(wanted)}")
            todo = [(k, r) for k, r in chunk if Path(r["artifact"]).parent not in unconverted]
            spec = {"timeout_s": timeout_s,
                    "artifacts": [{"key": k, "exporter": r["exporter"], "artifact": r["artifact"]} for k, r in todo]}
            rows = {row["key"]: row for row in _run_worker(python, "run-onnx", spec, [], timeout_s * len(todo) + 60)}
            for key, rec in chunk:
                # A case whose inputs numpy cannot hold (bfloat16) cannot be run without torch.
                row = unconverted.get(Path(rec["artifact"]).parent)
                row = {**row, "outcome": "unavailable", "stage": "load"} if row else rows.get(key)
                if row is None:  # the worker died before answering: recorded next time
                    continue
                _keep(report, "run", runtime_path(version), known,
                      _ran_record("runtime", key, rec, row, folder / "venv",
                                  {"runtime": "onnxruntime", "runtime_version": runtime["onnxruntime"],
                                   "versions": runtime}))
        report.load_s = round(time.monotonic() - start, 1)
    except (sweep.SweepError, subprocess.SubprocessError, OSError) as exc:
        report.error = str(exc)
    finally:
        if not keep_venv and folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
    return report
