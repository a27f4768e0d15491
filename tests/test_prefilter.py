"""The literal prefilter never hides a pattern hit (kb/prefilter.py)."""
import json

import pytest
import re2

from kb.catalogue import load_catalogue
from kb.extract import extract
from kb.prefilter import Prefilter, required_literal
from conftest import REPO

CATALOGUE = load_catalogue(REPO / "entries")
PATTERNS = [p for e in CATALOGUE for p in e.patterns]


@pytest.mark.parametrize("pattern,literal", [
    (r"Guard failed: .*\.size\(\)\[\d+\] == \d+", "Guard failed: "),
    (r"'(?:function|method)' object has no attribute 'modules'", "' object has no attribute 'modules'"),
    (r"abc|defghij", None),                      # alternation outside a group: nothing is required
    (r"colou?r mismatch here", "r mismatch here"),  # the optional 'u' and what precedes it are not joined
    (r"x{0,3}yyyyzz", "yyyyzz"),
    (r"(?i)case insensitive text", None),
    (r"\w+ab", None),                            # too short once the class is left out
    (r"[a|b]cdef", "cdef"),
    (r"(?:^|[^)] )Tensor cannot be used", "Tensor cannot be used"),  # a ")" inside a class inside a group
    (r"[]x]yyyy", "yyyy"),
])
def test_required_literal(pattern, literal):
    assert required_literal(pattern) == literal


def recorded_blocks():
    blocks = []
    for line in (REPO / "observations" / "entries.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        text = rec.get("traceback") or rec.get("message")
        if rec.get("outcome") == "fail" and text:
            blocks.extend(b.text for b in extract(text))
    return list(dict.fromkeys(blocks))


def test_every_pattern_hit_on_a_recorded_error_survives_the_prefilter():
    options = re2.Options()
    options.log_errors = False
    compiled = [re2.compile(p, options) for p in PATTERNS]
    prefilter = Prefilter(PATTERNS)
    blocks = recorded_blocks()
    hits = 0
    for text in blocks:
        naive = {k for k, c in enumerate(compiled) if c.search(text)}
        kept = set(prefilter.candidates(text.encode("utf-8")))
        assert naive <= kept, (text[:200], [PATTERNS[k] for k in naive - kept])
        hits += len(naive)
    assert len(blocks) > 100 and hits > 100  # the check saw real errors and real hits
    assert len(prefilter.always) < len(PATTERNS) / 4  # and most patterns are behind a literal
