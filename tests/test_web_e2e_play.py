"""End to end in a real headless Chromium: a player's own ways at the table.  The hand
sorted by rank, by suit or for melding, and dragged into the player's own order with a
mouse and with a finger (pointer events); the order is kept for the seat across a
reconnect and a server restart.

Skipped when Chromium or Playwright is missing, unless ``CANASTA_E2E_REQUIRED=1``,
which makes it fail instead."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chromium import open_table, page_errors, skip_unless_ready

skip_unless_ready()

from playwright.sync_api import Browser, Page  # noqa: E402

from canasta.web.devserver import ServerProcess  # noqa: E402
from test_web_e2e import data, quick_table  # noqa: E402

WAIT_MS = 30_000  # the longest one awaited event may take on a busy machine (not a pause)
SUITS = {"S": 0, "H": 1, "C": 2, "D": 3}


def shown(page: Page) -> list[str]:
    """The hand as the page shows it, left to right."""
    order: str = data(page, "handOrder")
    return order.split()


def wild(code: str) -> bool:
    return code == "JK" or code[:-1] == "2"


def saved(page: Page, sort: str, cards: list[str] | None) -> None:
    """Wait until the server says it keeps this order for the seat."""
    want = f"{sort}:{' '.join(cards or [])}"
    page.wait_for_function("(want) => document.body.dataset.orderSaved === want", arg=want, timeout=WAIT_MS)


def centre(page: Page, selector: str, dx: float = 0.0) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["x"] + 6 + dx, box["y"] + box["height"] / 2


def mouse_drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=8)
    page.mouse.up()


def touch_drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A finger on the screen (Chromium's touch input: the page sees pointer events of type touch)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]})
    for k in range(1, 9):
        x = start[0] + (end[0] - start[0]) * k / 8
        y = start[1] + (end[1] - start[1]) * k / 8
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def seat_page(browser: Browser, url: str, table: str, token: dict[str, Any], **context: Any) -> Page:
    """The table opened in a browser of its own, holding the seat's token."""
    page = browser.new_context(**context).new_page()
    page.add_init_script(f"localStorage.setItem('canasta:{table}', {json.dumps(json.dumps(token))})")
    page.goto(f"{url}/t/{table}")
    page.wait_for_selector("#hand .card", timeout=WAIT_MS)
    return page


