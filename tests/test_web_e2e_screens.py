"""End to end in a real headless Chromium: the pictures of ``docs/web.md``, made from seeded
tables and checked while they are taken.  Each table is played over a websocket (seat 0 by a
basic bot's choices from its own view, the others by the server's basic bots) to a chosen
moment, where it waits for the person; then it is opened at a desktop size and on a phone,
in English and in Italian.

``CANASTA_E2E_SHOTS=DIR pytest tests/test_web_e2e_screens.py`` writes them under their
names in ``docs/img`` (``table-classic-desktop.png`` ...) to DIR; without it, to the test's
temporary directory.  Skipped when Chromium or Playwright is missing, unless
``CANASTA_E2E_REQUIRED=1``, which makes it fail instead."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from chromium import skip_unless_ready

WAIT_MS = 30_000


skip_unless_ready()

from playwright.sync_api import Browser, Page  # noqa: E402

from canasta.web.devserver import ServerProcess  # noqa: E402
from test_web_e2e_layout import (  # noqa: E402
    HOARD_SEED,
    IN_SIGHT,
    LONG_HAND_SEED,
    REGIONS,
    last_turn,
    make_table,
    open_as,
    play_person,
    server,  # noqa: F401  (the module's fixture)
    settled,
)
from test_web_e2e_room import play_match_over_a_socket  # noqa: E402

DESKTOP = (1280, 800)
PHONE = (390, 844)


def melds_each(n: int) -> Any:
    """A moment when every side has laid ``n`` melds or more."""
    return lambda view: all(len(side) >= n for side in view["melds"])


def take(page: Page, path: Path, errors: list[str]) -> None:
    """The picture, once everything the page shows is in sight (and no script failed)."""
    problems = page.evaluate(IN_SIGHT, REGIONS)
    assert not problems, problems
    assert not errors, errors
    page.screenshot(path=str(path))


def test_classic_canasta_at_a_desktop_and_on_a_phone(browser: Browser, server: ServerProcess, shots: Path  # noqa: F811
                                                     ) -> None:
    table = make_table(server, {"preset": "classic-4p", "seed": 5})
    play_person(server, table, until=melds_each(2))
    page, errors = open_as(browser, server.url, table, "en", *DESKTOP)
    settled(page)
    assert page.locator("#sides-us .meld").count() >= 2 and page.locator("#sides-them .meld").count() >= 2
    page.click("#sort-box button[data-sort=meld]")  # the hand sorted for melding
    page.wait_for_function("() => (document.body.dataset.orderSaved || '').startsWith('meld:')", timeout=WAIT_MS)
    page.click("#phrase-menu summary")
    page.click("#phrases button[data-phrase=luck]")
    page.fill("#chat-text", "nice start, partner")
    page.press("#chat-text", "Enter")
    page.wait_for_function("() => document.querySelectorAll('#chat-log li').length === 2", timeout=WAIT_MS)
    page.locator("#hand .card[tabindex='0']").focus()
    page.keyboard.press("ArrowRight")  # the keyboard's focus, outlined
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")  # selected: the buttons say what may be done with it
    page.wait_for_function("() => document.body.dataset.checked === document.body.dataset.checking", timeout=WAIT_MS)
    take(page, shots / "table-classic-desktop.png", errors)
    page.context.close()

    for lang, name in (("en", "table-classic-phone.png"), ("it", "table-italiano-phone.png")):
        phone, errors = open_as(browser, server.url, table, lang, *PHONE)
        settled(phone)
        take(phone, shots / name, errors)
        phone.context.close()


def test_italian_canasta_in_english_and_in_italian(browser: Browser, server: ServerProcess, shots: Path  # noqa: F811
                                                   ) -> None:
    table = make_table(server, {"preset": "italian-4p", "seed": LONG_HAND_SEED})
    play_person(server, table, until=lambda view: sum(len(c) for c in view["closed"]) >= 2)
    for lang, size, name in (("en", DESKTOP, "table-italian-desktop.png"), ("it", DESKTOP, "table-italiano-desktop.png"),
                             ("en", PHONE, "table-italian-phone.png")):
        page, errors = open_as(browser, server.url, table, lang, *size)
        settled(page)
        assert page.locator(".meld.closed").count() >= 2
        take(page, shots / name, errors)
        page.context.close()


def test_the_end_of_a_hand_and_of_a_match(browser: Browser, server: ServerProcess, shots: Path) -> None:  # noqa: F811
    table = make_table(server, {"preset": "classic-4p", "seed": 5})
    play_person(server, table)  # to the hand's end
    page, errors = open_as(browser, server.url, table, "en", *DESKTOP)
    page.wait_for_selector("#sheet-modal:visible", timeout=WAIT_MS)  # the score sheet opens by itself
    assert "Hand total" in page.inner_text("#sheet")
    page.screenshot(path=str(shots / "table-score-sheet-desktop.png"))
    page.click("#btn-sheet-close")  # "Look at the table": the banner deals the next hand
    page.wait_for_selector("#banner:visible")
    page.wait_for_function("() => !document.querySelector('#fly .card')", timeout=WAIT_MS)
    assert not errors, errors
    page.screenshot(path=str(shots / "table-hand-over-desktop.png"))
    page.context.close()

    match = make_table(server, {"preset": "italian-4p", "seed": 5})
    play_match_over_a_socket(server, match["table"], match["token"])
    page, errors = open_as(browser, server.url, match, "it", 1366, 768)
    page.wait_for_selector("#sheet-modal:visible", timeout=WAIT_MS)
    assert page.is_visible("#btn-rematch2") and not errors, errors
    totals = page.locator("#sheet .history td.num").all_inner_texts()  # past 15.000: Italian separators
    assert any(re.fullmatch(r"\d{1,3}(\.\d{3})+", t) for t in totals), totals
    page.screenshot(path=str(shots / "table-match-end-desktop.png"))
    page.context.close()


def test_the_end_of_a_long_italian_hand(browser: Browser, server: ServerProcess, shots: Path) -> None:  # noqa: F811
    for seed, hoard, lang, size, name in ((LONG_HAND_SEED, False, "en", (1366, 768), "table-long-hand-desktop.png"),
                                          (HOARD_SEED, True, "it", PHONE, "table-long-hand-phone.png")):
        table = last_turn(server, seed, hoard)
        page, errors = open_as(browser, server.url, table, lang, *size)
        settled(page)
        take(page, shots / name, errors)
        page.context.close()
