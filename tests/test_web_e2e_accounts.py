"""Accounts from the lobby in Chromium, as a person does it (issue 52): a guest sees the quick game
first and the sign-in form folded away; they sign up, sign out, are refused a wrong password and
an unknown name in the same words, and a short password at sign-up, in the page's language; sign
in with the right one, play a quick game signed in (the seat under the account's name, the socket
playing as before) and find it on their profile (/u/NAME), where they sign out.  At 1366×768 and 390×844, in English and Italian:
nothing wider than the window, every control of the account large enough to tap.  Screenshots go
to ``CANASTA_E2E_SHOTS`` if set, else to the test's temporary directory."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chromium import fits, page_errors, skip_unless_ready

skip_unless_ready()

from canasta.web.devserver import ServerProcess  # noqa: E402

WAIT_MS = 60_000  # the longest any one awaited event may take on a busy machine (not a pause)
SIZES = [(1366, 768), (390, 844)]
PASSWORD = "correct horse battery"
NAME = "Giulia Rossi"
WORDS = {
    "en": {"wrong": "wrong name or password", "short": "a password has at least 8 characters", "signin": "Sign in", "signout": "Sign out",
           "open": "open the table", "quick": "Play against bots"},
    "it": {"wrong": "nome o password errati", "short": "una password ha almeno 8 caratteri", "signin": "Accedi", "signout": "Esci",
           "open": "apri il tavolo", "quick": "Gioca contro i bot"},
}
MIN_TAP = 44  # px: the least height of a button or link a finger must hit here
MIN_FIELD = 40  # px: of a text field


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    running = ServerProcess(str(tmp_path / "accounts.db"), args=[
        "--bot-delay", "0", "--allow-fixed-seeds", "--tables-per-minute", "0", "--bot-workers", "0"]).start()
    try:
        yield running
    finally:
        running.stop()


def api(server: ServerProcess, path: str) -> Any:
    with urllib.request.urlopen(server.url + path, timeout=10) as r:
        return json.loads(r.read())


def tall_enough(page: Any, selector: str, least: int = MIN_TAP) -> None:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    assert box["height"] >= least - 0.5, f"{selector} is {box['height']:.0f} px high"


def sign(page: Any, name: str, password: str, button: str = "#btn-login", enter: bool = False) -> None:
    """Fill the lobby's form (opened from the header) and send it with ``button`` or Enter."""
    if not page.locator("#account").evaluate("d => d.open"):
        page.click("#btn-signin")
    page.wait_for_selector("#account-name:visible")
    page.fill("#account-name", name)
    page.fill("#account-password", password)
    if enter:
        page.press("#account-password", "Enter")
    else:
        page.click(button)


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("size", SIZES, ids=["laptop", "phone"])
def test_sign_up_out_in_play_and_see_it_on_the_profile(browser: Any, server: ServerProcess, shots: Path, lang: str,
                                                        size: tuple[int, int]) -> None:
    width, height = size
    words = WORDS[lang]
    tag = f"{lang}-{width}"
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors = page_errors(page)

    # a guest: the quick game is there at once, the form folded away
    page.goto(f"{server.url}/?lang={lang}&seed=7")
    page.wait_for_selector("body[data-ready=true]")
    assert page.get_attribute("body", "data-account") == ""
    assert page.inner_text("#btn-quick") == words["quick"]
    assert page.is_visible("#btn-quick") and page.is_visible("#name")
    assert not page.locator("#account").evaluate("d => d.open")
    assert page.inner_text("#btn-signin") == words["signin"]
    tall_enough(page, "#btn-signin")
    fits(page, width)
    page.screenshot(path=str(shots / f"accounts-{tag}-1-guest.png"))

    # sign up: the form opens from the header, the name typed as a guest already in it
    page.fill("#name", NAME)
    page.click("#btn-signin")
    assert page.input_value("#account-name") == NAME
    assert page.evaluate("document.activeElement.id") == "account-password"
    for selector in ("#account-name", "#account-password", "#name"):
        tall_enough(page, selector, MIN_FIELD)
    for selector in ("#btn-login", "#btn-register", "label.check", "#account summary"):
        tall_enough(page, selector)
    fits(page, width)
    page.screenshot(path=str(shots / f"accounts-{tag}-2-form.png"))
    sign(page, NAME, PASSWORD, "#btn-register")
    page.wait_for_selector(f'body[data-account="{NAME}"]')
    assert page.inner_text("#me-name") == NAME
    assert page.get_attribute("#me-name", "href") == "/u/Giulia%20Rossi"
    assert page.inner_text("#btn-signout") == words["signout"]
    assert NAME in page.inner_text("#playing-as") and page.is_hidden("#name")
    tall_enough(page, "#me-name")
    tall_enough(page, "#btn-signout")
    fits(page, width)
    page.screenshot(path=str(shots / f"accounts-{tag}-3-signed-up.png"))

    # sign out, then a wrong password and an unknown name: one refusal, in the page's language
    page.click("#btn-signout")
    page.wait_for_selector('body[data-account=""]')
    assert page.is_visible("#name") and page.is_visible("#btn-quick")
    assert api(server, "/api/account/me")["account"] is None  # (another browser, of course)
    refusals = []
    for name, password, button in ((NAME, "not the password", "#btn-login"), ("Nobody Here", PASSWORD, "#btn-login"),
                                   ("Nobody Here", "short", "#btn-register")):
        page.evaluate("document.getElementById('account-error').textContent = ''")
        sign(page, name, password, button)
        page.wait_for_function("() => document.getElementById('account-error').textContent !== ''", timeout=WAIT_MS)
        refusals.append(page.inner_text("#account-error"))
    assert refusals == [words["wrong"], words["wrong"], words["short"]]
    assert page.get_attribute("body", "data-account") == ""
    fits(page, width)
    page.screenshot(path=str(shots / f"accounts-{tag}-4-refused.png"))

    # sign in with the password (Enter in the password field)
    sign(page, NAME, PASSWORD, enter=True)
    page.wait_for_selector(f'body[data-account="{NAME}"]')
    assert page.input_value("#account-password") == ""

    # a table made from the lobby signed in: the creator's seat is the account's
    page.click("#btn-create")
    page.wait_for_selector("#created:not([hidden]) a")
    made = (page.get_attribute("#created a", "href") or "").rsplit("/", 1)[1]
    assert api(server, f"/api/tables/{made}")["seats"][0]["name"] == NAME

    # a quick game signed in: the seat is the account's, under its name; the socket plays as before
    page.click("#btn-quick")
    page.wait_for_url("**/t/*")
    page.wait_for_selector("#hand .card", timeout=WAIT_MS)
    table = page.url.rsplit("/", 1)[1]
    assert api(server, f"/api/tables/{table}")["seats"][0]["name"] == NAME
    page.wait_for_selector(f'body[data-account="{NAME}"]')
    assert page.get_attribute("#me-link", "href") == "/u/Giulia%20Rossi"
    page.wait_for_selector("#btn-draw:enabled", timeout=WAIT_MS)
    before = int(page.get_attribute("body", "data-seq") or "-1")
    page.click("#btn-draw")
    page.wait_for_function(f"() => Number(document.body.dataset.seq) > {before}", timeout=WAIT_MS)
    fits(page, width)
    if width < 760:
        page.click("#btn-menu")
    assert page.is_visible("#me-link")
    page.screenshot(path=str(shots / f"accounts-{tag}-5-table.png"))

    # the game on the profile, the header saying who you are; sign out from there
    page.click("#me-link")
    page.wait_for_url("**/u/*")
    page.wait_for_selector("#games li")
    links = page.locator("#games li a")
    assert links.count() == 2
    assert {links.nth(k).get_attribute("href") for k in range(2)} == {f"/t/{table}", f"/t/{made}"}
    assert {links.nth(k).inner_text() for k in range(2)} == {words["open"]}
    page.wait_for_selector("#own:not([hidden])")
    assert page.inner_text("#me-name") == NAME
    tall_enough(page, "#btn-signout")
    fits(page, width)
    page.screenshot(path=str(shots / f"accounts-{tag}-6-profile.png"), full_page=True)
    page.click("#btn-signout")
    page.wait_for_selector("#btn-signin")
    page.wait_for_selector("#games li")
    assert page.is_hidden("#own")
    assert not errors, errors
    context.close()
