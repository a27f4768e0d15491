"""`exportkb sweep --torch VERSION ...`: run every entry's scripts on other torch releases.

For each release:
1. create a throw-away venv and install that torch with companions of its time
   (transformers, onnx, onnxscript, onnxruntime). The registry's default Linux builds
   carry CUDA; they run on the CPU here, they are only bigger.
2. run each entry's failing and fixed scripts with that venv's interpreter, isolated
   and limited exactly like `exportkb check` (collectors.isolate);
3. append one observation per script to observations/sweep-torch-<version>.jsonl,
   tagged with the versions that venv really has;
4. delete the venv, so a sweep of five releases never holds more than one on disk.

Nothing is judged here: whether a failure "reproduces" depends on the entries' patterns,
which change more often than releases do, so kb.build decides it from the raw records.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from kb import paths
from kb.catalogue import Entry
from kb.observations import ENTRY_LIBS, VERSIONED_LIBS, append_observation, existing_keys

from . import companions
from .check import CaseResult, case_key, case_observation
from .isolate import run_script
from .portable import portable, trim

# Companion pins per torch release: the versions that were current when it shipped, so
# each release is seen as its users saw it. The rule: the newest release of each companion
# uploaded to PyPI before that torch release's own upload date (read from PyPI's JSON API
# on 2026-11-25). onnxscript had no numbered release before 0.1.0 (January 2025), so the
# releases before it get 0.1.0, the oldest one that exists. A release not listed gets the
# registry's newest companions that pip finds compatible.
COMPANIONS: dict[str, dict[str, str]] = {
    "2.1.2": {"transformers": "4.36.1", "onnx": "1.15.0", "onnxscript": "0.1.0", "onnxruntime": "1.16.3",
              "numpy": "1.26.2"},
    "2.2.2": {"transformers": "4.39.1", "onnx": "1.16.0", "onnxscript": "0.1.0", "onnxruntime": "1.17.1",
              "numpy": "1.26.4"},
    "2.3.1": {"transformers": "4.41.2", "onnx": "1.16.1", "onnxscript": "0.1.0", "onnxruntime": "1.18.0",
              "numpy": "1.26.4"},
    "2.4.1": {"transformers": "4.44.2", "onnx": "1.16.2", "onnxscript": "0.1.0", "onnxruntime": "1.19.2",
              "numpy": "1.26.4"},
    "2.5.1": {"transformers": "4.46.0", "onnx": "1.17.0", "onnxscript": "0.1.0", "onnxruntime": "1.19.2",
              "numpy": "2.1.2"},
    "2.6.0": {"transformers": "4.48.3", "onnx": "1.17.0", "onnxscript": "0.2.0", "onnxruntime": "1.20.1",
              "numpy": "2.2.2"},
    "2.7.1": {"transformers": "4.52.4", "onnx": "1.18.0", "onnxscript": "0.3.0", "onnxruntime": "1.22.0",
              "numpy": "2.2.6"},
    "2.8.0": {"transformers": "4.55.0", "onnx": "1.18.0", "onnxscript": "0.3.2", "onnxruntime": "1.22.1",
              "numpy": "2.3.2"},
    "2.9.1": {"transformers": "4.57.1", "onnx": "1.19.1", "onnxscript": "0.5.4", "onnxruntime": "1.23.2"},
    "2.10.0": {"transformers": "4.57.6", "onnx": "1.20.1", "onnxscript": "0.5.7", "onnxruntime": "1.23.2",
               "numpy": "2.4.1"},
    "2.11.0": {"transformers": "5.3.0", "onnx": "1.20.1", "onnxscript": "0.6.2", "onnxruntime": "1.24.4",
               "numpy": "2.4.3"},
    "2.12.1": {"transformers": "5.12.1", "onnx": "1.22.0", "onnxscript": "0.7.0", "onnxruntime": "1.27.0",
               "numpy": "2.4.6"},
    "2.13.0": {"transformers": "5.23.0", "onnx": "1.23.2", "onnxscript": "0.7.2", "onnxruntime": "1.31.1"},
    "2.14.1": {"transformers": "5.18.0", "onnx": "1.23.1", "onnxscript": "0.7.2", "onnxruntime": "1.30.0",
               "numpy": "2.4.6"},  # numpy 2.5 needs Python 3.12; this machine has 3.11
    "2.15.0": {"transformers": "5.23.0", "onnx": "1.23.2", "onnxscript": "0.7.2", "onnxruntime": "1.31.1"},
}
# ExecuTorch follows PyTorch's releases: the first executorch uploaded after a torch minor's
# .0 release is the one built for it (PyPI upload dates, read on 2026-11-25); 2.13.0 takes
# the project's own verified pin (pyproject.toml). Before 2.3 there is no executorch wheel
# for Python 3.11. It is installed only when an ExecuTorch entry is swept, in a step of its
# own: a release where it does not install is still swept, and the reason is recorded.
EXECUTORCH: dict[str, str] = {
    "2.3.1": "0.2.0", "2.4.1": "0.3.0", "2.5.1": "0.4.0", "2.6.0": "0.5.0", "2.7.1": "0.6.0", "2.8.0": "0.7.0",
    "2.9.1": "1.0.0", "2.10.0": "1.1.0", "2.11.0": "1.2.0", "2.12.1": "1.3.1", "2.13.0": "1.5.1", "2.14.1": "1.5.1",
    "2.15.0": "1.5.1",
}
# torchao, for the entries whose scripts import it (kb.catalogue.Entry.libraries), by the
# same date rule as COMPANIONS (PyPI's JSON API, read on 2026-11-27); 2.13.0 takes the
# torchao that the project's executorch pin brings (0.18.0). The releases before 2.3 get
# none: torchao had no numbered release with a Python 3.11 wheel before 0.2.0.
TORCHAO: dict[str, str] = {
    "2.3.1": "0.2.0", "2.4.1": "0.4.0", "2.5.1": "0.6.1", "2.6.0": "0.8.0", "2.7.1": "0.11.0", "2.8.0": "0.12.0",
    "2.9.1": "0.14.1", "2.10.0": "0.15.0", "2.11.0": "0.16.0", "2.12.1": "0.17.0", "2.13.0": "0.18.0",
    "2.14.1": "0.18.0", "2.15.0": "0.18.0",
}
DEFAULT_RELEASES = tuple(COMPANIONS)  # every release with pins, oldest first
# What the corpus's model sources need besides (collectors.cluster, `collect --torch`):
# torchvision is released in lockstep with torch (2.X.Y pairs with 0.(X+15).Y); timm by
# the same rule as the companions above (the newest upload before that torch's own, read
# from PyPI's JSON API on 2026-11-26). 2.15.0 has no torchvision wheel on the registry:
# its torchvision and timm models cannot be built there. Entry sweeps do not install these.
# onnx-ir by the same date rule (ONNX_IR below): left to pip, a release's onnxscript gets
# today's onnx-ir, which 0.3 to 0.5 cannot use (the onnx-onnxscript-onnx-ir-mismatch
# entry, which the entry sweep keeps reproducing on purpose). The corpus compares the
# exporters, not today's dependency drift, so it takes the onnx-ir of the time.
ONNX_IR = {"2.7.1": "0.1.1", "2.8.0": "0.1.4", "2.9.1": "0.1.12", "2.10.0": "0.1.14", "2.11.0": "0.2.0",
           "2.12.1": "0.2.1", "2.13.0": "0.2.1", "2.14.1": "1.0.0"}
CORPUS_LIBS: dict[str, dict[str, str]] = {
    "2.1.2": {"torchvision": "0.16.2", "timm": "0.9.12"}, "2.2.2": {"torchvision": "0.17.2", "timm": "0.9.16"},
    "2.3.1": {"torchvision": "0.18.1", "timm": "1.0.3"}, "2.4.1": {"torchvision": "0.19.1", "timm": "1.0.9"},
    "2.5.1": {"torchvision": "0.20.1", "timm": "1.0.11"}, "2.6.0": {"torchvision": "0.21.0", "timm": "1.0.14"},
    "2.7.1": {"torchvision": "0.22.1", "timm": "1.0.15"}, "2.8.0": {"torchvision": "0.23.0", "timm": "1.0.19"},
    "2.9.1": {"torchvision": "0.24.1", "timm": "1.0.22"}, "2.10.0": {"torchvision": "0.25.0", "timm": "1.0.24"},
    "2.11.0": {"torchvision": "0.26.0", "timm": "1.0.25"}, "2.12.1": {"torchvision": "0.27.1", "timm": "1.0.27"},
    "2.13.0": {"torchvision": "0.28.0", "timm": "1.0.27"}, "2.14.1": {"torchvision": "0.29.1", "timm": "1.0.30"},
}
# protobuf too, for the releases before 2.9: left to pip they get today's protobuf (7.x),
# which refuses the boolean attribute values that onnxscript 0.2.0 writes
# (torch 2.6.0's corpus: 51 of its 59 dynamo ONNX failures were that SerdeError, "Field
# onnx.AttributeProto.i: Expected an int, got a boolean", gone with protobuf 5.29.3). Same
# date rule, highest non-pre-release version (PyPI's JSON API, read on 2026-11-27).
PROTOBUF = {"2.1.2": "4.25.1", "2.2.2": "5.26.1", "2.3.1": "5.27.0", "2.4.1": "5.28.0", "2.5.1": "5.28.3",
            "2.6.0": "5.29.3", "2.7.1": "6.31.1", "2.8.0": "6.31.1"}
for _release, _pin in ONNX_IR.items():
    CORPUS_LIBS[_release]["onnx-ir"] = _pin
for _release, _pin in PROTOBUF.items():
    CORPUS_LIBS[_release]["protobuf"] = _pin

# Run inside the throw-away venv: what it really has, read from package metadata.
_VERSIONS_PROBE = """
import json, platform, sys
from importlib import metadata
libs = {libs!r}
found = {{}}
for lib in libs:
    try:
        found[lib] = metadata.version(lib)
    except metadata.PackageNotFoundError:
        found[lib] = None
