"""End to end in a real headless Chromium (Debian's ``chromium``, driven by Playwright):
a person plays a hand against three bots through the page; a second browser
takes a seat by the invite link, and both go on after the server is killed
and started again.

Skipped when Chromium or Playwright is missing, unless ``CANASTA_E2E_REQUIRED=1``
(set in CI), which makes it fail instead."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
REQUIRED = os.environ.get("CANASTA_E2E_REQUIRED") == "1"


def _missing() -> str | None:
    try:
        import fastapi  # noqa: F401
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed"
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


if _missing() and not REQUIRED:
    pytest.skip(str(_missing()), allow_module_level=True)

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from canasta.web.devserver import ServerProcess  # noqa: E402


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    reason = _missing()
    if reason:
        pytest.fail(f"the end-to-end test is required here but {reason}")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def data(page: Page, key: str) -> Any:
    return page.evaluate(f"document.body.dataset.{key}")


def wait_checked(page: Page) -> None:
    page.wait_for_function("document.body.dataset.checked === document.body.dataset.checking", timeout=5000)


def meld_and_undo_hint(page: Page) -> bool:
    """If the hint is a plain meld, lay it by clicking (groups with "+ Group"), check the
    hand shrank, then take it back with Undo.  Returns whether it did."""
    page.click("#btn-hint")
    page.wait_for_function("document.getElementById('hint').textContent.startsWith('Hint:')")
    text = page.inner_text("#hint")
    move = text[text.rindex("(") + 1: text.rindex(")")]
    if not move.startswith("meld ") or ":" in move:
        return False
    groups = [g.split() for g in move[5:].split(" + ")]
    before = page.locator("#hand .card").count()
    for i, group in enumerate(groups):
        for code in group:
            page.locator(f'#hand .card[data-code="{code}"]:not(.selected)').first.click(position={"x": 6, "y": 10})
        if i < len(groups) - 1:
            page.click("#btn-group")
    wait_checked(page)
    assert page.is_enabled("#btn-meld"), page.inner_text("#reason")
    seq = data(page, "seq")
    page.click("#btn-meld")
    page.wait_for_function(f"document.body.dataset.seq !== '{seq}'", timeout=5000)
    assert page.locator("#hand .card").count() == before - sum(len(g) for g in groups)
    assert page.is_enabled("#btn-undo")
    seq = data(page, "seq")
    page.click("#btn-undo")
    page.wait_for_function(f"document.body.dataset.seq !== '{seq}'", timeout=5000)
    assert page.locator("#hand .card").count() == before
    return True


FIND_LAYOFF = """() => {
  const panel = [...document.querySelectorAll('#sides .panel')]
    .find((p) => p.querySelector('h3').textContent.startsWith('Your side'));
  if (!panel) return null;
  const ranks = [...panel.querySelectorAll('.meld')].map((m) => m.dataset.rank);
  for (const c of document.querySelectorAll('#hand .card')) {
    const r = c.dataset.code.slice(0, -1);
    if (r !== '2' && c.dataset.code !== 'JK' && ranks.includes(r)) return [c.dataset.index, panel.dataset.side, r];
  }
  return null;
}"""


@contextmanager
def mouse_sized(page: Page) -> Iterator[None]:
    """Dragging is for a mouse: a phone-sized page is widened to a desktop's for it."""
    size = page.viewport_size
    page.set_viewport_size({"width": 1280, "height": 900})
    try:
        yield
    finally:
        if size:
            page.set_viewport_size(size)


def drag_onto_a_meld(page: Page) -> bool:
    """If a natural card in hand matches one of this side's melds (and cards to spare),
    drag it onto that meld and check it joined it.  Returns whether it did."""
    if page.locator("#hand .card").count() < 3:
        return False
    found = page.evaluate(FIND_LAYOFF)
    if not found:
        return False
    index, side, rank = found
    meld = page.locator(f'#sides .panel[data-side="{side}"] .meld[data-rank="{rank}"]')
    before = meld.locator(".card").count()
    seq = data(page, "seq")
    with mouse_sized(page):
        page.locator(f'#hand .card[data-index="{index}"]').drag_to(meld, source_position={"x": 6, "y": 10})
    page.wait_for_function(f"document.body.dataset.seq !== '{seq}'", timeout=5000)
    assert meld.locator(".card").count() == before + 1, page.inner_text("#reason")
    return True


def play_turn_or_wait(page: Page, undone: list[int] | None = None, dragged: set[str] | None = None) -> bool:
    """If it is this page's move, make one step of a plain turn by clicking (draw,
    then discard a card the page says may be discarded; answer "yes" when the
    partner asks).  With ``dragged``, the first discard (and the first card that
    can join one of the side's melds) are dragged instead.  Returns whether it did
    something."""
    if page.is_visible("#ask-modal"):
        page.click("#ask-yes")
        page.wait_for_selector("#ask-modal", state="hidden")
        return True
    if data(page, "handOver") == "true" or data(page, "toMove") != data(page, "seat"):
        return False
    phase = data(page, "phase")
    seq = data(page, "seq")
    if phase == "draw":
        wait_checked(page)
        assert page.is_enabled("#btn-draw"), page.inner_text("#reason")
        assert not page.is_enabled("#btn-discard")  # enabled only when legal
        page.click("#btn-draw")
    elif phase == "meld":
        if undone is not None and not undone and meld_and_undo_hint(page):
            undone.append(1)
        if dragged is not None and "meld" not in dragged and drag_onto_a_meld(page):
            dragged.add("meld")
            return True
        cards = page.locator("#hand .card")
        for i in range(cards.count()):
            cards.nth(i).click(position={"x": 6, "y": 10})
            wait_checked(page)
            if page.is_enabled("#btn-discard") and dragged is not None and "discard" not in dragged:
                card = cards.nth(i)
                card.click(position={"x": 6, "y": 10})  # unselected, then dropped on the pile
                with mouse_sized(page):
                    card.drag_to(page.locator("#pile"), source_position={"x": 6, "y": 10})
                dragged.add("discard")
                break
            if page.is_enabled("#btn-discard"):
                page.click("#btn-discard")
                break
            cards.nth(i).click(position={"x": 6, "y": 10})  # not this one: unselect
        else:
            raise AssertionError("the page offered no legal discard")
    else:
        return False
    page.wait_for_function(f"document.body.dataset.seq !== '{seq}'", timeout=5000)
    return True


