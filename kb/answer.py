"""What a search answers, as plain data, for every face that shows it.

`exportkb search --json`, the web API (`/search.json`) and the search page all describe a
match the same way, so the shape lives here once: `results` are the confident answers,
`possible` the matches below the threshold. Each match also carries the line of the
user's own paste that gave its evidence (`matched_line`), so a result can show the user
where in a long log the explained error is.
"""
from __future__ import annotations

from typing import Iterable, Mapping

from . import paths
from .catalogue import first_sentence

# Lines shown around the matched line of a paste.
CONTEXT_LINES = 2
# A shown line is cut here: a 1 MB line is data, not something to read.
MAX_SHOWN_LINE = 400


def match_obj(match, details: Mapping[str, Mapping] | None = None,
              where: Mapping[str, list[dict]] | None = None) -> dict:
    """One match as JSON. `confidence` is the calibrated probability that the entry is the
    right one (kb/calibration.json); `score` is the same number, kept for older clients.
    With `details` (entry id -> row of kb.db's entries), the cause's first sentence and the
    whole fix come along, in the catalogue's Markdown, and whether the entry was verified here."""
    obj = {"id": match.id, "title": match.title, "score": match.score, "confidence": match.confidence,
           "tier": match.tier, "tie": match.tie, "exporters": list(match.exporters),
           "url": paths.entry_url(match.id)}
    row = (details or {}).get(match.id)
    if row:
        obj["cause"] = first_sentence(row["cause"])
        obj["fix"] = row["fix"].strip()
        # False: the entry's scripts need what this machine lacks; its error is quoted from
        # reports and its fix was not run here.
        obj["verified"] = bool(row["verified"])
    if where is not None:
        line = next((ln for ln in where.get(match.id, []) if ln["match"]), None)
        obj["matched_line"] = {"line": line["n"], "text": line["text"]} if line else None
    return obj


def results_obj(result, limit: int, details: Mapping[str, Mapping] | None = None,
                where: Mapping[str, list[dict]] | None = None, graph_breaks: list[dict] | None = None) -> dict:
    """`results`: the confident answers; `possible`: the matches below the threshold, shown as such.
    With `where` (entry id -> lines, as `where_matched` gives), each match names the line of
    the paste it matched (1-based, in the paste as cleaned of ANSI codes and log prefixes).
    `graph_breaks`: the Dynamo graph breaks the paste shows (kb.graph_breaks.found_in), each
    with its registry id and the entry that answers it."""
    return {"results": [match_obj(m, details, where) for m in result.confident[:limit]],
            "possible": [match_obj(m, details, where) for m in result.possible[:limit]],
            "graph_breaks": [{**gb, "entry_url": paths.entry_url(gb["entry"])} for gb in graph_breaks or []],
            "notes": list(result.notes)}


def shown(result, limit: int) -> list:
    """What an answer shows: up to `limit` confident matches, then up to `limit` possible ones."""
    return [*result.confident[:limit], *result.possible[:limit]]


def matched_line(lines: list[str], evidence: str) -> int | None:
    """Index of the line in `lines` (the cleaned paste) where the exception that gave a
    match's evidence is printed, or None when it cannot be found (a block rebuilt from
    several lines). The last occurrence wins: a log repeats an error, and the one raised
    last is the one the matcher weighs most."""
    head = evidence.split("\n", 1)[0].strip()
    if not head:
        return None
    type_, sep, message = head.partition(": ")
    short_type = type_.rsplit(".", 1)[-1]
    message = message.strip()[:200]
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        if head in line:
            return i
        if sep and short_type in line and message in line:
            return i  # "<class 'x.Y'>: msg" or a warning's "path:1: Y: msg"
    return None


def line_context(lines: list[str], index: int, context: int = CONTEXT_LINES) -> list[dict]:
    """The matched line with `context` lines either side: [{"n", "text", "match"}], 1-based."""
    lo, hi = max(0, index - context), min(len(lines), index + context + 1)
    return [{"n": i + 1, "text": _cut(lines[i]), "match": i == index} for i in range(lo, hi)]


def _cut(line: str) -> str:
    return line if len(line) <= MAX_SHOWN_LINE else line[:MAX_SHOWN_LINE] + " …"


def where_matched(text: str, matches: Iterable) -> dict[str, list[dict]]:
    """Entry id -> the lines of the paste around the line its evidence came from."""
    lines = text.split("\n")
    out = {}
    for m in matches:
        i = matched_line(lines, m.evidence)
        if i is not None:
            out[m.id] = line_context(lines, i)
    return out
