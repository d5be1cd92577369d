"""The game's pause and leaving a rated match in Chromium (issue 53), at 1366x768 and 390x844,
in English and Italian: Giulia and Mario, each in their own browser, play a rated classic-2p
match; Giulia asks for a pause, Mario sees the request and agrees, both see the paused game
(no turn timer, the pauses left), Mario resumes; then Giulia leaves the match with the menu's
button, which asks first (Stay keeps her), and the rating counts it as her loss.  Screenshots
to ``CANASTA_E2E_SHOTS`` if set."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chromium import fits, log_in, page_errors, skip_unless_ready

skip_unless_ready()

from canasta.web.devserver import ServerProcess  # noqa: E402
from conftest import need  # noqa: E402

need("argon2")
need("openskill")
httpx = need("httpx2")

PASSWORD = "correct horse battery"
SIZES = [(1366, 768), (390, 844)]
WORDS = {"en": {"pause": "Pause", "asks": "Giulia asks for a pause.", "paused": "The game is paused",
                "left": "1 pause left in this rated match", "leave": "Leave rated match", "loss": "counts as a loss"},
         "it": {"pause": "Pausa", "asks": "Giulia chiede una pausa.", "paused": "Il gioco è in pausa",
                "left": "1 pausa rimasta in questa partita valutata", "leave": "Lascia la partita valutata",
                "loss": "conta come una sconfitta"}}
WAIT_MS = 20_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("pause")
    server = ServerProcess(str(folder / "t.db"), args=["--bot-workers", "0", "--allow-fixed-seeds",
                                                      "--tables-per-minute", "0"]).start()
    try:
        for name in ("Giulia", "Mario"):
            with httpx.Client(base_url=server.url, timeout=20) as client:
                token = client.get("/api/account/me").json()["csrf"]
                r = client.post("/api/account/register", json={"name": name, "password": PASSWORD},
                                headers={"X-CSRF-Token": token})
                assert r.status_code == 201, r.text
        yield server
    finally:
        server.stop()


def signed_in(browser: Any, server: ServerProcess, name: str, size: tuple[int, int], lang: str) -> Any:
    """A page of its own browser context, signed in as ``name`` through the page's account module."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(f"{server.url}/?lang={lang}")
    page.wait_for_selector("body[data-ready=true]")
    log_in(page, name, PASSWORD)
    return page


