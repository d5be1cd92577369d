"""End to end in a real headless Chromium: the table fits the screen.  At the end of a
seeded long Italian hand (many melds on both sides, closed canastas), at 1366×768,
1280×720 and 390×844, in English and in Italian, your side's melds, the opponents'
melds, the stock and the pozzo, your hand and the buttons are all inside the window,
none cut off by a box that scrolls, and the page itself does not scroll.  The match's
last score sheet fits a 768-pixel-high window without scrolling.

The position: a table of one person (seat 0, played over a websocket by a basic bot's
choices from its own view) and three basic bots is played through a whole hand to learn
how many turns the person has; a second table with the same deal is played to the
person's last turn of that hand, where it waits for the person (no timer).

Screenshots go to ``CANASTA_E2E_SHOTS`` (a directory) if set, else to the test's
temporary directory.  Skipped when Chromium or Playwright is missing, unless
``CANASTA_E2E_REQUIRED=1``, which makes it fail instead."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chromium import page_errors, skip_unless_ready

LONG_HAND_SEED = 5  # an italian-4p deal whose first hand ends with 7 melds on one side, 12 on the other, 10 closed
HOARD_SEED = 2  # an italian-4p deal where a person who never melds holds 21 cards at the hand's end
WAIT_MS = 30_000


skip_unless_ready()

from playwright.sync_api import Browser, Page  # noqa: E402

from canasta.web.devserver import ServerProcess  # noqa: E402
from test_web_e2e_room import play_match_over_a_socket  # noqa: E402

SIZES = [(1366, 768), (1280, 720), (390, 844)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    where = tmp_path_factory.mktemp("layout")
    running = ServerProcess(str(where / "layout.db"), args=["--bot-delay", "0", "--allow-fixed-seeds"]).start()
    try:
        yield running
    finally:
        running.stop()


def make_table(server: ServerProcess, body: dict[str, Any]) -> dict[str, Any]:
    """A table of the person at seat 0 and three basic bots, made through the API."""
    import urllib.request

    full = {"name": "Ann", "seat": 0, "bot_delay": 0, "seats": [{}] + [{"kind": "bot", "level": "basic"}] * 3, **body}
    request = urllib.request.Request(server.url + "/api/tables", data=json.dumps(full).encode(),
                                     headers={"content-type": "application/json", "origin": server.url})
    with urllib.request.urlopen(request, timeout=30) as answer:
        made: dict[str, Any] = json.loads(answer.read())
    return made


def play_person(server: ServerProcess, table: dict[str, Any], stop_at: int | None = None, hoard: bool = False,
                until: Callable[[dict[str, Any]], bool] | None = None) -> int:
    """Play seat 0 (a basic bot's choices from its own view) until the hand is over, or until
    its ``stop_at``-th turn begins, or a turn of it begins with ``until(view)`` true (then it
    waits there); the person's turns counted.  A hoarding person never melds after drawing or
    taking: they discard the first card the server allows, so their hand grows."""
    from websockets.sync.client import connect

    from canasta.bots import make_bot
    from canasta.views.seat import SeatView

    chooser = make_bot("basic", seed=1)
    turns = 0
    with connect(f"{server.ws_url}/ws/{table['table']}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": table["token"]}))
        rules: dict[str, Any] = {}
        while True:
            m = json.loads(ws.recv(timeout=30))  # a table that stops moving fails here
            if m["type"] == "welcome":
                rules = m["rules"]
            if m["type"] != "state" or not m.get("view"):
                continue
            if m["hand_over"]:
                return turns
            view = m["view"]
            if view["to_move"] != 0:
                continue
            if view["phase"] == "draw":
                turns += 1
                if turns == stop_at or (until is not None and until(view)):
                    return turns
            move = str(chooser.choose(SeatView.from_dict({**view, "rules": rules})))
            if hoard and view["phase"] == "meld" and not move.startswith("discard"):
                cards = sorted(set(view["hand"]))[:16]
                ws.send(json.dumps({"type": "check", "id": "hoard", "moves": [f"discard {c}" for c in cards]}))
                answer = json.loads(ws.recv(timeout=30))
                while answer["type"] != "check":
                    answer = json.loads(ws.recv(timeout=30))
                allowed = [c for c, why in zip(cards, answer["results"], strict=True) if why is None]
                move = f"discard {allowed[0]}" if allowed else move
            ws.send(json.dumps({"type": "move", "move": move}))


def last_turn(server: ServerProcess, seed: int, hoard: bool) -> dict[str, Any]:
    """A table waiting for the person's last turn of a long Italian hand (the same deal played
    once to its end first, to count the person's turns)."""
    body = {"preset": "italian-4p", "seed": seed}
    turns = play_person(server, make_table(server, body), hoard=hoard)
    table = make_table(server, body)
    assert play_person(server, table, stop_at=turns, hoard=hoard) == turns
    return table


@pytest.fixture(scope="module")
def long_hands(server: ServerProcess) -> dict[str, dict[str, Any]]:
    """The end of a long hand where the person melded as they went (many melds on both sides,
    closed canastas), and of one where they held everything (a big hand)."""
    return {"melded": last_turn(server, LONG_HAND_SEED, False), "held": last_turn(server, HOARD_SEED, True)}


def open_as(browser: Browser, url: str, table: dict[str, Any], lang: str, width: int, height: int
            ) -> tuple[Page, list[str]]:
    """The table opened by its person, in ``lang``, at ``width``×``height``; its script errors."""
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.add_init_script(f"localStorage.setItem('canasta:lang', '{lang}');"
                         f"localStorage.setItem('canasta:{table['table']}', "
                         f"{json.dumps(json.dumps({'token': table['token'], 'seat': 0}))})")
    errors = page_errors(page)
    page.goto(f"{url}/t/{table['table']}")
    return page, errors


IN_SIGHT = """(regions) => {
  // each element of each region: inside the window, and not cut off by any box around it
  // that clips (one that scrolls, or hides what overflows)
  const out = [];
  const why = (el) => {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) return 'is not shown';
    if (r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1)
      return `is outside the window (${Math.round(r.left)},${Math.round(r.top)} to ${Math.round(r.right)},${Math.round(r.bottom)})`;
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1)
        return `is cut off by #${a.id || a.className} (${Math.round(r.top)}..${Math.round(r.bottom)} in ${Math.round(b.top)}..${Math.round(b.bottom)})`;
    }
    return null;
  };
  for (const [what, selector] of Object.entries(regions)) {
    const els = [...document.querySelectorAll(selector)].filter((e) => e.getClientRects().length);
    if (!els.length) out.push(`${what}: nothing shown`);
    for (const el of els) {
      const w = why(el);
      if (w) out.push(`${what} (${el.dataset.key || el.dataset.code || el.id || el.textContent.trim().slice(0, 20)}) ${w}`);
    }
  }
  const s = document.scrollingElement;
  if (s.scrollTop > 0 || s.scrollLeft > 0 || s.scrollHeight > innerHeight + 1) out.push('the page scrolls');
  return out;
}"""

REGIONS = {
    "your side's melds": "#sides-us .meld",
    "the opponents' melds": "#sides-them .meld",
    "the stock": "#stockbox",
    "the pozzo": "#pilebox",
    "your hand": "#hand .card",
    "the buttons": "#buttons button",
}


def settled(page: Page) -> None:
    """The page drew the table and fitted it to the window (the flights of cards landed)."""
    page.wait_for_selector("#hand .card", timeout=WAIT_MS)
    page.wait_for_function("() => document.body.dataset.fitted === document.body.dataset.seq "
                           "&& !document.querySelector('#fly .card')", timeout=WAIT_MS)


@pytest.mark.parametrize("position", ["melded", "held"])
@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_at_the_end_of_a_long_italian_hand_the_whole_table_is_in_sight(
        browser: Browser, server: ServerProcess, long_hands: dict[str, dict[str, Any]], shots: Path,
        lang: str, width: int, height: int, position: str) -> None:
    page, errors = open_as(browser, server.url, long_hands[position], lang, width, height)
    try:
        settled(page)
        counts = page.evaluate("() => [...document.querySelectorAll('.sidepanel')].map((p) => p.querySelectorAll('.meld').length)")
        closed = page.locator(".meld.closed").count()
        if position == "melded":  # a long hand indeed: many melds on both sides, closed canastas
            assert min(counts) >= 7 and max(counts) >= 12 and closed >= 8, (counts, closed)
        else:  # the person held on to their cards
            assert page.locator("#hand .card").count() >= 20 and max(counts) >= 10, counts
        assert page.evaluate("() => document.body.dataset.toMove === document.body.dataset.seat")
        page.screenshot(path=str(shots / f"layout-italian-{position}-{lang}-{width}x{height}.png"))
        problems = page.evaluate(IN_SIGHT, REGIONS)
        assert not problems, problems
        # every meld, however small it was made, still says its rank and count
        for text in page.eval_on_selector_all(".sidepanel .meld:not(.reds)", "ms => ms.map((m) => m.innerText)"):
            assert any(ch.isdigit() for ch in text), text
        assert not errors, errors
    finally:
        page.context.close()


SHEET_FITS = """() => {
  const box = document.querySelector('#sheet-modal .box');
  const r = box.getBoundingClientRect();
  const out = [];
  if (box.scrollHeight > box.clientHeight + 1) out.push(`the sheet scrolls: ${box.scrollHeight} in ${box.clientHeight}`);
  if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) out.push('the sheet is outside the window');
  for (const b of box.querySelectorAll('button, a')) {
    if (!b.getClientRects().length) continue;
    const q = b.getBoundingClientRect();
    if (q.bottom > r.bottom || q.top < r.top) out.push(`${b.textContent} is out of sight`);
  }
  return out;
}"""


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_the_match_end_sheet_fits_a_768_pixel_window(browser: Browser, server: ServerProcess, shots: Path,
                                                     preset: str) -> None:
    table = make_table(server, {"preset": preset, "seed": 5})
    play_match_over_a_socket(server, table["table"], table["token"])
    for lang in ("en", "it"):
        page, errors = open_as(browser, server.url, table, lang, 1366, 768)
        try:
            page.wait_for_selector("body[data-match-over=true]", timeout=WAIT_MS)
            page.wait_for_selector("#sheet-modal:visible", timeout=WAIT_MS)
            hands = page.locator("#sheet table.sheet").nth(1).locator("tr").count() - 1
            assert hands >= 4, hands  # a match of several hands
            page.screenshot(path=str(shots / f"layout-match-end-{preset}-{lang}-1366x768.png"))
            problems = page.evaluate(SHEET_FITS)
            assert not problems, problems
            assert page.is_visible("#btn-rematch2")
            assert not errors, errors
        finally:
            page.context.close()
