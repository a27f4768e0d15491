"""Dynamo's graph-break registry of each torch release: `python -m collectors.graph_breaks PYTHON...`.

torch ships the catalogue of every graph break Dynamo can report
(`torch/_dynamo/graph_break_registry.json`: an id such as GB0007, and for each id the
wordings it has had: type, explanation, hints, debug context). Strict export fails
with these messages. For each interpreter given (the project's own, or a sweep venv's),
this copies its release's registry, unchanged, to
observations/graph-breaks/torch-<release>.json with where it came from, so kb.build can
give every message an answer without torch installed. A release whose torch has no
registry file is reported and skipped.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kb import paths
from kb.version_status import release_of

_PROBE = """
import json, os, sys
from importlib import metadata, util
spec = util.find_spec("torch")
path = os.path.join(os.path.dirname(spec.origin), "_dynamo", "graph_break_registry.json")
out = {"torch": metadata.version("torch"), "path": path}
if os.path.exists(path):
    with open(path, encoding="utf-8") as fh:
        out["registry"] = json.load(fh)
print(json.dumps(out))
"""


def folder() -> Path:
    return paths.observations_dir() / "graph-breaks"


def record(python: str) -> tuple[str, int | None]:
    """Copy one interpreter's registry; (its torch release, ids recorded or None when it has none)."""
    proc = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=300)
    if proc.returncode:
        raise RuntimeError(f"{python}: {proc.stderr.strip()[-500:]}")
    found = json.loads(proc.stdout)
    release = release_of(found["torch"])
    if "registry" not in found:
        return release, None
    folder().mkdir(parents=True, exist_ok=True)
    data = {"torch": found["torch"], "source": "torch/_dynamo/graph_break_registry.json",
            "registry": found["registry"]}
    (folder() / f"torch-{release}.json").write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False)
                                                     + "\n", encoding="utf-8")
    return release, len(found["registry"])


def main(argv: list[str]) -> int:
    for python in argv or [sys.executable]:
        release, n = record(python)
        print(f"torch {release}: " + (f"{n} graph-break ids recorded" if n is not None else "no registry file"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
