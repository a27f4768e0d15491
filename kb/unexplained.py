"""Failure signatures that no entry explains: where the catalogue should grow next."""
from __future__ import annotations

from pathlib import Path

import sqlite_utils


def unexplained_signatures(db: Path, limit: int = 20, examples: int = 3) -> list[dict]:
    kdb = sqlite_utils.Database(db)
    rows = kdb.query(
        "select signature, count(*) as failures, group_concat(distinct exporter) as exporters "
        "from observations where run = 'collect' and outcome = 'fail' and matched_entry is null "
        "and signature is not null "
        "group by signature order by failures desc, signature limit ?", [limit])
    result = []
    for r in rows:
        models = [m["model"] for m in kdb.query(
            "select distinct model from observations where run = 'collect' and signature = ? "
            "and matched_entry is null "
            "order by model limit ?", [r["signature"], examples])]
        result.append({"signature": r["signature"], "failures": r["failures"],
                       "exporters": sorted((r["exporters"] or "").split(",")), "examples": models})
    return result
