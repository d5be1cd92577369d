"""End to end in a real headless Chromium (issue #55, item 2): a review waiting behind others
says how many are before it, in the page's language, singular and plural.

One review process computes one review at a time (a slow one here: many worlds a decision and
no bound on its work); three other client addresses (X-Forwarded-For from the test, which the
server believes from 127.0.0.1 only) ask first; the browser's two pages then wait second and
third.  At 1366×768 in Spanish and 390×844 in Brazilian Portuguese.  Screenshots go to
``CANASTA_E2E_SHOTS`` if set, else to the test's temporary directory.  Skipped when Chromium or
Playwright is missing, unless ``CANASTA_E2E_REQUIRED=1``."""

from __future__ import annotations

from pathlib import Path

import pytest

from chromium import open_table, page_errors, skip_unless_ready

WAIT_MS = 120_000  # the longest any one awaited event may take on a busy machine (not a pause)
BOTS = [{}, {"kind": "bot", "level": "basic"}, {"kind": "bot", "level": "basic"}, {"kind": "bot", "level": "basic"}]

skip_unless_ready()

from playwright.sync_api import Browser, Page  # noqa: E402

from canasta.web.devserver import ServerProcess  # noqa: E402
from test_web_e2e_room import play_match_over_a_socket  # noqa: E402

SAID = {"es": ("En espera: hay 1 análisis antes de este en la cola",
               "En espera: hay 2 análisis antes de este en la cola"),
        "pt_BR": ("Na fila: há 1 análise antes desta", "Na fila: há 2 análises antes desta")}


def new_page(browser: Browser, width: int, height: int, lang: str) -> tuple[Page, list[str]]:
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.add_init_script(f"if (!localStorage.getItem('canasta:lang')) localStorage.setItem('canasta:lang', '{lang}')")
    return page, page_errors(page)


@pytest.mark.parametrize(("width", "height", "lang"), [(1366, 768, "es"), (390, 844, "pt_BR")])
def test_a_waiting_review_says_how_many_are_before_it(browser: Browser, tmp_path: Path, shots: Path,
                                                      width: int, height: int, lang: str) -> None:
    import httpx2 as httpx

    server = ServerProcess(str(tmp_path / "queue.db"), args=[
        "--bot-delay", "0", "--allow-fixed-seeds", "--review-workers", "1", "--review-worlds", "3000",
        "--review-work", "10000000", "--forwarded-allow-ips", "127.0.0.1"]).start()
    try:
        page, errors = new_page(browser, width, height, lang)
        table = open_table(page, server.url, {"preset": "classic-4p", "name": "Ann", "seat": 0, "seed": 11,
                                              "target": 100, "seats": BOTS, "review_others": True})
        token = page.evaluate(f"() => JSON.parse(localStorage.getItem('canasta:{table}')).token")
        page.goto(server.url + "/")
        play_match_over_a_socket(server, table, token)

        def ask(client: str, seat: int) -> dict[str, object]:
            r = httpx.post(f"{server.url}/api/tables/{table}/review", json={"hand": 1, "seat": seat},
                           headers={"x-forwarded-for": client}, timeout=30)
            assert r.status_code == 200, r.text
            return dict(r.json())

        assert ask("10.0.0.1", 0)["status"] == "running"  # computed now, for a long while
        assert ask("10.0.0.2", 1)["position"] == 1
        page.goto(f"{server.url}/review/{table}?hand=1&seat=2")  # second in the queue
        page.wait_for_selector("body[data-review=waiting][data-position='2']", timeout=WAIT_MS)
        other, other_errors = new_page(browser, width, height, lang)
        other.goto(f"{server.url}/review/{table}?hand=1&seat=3")  # third
        other.wait_for_selector("body[data-review=waiting][data-position='3']", timeout=WAIT_MS)
        one, two = SAID[lang]
        assert page.inner_text("#progress-text") == one and other.inner_text("#progress-text") == two
        for p in (page, other):
            assert p.is_visible("#progress-text")
            box = p.locator("#progress-text").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width and box["y"] < height
            assert p.evaluate("() => document.documentElement.scrollWidth") <= width
        other.screenshot(path=str(shots / f"review-third-in-queue-{lang}-{width}x{height}.png"))
        assert not errors and not other_errors, errors + other_errors
    finally:
        server.stop()
