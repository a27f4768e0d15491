"""The one matcher: it answers a user's search and classifies collected tracebacks.

Given any text, it finds the exceptions in it (`extract`), then scores each candidate
entry from evidence of several kinds (`features`):

* declared patterns: an entry's RE2 expressions (behind a literal prefilter,
  kb/prefilter.py) hit the exception raised last, or only an earlier one (a chained
  cause). A pattern for a message that other causes raise too may have a context, an
  expression the whole text must also match (a frame's source line, say `torch.randn(`),
  without which it names nothing. Where several entries' patterns name the same
  exception, the most specific one counts for more: the pattern that matched the longest
  text, and one that names no known text of another entry;
* similarity: TF-IDF cosine between each exception's normalised head and every wording
  known for the entry (its runs on every release, its patterns' literal text, and the
  train reports labelled with it), and how far it leads the next entry's;
* the type of the exception that gave that evidence (by its last component), weighted
  by how few entries share it;
* the exporter the traceback's frames point at, against the entry's exporters;
* how much closer the text is to a train report that no entry explains;
* prose: TF-IDF cosine between the stemmed words of the exceptions and each entry's own
  explanation (title, rule, cause, fix), and how far it leads the next entry's. Wordings
  are known only for what was run or reported; the prose describes the cause in general
  words that an unseen wording of it often shares.

A logistic model turns the features into a confidence in [0, 1]. Its weights and the
two thresholds (`confident`, `possible`) are fitted on the train split only, by
kb/calibrate.py, and stored in kb/calibration.json. Above `confident` the matcher
answers; between the two it offers "possible matches", shown as such; below, nothing.
Entries at least `tie` times as likely as the best one are a tie: the text cannot tell
them apart, and the result says so instead of picking one.
"""
from __future__ import annotations

import functools
import gc
import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from .evidence import exception_type, exporter_family, internal_error_shape
from .extract import FRAME_LINE, ExceptionBlock, extract
from .normalize import clean
from .patternset import PatternSet
from .simindex import SimIndex, head, prose_tokens, text_tokens
from .textin import InputText, read_input

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")
# Exceptions considered per search: the last ones printed, distinct by wording. A paste
# of thousands of exception lines costs no more than one of a dozen.
MAX_BLOCKS = 12
# Similarity candidates per search besides every pattern hit.
MAX_SIMILAR = 12
# Candidates by prose alone: the entries whose explanation is closest to the text.
MAX_PROSE = 3
# Class entries for exporters' own bugs added when the text has that shape, closest prose first.
MAX_INTERNAL = 2
# Exception texts whose similarities a matcher remembers (a few MB at most).
SIM_CACHE = 16384
FEATURES = ("pattern", "pattern_cause", "pattern_alone", "pattern_specific", "pattern_shared", "sim", "sim_margin",
            "type_match", "type_clash", "family_agree", "family_clash", "unexplained_margin", "unexplained_close",
            "prose", "prose_lead", "internal", "internal_other", "internal_explained")
# The tag by which an entry says it explains exporters' own bugs as a class; such an
# entry is a candidate whenever a failure has that shape (evidence.internal_error_shape).
INTERNAL_TAG = "internal-error"


def pattern_literal(pattern: str) -> str:
    """Readable text of a regex, as a similarity document: `\\d+` becomes a number, etc."""
    text = re.sub(r"\\d[+*]?|\[\\d\][+*]?", "0", pattern)
    text = re.sub(r"\\[sSwW][+*?]?|\.\*\??|\.\+\??|\[\^?[^\]]*\][+*?]?|\(\?[:i]|[()|^$?*+{}]", " ", text)
    return text.replace("\\", "")


