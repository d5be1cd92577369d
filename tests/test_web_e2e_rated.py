"""Rated play in Chromium (issue 53): the leaderboard of a pool and a player's ratings on
``/u/NAME`` (number ± uncertainty, provisional, the history plot) at 1366×768 and 390×844, in
English and Italian, within the window's width; the lobby's rated panel makes a rated table for
a signed-in player.  Screenshots to ``CANASTA_E2E_SHOTS`` if set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chromium import fits, log_in, page_errors, skip_unless_ready

skip_unless_ready()

from canasta.web.devserver import ServerProcess  # noqa: E402
from test_web_accounts import csrf  # noqa: E402
from test_web_rated import as_player, card_room, join, rated_table  # noqa: E402

SIZES = [(1366, 768), (390, 844)]
WORDS = {"en": ("Leaderboard", "provisional", "Ratings"), "it": ("Classifica", "provvisorio", "Punteggi")}
GAMES = 4  # rated games of Giulia's (she leaves the first, then wins three)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("rated")
    with card_room(folder) as client:  # rated games settled by leaving: written where the server reads
        as_player(client, "Mario")
        as_player(client, "Giulia")
        for game in range(GAMES):
            made = rated_table(client, target=100, seed=game).json()
            as_player_again(client, "Mario")
            joined = join(client, made["table"], 1).json()
            leaver = made["token"] if game == 0 else joined["token"]
            left = client.post(f"/api/rated/tables/{made['table']}/leave", json={"token": leaver})
            assert left.status_code == 200, left.text
            as_player_again(client, "Giulia")
        client.app.state.hub.store.close()  # type: ignore[attr-defined]
    server = ServerProcess(str(folder / "t.db"), args=["--bot-workers", "0"]).start()
    yield server
    server.stop()


def as_player_again(client: Any, name: str) -> None:
    client.post("/api/account/logout", json={}, headers={"X-CSRF-Token": csrf(client)})
    r = client.post("/api/account/login", json={"name": name, "password": "correct horse battery"},
                    headers={"X-CSRF-Token": csrf(client)})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("size", SIZES, ids=["laptop", "phone"])
def test_the_leaderboard_and_the_profile(browser: Any, server: ServerProcess, shots: Path, lang: str,
                                         size: tuple[int, int]) -> None:
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors = page_errors(page)
    title, provisional, ratings = WORDS[lang]
    page.goto(f"{server.url}/leaderboard/classic-2p?lang={lang}")
    page.wait_for_selector("body[data-ready]")
    assert page.locator("h1").inner_text() == title
    rows = page.locator("#board tr[data-player]")
    assert rows.count() == 2
    first = page.locator("#board tr[data-player] >> nth=0")
    assert first.get_attribute("data-player") == "Giulia"  # three wins of four
    assert provisional in first.inner_text()
    api = page.evaluate("async () => (await (await fetch('/api/leaderboard/classic-2p')).json()).rows")
    assert api[0]["name"] == "Giulia" and api[0]["games"] == GAMES
    fits(page, width)
    inner = page.evaluate("(() => { const b = document.querySelector('.scroll-x'); return [b.scrollWidth, b.clientWidth]; })()")
    assert inner[0] <= inner[1], f"the leaderboard needs scrolling: {inner}"
    page.screenshot(path=str(shots / f"leaderboard-{lang}-{width}.png"), full_page=True)
    page.locator("#board tr[data-player] >> nth=0 >> a").click()
    page.wait_for_selector("#ratings[data-ready]")
    assert page.locator("#ratings-panel h2").inner_text() == ratings
    card = page.locator(".rating-card[data-pool=classic-2p]")
    assert "±" in card.locator(".figure").inner_text()
    assert provisional in card.inner_text()
    assert card.locator("svg.rating-plot circle").count() == GAMES
    box = card.locator("svg.rating-plot").bounding_box()
    assert box is not None and box["width"] > 200 and box["x"] + box["width"] <= width
    fits(page, width)
    page.screenshot(path=str(shots / f"ratings-{lang}-{width}.png"), full_page=True)
    assert not errors, errors
    context.close()


def test_the_lobby_makes_a_rated_table(browser: Any, server: ServerProcess, shots: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors = page_errors(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#rated-panel[data-ready]")
    assert page.locator("#rated-guest").is_visible() and page.locator("#rated-make").is_hidden()
    assert page.locator("#leaderboards").get_attribute("href") == "/leaderboard/classic-4p"
    log_in(page, "giulia")
    page.reload()
    page.wait_for_selector("#rated-make:not([hidden])")
    page.locator("#rated-panel").screenshot(path=str(shots / "lobby-rated-390.png"))
    page.select_option("#rated-preset", "classic-4p")
    page.locator("#btn-rated").click()
    page.wait_for_url("**/t/*")
    table = page.url.rsplit("/", 1)[1]
    info = page.evaluate(f"async () => (await fetch('/api/tables/{table}')).json()")
    assert info["rated"] == "classic-4p" and info["seats"][0]["name"] == "Giulia"
    assert [s["kind"] for s in info["seats"]] == ["human", "open", "open", "open"]
    page.goto(server.url + "/")  # the lobby lists it, marked rated
    listed = page.locator(f".open-table[data-table='{table}']")
    listed.wait_for()
    assert " · rated · " in listed.inner_text()
    assert not errors, errors
    context.close()


def test_two_players_find_a_rated_game(browser: Any, server: ServerProcess, shots: Path) -> None:
    """Giulia and Mario, each in their own browser, ask for a rated italian-2p game: both are
    taken to the same new rated table, each in their own seat."""
    pages: list[Any] = []
    for name in ("giulia", "mario"):
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        page = context.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#rated-panel[data-ready]")  # the page's own first look at the account is done
        log_in(page, name)
        page.reload()
        page.wait_for_selector("#ranked-row:not([hidden])")
        page.select_option("#rated-preset", "italian-2p")  # a pool where both are new: 25 and 25
        page.locator("#btn-ranked").click()
        if not pages:  # the first waits, and says so
            page.wait_for_selector("#ranked-status:has-text('1')")
            assert page.locator("#btn-unranked").is_visible()
        pages.append(page)
    first = pages[0]
    first.wait_for_url("**/t/*", timeout=15000)  # the first page learns of the table on its next look
    pages[1].wait_for_url("**/t/*", timeout=15000)
    assert first.url == pages[1].url
    table = first.url.rsplit("/", 1)[1]
    info = first.evaluate(f"async () => (await fetch('/api/tables/{table}')).json()")
    assert info["rated"] == "italian-2p" and sorted(s["name"] for s in info["seats"]) == ["Giulia", "Mario"]
    for page in pages:  # each page holds its own seat's token: no join form, its hand is dealt
        page.wait_for_selector("#hand .card", timeout=30000)
        assert page.locator("#join").is_hidden()
        assert page.evaluate("document.body.dataset.rated") == "italian-2p" and page.locator("#btn-hint").is_hidden()
    seats = sorted(p.evaluate(f"JSON.parse(localStorage.getItem('canasta:{table}')).seat") for p in pages)
    assert seats == [0, 1]
    first.screenshot(path=str(shots / "ranked-table-1366.png"))
    for page in pages:
        page.context.close()


def test_the_pseudo_language_finds_no_text_outside_the_catalog(browser: Any, server: ServerProcess) -> None:
    """The leaderboard, a player's ratings and the lobby's rated panel (signed in, waiting in the
    queue) say nothing that did not come through the catalog."""
    from test_web_e2e import untranslated

    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    errors = page_errors(page)
    page.goto(f"{server.url}/leaderboard/classic-2p?lang=qps")
    page.wait_for_selector("body[data-ready]")
    assert untranslated(page, ["Giulia", "Mario"]) == []
    page.goto(f"{server.url}/u/Giulia?lang=qps")
    page.wait_for_selector("#ratings[data-ready]")
    assert untranslated(page, ["Giulia", "Mario"]) == []
    page.goto(f"{server.url}/?lang=qps")
    page.wait_for_selector("#rated-panel[data-ready]")
    log_in(page, "mario")
    page.reload()
    page.wait_for_selector("#ranked-row:not([hidden])")
    page.select_option("#rated-preset", "american-4p")
    page.locator("#btn-ranked").click()
    page.wait_for_selector("#btn-unranked:not([hidden])")
    # the rated panel's own words (the lobby's other parts have their own test: test_web_e2e.py)
    page.evaluate("document.querySelectorAll('body > :not(#rated-panel)').forEach((e) => e.remove())")
    assert untranslated(page, ["Giulia", "Mario"]) == []
    left = page.evaluate("""async () => {
        const me = await (await fetch('/api/account/me')).json();
        const r = await fetch('/api/ranked/american-4p/leave', {method: 'POST', headers: {'content-type':
            'application/json', 'x-csrf-token': me.csrf}, body: '{}'});
        return (await r.json()).left;
    }""")
    assert left is True
    assert not errors, errors
    context.close()
