"""End to end in a real headless Chromium: the review of a hand (issue #34).  A short seeded
match (classic-4p against basic bots, target 100) is played over a socket; the player opens
Review from the table's score sheet, sees the progress, then the hand's moves with the marks;
a click on a marked decision shows the position as that seat saw it, the choice made and the
better one.  At 1366×768 (English) and 390×844 (Italian).

Screenshots go to ``CANASTA_E2E_SHOTS`` (a directory) if set, else to the test's temporary
directory.  Skipped when Chromium or Playwright is missing, unless ``CANASTA_E2E_REQUIRED=1``,
which makes it fail instead."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chromium import page_errors, skip_unless_ready

WAIT_MS = 120_000  # the longest any one awaited event may take on a busy machine (not a pause)


skip_unless_ready()

from playwright.sync_api import Browser, Page  # noqa: E402

from canasta.web.devserver import ServerProcess  # noqa: E402


def page_in(browser: Browser, lang: str, width: int, height: int, table: str = "", seat: dict[str, Any] | None = None
            ) -> tuple[Page, list[str]]:
    """A page in ``lang`` (as the language menu remembers it), holding ``seat``'s token for ``table``."""
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.add_init_script(f"localStorage.setItem('canasta:lang', '{lang}')")
    if seat is not None:
        page.add_init_script(f"localStorage.setItem('canasta:{table}', {json.dumps(json.dumps(seat))})")
    errors = page_errors(page)
    return page, errors


def make_table(page: Page, url: str, body: dict[str, Any]) -> dict[str, Any]:
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready=true]")
    made: dict[str, Any] = page.evaluate("""async (body) => {
      const r = await fetch('/api/tables', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const d = await r.json();
      if (!r.ok) throw new Error(JSON.stringify(d));
      localStorage.setItem('canasta:' + d.table, JSON.stringify({ token: d.token, seat: d.seat }));
      return d;
    }""", body)
    return made


def play_match_over_a_socket(server: ServerProcess, table: str, token: str) -> None:
    """Play seat 0 (a basic bot's choices from its own view) until the match is over."""
    from websockets.sync.client import connect

    from canasta.bots import make_bot
    from canasta.views.seat import SeatView

    bot = make_bot("basic", seed=1)
    with connect(f"{server.ws_url}/ws/{table}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        rules: dict[str, Any] = {}
        while True:
            m = json.loads(ws.recv(timeout=30))  # a table that stops moving fails here
            if m["type"] == "welcome":
                rules = m["rules"]
            if m["type"] != "state" or m["seq"] < 0:
                continue
            if m["match_over"]:
                return
            if m["hand_over"]:
                ws.send(json.dumps({"type": "next_hand"}))
            elif m["view"] and m["view"]["to_move"] == 0:
                view = SeatView.from_dict({**m["view"], "rules": rules})
                ws.send(json.dumps({"type": "move", "move": str(bot.choose(view))}))


def open_a_marked_decision(page: Page) -> dict[str, str]:
    """Wait for the marks, click the first marked decision, and read the position shown."""
    page.wait_for_selector("body[data-review=done]", timeout=WAIT_MS)
    marked = page.locator("#timeline li.marked button.decision")
    assert marked.count() == int(page.evaluate("document.body.dataset.marked")) > 0
    index = marked.first.evaluate("b => b.parentElement.dataset.index")
    marked.first.click()
    page.wait_for_selector(f"body[data-position='{index}']", timeout=WAIT_MS)
    assert page.locator("#position").is_visible()
    return {"symbol": marked.first.locator(".symbol").inner_text().strip(), "made": page.inner_text("#pos-made"),
            "best": page.inner_text("#pos-best"), "title": page.inner_text("#pos-title"),
            "cards": str(page.locator("#pos-hand .card").count())}


def test_review_a_hand_from_the_table_then_on_a_phone(browser: Browser, tmp_path: Path, shots: Path) -> None:
    server = ServerProcess(str(tmp_path / "review.db"), args=[
        "--bot-delay", "0", "--allow-fixed-seeds", "--review-worlds", "8"]).start()
    try:
        page, errors = page_in(browser, "en", 1366, 768)
        made = make_table(page, server.url, {
            "preset": "classic-4p", "name": "Ann", "seat": 0, "seed": 11, "target": 100,
            "seats": [{}, *[{"kind": "bot", "level": "basic"}] * 3]})
        table, token = made["table"], made["token"]
        play_match_over_a_socket(server, table, token)
        page.goto(f"{server.url}/t/{table}")
        page.wait_for_selector("body[data-match-over=true]", timeout=WAIT_MS)
        page.wait_for_selector("#sheet-modal:visible", timeout=WAIT_MS)  # the sheet opens by itself at the end
        link = page.locator("#review-link2")
        assert link.is_visible() and link.inner_text() == "Review this hand"
        with page.context.expect_page() as opened:
            link.click()
        review = opened.value
        review.on("pageerror", lambda e: errors.append(str(e)))
        review.set_viewport_size({"width": 1366, "height": 768})
        review.wait_for_selector("body[data-progress-seen]", state="attached", timeout=WAIT_MS)
        done, total = review.evaluate("document.body.dataset.progressSeen").split("/")
        assert 0 <= int(done) <= int(total) and int(total) > 0
        shown = open_a_marked_decision(review)
        assert shown["symbol"] in ("?!", "?", "??") and shown["made"] and shown["best"], shown
        assert shown["best"] != shown["made"] and int(shown["cards"]) > 0
        assert review.locator(".choice.made").is_visible() and review.locator(".choice.best").is_visible()
        assert "Review" in review.inner_text("h1") and "decisions reviewed" in review.inner_text("#summary")
        review.screenshot(path=str(shots / "review-en-1366x768.png"))
        # the same review read back (kept with the table), on a phone, in Italian
        phone, phone_errors = page_in(browser, "it", 390, 844, table, {"token": token, "seat": 0})
        phone.goto(review.url)
        phone.wait_for_selector("body[data-review=done]", timeout=WAIT_MS)
        assert phone.evaluate("document.body.dataset.progressSeen") is None  # no computing the second time
        again = open_a_marked_decision(phone)
        assert again["symbol"] == shown["symbol"] and again["title"].startswith("Prima della mossa")
        assert "decisioni esaminate" in phone.inner_text("#summary")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # nothing off the side
        phone.screenshot(path=str(shots / "review-it-390x844.png"))
        phone.screenshot(path=str(shots / "review-it-390x844-full.png"), full_page=True)
        # another seat's review: refused (the table does not open reviews to all), said in the page
        phone.goto(f"{server.url}/review/{table}?hand=1&seat=1")
        phone.wait_for_selector("body[data-review=refused]", timeout=WAIT_MS)
        assert "solo a partita finita" in phone.inner_text("#error"), phone.inner_text("#error")
        assert not errors and not phone_errors, errors + phone_errors
    finally:
        server.stop()