print(json.dumps({{"versions": found, "python": platform.python_version(),
                  "platform": sys.platform + "-" + platform.machine()}}))
"""


class SweepError(RuntimeError):
    """A release could not be set up; the message says which step and why."""


@dataclass
class ReleaseReport:
    torch: str
    venv_mb: float = 0.0
    install_s: float = 0.0
    run_s: float = 0.0
    scripts: int = 0
    skipped: int = 0  # recorded by an earlier sweep with the same versions: not run again
    recorded: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    versions: dict[str, str | None] = field(default_factory=dict)
    error: str | None = None
    # package -> why it is not in the venv (pip's last lines), for companions that may fail
    missing: dict[str, str] = field(default_factory=dict)
    entry_libs: dict[str, str | None] = field(default_factory=dict)  # kb.observations.ENTRY_LIBS in the venv

    def versions_for(self, entry: Entry, case: str = "") -> dict[str, str | None]:
        """What an observation of this entry's `case` records: VERSIONED_LIBS, the entry's own
        libraries, and the script's companions (collectors/companions.py)."""
        return (self.versions | {lib: self.entry_libs.get(lib) for lib in entry.libraries}
                | companions.versions_of(entry.companions.get(case, ())))


def requirements(torch_version: str) -> list[str]:
    pins = COMPANIONS.get(torch_version, {})
    reqs = [f"torch=={torch_version}"]
    for lib in ("transformers", "onnx", "onnxscript", "onnxruntime", "numpy"):
        if lib in pins:
            reqs.append(f"{lib}=={pins[lib]}")
        elif lib != "numpy":
            reqs.append(lib)
    return reqs