@dataclass(frozen=True)
class Calibration:
    weights: dict[str, float]
    bias: float
    confident: float  # at or above: the matcher answers
    possible: float  # at or above (and below confident): offered as a possible match
    tie: float  # an entry at least this fraction as likely as the best one ties with it
    fitted_on: str = "hand-set defaults"

    @classmethod
    def load(cls, path: Path = CALIBRATION_FILE) -> "Calibration":
        if not path.exists():
            return DEFAULT_CALIBRATION
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(dict(data["weights"]), float(data["bias"]), float(data["confident"]),
                   float(data["possible"]), float(data["tie"]), str(data.get("fitted_on", path.name)))

    def confidence(self, feats: dict[str, float]) -> float:
        z = self.bias + sum(self.weights.get(k, 0.0) * v for k, v in feats.items())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


# Used only until kb/calibration.json exists (a fresh `python -m kb.calibrate` writes it).
DEFAULT_CALIBRATION = Calibration(
    weights={"pattern": 4.0, "pattern_cause": 2.0, "sim": 5.0, "sim_margin": 2.0, "type_match": 1.0,
             "type_clash": -1.0, "family_agree": 0.5, "family_clash": -1.5, "unexplained_margin": -3.0},
    bias=-4.0, confident=0.5, possible=0.15, tie=0.75,
)


def prose_of(title: str, rule: str, cause: str, fix: str) -> str:
    """An entry's explanation as the prose channel reads it (from the catalogue or kb.db alike)."""
    return "\n".join((title, rule, cause, fix))


@dataclass(frozen=True)
class EntryRef:
    """What the matcher needs of an entry; built from the catalogue or from kb.db."""
    id: str
    title: str
    exporters: tuple[str, ...]
    patterns: tuple[str, ...]
    prose: str = ""  # title, rule, cause and fix: the entry's explanation in words
    tags: tuple[str, ...] = ()
    # (pattern, context): a pattern whose message other causes raise too names this entry
    # only when the whole text, frames included, also matches the context expression.
    contexts: tuple[tuple[str, str], ...] = ()


@dataclass
class Match:
    id: str
    title: str
    score: float  # the calibrated confidence, rounded
    exporters: tuple[str, ...]
    pattern_hit: bool
    similarity: float
    evidence: str  # the exception text that gave the best evidence
    tier: str = "confident"  # "confident", "possible" or "unlikely"
    tie: bool = False  # as likely as the best match: the text cannot tell them apart
    features: dict[str, float] = field(default_factory=dict)

    @property
    def confidence(self) -> float:
        return self.score


@dataclass
class SearchResult:
    ranked: list[Match]  # every entry with any evidence, best first
    exceptions: list[ExceptionBlock]
    notes: list[str] = field(default_factory=list)

    @property
    def confident(self) -> list[Match]:
        return [m for m in self.ranked if m.tier == "confident"]

    @property
    def possible(self) -> list[Match]:
        return [m for m in self.ranked if m.tier == "possible"]

    @property
    def best(self) -> Match | None:
        matches = self.confident
        return matches[0] if matches else None

    @property
    def shown(self) -> list[Match]:
        """What a user sees: the confident matches, then the possible ones below them."""
        return self.confident + self.possible


def bounded_blocks(blocks: Sequence[ExceptionBlock]) -> list[ExceptionBlock]:
    """The last MAX_BLOCKS exceptions of distinct wording, in printed order."""
    if len(blocks) <= MAX_BLOCKS:
        return list(blocks)
    kept: list[ExceptionBlock] = []
    seen: set[str] = set()
    for b in reversed(blocks):
        key = b.text[:300]
        if key not in seen:
            seen.add(key)
            kept.append(b)
            if len(kept) == MAX_BLOCKS:
                break
    return kept[::-1]