def test_a_hand_sorted_and_dragged_into_order_is_kept_across_a_reconnect_and_a_restart(
        browser: Browser, tmp_path: Path) -> None:
    server = ServerProcess(str(tmp_path / "order.db"), args=["--bot-delay", "0.02", "--allow-fixed-seeds"]).start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors = page_errors(page)
        quick_table(page, server.url, 5)
        hand = shown(page)
        assert len(hand) == 11 and data(page, "sort") == "rank"

        # by suit: each suit together (♠ ♥ ♣ ♦), the wild cards last
        page.click("#sort-box button[data-sort=suit]")
        saved(page, "suit", None)
        by_suit = shown(page)
        assert sorted(by_suit) == sorted(hand)
        keys = [9 if wild(c) else SUITS[c[-1]] for c in by_suit]
        assert keys == sorted(keys), by_suit
        assert page.get_attribute("#sort-box button[data-sort=suit]", "aria-pressed") == "true"

        # for melding: the largest set of one rank first, pairs before single cards
        page.click("#sort-box button[data-sort=meld]")
        saved(page, "meld", None)
        for_melding = shown(page)
        naturals = [c for c in for_melding if not wild(c) and c[:-1] != "3"]
        counts = {c[:-1]: sum(1 for d in naturals if d[:-1] == c[:-1]) for c in naturals}
        firsts = [counts[c[:-1]] for c in for_melding if not wild(c) and c[:-1] != "3"]
        assert firsts == sorted(firsts, reverse=True), for_melding

        # dragged with the mouse: the first card goes to the end of the hand
        first = f'#hand .card[data-index="{page.get_attribute("#hand .card >> nth=0", "data-index")}"]'
        last_box = page.locator("#hand .card").last.bounding_box()
        assert last_box is not None
        mouse_drag(page, centre(page, first), (last_box["x"] + last_box["width"] + 12, last_box["y"] + 20))
        mine = for_melding[1:] + for_melding[:1]
        saved(page, "meld", mine)
        assert data(page, "draggedBy") == "mouse"
        assert shown(page) == mine and data(page, "sort") == "own"
        assert page.locator("#hand .card.selected").count() == 0  # a drag is not a click

        # a reconnect finds it (the page opened again)
        page.reload()
        page.wait_for_selector("#hand .card", timeout=WAIT_MS)
        page.wait_for_function("(want) => document.body.dataset.handOrder === want", arg=" ".join(mine), timeout=WAIT_MS)
        assert data(page, "sort") == "own"
        token = page.evaluate("() => JSON.parse(localStorage.getItem('canasta:' + location.pathname.split('/')[2]))")
        table = page.url.rsplit("/", 1)[1]

        # and so does another browser holding the seat, after the server was killed and started again
        server.kill()
        page.wait_for_function("() => document.getElementById('conn').textContent.includes('reconnecting')")
        server.start()
        page.wait_for_function("() => document.getElementById('conn').textContent === 'connected'", timeout=WAIT_MS)
        phone = seat_page(browser, server.url, table, token, viewport={"width": 390, "height": 844}, has_touch=True)
        phone.wait_for_function("(want) => document.body.dataset.handOrder === want", arg=" ".join(mine),
                                timeout=WAIT_MS)

        # on the phone, a finger drags the last card to the front
        cards = phone.locator("#hand .card")
        last = f'#hand .card[data-index="{cards.last.get_attribute("data-index")}"]'
        first_box = cards.first.bounding_box()
        assert first_box is not None
        touch_drag(phone, centre(phone, last), (first_box["x"] + 2, first_box["y"] + first_box["height"] / 2))
        again = mine[-1:] + mine[:-1]
        saved(phone, "meld", again)
        assert data(phone, "draggedBy") == "touch"
        assert shown(phone) == again
        # the seat's other page is told too
        page.wait_for_function("(want) => document.body.dataset.handOrder === want", arg=" ".join(again),
                               timeout=WAIT_MS)
        # a sort chosen again puts the hand back in that order
        phone.click("#sort-box button[data-sort=rank]")
        saved(phone, "rank", None)
        assert data(phone, "sort") == "rank"
        assert not errors, errors
    finally:
        server.stop()


# ------------------------------------------------------------------ the chat, the title, the sound


def in_lang(browser: Browser, lang: str, width: int = 1280, height: int = 800) -> tuple[Page, list[str]]:
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.add_init_script(f"if (!localStorage.getItem('canasta:lang')) localStorage.setItem('canasta:lang', '{lang}')")
    errors = page_errors(page)
    return page, errors


MARKUP = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><b>bold</b> & done'


def test_the_chat_shows_text_as_text_in_each_readers_language_and_is_kept(browser: Browser, tmp_path: Path) -> None:
    server = ServerProcess(str(tmp_path / "chat.db"), args=["--bot-delay", "0.3", "--allow-fixed-seeds"]).start()
    try:
        ann, ann_errors = in_lang(browser, "en")
        table = open_table(ann, server.url, {"preset": "classic-4p", "name": "Ann", "seat": 0, "seed": 3,
                                             "seats": [{}, {"kind": "bot"}, {"kind": "open"}, {"kind": "bot"}]})
        bea, bea_errors = in_lang(browser, "it", 390, 844)
        bea.goto(f"{server.url}/t/{table}")
        bea.wait_for_selector("#join:not([hidden])")
        bea.fill("#join-name", "Bea")
        bea.click("#btn-join")
        bea.wait_for_selector("#hand .card", timeout=WAIT_MS)
        ann.wait_for_selector("#chat-panel:not([hidden])")
        assert ann.is_visible("#chat-text")
        ann.click("#phrase-menu summary")  # the quick phrases open over the chat
        assert ann.inner_text("#phrases").count("!") >= 4
        ann.click("#phrase-menu summary")

        # a line with markup in it reads as the characters typed, on every page
        ann.fill("#chat-text", MARKUP)
        ann.press("#chat-text", "Enter")
        for page in (ann, bea):
            page.wait_for_function("() => document.querySelectorAll('#chat-log li').length === 1", timeout=WAIT_MS)
            assert page.locator("#chat-log li span").text_content() == MARKUP
            assert page.locator("#chat-log li b").text_content() == "Ann:"
            assert page.locator("#chat-log script, #chat-log img, #chat-log span b").count() == 0
            assert page.evaluate("() => window.__pwned") is None
        # a quick phrase, said in each reader's language
        bea.click("#phrase-menu summary")
        bea.click("#phrases button[data-phrase=luck]")
        ann.wait_for_function("() => document.querySelectorAll('#chat-log li').length === 2", timeout=WAIT_MS)
        assert ann.locator("#chat-log li").nth(1).inner_text() == "Bea: Good luck!"
        bea.wait_for_function("() => document.querySelectorAll('#chat-log li').length === 2", timeout=WAIT_MS)
        assert bea.locator("#chat-log li").nth(1).inner_text() == "Bea: Buona fortuna!"

        # kept with the table: the page opened again finds it
        bea.reload()
        bea.wait_for_function("() => document.querySelectorAll('#chat-log li').length === 2", timeout=WAIT_MS)
        assert bea.locator("#chat-log li span").first.text_content() == MARKUP

        # a spectator of this table (it keeps its chat from spectators) sees no chat
        watcher, watcher_errors = in_lang(browser, "en")
        watcher.goto(f"{server.url}/t/{table}")
        watcher.wait_for_selector("#hand, body[data-seq]", state="attached")
        watcher.wait_for_function("() => document.body.dataset.seq !== undefined", timeout=WAIT_MS)
        assert watcher.is_hidden("#chat-panel") and watcher.locator("#chat-log li").count() == 0

        # too many lines at once: the seat's allowance runs out, and the page says so
        ann.evaluate("() => { for (let k = 0; k < 8; k++) document.querySelector('#phrases button[data-phrase=hello]').click(); }")
        ann.wait_for_function("() => document.getElementById('chat-error').textContent !== ''", timeout=WAIT_MS)
        assert "too fast" in ann.inner_text("#chat-error")
        assert not ann_errors and not bea_errors and not watcher_errors, ann_errors + bea_errors + watcher_errors
    finally:
        server.stop()


