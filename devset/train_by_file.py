"""Out-of-fold figures on the train split, per report file.

The files are the evidence base's batches, in the order they were mined. A batch mined
after the patterns were last widened shows what the next unseen report gets; an older
batch, whose reports some patterns were widened on, shows less. Train only: test texts
are never read here.

    cd /work/main && .venv/bin/python devset/train_by_file.py
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from kb import devset  # noqa: E402
from kb.build import ensure_built  # noqa: E402
from kb.calibrate import fold_matchers  # noqa: E402
from kb.evaluate import Tally, answers  # noqa: E402


def main() -> int:
    db, _ = ensure_built()
    reports = [r for r in devset.train() if r.text.strip()]
    tally: dict[str, Tally] = defaultdict(Tally)
    for fold, matcher in fold_matchers(reports, db):
        for r in fold:
            tally[r.origin].add(r, *answers(matcher.search(r.text)))
    print(f"{'file':34} {'n':>4} {'lab':>4} {'top-1':>7} {'c-wrong':>8}")
    for origin, t in sorted(tally.items()):
        print(f"{origin:34} {t.reports:4d} {t.labelled:4d} {t.top1 / max(t.labelled, 1):7.1%} "
              f"{t.confidently_wrong / t.reports:8.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