class Matcher:
    def __init__(self, entries: Sequence[EntryRef], observed: dict[str, list[str]] | None = None,
                 unexplained: Sequence[str] = (), calibration: Calibration | None = None):
        """`observed` maps entry id to error texts known for it (cleaned, not normalised);
        `unexplained` holds error texts of train reports that no entry explains."""
        self.entries = list(entries)
        self.calibration = calibration or Calibration.load()
        self._by_id = {e.id: e for e in self.entries}
        self._internal = [e.id for e in self.entries if INTERNAL_TAG in e.tags]
        # Every entry's patterns, behind one literal prefilter: a block runs only the
        # patterns whose required text it holds, whatever the catalogue's size.
        self._patterns = PatternSet(self.entries)
        owners: list[str] = []
        docs: list[list[str]] = []
        self._types: dict[str, set[str]] = {e.id: set() for e in self.entries}
        shared: set[int] = set()
        for e in self.entries:
            texts = [pattern_literal(p) for p in e.patterns] + list((observed or {}).get(e.id, ()))
            for t in dict.fromkeys(texts):  # de-duplicate, keep order
                toks = text_tokens(t)
                if toks:
                    owners.append(e.id)
                    docs.append(toks)
            for t in dict.fromkeys((observed or {}).get(e.id, ())):
                blocks = extract(t, already_clean=True)
                raised = [i for i, b in enumerate(blocks) if b.kind == "exception"]
                if raised:
                    self._types[e.id].add(exception_type(blocks[raised[-1]].type))
                # A pattern found shared already needs no more tries, unless it is this
                # entry's own (the types): with the catalogue a hundred times over, each
                # text is named by a hundred copies of a pattern.
                for k, i, _ in self._patterns.naming(blocks, t, skip=shared, keep=self._patterns.of(e.id)):
                    if self._patterns.owners[k] != e.id:
                        # A pattern that also names a known text of another entry: wording
                        # more than one cause produces, weaker evidence than a pattern only
                        # its own entry's runs and reports are known to raise.
                        shared.add(k)
                    elif i in raised[:-1]:
                        # The type of an exception the entry's patterns name counts too: a
                        # wrapper raised around it (ONNX's exporter error around a
                        # ConversionError) is what the text ends with, but the named
                        # exception is where the evidence is.
                        self._types[e.id].add(exception_type(blocks[i].type))
        self._shared = frozenset(shared)
        for t in dict.fromkeys(unexplained):
            toks = text_tokens(t)
            if toks:
                owners.append("")  # "" owns the texts no entry explains
                docs.append(toks)
        self._index = SimIndex(owners, docs)
        prose = [(e.id, prose_tokens(e.prose)) for e in self.entries if e.prose]
        self._prose = SimIndex([eid for eid, _ in prose], [toks for _, toks in prose])
        type_df = Counter(t for types in self._types.values() for t in types)
        n = max(len(self.entries), 2)
        # How telling a type is: 1 for a type one entry raises, near 0 for RuntimeError.
        self._type_weight = {t: math.log(n / c) / math.log(n) for t, c in type_df.items()}
        # The index is many small long-lived objects; left to the cyclic collector, each
        # full collection walks all of them in the middle of some later search.
        gc.freeze()
        # The same exception text comes back many times (a build classifies thousands of
        # records that share a few thousand wordings; users paste the same errors), and
        # its similarities depend on nothing else: remember the most recent ones.
        self._block_sims = functools.lru_cache(maxsize=SIM_CACHE)(self._sims_of)

    def _sims_of(self, block_text: str) -> dict[str, float]:
        """Owner -> best cosine of one exception's text against the observed texts (read-only)."""
        return self._index.best(text_tokens(block_text))

    # -- evidence -----------------------------------------------------------------
    def pattern_hits(self, entry_id: str, blocks: Sequence[ExceptionBlock], text: str | None = None) -> ExceptionBlock | None:
        """The first block one of the entry's patterns names. `text` is the whole text the
        blocks came from, where a pattern's context is looked for (default: the blocks)."""
        return self._patterns.first_named(entry_id, blocks, text)

    def _hits(self, blocks: Sequence[ExceptionBlock], text: str | None):
        """Entry id -> index of the last block one of its patterns names; for each (entry,
        block) named, the length of the longest text its patterns matched there; and the
        (entry, block) pairs named by a pattern that is not shared (see __init__)."""
        hits: dict[str, int] = {}
        spans: dict[tuple[str, int], int] = {}
        own: set[tuple[str, int]] = set()  # (entry, block) named by a pattern no other entry's text has
        for k, i, length in self._patterns.naming(blocks, text):
            owner = self._patterns.owners[k]
            hits[owner] = i
            spans[owner, i] = max(spans.get((owner, i), 0), length)
            if k not in self._shared:
                own.add((owner, i))
        return hits, spans, own

    def features(self, blocks: Sequence[ExceptionBlock], family: frozenset[str] = frozenset(),
                 internal: float = 0.0, text: str | None = None) -> dict[str, tuple[dict[str, float], ExceptionBlock]]:
        """Each candidate entry's evidence, and the exception that gave the most of it.
        `internal` is the text's evidence.internal_error_shape; `text` the whole text the
        blocks came from (pattern_hits)."""
        blocks = bounded_blocks(blocks)
        if not blocks:
            return {}
        raised_i = max((i for i, b in enumerate(blocks) if b.kind == "exception"), default=len(blocks) - 1)
        hits, spans, own = self._hits(blocks, text)
        raised_named = raised_i in hits.values()
        named_by = Counter(hits.values())  # block index -> how many entries' patterns name it
        longest: dict[int, list[int]] = {}  # block index -> its two longest spans, longest first
        for (_, i), n in spans.items():
            longest[i] = sorted([*longest.get(i, []), n], reverse=True)[:2]
        specific_hit = any(owner not in self._internal for owner in hits)
        sims: dict[str, tuple[float, int]] = {}
        for i, block in enumerate(blocks):
            for owner, s in self._block_sims(block.text).items():
                if s > sims.get(owner, (0.0, 0))[0]:
                    sims[owner] = (s, i)
        unexplained = sims.pop("", (0.0, 0))[0]
        by_sim = sorted(sims, key=lambda o: -sims[o][0])
        prose = self._prose.best(prose_tokens("\n".join(head(b.text) for b in blocks)))
        by_prose = sorted(prose, key=lambda o: (-prose[o], o))
        internal_ids = sorted(self._internal, key=lambda o: (-prose.get(o, 0.0), o))[:MAX_INTERNAL] if internal else []
        candidates = dict.fromkeys([*hits, *by_sim[:MAX_SIMILAR], *by_prose[:MAX_PROSE], *internal_ids])
        out: dict[str, tuple[dict[str, float], ExceptionBlock]] = {}
        for eid in candidates:
            sim, sim_i = sims.get(eid, (0.0, raised_i))
            others = max((sims[o][0] for o in by_sim[:2] if o != eid), default=0.0)
            hit_i = hits.get(eid)
            evidence_i = hit_i if hit_i is not None else sim_i
            # The type of the exception that gave the evidence: a wrapper raised around it
            # (ONNX's ConversionError around an AssertionError) says nothing against it.
            etype = exception_type(blocks[evidence_i].type)
            types = self._types.get(eid, set())
            exporters = set(self._by_id[eid].exporters)
            feats = {
                # A pattern that names an earlier exception (a chained cause under a wrapper)
                # is as good as one naming the raised exception, unless another entry's
                # pattern names the raised one: then it is only the cause's explanation.
                "pattern": float(hit_i is not None and (hit_i == raised_i or not raised_named)),
                "pattern_cause": float(hit_i is not None and hit_i != raised_i and raised_named),
                # no other entry's pattern names the same exception
                "pattern_alone": float(hit_i is not None and named_by[hit_i] == 1),
                # Several entries' patterns name the exception and this one's matched the
                # longest text: the most specific rule. On train, where the label was one of
                # several entries named, its match was the longest alone 12 times, tied 7,
                # shorter 2 (a general "Could not guard on data-dependent expression"
                # against the branch entry's "... expression Eq(u0, 1)").
                "pattern_specific": float(hit_i is not None and named_by[hit_i] > 1
                                          and spans[eid, hit_i] == longest[hit_i][0] > longest[hit_i][1]),
                # Every pattern of the entry that names the exception also names a known
                # text of another entry (a wording several causes produce), while another
                # entry names it with a pattern of its own. On train, where two entries
                # named the same exception that way, the second was the label 9 times in 10.
                "pattern_shared": float(hit_i is not None and (eid, hit_i) not in own
                                        and any(i == hit_i for _, i in own)),
                "sim": sim,
                "sim_margin": sim - others,
                "type_match": self._type_weight.get(etype, 0.0) if etype in types else 0.0,
                "type_clash": float(bool(etype) and bool(types) and etype not in types),
                "family_agree": float(bool(family & exporters)),
                "family_clash": float(bool(family) and not family & exporters),
                "unexplained_margin": max(0.0, unexplained - sim),
                # As close to a report no entry explains as to the entry: the wording is
                # shared by a cause the catalogue lacks (a generic message such as a device
                # mismatch), so even an exact wording match is weaker evidence.
                "unexplained_close": float(unexplained >= 0.8 * sim > 0),
                "prose": prose.get(eid, 0.0),
                "prose_lead": prose.get(eid, 0.0) - max((prose[o] for o in by_prose[:2] if o != eid), default=0.0),
                # An exporter's own bug: evidence for the class entry, and against the
                # others, whose causes are things a user's model does.
                "internal": internal if eid in self._internal else 0.0,
                "internal_other": 0.0 if eid in self._internal else internal,
                # The class entry is for internal errors no entry explains: another entry's
                # pattern naming the failure says it is a known bug with its own entry.
                "internal_explained": float(eid in self._internal and specific_hit),
            }
            out[eid] = (feats, blocks[evidence_i])
        return out

    # -- public API ---------------------------------------------------------------
    def rank_blocks(self, blocks: Sequence[ExceptionBlock], family: frozenset[str] = frozenset(),
                    internal: float = 0.0, text: str | None = None) -> list[Match]:
        cal = self.calibration
        ranked = []
        for eid, (feats, block) in self.features(blocks, family, internal, text).items():
            e = self._by_id[eid]
            conf = round(cal.confidence(feats), 4)
            ranked.append(Match(eid, e.title, conf, e.exporters, feats["pattern"] + feats["pattern_cause"] > 0,
                                round(feats["sim"], 4), block.text, features=feats))
        ranked.sort(key=lambda m: (-m.score, m.id))
        for m in ranked:
            m.tier = "confident" if m.score >= cal.confident else "possible" if m.score >= cal.possible else "unlikely"
        # A tie: entries at least `tie` times as likely as the best one. The text cannot
        # order them, so they are shown together, in the best one's tier.
        if ranked and ranked[0].tier != "unlikely":
            group = [m for m in ranked if m.score >= cal.tie * ranked[0].score and m.score >= cal.possible]
            if len(group) > 1:
                for m in group:
                    m.tie, m.tier = True, ranked[0].tier
        return ranked

    def context_lines(self, text: str) -> list[str]:
        """For each pattern context the text matches in a traceback's source line, that frame
        and its source line: what a shortened copy of the text (kb/permalink.py) must keep
        to be read the same. A context found only inside an exception's message needs
        nothing more: the copy keeps the exceptions."""
        found = []
        matched = [c for c in self._patterns.contexts if c.search(text) is not None]
        lines = text.split("\n") if matched else []
        for context in matched:
            for prev, line in zip(lines, lines[1:]):
                if context.search(line) and FRAME_LINE.match(prev):
                    found.append(f"{prev.strip()}\n    {line.strip()}")
                    break
        return found

    def search(self, data: bytes | str | InputText) -> SearchResult:
        """Rank entries for any pasted text. Raises textin.EmptyInput on empty input."""
        inp = data if isinstance(data, InputText) else read_input(data)
        text = clean(inp.text)
        blocks = extract(text, already_clean=True)
        return SearchResult(self.rank_blocks(blocks, exporter_family(text), text_internal(text, blocks), text),
                            blocks, list(inp.notes))


def text_internal(text: str, blocks: Sequence[ExceptionBlock]) -> float:
    """evidence.internal_error_shape of a cleaned text, with the type of its last exception."""
    raised = [b for b in blocks if b.kind == "exception"]
    return internal_error_shape(text, raised[-1].type if raised else "")
