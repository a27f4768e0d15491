"""A stratified sample of the corpus, the same models on every release: `python -m collectors.sample`.

Running the whole corpus takes about 9 hours per release on 2 cores; comparing releases
needs the same models on each, not all of them. The rule, fixed before any release was
run: a quota per source; inside a source, families in the order of a hash of their
name, one model per family in turn (each family's models also in hash order), until the
quota is met. So every family gets a model before any gets two, and nothing about a
model's results can choose it. The list is written to release_sample.txt (one exact
`source/model` pattern per line) and committed; `exportkb collect --models @FILE` reads it.
A release whose transformers lacks a model type simply does not list that model.
"""
from __future__ import annotations

import glob
import hashlib
import sys
from pathlib import Path

from . import corpus

QUOTAS = {"transformers": 80, "timm": 25, "torchvision": 25, "exportdb": 25}
SAMPLE_FILE = Path(__file__).with_name("release_sample.txt")


def _h(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def stratified(specs: list, quota: int) -> list:
    families: dict[str, list] = {}
    for spec in specs:
        families.setdefault(spec.family or spec.id, []).append(spec)
    queues = [sorted(models, key=lambda s: _h(s.id)) for _, models in sorted(families.items(), key=lambda f: _h(f[0]))]
    chosen = []
    while len(chosen) < quota and any(queues):
        for queue in queues:
            if queue and len(chosen) < quota:
                chosen.append(queue.pop(0))
    return sorted(chosen, key=lambda s: s.id)


def sample(quotas: dict[str, int] = QUOTAS) -> list[str]:
    lines = []
    for source, quota in quotas.items():
        lines += [glob.escape(f"{source}/{s.id}") for s in stratified(corpus.source(source).list_models(), quota)]
    return lines


def main() -> int:
    from .pool import warm_up

    warm_up((), tuple(QUOTAS))  # the torchvision import workaround, quietly
    lines = sample()
    head = ["# The corpus sample run on every release (collectors/sample.py has the rule).",
            "# " + ", ".join(f"{s} {q}" for s, q in QUOTAS.items()) + f": {len(lines)} models.",
            "# Regenerate: python -m collectors.sample"]
    SAMPLE_FILE.write_text("\n".join(head + lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} models written to {SAMPLE_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