WATCH_TITLE = """() => {
  window.__titles = [document.title];
  new MutationObserver(() => { if (window.__titles[window.__titles.length - 1] !== document.title) window.__titles.push(document.title); })
    .observe(document.querySelector('title'), { childList: true, characterData: true, subtree: true });
}"""


def test_the_tab_title_and_an_optional_sound_say_it_is_your_turn(browser: Browser, tmp_path: Path) -> None:
    from test_web_e2e import play_turn_or_wait

    server = ServerProcess(str(tmp_path / "title.db"), args=["--bot-delay", "0.05", "--allow-fixed-seeds"]).start()
    try:
        page, errors = in_lang(browser, "en")
        quick_table(page, server.url, 5)
        assert page.is_visible("#turn-sound-box") and not page.is_checked("#turn-sound")  # off unless asked for
        page.check("#turn-sound")
        page.evaluate(WATCH_TITLE)
        page.wait_for_function("() => document.body.dataset.toMove === document.body.dataset.seat", timeout=WAIT_MS)
        page.wait_for_function("() => document.title === '● Your turn · Quick play'", timeout=WAIT_MS)
        moves = 0
        while moves < 2:  # draw, then discard: the turn passes
            if play_turn_or_wait(page):
                moves += 1
        page.wait_for_function("() => window.__titles.includes('Quick play')", timeout=WAIT_MS)
        # the bots play, and the title says it again when the turn is back, with the sound asked for
        page.wait_for_function("() => window.__titles.lastIndexOf('● Your turn · Quick play') > window.__titles.indexOf('Quick play')",
                               timeout=WAIT_MS)
        page.wait_for_function("() => Number(document.body.dataset.turnCues || 0) >= 1", timeout=WAIT_MS)
        assert page.evaluate("() => localStorage.getItem('canasta:turn-sound')") == "1"
        assert not errors, errors
    finally:
        server.stop()


# ------------------------------------------------------------------ the keyboard

FOCUS = """() => {
  const a = document.activeElement;
  return { code: a.dataset.code || null, inHand: !!a.closest('#hand'), selected: a.classList.contains('selected'),
           pressed: a.getAttribute('aria-pressed'), label: a.getAttribute('aria-label') || '',
           outline: getComputedStyle(a).outlineStyle + ' ' + getComputedStyle(a).outlineWidth };
}"""


