"""`exportkb diagnose` measured: self-consistency on the catalogue, and real models end to end.

    .venv/bin/python bench/bench_diagnose.py entries [--jobs 1]     # every entry's failing scripts
    .venv/bin/python bench/bench_diagnose.py models  [--jobs 2]     # real models, all nine exporters

`entries` diagnoses each failing script of each entry with the exporters the entry lists
and counts how often diagnose names that entry: for the script's own exporter (the one
its failure is about) and for every listed exporter that fails. Entries that do not
reproduce on this release (`reproduces = false`, which also marks evidence that needs
hardware this machine lacks) are counted apart. A miss is reported with what diagnose saw instead, so each one can be
read: usually an entry whose failure happens after the export (loading an archive on
another release), which a single in-process run cannot show.

`models` runs every exporter on real models from the corpus builders (transformers,
timm, torchvision) and writes each Markdown report, with the wall time and each
exporter's share of the attempt time.

Both append one JSON line per diagnosis to observations/diagnose/ and skip what is
there already, so an interrupted run resumes.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "observations" / "diagnose"
MODELS = [("transformers", "bert"), ("transformers", "gpt2"), ("timm", "resnet10t"), ("timm", "vit_tiny_patch16_224"),
          ("torchvision", "resnet18"), ("torchvision", "mobilenet_v3_small")]


def _done(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {r["key"]: r for r in rows}


def _append(path: Path, row: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def entries(jobs: int) -> None:
    from collectors.diagnose import Target, diagnose
    from collectors.versions import library_versions
    from kb import paths
    from kb.catalogue import load_catalogue

    torch_version = library_versions()["torch"]
    path = OUT / f"entries-torch-{torch_version}.jsonl"
    done = _done(path)
    for entry in load_catalogue(paths.entries_dir()):
        for script in entry.failing_cases:
            key = f"{entry.id}/{script}"
            if key in done:
                continue
            start = time.monotonic()
            report = diagnose(Target("user", str(entry.folder / script)), list(entry.exporters), jobs=jobs,
                              attempt_timeout=300, build_timeout=300).as_json()
            row = {"key": key, "entry": entry.id, "script": script, "own_exporter": entry.exporter_for(script),
                   "reproduces": entry.reproduces,
                   "unusable": report["unusable"], "wall_s": round(time.monotonic() - start, 1),
                   "results": [{k: r[k] for k in ("exporter", "outcome", "stage", "entry", "exc_type")}
                               | {"message": (r["message"] or "")[:300]} for r in report["results"]]}
            _append(path, row)
            done[key] = row
            own = next((r for r in row["results"] if r["exporter"] == row["own_exporter"]), None)
            print(f"{key}: {own['outcome'] if own else row['unusable']} -> {own and own['entry']}", flush=True)
    summarise_entries(list(done.values()))


def summarise_entries(rows: list[dict]) -> None:
    counted = [r for r in rows if r["reproduces"]]
    own_fail = [r for r in counted for x in r["results"] if x["exporter"] == r["own_exporter"] and x["outcome"] == "fail"]
    own_named = [r for r in own_fail for x in r["results"]
                 if x["exporter"] == r["own_exporter"] and x["entry"] == r["entry"]]
    listed = [(r, x) for r in counted for x in r["results"] if x["outcome"] == "fail"]
    listed_named = [(r, x) for r, x in listed if x["entry"] == r["entry"]]
    print(f"\nfailing scripts: {len(rows)} ({len(rows) - len(counted)} not counted: the entry says reproduces = false)")
    print(f"own exporter: {len(own_fail)} of {len(counted)} scripts fail under diagnose; diagnose names the entry "
          f"for {len(own_named)} of them ({100 * len(own_named) / max(1, len(own_fail)):.1f}%)")
    print(f"every listed exporter that fails: {len(listed_named)} of {len(listed)} failures named with the entry "
          f"({100 * len(listed_named) / max(1, len(listed)):.1f}%)")
    outcomes = Counter()
    for r in counted:
        own = next((x for x in r["results"] if x["exporter"] == r["own_exporter"]), None)
        outcomes["unusable" if own is None else own["outcome"]] += 1
    print("own exporter's outcome:", dict(outcomes))
    print("\nmisses (own exporter failed, another entry or none named):")
    for r in own_fail:
        x = next(x for x in r["results"] if x["exporter"] == r["own_exporter"])
        if x["entry"] != r["entry"]:
            print(f"  {r['key']} [{x['exporter']}] -> {x['entry']}: {x['exc_type']}: {x['message'][:120]}")
    print("\nnot failing under diagnose (own exporter passed or could not run):")
    for r in counted:
        own = next((x for x in r["results"] if x["exporter"] == r["own_exporter"]), None)
        if own is None or own["outcome"] != "fail":
            print(f"  {r['key']} [{r['own_exporter']}]: {own['outcome'] if own else r['unusable']}")


def models(jobs: int) -> None:
    from collectors.diagnose import Target, diagnose
    from collectors.versions import library_versions
    from kb.catalogue import EXPORTERS
    from kb.diagnose_report import markdown

    torch_version = library_versions()["torch"]
    path = OUT / f"models-torch-{torch_version}.jsonl"
    done = _done(path)
    for source, model in MODELS:
        key = f"{source}/{model}"
        if key not in done:
            report = diagnose(Target(source, model), list(EXPORTERS), jobs=jobs).as_json()
            done[key] = {"key": key, "jobs": jobs, **report}
            _append(path, done[key])
            (OUT / f"{source}-{model}.md").write_text(markdown(report), encoding="utf-8")
        report = done[key]
        if report["unusable"]:
            print(f"{key}: unusable: {report['unusable']}")
            continue
        spent = sum(r["duration_s"] for r in report["results"])
        shares = ", ".join(f"{r['exporter']} {100 * r['duration_s'] / spent:.0f}%" for r in report["results"])
        passed = sum(r["passed"] for r in report["results"])
        print(f"{key}: {passed}/{len(report['results'])} pass, wall {report['wall_s']:.0f} s with {report['jobs']} jobs "
              f"(attempts {spent:.0f} s: {shares})")
        for r in report["results"]:
            if not r["passed"] or r["fix"]:
                print(f"    {r['exporter']}: {r['outcome']} at {r['stage']} -> {r['entry'] or 'no entry'}"
                      + (f"; fix {r['fix']['id']} -> {r['fix']['outcome']}" if r["fix"] else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("entries", "models"))
    ap.add_argument("--jobs", type=int, default=None)
    args = ap.parse_args()
    if args.what == "entries":
        entries(args.jobs or 1)
    else:
        models(args.jobs or 2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
