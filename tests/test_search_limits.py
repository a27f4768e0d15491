"""The whole search path (read, clean, extract, normalise, rank) on hostile input."""
import time

import pytest

from adversarial import ADVERSARIAL


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_search_on_a_1mb_adversarial_line_finishes_well_under_a_second(repo_matcher, name):
    start = time.perf_counter()
    result = repo_matcher.search(ADVERSARIAL[name])
    assert time.perf_counter() - start < 1.0
    assert result.best is None


def test_html_and_script_in_the_input_come_back_as_plain_text(repo_matcher):
    text = "AssertionError: Guard failed: x.size()[0] == 2 <script>alert(1)</script>"
    best = repo_matcher.search(text).best
    assert best.id == "static-batch-size"
    assert "<script>alert(1)</script>" in best.evidence  # kept verbatim; escaping is the renderer's job
