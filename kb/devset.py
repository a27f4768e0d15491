"""The evidence base for search: real error reports, split by thread into train and test.

Three sources, all JSONL with one report per line (`devset/reports/README.md` has the
fields):

* `devset/reports/*.jsonl`: errors copied verbatim from public threads, labelled with
  the entry that explains them or `none:<cause>`;
* `devset/public.jsonl`: the first 42 public reports, kept as they were;
* `devset/runs.jsonl`: errors our own scripts produced (`devset/cases/`).

The split rule was fixed before any result was looked at, and it depends on nothing
but the thread's address: a thread's reports are in `test` when the SHA-256 of its
normalised URL falls in the first TEST_PERCENT of the hash space. Everything from
`public.jsonl` and `runs.jsonl` is `train` (they were tuned on long ago), and so is any
report from a thread that also appears there, so a thread never straddles the split.
Nothing may be tuned on a `test` text: patterns, templates, weights and thresholds come
from `train` and from runs (see kb/calibrate.py).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from . import paths

TEST_PERCENT = 40
LEGACY_FILES = ("public.jsonl", "runs.jsonl")
REPORTS_DIR = "reports"
EXPORTERS = ("export", "export-strict", "export-dynamic", "jit-script", "jit-trace",
             "onnx", "onnx-legacy", "aoti", "executorch")
# When a report's failure happened (Report.stage), in the groups a user tells apart: the
# exporter refused the model, or the export succeeded and what it wrote failed later
# (saved, loaded on another release or runtime, run), or the environment around it broke.
STAGE_GROUPS = {"export": "at-export", "save": "after-export", "load": "after-export", "run": "after-export",
                "env": "environment"}
STAGE_GROUP_ORDER = ("at-export", "after-export", "environment", "not-stated")
_FRAGMENT = re.compile(r"[#?].*$")


@dataclass(frozen=True)
class Report:
    text: str
    label: str  # an entry id, or "none:<cause>"
    source: str
    exporter: str | None
    torch: str | None
    stage: str | None
    origin: str  # the file it came from
    split: str  # "train" or "test"

    @property
    def stage_group(self) -> str:
        """STAGE_GROUPS of its stage; "not-stated" when the thread does not say."""
        return STAGE_GROUPS.get(self.stage or "", "not-stated")

    @property
    def expected(self) -> str | None:
        return None if self.label.startswith("none") else self.label


def thread_key(source: str) -> str:
    """The thread a report came from: its URL without fragment, query or trailing slash."""
    return _FRAGMENT.sub("", source.strip()).rstrip("/").lower()


def split_of(source: str) -> str:
    digest = hashlib.sha256(thread_key(source).encode()).hexdigest()
    return "test" if int(digest[:8], 16) % 100 < TEST_PERCENT else "train"


def _read(path: Path) -> list[dict]:
    rows = []
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if raw.strip():
            try:
                row = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not JSON ({exc})") from None
            row.setdefault("source", f"{path.name}:{lineno}")
            rows.append(row)
    return rows


def _label(row: dict) -> str:
    if row.get("label"):
        return str(row["label"])
    return row["expected"] if row.get("expected") else "none:unrelated"


def load(root: Path | None = None) -> list[Report]:
    """Every report of the evidence base with its split."""
    root = Path(root or paths.root() / "devset")
    legacy = [(name, row) for name in LEGACY_FILES if (root / name).exists() for row in _read(root / name)]
    legacy_threads = {thread_key(row["source"]) for _, row in legacy}
    reports = [Report(row["text"], _label(row), row["source"], row.get("exporter"), row.get("torch"),
                      row.get("stage"), name, "train") for name, row in legacy]
    for path in sorted((root / REPORTS_DIR).glob("*.jsonl")):
        for row in _read(path):
            split = "train" if thread_key(row["source"]) in legacy_threads else split_of(row["source"])
            reports.append(Report(row["text"], _label(row), row["source"], row.get("exporter"),
                                  row.get("torch"), row.get("stage"), path.name, split))
    return reports


def train(root: Path | None = None) -> list[Report]:
    return [r for r in load(root) if r.split == "train"]


def main(argv: list[str] | None = None) -> int:
    """`python -m kb.devset [--label L]`: the train reports (never the test ones), as JSONL.

    Entry authors read real wordings here; test texts stay unseen."""
    import sys
    argv = sys.argv[1:] if argv is None else argv
    label = argv[argv.index("--label") + 1] if "--label" in argv else None
    for r in train():
        if label is None or r.label == label:
            print(json.dumps({"label": r.label, "source": r.source, "exporter": r.exporter,
                              "torch": r.torch, "stage": r.stage, "text": r.text}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
