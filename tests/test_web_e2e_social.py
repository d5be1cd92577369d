"""Friends and civility in Chromium (issue 52), as three people do it, each in a browser of
their own: Ann follows Bob from the lobby and invites him to the open seat of her table; Bob
finds the invitation in his lobby and takes the seat through its link; he says something rude in
the table's chat; Ann reports the line, mutes him (his line leaves her chat at once) and blocks
him (his follow is then refused); a moderator sees the report on /moderation, with the line as
the table stored it, and bans Bob: his open table is closed to him at once, saying why, and the
audit log shows the ban.  Bob's profile shows Ann, who follows him, the table where he sits.  At 1366×768 and 390×844, in English and Italian: nothing wider than the
window.  Screenshots go to ``CANASTA_E2E_SHOTS`` if set, else to the test's temporary directory."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chromium import fits, page_errors, skip_unless_ready

skip_unless_ready()

from canasta.web.account_store import AccountStore  # noqa: E402
from canasta.web.accounts import hasher  # noqa: E402
from canasta.web.devserver import ServerProcess  # noqa: E402
from canasta.web.store import Store  # noqa: E402
from test_web_e2e_accounts import PASSWORD, SIZES, WAIT_MS, sign  # noqa: E402

RUDE = "you play like a fish"
WORDS = {
    "en": {"invited": "Bob is invited.", "reported": "Reported. A moderator will look at it.",
           "no_follow": "Ann does not let you follow them", "banned": "this account is banned",
           "invites": "Ann invites you to a seat."},
    "it": {"invited": "Bob è stato invitato.", "reported": "Segnalato. Un moderatore lo esaminerà.",
           "no_follow": "Ann non ti permette di seguirlo", "banned": "questo account è bandito",
           "invites": "Ann ti invita a un posto."},
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    db = str(tmp_path / "social.db")
    running = ServerProcess(db, args=["--bot-delay", "0", "--allow-fixed-seeds", "--tables-per-minute", "0",
                                      "--bot-workers", "0"]).start()
    store = Store(db)
    try:  # the three accounts, as `canasta accounts create` makes them
        accounts = AccountStore(store.engine)
        hashed = hasher().hash(PASSWORD)
        for name, role in (("Ann", "player"), ("Bob", "player"), ("Mod", "moderator")):
            accounts.create(name, hashed, "en", time.time(), role)
    finally:
        store.close()
    try:
        yield running
    finally:
        running.stop()


def signed_in(browser: Any, server: ServerProcess, name: str, lang: str, size: tuple[int, int]) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(f"{server.url}/?lang={lang}")
    page.wait_for_selector("body[data-ready=true]")
    sign(page, name, PASSWORD)
    page.wait_for_selector(f'body[data-account="{name}"]')
    return context, page


def reason(page: Any, within: str, text: str) -> None:
    """Type a reason into the inline form that opened in ``within`` and send it."""
    page.fill(f"{within} .reason-input", text)
    page.click(f"{within} .report-send")


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("size", SIZES, ids=["laptop", "phone"])
def test_follow_invite_mute_block_report_and_a_ban_on_an_open_table(
        browser: Any, server: ServerProcess, shots: Path, lang: str, size: tuple[int, int]) -> None:
    width = size[0]
    words = WORDS[lang]
    tag = f"social-{lang}-{width}"
    ann_ctx, ann = signed_in(browser, server, "Ann", lang, size)
    errors = page_errors(ann)

    # Ann follows Bob from the lobby (the friends panel appears once signed in)
    ann.wait_for_selector("#friends:not([hidden])")
    ann.fill("#follow-name", "Bob")
    ann.click("#btn-follow")
    ann.wait_for_selector('#following li[data-name="Bob"].offline')
    fits(ann, width)
    ann.locator("#friends").screenshot(path=str(shots / f"{tag}-1-following.png"))

    # her table with an open seat; the players' panel invites whom she follows to it
    made = ann.evaluate("""async () => {
        const me = await (await fetch('/api/account/me')).json();
        const r = await fetch('/api/tables', {method: 'POST', body: JSON.stringify({preset: 'classic-2p',
            seats: [{}, {kind: 'open'}]}), headers: {'content-type': 'application/json', 'x-csrf-token': me.csrf}});
        const made = await r.json();
        localStorage.setItem(`canasta:${made.table}`, JSON.stringify({token: made.token, seat: made.seat}));
        return made;
    }""")
    table = made["table"]
    ann.goto(f"{server.url}/t/{table}")
    ann.wait_for_selector("body[data-social=ready]")
    ann.select_option("#invite-name", "Bob")
    ann.click("#btn-send-invite")
    ann.wait_for_function("() => document.getElementById('social-error').textContent !== ''")
    assert ann.inner_text("#social-error") == words["invited"]

    # Bob finds it in his lobby and takes the seat through its link
    bob_ctx, bob = signed_in(browser, server, "Bob", lang, size)
    errors += page_errors(bob)
    bob.wait_for_selector("#inbox li.inbox-invitation")
    assert words["invites"] in bob.inner_text("#inbox")
    fits(bob, width)
    bob.screenshot(path=str(shots / f"{tag}-2-invited.png"))
    bob.click(".invite-take")
    bob.wait_for_selector("#btn-join:visible")
    bob.click("#btn-join")
    bob.wait_for_selector("body[data-seat='1']", timeout=WAIT_MS)
    bob.wait_for_selector("#chat-text:visible")

    # on Bob's profile, Ann (who follows him) sees him online, at this table
    profile = ann_ctx.new_page()
    errors += page_errors(profile)
    profile.goto(f"{server.url}/u/Bob")
    profile.wait_for_selector(f'#where a.friend-table[href="/t/{table}"]', timeout=WAIT_MS)
    assert profile.is_visible('#relation button[data-act="unfollow"]')
    fits(profile, width)
    profile.screenshot(path=str(shots / f"{tag}-2b-profile.png"))
    profile.close()
    bob.fill("#chat-text", RUDE)
    bob.press("#chat-text", "Enter")

    # Ann reports the line, then mutes Bob: his line leaves her chat at once
    line = f'#chat-log li:has-text("{RUDE}")'
    ann.wait_for_selector(f"{line} .chat-report", timeout=WAIT_MS)
    ann.click(f"{line} .chat-report")
    reason(ann, line, "insults")
    ann.wait_for_function("() => document.getElementById('social-error').textContent !== ''")
    assert ann.inner_text("#social-error") == words["reported"]
    ann.wait_for_selector('#table-players li[data-name="Bob"]')
    ann.click('#table-players li[data-name="Bob"] button[data-act="mute"]')
    ann.wait_for_selector(line, state="detached")
    ann.wait_for_selector('#table-players li[data-name="Bob"] button[data-act="unmute"]')
    assert RUDE in bob.inner_text("#chat-log")  # Bob still sees what he said
    fits(ann, width)
    ann.locator("#table-social").scroll_into_view_if_needed()
    ann.screenshot(path=str(shots / f"{tag}-3-muted.png"))

    # Ann blocks him: his follow is refused, in his language
    ann.click('#table-players li[data-name="Bob"] button[data-act="block"]')
    ann.wait_for_selector('#table-players li[data-name="Bob"] button[data-act="unblock"]')
    lobby = bob_ctx.new_page()
    errors += page_errors(lobby)
    lobby.goto(f"{server.url}/")
    lobby.wait_for_selector("#friends:not([hidden])")
    lobby.fill("#follow-name", "Ann")
    lobby.click("#btn-follow")
    lobby.wait_for_function(f"() => document.getElementById('friends-error').textContent.includes({json.dumps(words['no_follow'])})")
    lobby.close()

    # the moderator sees the report with the line as stored, and bans Bob from it
    mod_ctx, mod = signed_in(browser, server, "Mod", lang, size)
    errors += page_errors(mod)
    mod.wait_for_selector("#moderation-link:visible")
    mod.click("#moderation-link")
    mod.wait_for_selector("body[data-ready=true]")
    report = "#reports li[data-status=open]"
    assert mod.inner_text(f"{report} .reported-line") == RUDE
    mod.click(f'{report} button[data-act="ban"]')
    assert mod.input_value("#act-name") == "Bob" and mod.input_value("#act-reason") == "insults"
    mod.select_option("#act-days", "7")
    mod.click("#btn-act")
    mod.wait_for_selector('#audit tr[data-action="ban"]')
    fits(mod, width)
    mod.screenshot(path=str(shots / f"{tag}-4-moderation.png"), full_page=True)

    # Bob's open table: closed to him at once, saying why
    bob.wait_for_function(f"() => document.getElementById('reason').textContent.includes({json.dumps(words['banned'])})",
                          timeout=WAIT_MS)
    bob.screenshot(path=str(shots / f"{tag}-5-banned.png"))
    assert mod.locator("#reports li[data-status=open]").count() == 0  # the ban closed the report
    assert not errors, errors
    for context in (ann_ctx, bob_ctx, mod_ctx):
        context.close()
