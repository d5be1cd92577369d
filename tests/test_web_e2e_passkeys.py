"""Passkeys in Chromium, as a person uses them (issue 52), with Chromium's virtual authenticator
(the DevTools protocol's WebAuthn domain: CTAP2, internal transport, resident keys, the user
verified): sign up with a password, add a passkey from the signed-in panel, sign out, sign in
with the passkey typing the name and then without any name, see it listed as used, remove it,
and be refused when the device offers the removed passkey.  At 1366×768 and 390×844, in
English and Italian: nothing wider than the window, the buttons large enough to tap; the
screenshots go to ``CANASTA_E2E_SHOTS`` if set, else to the test's temporary directory.

The page is opened at ``localhost`` (a WebAuthn RP id is a domain, never an address)."""

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
from test_web_e2e_accounts import PASSWORD, WAIT_MS, sign, tall_enough  # noqa: E402

SIZES = [(1366, 768), (390, 844)]
NAME = "Giulia Rossi"
WORDS = {
    "en": {"signin": "Sign in with a passkey", "add": "Add a passkey", "none": "No passkey yet",
           "added": "Passkey added", "used": "last used", "removed": "Passkey removed.",
           "refused": "this passkey was not accepted"},
    "it": {"signin": "Accedi con una passkey", "add": "Aggiungi una passkey", "none": "Ancora nessuna passkey",
           "added": "Passkey aggiunta", "used": "ultimo uso", "removed": "Passkey rimossa.",
           "refused": "questa passkey non è stata accettata"},
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    running = ServerProcess(str(tmp_path / "passkeys.db"), args=[
        "--bot-delay", "0", "--tables-per-minute", "0", "--bot-workers", "0"]).start()
    try:
        yield running
    finally:
        running.stop()


def authenticator(context: Any, page: Any) -> tuple[Any, str]:
    """A virtual platform authenticator for ``page`` (its DevTools session and id)."""
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True}})
    return cdp, str(made["authenticatorId"])


def passkeys_held(cdp: Any, authenticator_id: str) -> list[Any]:
    found: list[Any] = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]
    return found


def me(page: Any) -> Any:
    return page.evaluate("async () => (await (await fetch('/api/account/me')).json()).account")


def sign_out(page: Any) -> None:
    page.click("#btn-signout")
    page.wait_for_selector('body[data-account=""]')