def sweep_dir() -> Path:
    return Path(os.environ.get("EXPORTKB_SWEEP_DIR") or paths.root() / "build" / "sweep")


def pip_log(torch_version: str) -> Path:
    """Next to the venv, not in it: kept when the install fails, deleted when it succeeds."""
    return sweep_dir() / f"torch-{torch_version}.pip.log"


def output_path(torch_version: str, folder: Path | None = None) -> Path:
    return (folder or paths.observations_dir()) / f"sweep-torch-{torch_version}.jsonl"


def _du_mb(folder: Path) -> float:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total / 2**20


def run_pip(python: Path, args: list[str], log: Path) -> None:
    env = dict(os.environ, PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    with log.open("ab") as fh:
        proc = subprocess.run([str(python), "-m", "pip", *args], stdout=fh, stderr=subprocess.STDOUT, env=env)
    if proc.returncode:
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip() and "is ignored" not in ln]
        # pip's own diagnosis (what conflicts with what) says more than its closing advice.
        start = next((i for i, ln in enumerate(lines) if ln.startswith("ERROR: Cannot install")), None)
        said = lines[start:start + 4] + lines[-1:] if start is not None else lines[-4:]
        raise SweepError(f"pip {args[0]} failed (exit {proc.returncode}); the log is kept in {log}:\n  "
                         + "\n  ".join(said))


