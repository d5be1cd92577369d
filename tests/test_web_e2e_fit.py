"""End to end in a real headless Chromium (issue #55, items 3 to 5): the room fits its screen and
speaks the player's language everywhere.

* On a phone (390×844) the header says the scores and what the first meld must count while
  playing (the scores panel is below the table); Italian's stock is inside the window.
* A language asked for in the address (``/?lang=it``) follows the player: the table the lobby
  opens and its rematch are in it.  At 1366×768 the Italian header is one line and the bots'
  pace reads whole.
* The lobby is no wider than a 390-pixel phone, in English and Italian, house rules open, and
  "Crea il tavolo" makes the table.

Screenshots go to ``CANASTA_E2E_SHOTS`` (a directory) if set, else to the test's temporary
directory.  Skipped when Chromium or Playwright is missing, unless ``CANASTA_E2E_REQUIRED=1``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chromium import open_table, page_errors, skip_unless_ready

WAIT_MS = 60_000  # the longest any one awaited event may take on a busy machine (not a pause)
TWO_BOTS = [{}, {"kind": "bot", "level": "basic"}]
FOUR: list[dict[str, str]] = [{}] + [{"kind": "bot", "level": "basic"}] * 3

skip_unless_ready()

from playwright.sync_api import Browser, Page  # noqa: E402

from canasta.web.devserver import ServerProcess  # noqa: E402
from test_web_e2e_room import play_match_over_a_socket  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    where = tmp_path_factory.mktemp("fit")
    running = ServerProcess(str(where / "fit.db"), args=["--bot-delay", "0", "--allow-fixed-seeds",
                                                         "--tables-per-minute", "0"]).start()
    try:
        yield running
    finally:
        running.stop()


def inside(page: Page, selector: str, width: int, height: int) -> bool:
    """Is the element's box on screen, wholly inside the window?"""
    box = page.locator(selector).bounding_box()
    return box is not None and box["x"] >= -0.5 and box["y"] >= -0.5 and \
        box["x"] + box["width"] <= width + 0.5 and box["y"] + box["height"] <= height + 0.5


def text_fits(page: Page, selector: str) -> bool:
    """Does a select show its chosen option's whole text (measured in its own font)?"""
    return bool(page.evaluate("""(sel) => {
      const el = document.querySelector(sel);
      const ctx = document.createElement('canvas').getContext('2d');
      ctx.font = getComputedStyle(el).font;
      const text = ctx.measureText(el.selectedOptions[0].text).width;
      const cs = getComputedStyle(el);
      const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 16;  // the arrow
      return text <= room + 0.5;
    }""", selector))


@pytest.mark.parametrize("lang", ["en", "it"])
def test_on_a_phone_the_scores_and_the_first_meld_are_in_sight_while_playing(
        browser: Browser, server: ServerProcess, shots: Path, lang: str) -> None:
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    errors = page_errors(page)
    page.goto(f"{server.url}/?lang={lang}")
    page.wait_for_selector("body[data-ready=true]")  # the language asked for is remembered by now
    open_table(page, server.url, {"preset": "italian-4p" if lang == "it" else "classic-4p", "name": "Ann",
                                  "seat": 0, "seed": 3, "seats": FOUR})
    page.wait_for_selector("body[data-seq]", timeout=WAIT_MS)
    first = {"en": "first meld 50", "it": "1ª calata 50"}[lang]
    page.wait_for_function("() => document.querySelector('#scoreline').textContent.includes('·')", timeout=WAIT_MS)
    assert first in page.inner_text("#scoreline"), (page.inner_text("#scoreline"), page.inner_text("#btn-draw"))
    assert page.is_visible("#scoreline") and inside(page, "#scoreline", 390, 844)
    assert page.inner_text("#scoreline").startswith("0 – 0"), page.inner_text("#scoreline")
    title = page.get_attribute("#scoreline", "title") or ""
    assert ("your first meld needs 50 points" if lang == "en" else "la tua prima calata deve valere 50 punti") \
        in title, title
    # the header stays one line; the stock, the pile, the hand and the buttons are in the window
    page.screenshot(path=str(shots / f"phone-scoreline-{lang}-390x844.png"))
    bar = page.locator("#bar").bounding_box()
    menu = page.locator("#btn-menu").bounding_box()
    parts = page.evaluate("() => [...document.querySelectorAll('#bar > *')].map((e) => [e.id, "
                          "Math.round(e.getBoundingClientRect().width), Math.round(e.getBoundingClientRect().top)])")
    assert bar is not None and menu is not None and bar["height"] < 2 * menu["height"], (bar, menu, parts)
    for sel in ("#stockbox", "#stock-count", "#pilebox", "#hand", "#btn-draw"):
        assert inside(page, sel, 390, 844), sel
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(shots / f"phone-scoreline-{lang}-390x844.png"))
    assert not errors, errors