def passkey_signin(page: Any, name: str) -> None:
    if not page.locator("#account").evaluate("d => d.open"):
        page.click("#btn-signin")
    page.wait_for_selector("#btn-passkey:visible")
    page.fill("#account-name", name)
    page.evaluate("document.getElementById('account-error').textContent = ''")
    page.click("#btn-passkey")


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("size", SIZES, ids=["laptop", "phone"])
def test_add_a_passkey_and_sign_in_with_it(browser: Any, server: ServerProcess, shots: Path, lang: str,
                                           size: tuple[int, int]) -> None:
    width, height = size
    words = WORDS[lang]
    tag = f"{lang}-{width}"
    url = server.url.replace("127.0.0.1", "localhost")
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors = page_errors(page)
    cdp, device = authenticator(context, page)

    # a guest: "Sign in with a passkey" beside the password's buttons
    page.goto(f"{url}/?lang={lang}")
    page.wait_for_selector("body[data-ready=true]")
    page.click("#btn-signin")
    assert page.inner_text("#btn-passkey") == words["signin"]
    tall_enough(page, "#btn-passkey")
    fits(page, width)
    page.screenshot(path=str(shots / f"passkeys-{tag}-1-form.png"))

    # signed up with a password: the panel offers to add a passkey
    sign(page, NAME, PASSWORD, "#btn-register")
    page.wait_for_selector(f'body[data-account="{NAME}"]')
    page.wait_for_selector("#passkeys:not([hidden])")
    page.click("#passkeys summary")
    page.wait_for_selector("#passkey-list li")
    assert words["none"] in page.inner_text("#passkey-list")
    assert page.inner_text("#btn-passkey-add") == words["add"]
    tall_enough(page, "#btn-passkey-add")
    tall_enough(page, "#passkeys summary")
    page.click("#btn-passkey-add")
    page.wait_for_selector("#passkey-list li.passkey", timeout=WAIT_MS)
    assert words["added"] in page.inner_text("#passkey-status")
    [held] = passkeys_held(cdp, device)
    assert held["isResidentCredential"] and held["rpId"] == "localhost"
    tall_enough(page, "#passkey-list li.passkey button")
    fits(page, width)
    page.screenshot(path=str(shots / f"passkeys-{tag}-2-added.png"))

    # signed out, in again with the passkey: first naming the account, then without a name
    for name in (NAME, ""):
        sign_out(page)
        passkey_signin(page, name)
        page.wait_for_selector(f'body[data-account="{NAME}"]', timeout=WAIT_MS)
        assert me(page)["name"] == NAME
        assert NAME in page.inner_text("#account-status")
    assert passkeys_held(cdp, device)[0]["signCount"] >= 3
    if not page.locator("#passkeys").evaluate("d => d.open"):
        page.click("#passkeys summary")
    page.wait_for_selector("#passkey-list li.passkey")
    assert words["used"] in page.inner_text("#passkey-list li.passkey")
    fits(page, width)
    page.screenshot(path=str(shots / f"passkeys-{tag}-3-signed-in.png"))

    # removed from the account: the device still offers it, the room refuses it
    page.click("#passkey-list li.passkey button")
    page.wait_for_selector("#passkey-list li:not(.passkey)")
    assert page.inner_text("#passkey-status") == words["removed"]
    sign_out(page)
    passkey_signin(page, "")
    page.wait_for_function("() => document.getElementById('account-error').textContent !== ''", timeout=WAIT_MS)
    assert page.inner_text("#account-error").startswith(words["refused"])
    assert page.get_attribute("body", "data-account") == "" and me(page) is None
    fits(page, width)
    page.screenshot(path=str(shots / f"passkeys-{tag}-4-refused.png"))
    with urllib.request.urlopen(server.url + "/api/account/me", timeout=10) as r:
        assert json.loads(r.read())["account"] is None
    assert not errors, errors
    context.close()


def test_the_passkeys_words_are_all_in_the_catalog(browser: Any, server: ServerProcess) -> None:
    """In the pseudo-language, the form's passkey button, the signed-in panel with a passkey
    listed, and a refusal: no text a person reads bypassed the catalog."""
    from test_web_e2e import untranslated

    url = server.url.replace("127.0.0.1", "localhost")
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    errors = page_errors(page)
    cdp, device = authenticator(context, page)
    page.goto(f"{url}/?lang=qps")
    page.wait_for_selector("body[data-ready=true]")
    page.click("#btn-signin")
    assert untranslated(page, []) == []
    sign(page, NAME, PASSWORD, "#btn-register")
    page.wait_for_selector(f'body[data-account="{NAME}"]')
    # "You play as {name}." is split around the name's link, which cuts the pseudo-language's
    # brackets (the lobby's sentence, translated, checked by test_web_e2e): left out here
    page.evaluate("document.getElementById('playing-as').hidden = true")
    page.click("#passkeys summary")
    page.wait_for_selector("#passkey-list li")
    assert untranslated(page, [NAME]) == []
    page.click("#btn-passkey-add")
    page.wait_for_selector("#passkey-list li.passkey", timeout=WAIT_MS)
    assert untranslated(page, [NAME]) == []
    cdp.send("WebAuthn.setUserVerified", {"authenticatorId": device, "isUserVerified": False})
    sign_out(page)
    passkey_signin(page, "")  # the device cannot verify its user: no passkey used
    page.wait_for_function("() => document.getElementById('account-error').textContent !== ''", timeout=WAIT_MS)
    assert untranslated(page, []) == []
    assert me(page) is None
    assert not errors, errors
    context.close()
