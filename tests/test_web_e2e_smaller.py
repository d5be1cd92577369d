"""End to end in a real headless Chromium: the smaller things of issue #55, item 7.

* The hand is one Tab press (and Enter) from the top of the table page: the first Tab stop is
  "Skip to your hand"; ``J`` takes the focus there from anywhere.
* While the server is away every button that would send something is disabled and the line
  under the buttons says why; once it is back they work again.
* The review calls the expert's other choice "better" only when its gain stands clear of the
  noise of the sampled deals; else "also possible", and the figures say it is within the noise.
* The replay viewer shows the table (the pile and both sides' melds) above the fold.

At 1366×768 and 390×844.  Screenshots go to ``CANASTA_E2E_SHOTS`` (a directory) if set, else to
the test's temporary directory.  Skipped when Chromium or Playwright is missing, unless
``CANASTA_E2E_REQUIRED=1``."""

from __future__ import annotations

from pathlib import Path

import pytest

from chromium import open_table, page_errors, skip_unless_ready

WAIT_MS = 120_000  # the longest any one awaited event may take on a busy machine (not a pause)
TWO_BOTS = [{}, {"kind": "bot", "level": "basic"}]
SIZES = [(1366, 768), (390, 844)]

skip_unless_ready()

from playwright.sync_api import Browser, Page  # noqa: E402

from canasta.web.devserver import ServerProcess  # noqa: E402
from test_web_e2e_room import play_match_over_a_socket  # noqa: E402


def new_page(browser: Browser, width: int, height: int, lang: str = "en") -> tuple[Page, list[str]]:
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.add_init_script(f"if (!localStorage.getItem('canasta:lang')) localStorage.setItem('canasta:lang', '{lang}')")
    return page, page_errors(page)


def in_hand(page: Page) -> bool:
    return bool(page.evaluate("() => !!(document.activeElement && document.activeElement.closest('#hand .card'))"))


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_hand_is_one_tab_stop_from_the_top(browser: Browser, tmp_path: Path, shots: Path, width: int,
                                               height: int) -> None:
    server = ServerProcess(str(tmp_path / "skip.db"), args=["--bot-delay", "0", "--allow-fixed-seeds"]).start()
    try:
        page, errors = new_page(browser, width, height)
        open_table(page, server.url, {"preset": "classic-2p", "name": "Ann", "seat": 0, "seed": 11,
                                      "seats": TWO_BOTS})
        page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
        page.keyboard.press("Tab")  # the first stop of the page
        assert page.evaluate("() => document.activeElement.id") == "skip-hand"
        box = page.locator("#skip-hand").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width and 0 <= box["y"] < height
        assert page.inner_text("#skip-hand") == "Skip to your hand"
        page.screenshot(path=str(shots / f"skip-link-{width}x{height}.png"))
        page.keyboard.press("Enter")
        assert in_hand(page)
        # from anywhere else, J
        page.focus("#btn-keys" if width > 760 else "#btn-menu")
        assert not in_hand(page)
        page.keyboard.press("j")
        assert in_hand(page)
        assert not errors, errors
    finally:
        server.stop()


@pytest.mark.parametrize(("width", "height", "lang"), [(1366, 768, "en"), (390, 844, "it")])
def test_while_the_server_is_away_the_buttons_are_disabled_and_say_why(
        browser: Browser, tmp_path: Path, shots: Path, width: int, height: int, lang: str) -> None:
    db = str(tmp_path / "away.db")
    args = ["--bot-delay", "0", "--allow-fixed-seeds"]
    server = ServerProcess(db, args=args).start()
    try:
        page, errors = new_page(browser, width, height, lang)
        open_table(page, server.url, {"preset": "classic-2p", "name": "Ann", "seat": 0, "seed": 11,
                                      "seats": TWO_BOTS})
        page.wait_for_selector("#btn-draw:enabled", timeout=WAIT_MS)  # Ann's turn: she may draw
        server.stop()  # the server goes away (killed)
        page.wait_for_selector("body[data-away=true]", timeout=WAIT_MS)
        shown = page.locator("#buttons button:visible")
        assert shown.count() > 3
        assert all(shown.nth(i).is_disabled() for i in range(shown.count()))
        away = {"en": "The server is away", "it": "Il server non risponde"}[lang]
        assert page.inner_text("#reason").startswith(away), page.inner_text("#reason")
        assert page.get_attribute("#btn-draw", "title") == {"en": "the server is away: reconnecting…",
                                                            "it": "il server non risponde: riconnessione…"}[lang]
        page.keyboard.press("d")  # a key does nothing either
        assert page.is_disabled("#btn-draw")
        page.screenshot(path=str(shots / f"server-away-{lang}-{width}x{height}.png"))
        server = ServerProcess(db, port=server.port, args=args).start()  # back, on the same address
        page.wait_for_selector("body[data-away=false]", timeout=WAIT_MS)
        page.wait_for_selector("#btn-draw:enabled", timeout=WAIT_MS)
        assert page.inner_text("#reason") == ""
        page.click("#btn-draw")
        page.wait_for_selector("#btn-discard", timeout=WAIT_MS)
        page.wait_for_function("() => document.querySelector('#btn-draw').disabled", timeout=WAIT_MS)
        assert not errors, errors
    finally:
        server.stop()


