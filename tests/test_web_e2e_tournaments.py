"""A duplicate tournament in Chromium (issue 53), in English and Italian at 1366×768 and 390×844:
the director makes it from the page's form, two players enter from theirs (drawn into one
partnership), the director adds bot partnerships and starts it, a player sees their own hand and
draws and discards a card by clicking (the actions the page offers for the cards picked), the round is played (the players withdraw: house bots finish their
seats, their partnership marked with no place), the standings and the final table show on
everyone's page, and a board's replay and review open from the final table.  Screenshots to ``CANASTA_E2E_SHOTS`` if set."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chromium import fits, log_in, page_errors, skip_unless_ready

skip_unless_ready()

from canasta.web.devserver import ServerProcess  # noqa: E402
from test_web_rated import as_player, card_room  # noqa: E402

SIZES = [(1366, 768), (390, 844)]
WORDS = {"en": ("Standings", "Final table", "Your table", "Your hand"),
         "it": ("Classifica", "Tabellone finale", "Il tuo tavolo", "La tua mano")}
_names = itertools.count(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("tournament-e2e")
    with card_room(folder) as client:  # the accounts, made where the server reads them
        for n in range(1, 5):
            for name in ("Dora", "Mario", "Giulia"):
                as_player(client, f"{name}{n}")
        client.app.state.hub.store.close()  # type: ignore[attr-defined]
    # a board's review on 4 worlds a decision: quick, the page is what is tested
    server = ServerProcess(str(folder / "t.db"), args=["--bot-workers", "0", "--review-worlds", "4"]).start()
    yield server
    server.stop()


def signed_in(browser: Any, url: str, name: str, size: tuple[int, int], lang: str) -> Any:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(f"{url}/?lang={lang}")
    log_in(page, name)
    return page


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("size", SIZES, ids=["laptop", "phone"])
def test_a_tournament_from_the_page(browser: Any, server: ServerProcess, shots: Path, lang: str,
                                    size: tuple[int, int]) -> None:
    width = size[0]
    standings, final, your_table, your_hand = WORDS[lang]
    n = next(_names)
    director = signed_in(browser, server.url, f"Dora{n}", size, lang)
    errors = page_errors(director)
    director.goto(f"{server.url}/tournaments?lang={lang}")
    director.wait_for_selector("body[data-ready]")
    director.fill("#t-name", f"Club night {n}")
    director.fill("#t-rounds", "1")
    director.fill("#t-hands", "1")
    director.select_option("#t-entry", "individuals")
    director.fill("#t-turn", "60")  # the person's turn waits for the test's clicks; the house bot plays on their withdrawal
    fits(director, width)
    director.screenshot(path=str(shots / f"tournaments-list-{lang}-{width}.png"), full_page=True)
    director.locator("#btn-make").click()
    director.wait_for_url("**/tournaments/*")
    link = director.url.split("?")[0]
    players = []
    for name in (f"Mario{n}", f"Giulia{n}"):
        page = signed_in(browser, server.url, name, size, lang)
        errors += page_errors(page)
        page.goto(f"{link}?lang={lang}")
        page.wait_for_selector("body[data-ready]")
        page.locator("#btn-enter").click()
        page.wait_for_selector("#btn-withdraw:not([hidden])")
        players.append(page)
    director.reload()
    director.wait_for_selector("body[data-ready]")
    assert director.locator("#entries li").count() == 2
    director.fill("#bot-count", "2")
    director.locator("#btn-bots").click()
    director.locator("#entries li").nth(3).wait_for()
    director.locator("#btn-start").click()
    director.wait_for_selector("body[data-status=running]")
    mario = players[0]
    mario.wait_for_selector("#my-table:not([hidden])")
    assert mario.locator("#my-table h2").inner_text() == your_table
    assert your_hand in mario.locator("#my-hand").inner_text()
    mover: Any = None
    for page in itertools.islice(itertools.cycle(players), 600):  # a person's turn comes once the bots have moved
        if page.locator("#my-play").is_visible():
            mover = page
            break
        page.wait_for_timeout(100)
    assert mover is not None, "neither player was ever to move"
    # the turn begins with drawing: the page offers it as a button, in the page's language
    draw = mover.locator("#my-actions button[data-action=draw]")
    draw.wait_for()
    before = mover.locator("body").get_attribute("data-seq")
    fits(mover, width)
    mover.screenshot(path=str(shots / f"tournament-my-table-{lang}-{width}.png"), full_page=True)
    draw.click()
    mover.wait_for_selector(f"body:not([data-seq='{before}'])")
    assert not mover.locator("#action-error").inner_text()
    # then a card picked from the hand: its discard is offered, and played
    pick = mover.locator("#my-hand button.pick:not([disabled])").last
    pick.wait_for()
    code = pick.get_attribute("data-code")
    pick.click()
    discard = mover.locator(f"#my-actions button[data-action=discard][data-move='discard {code}']")
    discard.wait_for()
    assert mover.locator("#my-hand .card.selected").count() == 1
    fits(mover, width)
    mover.screenshot(path=str(shots / f"tournament-my-pick-{lang}-{width}.png"), full_page=True)
    before = mover.locator("body").get_attribute("data-seq")
    discard.click()
    mover.wait_for_selector(f"body:not([data-seq='{before}'])")
    assert not mover.locator("#action-error").inner_text()
    for page in players:
        page.locator("#btn-withdraw").click()
        page.wait_for_selector("#btn-withdraw", state="hidden")
    director.wait_for_selector("body[data-status=finished]", timeout=60_000)
    assert director.locator("#standings-panel h2").inner_text() == standings
    assert director.locator("#final-panel h2").inner_text() == final
    assert director.locator("#standings tr").count() == 5
    assert director.locator("#final tr").count() == 1 + 4  # each partnership's one board
    assert director.locator("#proof td").nth(2).inner_text() != ""  # the secret, revealed
    fits(director, width)
    director.screenshot(path=str(shots / f"tournament-final-{lang}-{width}.png"), full_page=True)
    record = director.locator("#final a[href$='/record']").first.get_attribute("href")
    text = director.evaluate(f"async () => (await fetch('{record}')).text()")
    assert "[Secret " in text and "[Round \"1\"]" in text
    director.locator("#final a").first.click()  # the board in the room's replay, every hand shown
    director.wait_for_url("**/replay/1/*/1*")
    director.wait_for_selector("#seats .card")
    assert director.locator("#review").is_hidden()
    fits(director, width)
    director.screenshot(path=str(shots / f"tournament-replay-{lang}-{width}.png"), full_page=True)
    director.go_back()
    director.wait_for_selector("body[data-status=finished]")
    director.locator("#final a[href*='/review/']").first.click()  # the board's review, a seat's decisions marked
    director.wait_for_url("**/review/1/*/1*")
    director.wait_for_selector("body[data-review]")
    director.wait_for_selector("#timeline li", timeout=120_000)
    fits(director, width)
    director.screenshot(path=str(shots / f"tournament-review-{lang}-{width}.png"), full_page=True)
    assert not errors, errors
    for page in [director, *players]:
        page.context.close()


def test_a_round_time_limit_from_the_form(browser: Any, server: ServerProcess) -> None:
    """The director's round time limit, set on the form, is the tournament's, said in the reader's language."""
    page = signed_in(browser, server.url, "Dora1", SIZES[0], "it")
    errors = page_errors(page)
    page.goto(f"{server.url}/tournaments?lang=it")
    page.wait_for_selector("body[data-ready]")
    page.fill("#t-name", "A tempo")
    page.fill("#t-round-minutes", "30")
    page.locator("#btn-make").click()
    page.wait_for_url("**/tournaments/*")
    page.wait_for_selector("body[data-ready]")
    assert "al massimo 30 minuti a turno" in page.locator("#summary").inner_text()
    assert not errors, errors
    page.context.close()