def make_venv(folder: Path, packages: list[str], log: Path) -> Path:
    """A fresh venv in folder/venv with these packages (wheels only); returns its interpreter.
    pip's log is kept at `log` when the install fails."""
    if folder.exists():
        shutil.rmtree(folder)  # a leftover from a killed run: start clean
    folder.mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True)
    python = folder / "venv" / "bin" / "python"
    log.unlink(missing_ok=True)
    # The project's constraints pin torch for its own venv; these venvs must not see them.
    run_pip(python, ["install", "--only-binary", ":all:", *packages], log)
    return python


def create_venv(torch_version: str, folder: Path) -> Path:
    """A fresh venv with this torch and its companions; returns its interpreter."""
    return make_venv(folder, requirements(torch_version), pip_log(torch_version))


def _install_companion(python: Path, torch_version: str, lib: str, pin: str, attempts: list[list[str]]) -> str | None:
    """Run pip with each argument list in turn until one installs; None then, else why not
    (pip's last attempt). Its log is kept beside the venv only when every attempt failed."""
    log = sweep_dir() / f"torch-{torch_version}.{lib}.pip.log"
    log.unlink(missing_ok=True)
    for args in attempts:
        try:
            run_pip(python, ["install", *args], log)
        except SweepError as exc:
            failed = f"{lib}=={pin}: {exc}"
            continue
        log.unlink(missing_ok=True)
        return None
    return failed


def add_executorch(python: Path, torch_version: str) -> str | None:
    """Install the release's executorch next to its torch; None when it installed, else why not."""
    pin = EXECUTORCH.get(torch_version)
    if pin is None:
        return f"no executorch release is paired with torch {torch_version} (none has a Python 3.11 wheel)"
    # The release's own pins come along, so pip may not replace its torch to suit executorch.
    # Wheels where they exist; some of executorch's pure-Python dependencies (antlr4
    # runtime 4.9, through hydra-core) were only ever published as source.
    pins = requirements(torch_version)
    attempts = [["--prefer-binary", f"executorch=={pin}", *pins]]
    # executorch pins its own numpy (0.5.0: numpy==2.0.0), older than the release's
    # companion: a user of that pair has executorch's numpy, so then let it choose.
    loose = [r for r in pins if not r.startswith("numpy==")]
    if loose != pins:
        attempts.append(["--prefer-binary", f"executorch=={pin}", *loose])
    return _install_companion(python, torch_version, "executorch", pin, attempts)


def add_torchao(python: Path, torch_version: str) -> str | None:
    """Install the release's torchao next to its torch; None when it installed, else why not."""
    pin = TORCHAO.get(torch_version)
    if pin is None:
        return f"no torchao release is paired with torch {torch_version} (none has a Python 3.11 wheel)"
    # With the release's own pins, so pip may not replace its torch; torchao's wheels
    # declare no torch requirement, so it installs beside any torch and the sweep shows
    # what that pair does.
    attempts = [["--only-binary", ":all:", f"torchao=={pin}", *requirements(torch_version)]]
    return _install_companion(python, torch_version, "torchao", pin, attempts)


# Companions installed only when a swept entry needs them (the others always are): the
# library, and what installs it. An entry needs executorch when it names that exporter,
# and torchao when its scripts import it.
OPTIONAL_COMPANIONS = {"executorch": add_executorch, "torchao": add_torchao}


def needs(entry: Entry, lib: str) -> bool:
    return lib in entry.exporters or lib in entry.libraries


def companions_path(folder: Path | None = None) -> Path:
    return (folder or paths.observations_dir()) / "sweep-companions.json"


def record_companions(report: "ReleaseReport", folder: Path | None = None, *, tried: frozenset = frozenset()) -> None:
    """observations/sweep-companions.json: per release, the companions its venv had, and why
    any that the sweep asked for is missing. Rewritten whole, sorted, so diffs stay small.

    An optional companion (executorch) that this sweep did not try to install, because
    none of its entries needed it, keeps what an earlier sweep of the release recorded:
    sweeping one AOTInductor entry must not erase why executorch is missing there."""
    path = companions_path(folder)
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    before = data.get(report.torch, {})
    versions = {k: v for k, v in report.versions.items() if k != "torch"}
    versions |= {lib: v for lib, v in report.entry_libs.items() if lib in tried and v}
    # A reason quotes pip's log by its path: recorded as <repo>/..., not this machine's checkout.
    missing = {lib: portable(reason, paths.root()) for lib, reason in report.missing.items()}
    for lib in set(OPTIONAL_COMPANIONS) - tried:
        if lib in before.get("versions", {}):
            versions[lib] = before["versions"][lib]
        if lib in before.get("missing", {}):
            missing[lib] = before["missing"][lib]
    data[report.torch] = {"versions": dict(sorted(versions.items())), "missing": dict(sorted(missing.items()))}
    path.write_text(json.dumps(dict(sorted(data.items())), indent=1, sort_keys=True) + "\n", encoding="utf-8")