def test_the_review_says_better_only_beyond_the_noise_and_the_replay_shows_the_table_above_the_fold(
        browser: Browser, tmp_path: Path, shots: Path) -> None:
    server = ServerProcess(str(tmp_path / "noise.db"), args=[
        "--bot-delay", "0", "--allow-fixed-seeds", "--review-worlds", "4"]).start()
    try:
        page, errors = new_page(browser, 1366, 768)
        table = open_table(page, server.url, {"preset": "classic-2p", "name": "Ann", "seat": 0, "seed": 11,
                                              "target": 100, "seats": TWO_BOTS})
        token = page.evaluate(f"() => JSON.parse(localStorage.getItem('canasta:{table}')).token")
        page.goto(server.url + "/")
        play_match_over_a_socket(server, table, token)
        page.goto(f"{server.url}/review/{table}?hand=1&seat=0")
        page.wait_for_selector("body[data-review=done]", timeout=WAIT_MS)
        decisions = page.locator("#timeline button.decision")
        assert decisions.count() > 0
        seen = {"true": 0, "false": 0}
        for i in range(decisions.count()):
            index = decisions.nth(i).evaluate("b => b.parentElement.dataset.index")
            decisions.nth(i).click()
            page.wait_for_selector(f"body[data-position='{index}']", timeout=WAIT_MS)
            if not page.is_visible("#pos-best-line"):
                continue  # no other choice worth comparing
            better = page.evaluate("() => document.body.dataset.better")
            label, loss = page.inner_text("#pos-best-label"), page.inner_text("#pos-loss")
            if better == "true":
                assert label == "Better" and "the better choice is worth" in loss, (label, loss)
                assert page.locator("#pos-best-line.best").count() == 1
            else:
                assert label == "Also possible" and "within the noise" in loss and "no better" in loss, loss
                assert page.locator("#pos-best-line.best").count() == 0
                assert page.locator("#pos-hand .card.best").count() == 0  # no card marked as the better play
                if not seen["false"]:
                    page.screenshot(path=str(shots / "review-within-noise-1366x768.png"))
            seen[better] += 1
        assert seen["false"] > 0, seen  # this seeded hand has decisions whose gain is within the noise
        # the replay: the table in sight without scrolling, on a laptop and a phone
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{server.url}/replay/{table}")
            page.wait_for_selector("#sides .panel", timeout=WAIT_MS)
            page.click("#last")
            for sel in ("#replay-centre", "#pile-info", "#sides .panel >> nth=0"):
                box = page.locator(sel).bounding_box()
                assert box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 40) <= height, (sel, box)
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(shots / f"replay-{width}x{height}.png"))
        assert not errors, errors
    finally:
        server.stop()


@pytest.mark.parametrize(("width", "height", "lang"), [(1366, 768, "en"), (390, 844, "it")])
def test_a_review_that_waits_shows_its_place_in_the_queue(browser: Browser, tmp_path: Path, shots: Path,
                                                           width: int, height: int, lang: str) -> None:
    """Item 2: one review process computes one review at a time (here a slow one: many worlds a
    decision); the next review asked waits, and its page says where it is in the queue."""
    server = ServerProcess(str(tmp_path / "queue.db"), args=[
        "--bot-delay", "0", "--allow-fixed-seeds", "--review-workers", "1", "--review-worlds", "300"]).start()
    try:
        page, errors = new_page(browser, width, height, lang)
        table = open_table(page, server.url, {"preset": "classic-2p", "name": "Ann", "seat": 0, "seed": 11,
                                              "target": 100, "seats": TWO_BOTS, "review_others": True})
        token = page.evaluate(f"() => JSON.parse(localStorage.getItem('canasta:{table}')).token")
        page.goto(server.url + "/")
        play_match_over_a_socket(server, table, token)
        page.goto(f"{server.url}/review/{table}?hand=1&seat=0")
        page.wait_for_selector("body[data-review=running]", timeout=WAIT_MS)
        other, other_errors = new_page(browser, width, height, lang)
        other.goto(f"{server.url}/review/{table}?hand=1&seat=1")  # a spectator's review of the other seat
        other.wait_for_selector("body[data-review=waiting][data-position='1']", timeout=WAIT_MS)
        said = {"en": "Waiting: this review is next in the queue",
                "it": "In attesa: questa analisi è la prossima in coda"}[lang]
        assert other.inner_text("#progress-text") == said and other.is_visible("#progress-box")
        assert other.evaluate("() => document.documentElement.scrollWidth") <= width
        other.screenshot(path=str(shots / f"review-queued-{lang}-{width}x{height}.png"))
        assert not errors and not other_errors, errors + other_errors
    finally:
        server.stop()
