"""A player's profile in Chromium (issue 52): a signed-in player's two finished quick games on
``/u/NAME`` at 1366×768 and 390×844, in English and in Italian: the statistics and every game's
links in the window's width, its own account's part (export, delete) shown to its owner only.
Screenshots to ``CANASTA_E2E_SHOTS`` if set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chromium import page_errors, sign_in, skip_unless_ready

skip_unless_ready()

from canasta.web.devserver import ServerProcess  # noqa: E402
from test_web_accounts import card_room, register  # noqa: E402
from test_web_accounts_profiles import play_a_match  # noqa: E402

SIZES = [(1366, 768), (390, 844)]
WORDS = {"en": ("Statistics", "replay", "Export everything kept about you (JSON)"),
         "it": ("Statistiche", "rivedi", "Esporta tutto ciò che è conservato su di te (JSON)")}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("profile")
    with card_room(folder) as client:  # two finished games of Giulia's, written where the server reads
        register(client, "Giulia")
        play_a_match(client)
        play_a_match(client)
        client.app.state.hub.store.close()  # type: ignore[attr-defined]
    server = ServerProcess(str(folder / "t.db"), args=["--bot-workers", "0"]).start()
    yield server
    server.stop()


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("size", SIZES, ids=["laptop", "phone"])
def test_the_profile_fits_and_speaks_the_language(browser: Any, server: ServerProcess, shots: Path, lang: str,
                                                  size: tuple[int, int]) -> None:
    width, height = size
    for owner in (False, True):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        errors = page_errors(page)
        if owner:
            sign_in(page, server.url, "giulia")
        page.goto(f"{server.url}/u/Giulia?lang={lang}")
        page.wait_for_selector("#games li")
        statistics, replay, export = WORDS[lang]
        assert page.locator("#stats-panel h2").inner_text() == statistics
        assert page.locator("#games li").count() == 2
        assert page.locator("#games li >> nth=0 >> a").first.inner_text() == replay
        if owner:
            page.wait_for_selector("#own:not([hidden])")
            assert page.locator("#export").inner_text() == export
        else:
            assert page.locator("#own").is_hidden()
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, f"the page is {scroll} px wide in a {width} px window"
        page.screenshot(path=str(shots / f"profile-{lang}-{width}{'-own' if owner else ''}.png"), full_page=True)
        assert not errors, errors
        context.close()