def test_a_person_plays_a_hand_against_three_bots(browser: Browser, tmp_path: Path) -> None:
    server = ServerProcess(str(tmp_path / "e2e.db"), args=["--bot-delay", "0.02", "--allow-fixed-seeds"]).start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + "/?seed=5")
        page.fill("#name", "Ann")
        page.click("#btn-quick")
        page.wait_for_url("**/t/*")
        page.wait_for_selector("#hand .card")
        assert page.locator("#hand .card").count() == 11
        assert "Ann" in page.inner_text("#players")
        # a move that is not allowed says why: select one card before drawing
        page.wait_for_function("document.body.dataset.toMove === document.body.dataset.seat", timeout=10000)
        page.locator("#hand .card").first.click(position={"x": 6, "y": 10})
        wait_checked(page)
        assert not page.is_enabled("#btn-discard")
        assert page.get_attribute("#btn-discard", "title")
        page.click("#btn-clear")
        page.click("#btn-hint")  # the hint bot's suggestion, in words
        page.wait_for_function("document.getElementById('hint').textContent.startsWith('Hint: Ann')")
        deadline = time.monotonic() + 45
        undone: list[int] = []  # once: lay the hinted meld by clicking, then undo it
        dragged: set[str] = set()  # once each: a card dragged onto a meld, and onto the pile
        while not page.is_visible("#sheet-modal"):
            assert time.monotonic() < deadline, "the hand did not end in time"
            if not play_turn_or_wait(page, undone, dragged):
                page.wait_for_timeout(30)
        assert undone, "no meld was laid and taken back through the page"
        assert dragged == {"meld", "discard"}, f"only {dragged or 'nothing'} was dragged"
        sheet = page.inner_text("#sheet")
        assert "Hand total" in sheet and "Running totals" in sheet
        assert page.locator("#log li").count() > 10
        page.click("#btn-next")
        page.wait_for_function("document.body.dataset.hand === '2'", timeout=5000)
        assert not errors, errors
        page.goto(page.url + "/rules")
        assert "Initial meld minimums" in page.inner_text("body")
    finally:
        server.stop()


def test_an_invited_browser_joins_and_both_survive_a_restart(browser: Browser, tmp_path: Path) -> None:
    server = ServerProcess(str(tmp_path / "e2e2.db"),
                           args=["--bot-delay", "0.02", "--grace", "60", "--allow-fixed-seeds"]).start()
    try:
        ann = browser.new_context().new_page()
        ann.goto(server.url + "/?seed=3")
        ann.fill("#name", "Ann")
        ann.select_option('select[data-seat="1"]', "bot:basic")
        ann.select_option('select[data-seat="2"]', "open")
        ann.select_option('select[data-seat="3"]', "bot:basic")
        ann.fill("#target", "5000")
        ann.click("#btn-create")
        link = ann.input_value("#created input")
        ann.click("#created a")
        ann.wait_for_selector("#hand .card")
        assert "Waiting for players" in ann.inner_text("#turn")

        bea = browser.new_context().new_page()
        bea.goto(link)
        bea.wait_for_selector("#join:not([hidden])")
        bea.fill("#join-name", "Bea")
        bea.click("#btn-join")
        bea.wait_for_selector("#hand .card")
        bea.wait_for_function("document.body.dataset.seat === '2'")
        ann.wait_for_function("document.getElementById('players').innerText.includes('Bea')")

        def play_until(turns: int) -> None:
            done = 0
            deadline = time.monotonic() + 30
            while done < turns:
                assert time.monotonic() < deadline
                acted = False
                for p in (ann, bea):
                    if p.is_visible("#sheet-modal") and p.is_visible("#btn-next"):
                        seq = data(p, "seq")
                        p.click("#btn-next")  # the hand ended: deal the next one
                        p.wait_for_function(f"document.body.dataset.seq !== '{seq}'", timeout=5000)
                        acted = True
                    elif play_turn_or_wait(p):
                        acted = True
                        done += 1
                if not acted:
                    ann.wait_for_timeout(30)

        play_until(6)
        server.kill()
        for p in (ann, bea):
            p.wait_for_function("document.getElementById('conn').textContent.includes('reconnecting')")
        server.start()
        for p in (ann, bea):
            p.wait_for_function("document.getElementById('conn').textContent === 'connected'", timeout=15000)
        assert "Bea" in ann.inner_text("#players") and "Ann" in bea.inner_text("#players")
        play_until(6)  # both go on
    finally:
        server.stop()