def test_the_language_in_the_address_follows_the_player_to_the_table_and_the_rematch(
        browser: Browser, server: ServerProcess, shots: Path) -> None:
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    errors = page_errors(page)
    page.goto(f"{server.url}/?lang=it")  # nothing remembered in this browser: the address alone says it
    page.wait_for_selector("body[data-ready=true]")
    assert page.inner_text("#btn-quick") == "Gioca contro i bot"
    table = open_table(page, server.url, {"preset": "classic-2p", "name": "Ann", "seat": 0, "seed": 11,
                                          "target": 100, "seats": TWO_BOTS})
    assert page.evaluate("() => document.documentElement.lang") == "it"
    assert page.inner_text("#btn-draw") == "Pesca"
    # the header at a laptop's width: one line, the bots' pace read whole, nothing cut off
    page.wait_for_selector("#pace-box:not([hidden])", timeout=WAIT_MS)
    bar = page.locator("#bar").bounding_box()
    button = page.locator("#btn-sheet").bounding_box()
    assert bar is not None and button is not None and bar["height"] < 2 * button["height"], (bar, button)
    for sel in ("#pace", "#btn-sheet", "#btn-keys", "#lang", "#title"):
        assert inside(page, sel, 1366, 768), sel
    assert text_fits(page, "#pace"), page.eval_on_selector("#pace", "e => e.selectedOptions[0].text")
    page.screenshot(path=str(shots / "header-it-1366x768.png"))
    # the rematch table is Italian too
    token = page.evaluate(f"() => JSON.parse(localStorage.getItem('canasta:{table}')).token")
    play_match_over_a_socket(server, table, token)
    page.wait_for_selector("body[data-match-over=true]", timeout=WAIT_MS)
    page.wait_for_selector("#btn-rematch2:visible", timeout=WAIT_MS)
    assert page.inner_text("#btn-rematch2") == "Rivincita"
    page.click("#btn-rematch2")
    page.wait_for_url(lambda url: "/t/" in url and table not in url, timeout=WAIT_MS)
    page.wait_for_selector("#hand .card", timeout=WAIT_MS)
    assert page.evaluate("() => document.documentElement.lang") == "it"
    assert page.inner_text("#btn-draw") == "Pesca"
    page.screenshot(path=str(shots / "rematch-follows-it-1366x768.png"))
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_lobby_fits_a_phone_and_creates_a_table(browser: Browser, server: ServerProcess, shots: Path,
                                                    lang: str) -> None:
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    errors = page_errors(page)
    page.goto(f"{server.url}/?lang={lang}")
    page.wait_for_selector("body[data-ready=true]")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(shots / f"lobby-{lang}-390x844.png"), full_page=True)
    page.click("#create details summary")  # the house rules open: still no wider than the phone
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')].filter((e) => {
      const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > 390.5 || r.left < -0.5); })
      .map((e) => e.tagName + '#' + e.id + '.' + e.className)""")
    assert not wide, wide
    page.fill("#name", "Ann")
    page.locator("#btn-create").scroll_into_view_if_needed()
    assert page.inner_text("#btn-create") == {"en": "Create table", "it": "Crea il tavolo"}[lang]
    page.click("#btn-create", timeout=10_000)  # fails if anything covers the button
    page.wait_for_selector("#created:not([hidden])", timeout=WAIT_MS)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(shots / f"lobby-created-{lang}-390x844.png"), full_page=True)
    assert not errors, errors


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (390, 844)])
def test_the_open_tables_are_paged_and_a_player_hides_one(browser: Browser, tmp_path: Path, shots: Path,
                                                           width: int, height: int) -> None:
    import json
    import urllib.request

    server = ServerProcess(str(tmp_path / "list.db"), args=["--tables-per-minute", "0",
                                                            "--listed-per-address", "0"]).start()
    try:
        for i in range(13):
            body = {"preset": "classic-2p", "name": f"P{i}", "seat": 0, "seats": [{}, {"kind": "open"}]}
            request = urllib.request.Request(server.url + "/api/tables", data=json.dumps(body).encode(),
                                             headers={"content-type": "application/json", "origin": server.url})
            with urllib.request.urlopen(request, timeout=30) as answer:
                assert answer.status == 200
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        errors = page_errors(page)
        page.goto(f"{server.url}/?lang=it")
        page.wait_for_selector("body[data-open-page='1/2']", timeout=WAIT_MS)
        assert page.locator("#open-tables .open-table").count() == 10
        assert page.inner_text("#open-page") == "pagina 1 di 2" and page.is_disabled("#open-prev")
        page.locator("#open-pager").scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"open-tables-it-{width}x{height}.png"))
        page.click("#open-next")
        page.wait_for_selector("body[data-open-page='2/2']", timeout=WAIT_MS)
        rows = page.locator("#open-tables .open-table")
        assert rows.count() == 3
        gone = rows.first.get_attribute("data-table")
        assert rows.first.locator("button").inner_text() == "Nascondi"
        rows.first.locator("button").click()
        page.wait_for_function("(id) => !document.querySelector(`.open-table[data-table='${id}']`)", arg=gone,
                               timeout=WAIT_MS)
        assert page.locator("#open-tables .open-table").count() == 2
        assert page.inner_text("#open-unhide") == "Mostra il tavolo nascosto (1)"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(shots / f"open-tables-hidden-it-{width}x{height}.png"))
        page.reload()  # remembered in this browser
        page.wait_for_selector("body[data-open-page='1/2']", timeout=WAIT_MS)
        page.click("#open-next")
        page.wait_for_selector("body[data-open-page='2/2']", timeout=WAIT_MS)
        assert page.locator("#open-tables .open-table").count() == 2
        page.click("#open-unhide")
        page.wait_for_function("() => document.querySelectorAll('#open-tables .open-table').length === 3",
                               timeout=WAIT_MS)
        assert not errors, errors
    finally:
        server.stop()
