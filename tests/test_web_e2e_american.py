"""Issue 51, end to end in a real headless Chromium: the card room plays Modern American Canasta.

The lobby offers american-2p and american-4p with their M-O options; a table of american-4p with
three bots is played for some turns at 1366x768 and at 390x844, in English and in Italian, and the
page shows and explains what Part C has: the talons still to give, the turn card, one card drawn,
the opening by score with its clean triple, the empty tray's bar and going out (the family's notes,
``table_note_keys``, each in the page's language), and every three laid out counted as threes.
Screenshots are kept where ``CANASTA_E2E_SHOTS`` says.

Skipped when Chromium or Playwright is missing, unless ``CANASTA_E2E_REQUIRED=1``."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from chromium import page_errors, skip_unless_ready

skip_unless_ready()

from playwright.sync_api import Browser, Page  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402

from canasta.engine.family import TableNote  # noqa: E402
from canasta.i18n import translator  # noqa: E402
from canasta.web.devserver import ServerProcess  # noqa: E402
from test_web_e2e import api_table, data, in_language, play_turn_or_wait  # noqa: E402

SEED = 5  # an american-4p deal (any seed plays; this one is fixed so the screenshots repeat)
TURNS = 6  # the person's steps played (draws and discards) before the screenshots
WAIT_MS = 30_000


@pytest.fixture
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    srv = ServerProcess(str(tmp_path / "american.db"), args=["--bot-delay", "0.02", "--allow-fixed-seeds"]).start()
    try:
        yield srv
    finally:
        srv.stop()


def check_notes(page: Page, lang: str) -> list[str]:
    """Every note the server sent is listed, word for word as the catalog says it in the page's
    language (the engine's Translator.table_note, the terminal app's words); returns their keys."""
    shown: list[list[str]] = page.eval_on_selector_all(
        "#table-notes li", "ls => ls.map(l => [l.dataset.key, l.dataset.n, l.dataset.rank, l.textContent])")
    assert shown, "the page lists no note on the game"
    tr, en = translator(lang), translator("en")
    for key, n, rank, text in shown:
        note = TableNote(key, int(n), int(rank))
        assert text == tr.table_note(note), (key, text)
        if lang != "en":
            assert text != en.table_note(note), f"English left in the {lang} page: {text}"
    return [key for key, *_rest in shown]


@pytest.mark.parametrize("lang", ["en", "it"])
def test_an_american_table_shows_and_explains_part_c(browser: Browser, server: ServerProcess, lang: str,
                                                     shots: Path) -> None:
    context = in_language(browser, lang, width=1366, height=768).context
    page = context.pages[0] if context.pages else context.new_page()
    errors = page_errors(page)
    api_table(page, server.url, {"name": "Ann", "preset": "american-4p", "seed": SEED, "bot_delay": 0})
    page.wait_for_selector("#table-notes-box:not([hidden])", timeout=WAIT_MS)
    assert page.get_attribute("#table-notes-box", "open") is not None, "open at first on a wide screen"
    keys = check_notes(page, lang)
    assert {"draw_one", "turn_card_ahead", "go_out"} <= set(keys), keys
    assert len(page.locator("#hand .card").all()) >= 13
    summary = page.inner_text("#table-notes-box summary")
    assert summary == translator(lang, "canasta-web").gettext("How this game plays")
    assert len(keys) == len(set(keys)) or "dead" in keys
    steps = 0
    seen = set(keys)
    while steps < TURNS and data(page, "handOver") != "true":
        if play_turn_or_wait(page):
            steps += 1
            seen |= set(check_notes(page, lang))
        else:
            page.wait_for_timeout(30)
    assert steps == TURNS or data(page, "handOver") == "true"
    assert seen & {"talon_next", "talon_own", "talon_other", "turn_card_drawn"}, seen
    # threes laid out read as threes, never as red threes
    web = translator(lang, "canasta-web")
    for label in page.eval_on_selector_all(".meld.reds .meldlabel", "ls => ls.map(l => l.innerText.trim())"):
        n = int(label.split()[0])
        assert label == web.nplural("{n} three", "{n} threes", n), label
    page.screenshot(path=str(shots / f"american-4p-{lang}-1366x768.png"))
    # on a phone the notes are there, closed until opened
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.wait_for_selector("#table-notes-box:not([hidden])", timeout=WAIT_MS)
    assert page.get_attribute("#table-notes-box", "open") is None
    page.click("#table-notes-box summary")
    assert page.is_visible("#table-notes li")
    page.screenshot(path=str(shots / f"american-4p-{lang}-390x844.png"), full_page=True)
    assert not errors, errors


def test_the_lobby_offers_the_american_presets_and_their_options(browser: Browser, server: ServerProcess) -> None:
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    errors = page_errors(page)
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready=true]")
    offered = page.eval_on_selector_all("#preset option", "os => os.map(o => o.value)")
    assert "american-4p" in offered and "american-2p" in offered, offered
    for preset, seats in (("american-4p", 4), ("american-2p", 2)):
        page.select_option("#preset", preset)
        assert page.locator("#seats select[data-seat]").count() == seats
        ids = page.eval_on_selector_all("#options select[data-option]", "ss => ss.map(s => s.dataset.option)")
        assert "M-O6" in ids and "M-O16" in ids and "M-O22" in ids, ids
    assert not errors, errors


def test_an_american_hand_played_to_its_score_sheet_in_italian(browser: Browser, server: ServerProcess,
                                                                shots: Path) -> None:
    """A whole hand of american-4p in Italian: the score sheet names the threes' line and the family's own
    lines in the language (never their keys), and the table's rules page says how the game plays."""
    context = in_language(browser, "it", width=1366, height=768).context
    page = context.pages[0] if context.pages else context.new_page()
    errors = page_errors(page)
    api_table(page, server.url, {"name": "Ann", "preset": "american-4p", "seed": SEED, "bot_delay": 0})
    stalled_at, seq = time.monotonic(), data(page, "seq")
    while not page.is_visible("#sheet-modal"):
        if data(page, "seq") != seq:
            stalled_at, seq = time.monotonic(), data(page, "seq")
        assert time.monotonic() - stalled_at < 60, f"the hand stopped moving at event {seq}"
        try:
            if not play_turn_or_wait(page):
                page.wait_for_timeout(30)
        except PlaywrightTimeout:  # the hand ended under the person's step (a bot went out meanwhile)
            if data(page, "handOver") != "true":
                raise
    sheet = page.inner_text("#sheet")
    web = translator("it", "canasta-web")
    assert web.gettext("Threes") in sheet and web.gettext("Red threes") not in sheet, sheet
    assert not re.search(r"\b(unfinished melds|aces sevens held|special hand)\b", sheet), sheet
    page.screenshot(path=str(shots / "american-4p-it-score-sheet-1366x768.png"))
    rules = page.evaluate("async (href) => (await fetch(href)).text()", page.get_attribute("#rules-link", "href"))
    assert translator("it").gettext("How this game plays") in rules
    assert not errors, errors