def probe_versions(python: Path) -> dict:
    """The venv's VERSIONED_LIBS as `versions` (what every observation records), and its
    ENTRY_LIBS apart as `entry_libs` (recorded only by the entries that import them)."""
    code = _VERSIONS_PROBE.format(libs=[*VERSIONED_LIBS, *ENTRY_LIBS])
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120)
    if out.returncode:
        raise SweepError(f"could not read versions in {python}: {out.stderr.strip()[-500:]}")
    probed = json.loads(out.stdout)
    found = probed["versions"]
    probed["versions"] = {lib: found[lib] for lib in VERSIONED_LIBS}
    probed["entry_libs"] = {lib: found[lib] for lib in ENTRY_LIBS}
    return probed


def portable_for(venv: Path, text: str) -> str:
    """Like portable(), but for paths of the throw-away venv, which portable() cannot know."""
    site_packages = sorted((venv / "lib").glob("python*/site-packages"))
    for sp in site_packages:
        text = text.replace(str(sp), "<site-packages>")
    text = text.replace(str(venv), "<venv>")
    return portable(text, paths.root())


def run_release(entries: list[Entry], torch_version: str, *, jobs: int = 2, timeout_s: float = 300.0,
                keep_venv: bool = False, out_folder: Path | None = None, progress=None) -> ReleaseReport:
    report = ReleaseReport(torch_version)
    folder = sweep_dir() / f"torch-{torch_version}"
    out = output_path(torch_version, out_folder)
    try:
        start = time.monotonic()
        python = create_venv(torch_version, folder)
        pip_log(torch_version).unlink(missing_ok=True)
        tried = frozenset(lib for lib in OPTIONAL_COMPANIONS if any(needs(e, lib) for e in entries))
        for lib in sorted(tried):
            reason = OPTIONAL_COMPANIONS[lib](python, torch_version)
            if reason:
                report.missing[lib] = reason
        report.install_s = round(time.monotonic() - start, 1)
        report.venv_mb = round(_du_mb(folder / "venv"), 1)
        probed = probe_versions(python)
        report.versions = probed["versions"]
        report.entry_libs = probed["entry_libs"]
        record_companions(report, out_folder, tried=tried)
        env = {"python": probed["python"], "platform": probed["platform"]}
        import_paths, not_installed = companions.prepare(entries, python)
        report.missing |= {f"{eid} companions": why for eid, why in not_installed.items()}
        entries = [e for e in entries if e.id not in not_installed]
        jobs_list = [(e, c, "failing") for e in entries for c in e.failing_cases] + \
                    [(e, e.fixed_case, "fixed") for e in entries]
        report.scripts = len(jobs_list)
        known = existing_keys(out)
        # Resuming: a script already recorded with this venv's versions is not run again,
        # so a sweep killed part way costs only the scripts it had not reached.
        jobs_list = [job for job in jobs_list
                     if case_key(job[0], job[1], report.versions_for(job[0], job[1])) not in known]
        report.skipped = report.scripts - len(jobs_list)

        def run(job):
            entry, case, kind = job
            r = run_script(entry.folder / case, timeout_s=timeout_s, python=str(python),
                           import_first=import_paths.get((entry.id, case), ()))
            text = trim(portable_for(folder / "venv", r.stderr)) if r.stderr else ""
            return job, CaseResult(case, kind, r, text)

        start = time.monotonic()
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for n, ((entry, case, _kind), res) in enumerate(pool.map(run, jobs_list), 1):
                record = case_observation(entry, res, report.versions_for(entry, case), env)
                record["sweep"] = True
                record["run"] = "sweep"
                report.outcomes[res.run.outcome] = report.outcomes.get(res.run.outcome, 0) + 1
                if record["key"] not in known:
                    append_observation(out, record)
                    known.add(record["key"])
                    report.recorded += 1
                if progress:
                    progress(n, len(jobs_list), f"torch {torch_version}: {entry.id}/{case}")
        report.run_s = round(time.monotonic() - start, 1)
    except (SweepError, subprocess.SubprocessError, OSError) as exc:
        report.error = str(exc)
    finally:
        if not keep_venv and folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
    return report
