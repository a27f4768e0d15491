"""A real browser against a real `exportkb serve`: paste the tutorial error, get the entry, follow the docs link."""
import pytest

from browser import chromium_page, needs_chromium, serving
from conftest import REPO

ARTIFACTS = REPO / "build" / "artifacts"
TUTORIAL_ERROR = """Traceback (most recent call last):
  File "mvit_export.py", line 24, in <module>
    exported_program.module()(input_frames)
  File "/opt/conda/lib/python3.11/site-packages/torch/__init__.py", line 2279, in _assert
    raise AssertionError(message)
AssertionError: Guard failed: x.size()[0] == 2"""


@needs_chromium
def test_paste_search_and_follow_docs_link():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with serving() as url, chromium_page() as page:
        page.goto(url)
        page.fill("#error-box", TUTORIAL_ERROR)
        page.click("#search-button")
        page.wait_for_selector(".exportkb-result")
        first = page.locator(".exportkb-result").first
        assert first.get_attribute("data-entry") == "static-batch-size"
        assert "batch size" in first.locator("h2").inner_text()
        page.screenshot(path=str(ARTIFACTS / "ui-search-result.png"), full_page=True)
        with page.expect_navigation():
            first.locator("a.docs-link").click()
        # The docs page, or (when the site has not been built) the entry page standing in for it.
        assert page.url.endswith(("/docs/en/entries/static-batch-size.html", "/entry/static-batch-size?lang=en"))
        assert "batch size" in page.locator("h1").first.inner_text()
        assert "Guard failed" in page.content()
        page.screenshot(path=str(ARTIFACTS / "ui-docs-entry.png"), full_page=True)
