"""The collector's isolation and bookkeeping, with real forked workers and real torch."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from collectors.collect import collect, merge
from conftest import REPO

pytestmark = pytest.mark.torch
TESTS = REPO / "tests"


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_hang_segfault_memory_and_build_failures_become_outcomes(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    out = tmp_path / "obs.jsonl"
    # Page faults are slow on these machines (~200 MB/s of first touches), so the memory
    # limit is low enough to be reached well before the time limit.
    path, tally, total = collect(["module:hostile_corpus"], ["export"], jobs=2, attempt_timeout=20,
                                 build_timeout=60, memory_mb=1500, out=out)
    by_model = {r["model"]: r for r in records(out)}
    assert set(by_model) == {"fine", "hang", "segfault", "hog", "unbuildable"}
    assert by_model["fine"]["outcome"] == "ok"
    assert by_model["hang"]["outcome"] == "timeout" and by_model["hang"]["stage"] == "capture"
    assert by_model["segfault"]["outcome"] == "crash" and by_model["segfault"]["signal"] == "SIGSEGV"
    assert by_model["hog"]["outcome"] == "oom" and by_model["hog"]["peak_rss_mb"] > 1500
    build = by_model["unbuildable"]
    assert build["outcome"] == "build" and build["exporter"] == "build"
    assert "cannot be built" in build["message"]
    assert all(r["versions"]["torch"].startswith("2.13.0") for r in by_model.values())


def test_kill_9_mid_run_then_resume_loses_and_duplicates_nothing(tmp_path):
    out = tmp_path / "obs.jsonl"
    cmd = [sys.executable, "-m", "kb.cli", "collect", "--corpus", "module:quick_corpus",
           "--exporters", "export,jit-trace", "--jobs", "1", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 5):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the collector and its workers, mid-run
    proc.wait()
    before = out.read_bytes()
    first = records(out)  # every line parses: no partial line
    assert 5 <= len(first) < 24, len(first)
    r = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    final = records(out)
    keys = [x["key"] for x in final]
    assert len(keys) == len(set(keys)) == 24  # 12 models x 2 exporters, each exactly once
    assert out.read_bytes().startswith(before)  # append-only: what was there is untouched
    assert {(x["model"], x["exporter"]) for x in final} == {(f"m{i:02d}", e) for i in range(12) for e in ("export", "jit-trace")}


def test_shards_partition_the_work_and_merge(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    for i in (1, 2):
        collect(["module:quick_corpus"], ["export"], jobs=2, shard=(i, 2),
                out=tmp_path / f"corpus-torch-x.shard-{i}-of-2.jsonl")
    a, b = (records(tmp_path / f"corpus-torch-x.shard-{i}-of-2.jsonl") for i in (1, 2))
    assert len(a) == len(b) == 6 and not {r["model"] for r in a} & {r["model"] for r in b}
    [(target, added)] = merge(tmp_path)
    assert target.name == "corpus-torch-x.jsonl" and added == 12
    assert len(records(target)) == 12 and not list(tmp_path.glob("*.shard-*"))


def test_the_driver_without_ray_records_what_the_pool_records(tmp_path):
    # `--torch` runs the same plan through `python -m collectors.remote` in threads: the
    # protocol every cluster task uses, here without Ray. The pinned release is this venv.
    from conftest import PINNED_TORCH

    env = {**os.environ, "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    outs = {}
    for name, extra in (("pool", []), ("driver", ["--torch", PINNED_TORCH.split("+")[0], "--batch", "5"])):
        outs[name] = tmp_path / name / "obs.jsonl"
        outs[name].parent.mkdir()
        r = subprocess.run([sys.executable, "-m", "kb.cli", "collect", "--corpus", "module:quick_corpus",
                            "--exporters", "export,jit-trace", "--out", str(outs[name]), *extra],
                           env=env, cwd=REPO, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
    assert "local: 3 tasks" in r.stdout, r.stdout
    pool, driver = records(outs["pool"]), records(outs["driver"])
    assert {x["key"]: x["outcome"] for x in driver} == {x["key"]: x["outcome"] for x in pool}
    assert len(driver) == 24 and all(x["model_libs"]["numpy"] for x in driver)  # recorded beside the key
    again = subprocess.run([sys.executable, "-m", "kb.cli", "collect", "--corpus", "module:quick_corpus",
                            "--exporters", "export,jit-trace", "--out", str(outs["driver"]), "--torch", "x.y.z",
                            "--torch", "x.y.z"], env=env, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert again.returncode == 2 and "--torch takes a release such as 2.9.1" in again.stderr  # before any install


def test_the_memory_limit_counts_what_a_child_adds_not_what_it_inherits():
    # The collector forks from a warm parent; pytest's worker grows to over a GB after the
    # other tests. A child inherits those resident pages, and they must not count.
    from collectors.pool import run_forked

    inherited = bytearray(800 << 20)
    inherited[::4096] = b"\x01" * len(inherited[::4096])  # resident, as a warm parent's pages are

    def allocate(mb):
        def work(emit):
            block = bytearray(mb << 20)
            block[::4096] = b"\x01" * len(block[::4096])
            emit({"type": "allocated", "mb": mb})
            time.sleep(0.5)  # long enough for the parent to look at it
        return work

    small = run_forked(allocate(50), timeout_s=60, memory_mb=400)
    assert small.outcome == "ok" and small.messages == [{"type": "allocated", "mb": 50}]
    assert small.peak_rss_mb > 400  # its RSS holds the inherited pages, and it still ran
    large = run_forked(allocate(1200), timeout_s=60, memory_mb=400)
    assert large.outcome == "oom"
    del inherited


def test_attempts_a_dying_worker_never_ran_get_no_record_and_the_summary_says_so(tmp_path):
    # The model builds, its first attempt runs, then its worker dies before the second.
    out = tmp_path / "obs.jsonl"
    cmd = [sys.executable, "-m", "kb.cli", "collect", "--corpus", "module:fragile_worker_corpus",
           "--exporters", "export,jit-trace", "--jobs", "1", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    r = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    summary = " ".join(r.stdout.split())
    assert "3/4 attempts recorded" in summary, summary
    assert "1 attempts were lost with their model's worker (the model's worker exited with code 3: 1)" in summary, summary
    assert "run the same command again" in summary
    got = sorted((x["model"], x["exporter"], x["outcome"]) for x in records(out))
    # No crash is invented for the attempt that never ran.
    assert got == [("dies-after-one-attempt", "export", "ok"), ("steady", "export", "ok"),
                   ("steady", "jit-trace", "ok")], got
    # As the summary says, running again redoes the lost attempt (alone now, its worker
    # forks once and lives), and nothing else.
    r = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    summary = " ".join(r.stdout.split())
    assert "1/1 attempts recorded" in summary and "lost" not in summary, summary
    keys = [x["key"] for x in records(out)]
    assert len(keys) == len(set(keys)) == 4
    assert ("dies-after-one-attempt", "jit-trace") in {(x["model"], x["exporter"]) for x in records(out)}


def test_a_release_run_hears_of_lost_attempts_from_its_interpreter(tmp_path, monkeypatch):
    # The --torch/--ray path: the interpreter that runs a batch reports lost attempts on
    # its JSON stream, and the driver counts them beside the records.
    from collectors.cluster import collect_cluster

    monkeypatch.setenv("PYTHONPATH", f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    out = tmp_path / "obs.jsonl"
    [(path, tally, total, report)] = collect_cluster(["module:fragile_worker_corpus"], ["export", "jit-trace"],
                                                     use_ray=False, jobs=1, batch=2, out=out)
    assert path == out and total == 4 and not report.errors
    assert (tally.attempts, tally.lost, tally.lost_why) == (3, 1, {"the model's worker exited with code 3": 1})
    assert report.lost == 1
    assert sorted((x["model"], x["exporter"]) for x in records(out)) == [
        ("dies-after-one-attempt", "export"), ("steady", "export"), ("steady", "jit-trace")]
