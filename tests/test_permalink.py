"""Result links: what a link carries of a paste must give the answer the paste gave."""
import json
import zlib
import base64

import pytest

from kb import permalink
from kb.devset import load as load_reports
from kb.normalize import clean
from kb.observations import read_observations
from conftest import REPO


def real_texts():
    """Every real error text the project holds: the evidence base's reports (both splits:
    nothing is fitted here) and the tracebacks the entries' scripts raised."""
    texts = [r.text for r in load_reports()]
    texts += [rec["traceback"] for rec in read_observations(REPO / "observations").records
              if rec.get("source") == "entry" and rec.get("traceback")]
    return texts


def test_every_real_error_links_to_an_excerpt_that_gives_the_same_answer(repo_matcher):
    texts = real_texts()
    assert len(texts) > 500
    differ = []
    for text in texts:
        cleaned = clean(text)
        ex = permalink.excerpt(cleaned, repo_matcher.context_lines(cleaned))
        assert permalink.decode(permalink.encode(ex.text)) == ex.text
        before = [(m.id, m.tier, m.score) for m in repo_matcher.search(text).shown]
        after = [(m.id, m.tier, m.score) for m in repo_matcher.search(ex.text).shown]
        if not ex.exact or before != after:
            differ.append(text[:120])
    assert differ == []


def test_a_one_line_error_stays_readable_and_a_log_is_compressed():
    one = "AssertionError: Guard failed: x.size()[0] == 2"
    assert permalink.query(one) == "q=AssertionError%3A+Guard+failed%3A+x.size%28%29%5B0%5D+%3D%3D+2"
    assert permalink.query(one, lang="ko", shown=["static-batch-size"]).endswith("&lang=ko&e=static-batch-size")
    log = "".join(f"step {i}: loss {i * 0.1:.3f}\n" for i in range(40_000)) + one + "\n"
    q = permalink.query(clean(log))
    assert q.startswith("z=") and len(q) < 200
    assert permalink.decode(q[2:]).strip() == one  # the log's noise is not in the link


def test_the_link_stays_within_what_http_servers_accept_and_keeps_the_last_exceptions():
    # Twelve long, distinct exceptions of random-looking text: they do not compress.
    import random
    rng = random.Random(0)
    blocks = ["RuntimeError: " + " ".join("".join(rng.choices("abcdefghij", k=9)) for _ in range(400))
              for _ in range(12)]
    text = "\n\nThe above exception was the direct cause of the following exception:\n\n".join(blocks)
    ex = permalink.excerpt(text)
    assert len(permalink.encode(ex.text)) <= permalink.MAX_TOKEN_CHARS
    assert not ex.exact  # and it says so
    assert ex.text.rstrip().endswith(blocks[-1][-50:])  # the exception raised last survives


def test_one_long_exception_that_does_not_compress_is_cut_to_the_budget():
    import random
    rng = random.Random(1)
    text = "RuntimeError: " + "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(3990))
    ex = permalink.excerpt(text)
    assert len(permalink.encode(ex.text)) <= permalink.MAX_TOKEN_CHARS and ex.text and not ex.exact


@pytest.mark.parametrize("token,says", [
    ("", "empty"),
    ("not base64 !!", "damaged"),
    (permalink.encode("RuntimeError: x" * 50)[:-6], "cut short"),
    (base64.urlsafe_b64encode(b"plain bytes, not zlib").decode(), "damaged"),
    # 50 MB of zeros compress to ~50 KB: a link must not inflate into that.
    (base64.urlsafe_b64encode(zlib.compress(b"\0" * 50_000_000, 9)).decode().rstrip("="), "too long"),
    (base64.urlsafe_b64encode(zlib.compress(b"\0" * 1_000_000, 9)).decode().rstrip("="), "larger than"),
])
def test_a_damaged_link_is_a_clear_error(token, says):
    with pytest.raises(permalink.BadLink) as exc:
        permalink.decode(token)
    assert says in str(exc.value)


def test_a_link_of_non_utf8_text_round_trips_what_the_matcher_reads():
    text = "RuntimeError: caf\udce9 \u00e9t\u00e9 \u4e2d\u6587"
    assert permalink.decode(permalink.encode(text)).startswith("RuntimeError: caf")
