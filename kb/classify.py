"""Which exception of a traceback belongs to an entry: the one rule, in one place.

A recorded failure is a list of exception blocks (a chained traceback, a noisy log).
Classifying it means choosing the entry it belongs to and the block that carries the
failure:

* the entry: for a run of an entry's own script, that entry; for any other failure,
  the entry the matcher confidently ranks first (or the one that names the model among
  the silent wrong results it explains), if any;
* the primary block: the exception one of that entry's patterns names, else the last one;
* the signature: the primary block's first line, normalised, which groups failures
  that no entry explains yet;
* whether it reproduces: for an entry's own script, whether one of the entry's own
  patterns names the error. Only such errors are learned by the matcher (`observed_texts`).

kb.build applies the rule once, when it builds kb.db, and stores the result with every
observation; the site, the UI and the release status read it from there. The collectors
use `primary_block` when they record a run, so the stored exception is the same one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .catalogue import Entry
from .extract import ExceptionBlock, extract
from .matcher import EntryRef, Match, Matcher, prose_of
from .normalize import normalize


@dataclass(frozen=True)
class Classification:
    """What the build stores about one failed observation."""
    matched_entry: str | None  # the entry that explains it (kb.db: observations.matched_entry)
    match_score: float | None
    signature: str  # the primary exception's first line, normalised
    error_text: str  # the primary exception's text
    reproduces: bool | None  # an entry's own script: one of its patterns names the error; else None


def entry_ref(e: Entry) -> EntryRef:
    return EntryRef(e.id, e.title, e.exporters, e.patterns, prose_of(e.title, e.rule, e.cause, e.fix), tuple(e.tags),
                    tuple(sorted(e.pattern_context.items())))


def primary_block(blocks: list[ExceptionBlock], matcher: Matcher, entry_id: str | None,
                  text: str | None = None) -> ExceptionBlock | None:
    """The exception that carries the failure: the one an entry's pattern names, else the last.
    `text` is the whole failure the blocks came from (Matcher.pattern_hits)."""
    if not blocks:
        return None
    if entry_id:
        hit = matcher.pattern_hits(entry_id, blocks, text)
        if hit is not None:
            return hit
    exceptions = [b for b in blocks if b.kind == "exception"]
    return (exceptions or blocks)[-1]


def signature(block: ExceptionBlock | None) -> str:
    """A failure signature: the normalised first line of the exception."""
    if block is None:
        return ""
    first = next((ln for ln in block.message.split("\n") if ln.strip()), "")
    return normalize(f"{block.type}: {first}" if block.type else first)


def failure_text(rec: dict) -> str:
    return rec.get("traceback") or rec.get("message") or ""


def failure_blocks(rec: dict) -> list[ExceptionBlock]:
    """The exceptions of a recorded failure.

    A stored traceback keeps the end of stderr; when the exception's own message is huge
    (a model output's repr, thousands of lines of numbers), its first line is cut off and
    only numbers remain. The record's exception type and message then stand in for it."""
    blocks = extract(failure_text(rec))
    if any(b.kind == "exception" for b in blocks):
        return blocks
    if rec.get("exc_type"):  # also a bare `raise AssertionError`, whose message is empty
        return [ExceptionBlock(rec["exc_type"], rec.get("message") or "", "exception")]
    return extract(rec["message"]) if rec.get("message") else blocks


def best_match(blocks: list[ExceptionBlock], matcher: Matcher, exporter: str | None = None,
               own: str | None = None, text: str | None = None) -> Match | None:
    """The entry that explains these exceptions, if any: the one the matcher ranks first,
    when it is confident or one of the entry's own patterns names the failure.

    A user's paste is answered only above the confidence threshold, which was fitted on
    the wordings users post. A recorded failure comes with its exporter (which a user's
    frames only hint at) and is classified for counting: a pattern that names its error
    is a claim the entry makes and `exportkb check` verifies, so it is taken even where
    the wording is too new for the calibrated confidence. Between tied entries the text
    cannot choose: a record of an entry's own script (`own`) goes to that entry when it is
    one of them, any other record to the first in the ranking's order."""
    ranked = matcher.rank_blocks(blocks, frozenset([exporter]) if exporter else frozenset(), text=text)
    if not ranked or not (ranked[0].tier == "confident" or ranked[0].pattern_hit):
        return None
    if own is not None and ranked[0].tie:
        return next((m for m in ranked if m.tie and m.id == own), ranked[0])
    return ranked[0]


def silent_match(rec: dict, entries) -> str | None:
    """The entry that names this record's model among the silent wrong results it explains.
    A compat record names a corpus model as "source:model" (its `source` is "corpus")."""
    source, model = rec["source"], rec["model"]
    if source == "corpus" and ":" in model:
        source, model = model.split(":", 1)
    return next((e.id for e in entries if e.explains_silently(source, model, rec["exporter"], rec.get("stage"))), None)


def classify(rec: dict, matcher: Matcher, entries: list[Entry] = ()) -> Classification | None:
    """Classify one recorded failure; None for a record that did not fail or left no text."""
    if rec.get("outcome") != "fail" or not failure_text(rec):
        return None
    blocks = failure_blocks(rec)
    text = failure_text(rec)
    own = rec.get("entry") if rec.get("source") == "entry" else None
    if own is not None and not any(e.id == own for e in matcher.entries):
        own = None  # an entry since removed from the catalogue
    best = best_match(blocks, matcher, rec.get("exporter"), own, text)
    matched, score = (best.id, best.score) if best else (None, None)
    if best is None and (silent := silent_match(rec, entries)):
        # No pattern can match a bare "disagrees with eager"; the entry names the model
        # it was diagnosed on. Score 1.0: a claim, not a similarity.
        matched, score = silent, 1.0
    # The primary exception is the one the failure's own entry names: for an entry's own
    # script that entry, else the entry the matcher ranks first.
    block = primary_block(blocks, matcher, own or (best.id if best else None), text)
    return Classification(
        matched_entry=matched, match_score=score, signature=signature(block),
        error_text=block.text.strip("\n") if block is not None else "",
        reproduces=(matcher.pattern_hits(own, blocks, text) is not None) if own else None,
    )


def observed_texts(entries: list[Entry], observations: list[dict]) -> dict[str, list[str]]:
    """Error texts seen when each entry's own failing cases ran: the ground truth."""
    pattern_only = Matcher([entry_ref(e) for e in entries])
    ids = {e.id for e in entries}
    texts: dict[str, list[str]] = {}
    for rec in observations:
        entry_id = rec.get("entry")
        if rec.get("source") != "entry" or entry_id not in ids or rec.get("outcome") != "fail":
            continue
        if not str(rec.get("case", "")).startswith("failing"):
            continue
        # Only an error one of the entry's patterns names is learned: a script that fails
        # differently on an old release (an API it uses did not exist yet) teaches nothing.
        # Every exception the patterns name, not just the first: in a chain (a DispatchError
        # under a ConversionError) the search weighs the last one named, so it must be known.
        _learn_named(pattern_only, entry_id, failure_blocks(rec), texts, failure_text(rec))
    return texts


def _learn_named(pattern_only: Matcher, entry_id: str, blocks, texts: dict[str, list[str]],
                 text: str | None = None) -> None:
    """Add to texts[entry_id] each block that one of the entry's own patterns names, once.
    `text` is the whole failure, where a pattern's context is looked for."""
    for block in blocks:
        if pattern_only.pattern_hits(entry_id, [block], text) is not None and block.text not in texts.get(entry_id, ()):
            texts.setdefault(entry_id, []).append(block.text)


def run_texts(entries: list[Entry], records: list[dict], texts: dict[str, list[str]]) -> dict[str, list[str]]:
    """Add to `texts` the errors of other real runs (loads across releases, `exportkb compat`)
    that the patterns of exactly one entry name: that entry's claim, met by a run. An error
    two entries' patterns name teaches neither: it would only blur them."""
    pattern_only = Matcher([entry_ref(e) for e in entries])
    for rec in records:
        if rec.get("outcome") != "fail":
            continue
        text = failure_text(rec)
        for block in failure_blocks(rec):
            owners = [e.id for e in entries if pattern_only.pattern_hits(e.id, [block], text) is not None]
            if len(owners) == 1 and block.text not in texts.get(owners[0], ()):
                texts.setdefault(owners[0], []).append(block.text)
    return texts


def quoted_texts(entries: list[Entry], texts: dict[str, list[str]], skip: Callable[[str], bool]) -> dict[str, list[str]]:
    """Add to `texts` the errors that unverified entries quote from reports (their stand-in
    for runs), each exception their patterns name, except quotes whose source `skip` refuses."""
    pattern_only = Matcher([entry_ref(e) for e in entries if not e.verified])
    for e in entries:
        for quote in e.quotes:
            if skip(quote.source):
                continue
            _learn_named(pattern_only, e.id, extract(quote.text), texts, quote.text)
    return texts