def focus(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(FOCUS)
    return found


def press_and_wait(page: Page, key: str) -> None:
    """A key that plays a move: wait for the table's next event."""
    seq = data(page, "seq")
    page.keyboard.press(key)
    page.wait_for_function(f"() => document.body.dataset.seq !== '{seq}'", timeout=WAIT_MS)


def checked(page: Page) -> None:
    page.wait_for_function("() => document.body.dataset.checked === document.body.dataset.checking", timeout=WAIT_MS)


def select_by_keys(page: Page, code: str) -> None:
    """Go along the hand with the arrow keys to a card ``code`` not selected yet, and select it."""
    page.keyboard.press("Home")
    for _ in range(page.locator("#hand .card").count()):
        now = focus(page)
        assert now["inHand"], now
        if now["code"] == code and not now["selected"]:
            page.keyboard.press("Space")
            assert focus(page)["pressed"] == "true"
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"{code} is not in the hand: {data(page, 'handOrder')} {focus(page)}")


def discard_by_keys(page: Page) -> None:
    """Select card after card with Space until the page says one may be discarded, then X."""
    page.keyboard.press("Home")
    for _ in range(page.locator("#hand .card").count()):
        page.keyboard.press("Space")
        checked(page)
        if page.is_enabled("#btn-discard"):
            press_and_wait(page, "x")
            return
        page.keyboard.press("Space")
        page.keyboard.press("ArrowRight")
    raise AssertionError("no card may be discarded")


def test_a_turn_is_played_with_the_keyboard_alone(browser: Browser, tmp_path: Path) -> None:
    server = ServerProcess(str(tmp_path / "keys.db"), args=["--bot-delay", "0.05", "--allow-fixed-seeds"]).start()
    try:
        page, errors = in_lang(browser, "en")
        quick_table(page, server.url, 5)
        page.wait_for_function("() => document.body.dataset.toMove === document.body.dataset.seat", timeout=WAIT_MS)
        for _ in range(60):  # Tab reaches the hand (one stop)
            page.keyboard.press("Tab")
            if focus(page)["inHand"]:
                break
        now = focus(page)
        assert now["inHand"] and now["outline"].startswith("solid"), now  # the focus is seen
        assert now["label"].endswith(("of spades", "of hearts", "of diamonds", "of clubs")) or now["label"] == "Joker"
        labels = page.eval_on_selector_all("#hand .card", "cs => cs.map((c) => [c.getAttribute('role'), c.getAttribute('aria-label')])")
        assert all(role == "button" and label for role, label in labels)
        melded: list[str] = []
        turns = 0
        while turns < 6 and not (melded and turns >= 2):
            page.wait_for_function("() => document.body.dataset.toMove === document.body.dataset.seat "
                                   "|| document.body.dataset.handOver === 'true'", timeout=WAIT_MS)
            if data(page, "handOver") == "true":
                break
            assert focus(page)["inHand"]  # the keyboard stayed in the hand while the others played
            checked(page)
            press_and_wait(page, "d" if page.is_enabled("#btn-draw") else "t")
            assert data(page, "phase") == "meld" and focus(page)["inHand"]
            if not melded:
                page.keyboard.press("h")
                page.wait_for_function("() => document.getElementById('hint').textContent.startsWith('Hint:')")
                text = page.inner_text("#hint")
                move = text[text.rindex("(") + 1: text.rindex(")")]
                if move.startswith("meld ") and ":" not in move:
                    groups = [g.split() for g in move[5:].split(" + ")]
                    for k, group in enumerate(groups):
                        for code in group:
                            select_by_keys(page, code)
                        if k < len(groups) - 1:
                            page.keyboard.press("g")
                    checked(page)
                    assert page.is_enabled("#btn-meld"), page.inner_text("#reason")
                    before = page.locator("#hand .card").count()
                    press_and_wait(page, "m")
                    assert page.locator("#hand .card").count() == before - sum(len(g) for g in groups)
                    melded.append(move)
                    mine = page.locator(".sidepanel.mine .meld.own").first
                    assert (mine.get_attribute("aria-label") or "").endswith("press to add your selected wild cards to it")
                    assert mine.get_attribute("tabindex") == "0"
                    page.locator("#hand .card[tabindex='0']").focus()
            if data(page, "handOver") != "true":
                discard_by_keys(page)
            turns += 1
        assert melded, "no meld was laid with the keyboard"
        assert page.locator("#log li.mine").count() >= 3
        page.keyboard.press("?")
        assert page.is_visible("#keys-modal")
        page.keyboard.press("Escape")
        assert page.is_hidden("#keys-modal")
        assert not errors, errors
    finally:
        server.stop()