def keep_seat(page: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST ``body`` to ``path`` from the page (its CSRF token) and keep the seat's token as the lobby does."""
    data: dict[str, Any] = page.evaluate("""async ([path, body]) => {
        const { post } = await import('/static/account.js');
        const r = await post(path, body);
        const d = await r.json();
        if (!r.ok) throw new Error(JSON.stringify(d));
        localStorage.setItem('canasta:' + d.table, JSON.stringify({ token: d.token, seat: d.seat }));
        return d;
    }""", [path, body])
    return data


def menu(page: Any) -> None:
    """Open the header's menu if the page is narrow enough to have one (a phone)."""
    if page.locator("#btn-menu").is_visible() and "open" not in (page.get_attribute("#bar", "class") or ""):
        page.click("#btn-menu")


def result_of(server: ServerProcess, table: str) -> Any:
    with urllib.request.urlopen(f"{server.url}/api/rated/tables/{table}", timeout=10) as r:
        return json.loads(r.read())["result"]


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("size", SIZES, ids=["laptop", "phone"])
def test_pause_resume_and_leave_a_rated_match(browser: Any, server: ServerProcess, shots: Path, lang: str,
                                              size: tuple[int, int]) -> None:
    width = size[0]
    words = WORDS[lang]
    giulia = signed_in(browser, server, "giulia", size, lang)
    mario = signed_in(browser, server, "mario", size, lang)
    errors_g, errors_m = page_errors(giulia), page_errors(mario)
    made = keep_seat(giulia, "/api/rated/tables", {"preset": "classic-2p", "target": 100, "seed": 7})
    table = made["table"]
    keep_seat(mario, f"/api/tables/{table}/join", {"seat": 1, "name": "Mario"})
    for page in (giulia, mario):
        page.goto(f"{server.url}/t/{table}?lang={lang}")
        page.wait_for_selector("#hand .card", timeout=WAIT_MS)
    # Giulia asks for a pause (on a phone, from the header's menu): Mario is asked, the clock still runs
    menu(giulia)
    giulia.wait_for_selector("#btn-pause:visible")
    assert giulia.locator("#btn-pause").inner_text() == words["pause"]
    giulia.click("#btn-pause")
    giulia.wait_for_selector("body[data-pause-asked=true]")
    mario.wait_for_selector("#pause-agree:visible", timeout=WAIT_MS)
    assert words["asks"] in mario.locator("#pause-text").inner_text()
    assert mario.locator("#btn-pause").is_hidden()
    fits(mario, width)
    mario.screenshot(path=str(shots / f"pause-asked-{lang}-{width}.png"))
    # Mario agrees: paused on both pages, no turn timer shown, one pause left of two
    mario.click("#pause-agree")
    for page in (giulia, mario):
        page.wait_for_selector("body[data-paused=true]", timeout=WAIT_MS)
        page.wait_for_selector("#pause-resume:visible")
        assert words["paused"] in page.locator("#pause-text").inner_text()
        assert words["left"] in page.locator("#pause-more").inner_text()
        assert page.locator("#deadline").inner_text() == ""
        fits(page, width)
    giulia.screenshot(path=str(shots / f"pause-paused-{lang}-{width}.png"))
    # Mario resumes: play goes on, the turn timer with it
    mario.click("#pause-resume")
    for page in (giulia, mario):
        page.wait_for_selector("body[data-paused=false]", timeout=WAIT_MS)
        page.wait_for_selector("#pause-bar", state="hidden")
    giulia.wait_for_function("document.getElementById('deadline').textContent !== ''", timeout=WAIT_MS)
    # Giulia leaves the rated match from the menu: asked first; Stay keeps her at the table
    menu(giulia)
    leave = giulia.locator("#btn-leave")
    leave.wait_for(state="visible")
    assert leave.inner_text() == words["leave"]
    leave.click()
    giulia.wait_for_selector("#leave-modal:not([hidden])")
    assert words["loss"] in giulia.locator("#leave-text").inner_text()
    giulia.screenshot(path=str(shots / f"leave-ask-{lang}-{width}.png"))
    giulia.click("#leave-stay")
    giulia.wait_for_selector("#leave-modal", state="hidden")
    assert result_of(server, table) is None
    leave.click()
    giulia.click("#leave-go")
    giulia.wait_for_url(f"{server.url}/", timeout=WAIT_MS)
    result = result_of(server, table)
    assert result is not None and result["reason"] == "left" and result["leaver"] == 0 and result["why"] == "said"
    assert not errors_g and not errors_m, errors_g + errors_m
    giulia.context.close()
    mario.context.close()


def test_the_pseudo_language_finds_no_text_outside_the_catalog(browser: Any, server: ServerProcess) -> None:
    """The pause's strip and the leave dialog say nothing that did not come through the catalog."""
    from test_web_e2e import untranslated

    giulia = signed_in(browser, server, "giulia", (1366, 768), "qps")
    mario = signed_in(browser, server, "mario", (1366, 768), "qps")
    made = keep_seat(giulia, "/api/rated/tables", {"preset": "classic-2p", "target": 100, "seed": 8})
    keep_seat(mario, f"/api/tables/{made['table']}/join", {"seat": 1, "name": "Mario"})
    for page in (giulia, mario):
        page.goto(f"{server.url}/t/{made['table']}?lang=qps")
        page.wait_for_selector("#hand .card", timeout=WAIT_MS)
    giulia.click("#btn-pause")
    mario.wait_for_selector("#pause-agree:visible", timeout=WAIT_MS)
    mario.click("#pause-agree")
    giulia.wait_for_selector("#pause-resume:visible", timeout=WAIT_MS)
    giulia.evaluate("document.getElementById('leave-modal').hidden = false")
    for page in (giulia, mario):  # the strip, the header's buttons and the dialog
        page.evaluate("document.querySelectorAll('#middle, #dock').forEach((e) => e.remove())")
        assert untranslated(page, ["Giulia", "Mario"]) == []
    giulia.context.close()
    mario.context.close()
