"""Passkeys (issue 52): adding one to an account, listing and removing it, signing in with it
(with or without a name) through the JSON API, with real WebAuthn answers from a software
authenticator (tests/softkey.py); and every attack refused with nothing changed: a forged
assertion, a replayed one, another origin or RP id, a sign count going back, another
account's credential or user handle, CSRF, a banned account; throttled as password sign-ins;
an unknown credential answered as a wrong signature."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import need

need("fastapi")
need("argon2")
need("webauthn")

from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import select  # noqa: E402

from canasta.web.account_store import FOREVER, sessions_t  # noqa: E402
from canasta.web.app import create_app  # noqa: E402
from canasta.web.passkeys import challenges_t, passkeys_t  # noqa: E402
from canasta.web.room import Settings  # noqa: E402
from softkey import SoftKey, b64, unb64  # noqa: E402
from test_web_accounts import (  # noqa: E402
    PASSWORD,
    accounts_of,
    card_room,
    count,
    csrf,
    login,
    me,
    post,
    register,
)
from test_web_accounts_store import postgres  # noqa: E402, F401 - the fixture

Msg = dict[str, Any]
REFUSED = "this passkey was not accepted: try again, or sign in with your password"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with card_room(tmp_path) as c:
        yield c


def rows(client: TestClient, table: Any) -> list[Any]:
    with accounts_of(client).store.engine.connect() as db:
        return list(db.execute(select(table)).all())


def add_passkey(client: TestClient, key: SoftKey, **answer: Any) -> Any:
    """The registration ceremony of a signed-in browser: options, the authenticator's answer, kept."""
    options = post(client, "passkeys/options", {})
    assert options.status_code == 200, options.text
    return post(client, "passkeys", {"credential": key.create(options.json()["options"], **answer)})


def signin_options(client: TestClient, name: str | None = None) -> Msg:
    r = post(client, "passkeys/signin/options", {} if name is None else {"name": name})
    assert r.status_code == 200, r.text
    options: Msg = r.json()["options"]
    return options


def signin(client: TestClient, credential: Msg, **body: Any) -> Any:
    return post(client, "passkeys/signin", {"credential": credential, **body})


def account_with_passkey(client: TestClient, name: str = "Ann") -> SoftKey:
    """An account ``name`` holding one passkey, signed out."""
    assert register(client, name).status_code == 201
    key = SoftKey()
    made = add_passkey(client, key)
    assert made.status_code == 201, made.text
    post(client, "logout", {})
    assert me(client) is None
    return key


def state(client: TestClient) -> tuple[Any, ...]:
    """What an attack must leave as it was: the passkeys' rows and the sessions."""
    return (sorted((r.id, r.account_id, r.sign_count, r.last_used) for r in rows(client, passkeys_t)),
            count(client, sessions_t))


def test_add_a_passkey_then_sign_in_with_it_without_a_name(client: TestClient) -> None:
    key = account_with_passkey(client)
    listed_row = rows(client, passkeys_t)
    assert [(r.id, r.sign_count, r.last_used) for r in listed_row] == [(key.id, 0, None)]
    options = signin_options(client)
    assert options["rpId"] == "testserver" and options["userVerification"] == "required"
    assert options["allowCredentials"] == []  # any passkey of this site: no name needed
    done = signin(client, key.get(options))
    assert done.status_code == 200, done.text
    assert done.json()["account"]["name"] == "Ann"
    cookie = done.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie  # the password sign-in's session
    assert me(client) == done.json()["account"]
    assert client.get("/api/account/me").json()["csrf"] == done.json()["csrf"]
    [row] = rows(client, passkeys_t)
    assert row.sign_count == 1 and row.last_used is not None
    assert rows(client, challenges_t) == []  # spent


def test_sign_in_with_a_name_lists_only_that_accounts_passkeys(client: TestClient) -> None:
    ann = account_with_passkey(client, "Ann")
    account_with_passkey(client, "Bob")
    options = signin_options(client, "ANN")
    assert [c["id"] for c in options["allowCredentials"]] == [ann.id]
    assert options["allowCredentials"][0]["transports"] == ["internal"]
    assert signin(client, ann.get(options)).json()["account"]["name"] == "Ann"


def test_an_unknown_name_gets_stand_in_credentials(client: TestClient) -> None:
    """Naming an account without passkeys, or nobody's name, answers alike: one stand-in id
    derived from the name under the server's key, the same each time."""
    register(client, "Ann")
    post(client, "logout", {})
    nobody = signin_options(client, "Nobody")["allowCredentials"]
    ann = signin_options(client, "Ann")["allowCredentials"]
    assert len(nobody) == len(ann) == 1 and nobody != ann
    assert signin_options(client, "nobody")["allowCredentials"] == nobody
    assert len(nobody[0]["id"]) == len(b64(bytes(32)))


def test_list_and_remove_passkeys(client: TestClient) -> None:
    register(client, "Ann")
    first, second = SoftKey(), SoftKey()
    assert add_passkey(client, first).status_code == 201
    assert add_passkey(client, second).status_code == 201
    listed = client.get("/api/account/passkeys").json()["passkeys"]
    assert [p["id"] for p in listed] == [first.id, second.id]
    assert set(listed[0]) == {"id", "created", "last_used", "transports"}  # never the key
    left = post(client, "passkeys/remove", {"id": first.id})
    assert left.status_code == 200 and [p["id"] for p in left.json()["passkeys"]] == [second.id]
    post(client, "logout", {})
    assert signin(client, first.get(signin_options(client))).status_code == 401  # removed: refused
    assert signin(client, second.get(signin_options(client))).status_code == 200
    assert client.get("/api/account/passkeys").status_code == 200
    post(client, "logout", {})
    refused = client.get("/api/account/passkeys")
    assert refused.status_code == 401 and refused.json()["detail"] == "sign in first"


def test_the_same_passkey_twice_is_refused(client: TestClient) -> None:
    register(client, "Ann")
    key = SoftKey()
    assert add_passkey(client, key).status_code == 201
    again = add_passkey(client, key)
    assert (again.status_code, again.json()["detail"]) == (409, "this passkey is already registered")
    assert len(rows(client, passkeys_t)) == 1


def test_a_forged_assertion_is_refused_with_nothing_changed(client: TestClient) -> None:
    key = account_with_passkey(client)
    before = state(client)
    forged = key.get(signin_options(client), signer=ec.generate_private_key(ec.SECP256R1()))
    refused = signin(client, forged)
    assert (refused.status_code, refused.json()["detail"]) == (401, REFUSED)
    assert state(client) == before and me(client) is None
    tampered = key.get(signin_options(client))
    tampered["response"]["signature"] = b64(b"\x30\x06\x02\x01\x01\x02\x01\x01")
    assert signin(client, tampered).status_code == 401
    assert state(client) == before


def test_an_unknown_credential_is_answered_as_a_wrong_signature(client: TestClient) -> None:
    key = account_with_passkey(client)
    wrong = signin(client, key.get(signin_options(client), signer=ec.generate_private_key(ec.SECP256R1())))
    unknown = signin(client, SoftKey().get(signin_options(client)))
    assert (wrong.status_code, wrong.json()) == (unknown.status_code, unknown.json())
    assert wrong.headers.get("set-cookie") is None and unknown.headers.get("set-cookie") is None


def test_a_replayed_assertion_is_refused(client: TestClient) -> None:
    key = account_with_passkey(client)
    answer = key.get(signin_options(client))
    assert signin(client, answer).status_code == 200
    post(client, "logout", {})
    before = state(client)
    replayed = signin(client, answer)
    assert (replayed.status_code, replayed.json()["detail"]) == (401, REFUSED)
    assert state(client) == before and me(client) is None
    # a fresh signature over the spent challenge, with a higher count: the challenge is gone
    spent = json.loads(unb64(answer["response"]["clientDataJSON"]))["challenge"]
    again = key.get(signin_options(client), challenge=spent)
    assert signin(client, again).status_code == 401
    assert state(client) == before


def test_a_challenge_the_server_never_gave_is_refused(client: TestClient) -> None:
    key = account_with_passkey(client)
    before = state(client)
    made_up = key.get(signin_options(client), challenge=b64(b"\x01" * 32))
    assert signin(client, made_up).status_code == 401
    assert state(client) == before


def test_an_expired_challenge_is_refused(client: TestClient) -> None:
    key = account_with_passkey(client)
    now = [1.0e9]
    accounts_of(client).clock = lambda: now[0]
    options = signin_options(client)
    now[0] += 301
    before = state(client)
    assert signin(client, key.get(options)).status_code == 401
    assert state(client) == before


@pytest.mark.parametrize("change", [{"origin": "https://evil.example"}, {"origin": "http://testserver:8080"},
                                    {"rp_id": "evil.example"}, {"rp_id": "example"}])
def test_another_origin_or_rp_id_is_refused(client: TestClient, change: Msg) -> None:
    key = account_with_passkey(client)
    before = state(client)
    refused = signin(client, key.get(signin_options(client), **change))
    assert (refused.status_code, refused.json()["detail"]) == (401, REFUSED)
    assert state(client) == before and me(client) is None


def test_registration_from_another_origin_or_without_verification_is_refused(client: TestClient) -> None:
    register(client, "Ann")
    for answer in ({"origin": "https://evil.example"}, {"rp_id": "evil.example"}, {"flags": 0x41}):
        refused = add_passkey(client, SoftKey(), **answer)
        assert refused.status_code == 400, answer
    assert rows(client, passkeys_t) == []


def test_a_sign_count_going_back_is_refused(client: TestClient) -> None:
    key = account_with_passkey(client)
    assert signin(client, key.get(signin_options(client), count=7)).status_code == 200
    post(client, "logout", {})
    before = state(client)
    for count_ in (7, 3):  # the same, then lower: a cloned authenticator
        refused = signin(client, key.get(signin_options(client), count=count_))
        assert (refused.status_code, refused.json()["detail"]) == (401, REFUSED)
    assert state(client) == before and me(client) is None
    assert signin(client, key.get(signin_options(client), count=8)).status_code == 200


def test_another_accounts_credential_is_refused(client: TestClient) -> None:
    account_with_passkey(client, "Ann")
    bob = account_with_passkey(client, "Bob")
    ann_id = accounts_of(client).store.find("Ann").id  # type: ignore[union-attr]
    before = state(client)
    # options for Ann, answered with Bob's passkey
    refused = signin(client, bob.get(signin_options(client, "Ann")))
    assert (refused.status_code, refused.json()["detail"]) == (401, REFUSED)
    # Bob's passkey claiming Ann's user handle
    assert signin(client, bob.get(signin_options(client), user_handle=ann_id.encode())).status_code == 401
    assert state(client) == before and me(client) is None


def test_another_accounts_passkey_cannot_be_removed(client: TestClient) -> None:
    ann = account_with_passkey(client, "Ann")
    register(client, "Bob")
    before = state(client)
    refused = post(client, "passkeys/remove", {"id": ann.id})
    assert (refused.status_code, refused.json()["detail"]) == (404, "no such passkey on your account")
    assert post(client, "passkeys/remove", {"id": 5}).status_code == 404
    assert state(client) == before


def test_a_registration_challenge_is_the_accounts_own(client: TestClient) -> None:
    """Ann's registration options answered while signed in as Bob: refused, nothing kept."""
    register(client, "Ann")
    options = post(client, "passkeys/options", {}).json()["options"]
    post(client, "logout", {})
    register(client, "Bob")
    refused = post(client, "passkeys", {"credential": SoftKey().create(options)})
    assert (refused.status_code, refused.json()["detail"]) == (400, "the passkey request expired: try again")
    assert rows(client, passkeys_t) == []


def test_passkey_calls_need_the_csrf_token(client: TestClient) -> None:
    key = account_with_passkey(client)
    options = signin_options(client)
    for token in ("", "not-the-token"):
        refused = post(client, "passkeys/signin", {"credential": key.get(options)}, token=token)
        assert refused.status_code == 403
    assert me(client) is None
    assert signin(client, key.get(signin_options(client))).status_code == 200
    before = state(client)
    for path, body in (("passkeys/options", {}), ("passkeys/remove", {"id": key.id}),
                       ("passkeys", {"credential": SoftKey().create(options | {"user": {"id": "QQ"},
                                                                               "rp": {"id": "testserver"}})})):
        assert post(client, path, body, token="not-the-token").status_code == 403, path
    assert state(client) == before


def test_passkey_sign_ins_are_throttled(client: TestClient) -> None:
    key = account_with_passkey(client)
    accounts = accounts_of(client)
    now = [1.0e9]
    accounts.clock = lambda: now[0]
    for _ in range(accounts.limits.failures_per_name):
        forged = key.get(signin_options(client), signer=ec.generate_private_key(ec.SECP256R1()))
        assert signin(client, forged).status_code == 401
    refused = signin(client, key.get(signin_options(client)))  # the right key: not even checked
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) == 900
    assert login(client, "Ann").status_code == 429  # the account's counter is the password's too
    assert me(client) is None
    now[0] += 901
    assert signin(client, key.get(signin_options(client))).status_code == 200


def test_passkey_failures_count_against_the_address(client: TestClient) -> None:
    accounts = accounts_of(client)
    accounts.limits.failures_per_address = 4
    key = account_with_passkey(client)
    for _ in range(4):
        assert signin(client, SoftKey().get(signin_options(client))).status_code == 401
    assert signin(client, key.get(signin_options(client))).status_code == 429
    assert me(client) is None


def test_a_banned_account_cannot_sign_in_with_a_passkey(client: TestClient) -> None:
    key = account_with_passkey(client)
    store = accounts_of(client).store
    account = store.find("Ann")
    assert account is not None
    store.ban(account.id, FOREVER, "cheating")
    before = state(client)
    refused = signin(client, key.get(signin_options(client)))
    assert (refused.status_code, refused.json()["detail"]) == (403, "this account is banned")
    assert state(client) == before and me(client) is None
    store.ban(account.id, None, None)
    assert signin(client, key.get(signin_options(client))).status_code == 200


def test_a_session_the_browser_brought_is_ended(client: TestClient) -> None:
    key = account_with_passkey(client)
    register(client, "Bob")
    assert count(client, sessions_t) == 1
    assert signin(client, key.get(signin_options(client))).json()["account"]["name"] == "Ann"
    assert count(client, sessions_t) == 1  # Bob's session ended, Ann's begun


def test_malformed_answers_are_one_line_refusals(client: TestClient) -> None:
    account_with_passkey(client)
    answers: tuple[Any, ...] = (None, 5, "x", {}, {"id": "a", "rawId": "a", "response": {"clientDataJSON": "%%%"}},
                                {"id": "a", "rawId": "b", "response": {"clientDataJSON": b64(b"{}")}})
    for credential in answers:
        refused = signin(client, credential)
        assert (refused.status_code, refused.json()["detail"]) == (401, REFUSED), credential
    register(client, "Bob")
    answers = (None, {"response": {}}, {"response": {"clientDataJSON": b64(b"[]")}})
    for credential in answers:
        assert post(client, "passkeys", {"credential": credential}).status_code == 400


def test_refusals_are_said_in_the_players_language(client: TestClient) -> None:
    account_with_passkey(client)
    refused = post(client, "passkeys/signin?lang=it", {"credential": SoftKey().get(signin_options(client))})
    assert refused.status_code == 401 and refused.json()["detail"] != REFUSED
    assert "passkey" in refused.json()["detail"].lower()


def test_a_challenge_given_by_one_server_is_spent_on_another(tmp_path: Path) -> None:
    """Two servers on one database: options from the first, the answer to the second, the
    replay to the first, refused (the challenge is a row, deleted once)."""
    def app() -> Any:
        return create_app(str(tmp_path / "t.db"), settings=Settings(bot_workers=0, review_workers=0, bot_delay=0))

    with contextlib.ExitStack() as stack:
        one = stack.enter_context(TestClient(app()))
        two = stack.enter_context(TestClient(app()))
        assert register(one, "Ann").status_code == 201
        key = SoftKey()
        assert add_passkey(one, key).status_code == 201
        options = signin_options(two)
        answer = key.get(options)
        token = csrf(one)
        assert post(one, "passkeys/signin", {"credential": answer}, token=token).status_code == 200
        assert post(two, "passkeys/signin", {"credential": answer}).status_code == 401
        assert me(one) is not None and me(two) is None


def test_the_relying_party_comes_from_the_settings(tmp_path: Path) -> None:
    settings = Settings(bot_workers=0, review_workers=0, bot_delay=0, passkey_rp_id="example.org",
                        passkey_origins=("https://cards.example.org",))
    with TestClient(create_app(str(tmp_path / "t.db"), settings=settings)) as c:
        accounts_of(c).limits.signups_per_address = 0
        assert register(c, "Ann").status_code == 201
        key = SoftKey(origin="https://cards.example.org")
        options = post(c, "passkeys/options", {}).json()["options"]
        assert options["rp"] == {"id": "example.org", "name": "Canasta"}
        assert post(c, "passkeys", {"credential": key.create(options)}).status_code == 201
        post(c, "logout", {})
        options = signin_options(c)
        assert options["rpId"] == "example.org"
        assert signin(c, key.get(options, origin="http://testserver")).status_code == 401  # not a passkey origin
        assert signin(c, key.get(signin_options(c))).status_code == 200


def test_a_passkey_only_account_keeps_its_last_passkey(client: TestClient) -> None:
    key = account_with_passkey(client)
    account = accounts_of(client).store.find("Ann")
    assert account is not None
    with accounts_of(client).store.engine.begin() as db:  # as a passkey sign-up would leave it
        from canasta.web.account_store import accounts_t

        db.execute(accounts_t.update().values(password=None))
    assert signin(client, key.get(signin_options(client))).status_code == 200
    refused = post(client, "passkeys/remove", {"id": key.id})
    assert refused.status_code == 409 and len(rows(client, passkeys_t)) == 1
    assert login(client, "Ann", PASSWORD).status_code == 401


def test_the_export_lists_the_passkeys_and_deleting_the_account_forgets_them(client: TestClient) -> None:
    key = account_with_passkey(client)
    assert signin(client, key.get(signin_options(client))).status_code == 200
    exported = client.get("/api/account/export").json()
    [kept] = exported["passkeys"]
    assert kept["id"] == key.id and "public_key" not in kept and kept["last_used"] is not None
    options = post(client, "passkeys/options", {})  # a ceremony under way goes too
    assert options.status_code == 200 and len(rows(client, challenges_t)) == 1
    assert post(client, "delete", {"password": PASSWORD}).status_code == 200
    assert rows(client, passkeys_t) == [] and rows(client, challenges_t) == []
    assert signin(client, key.get(signin_options(client))).status_code == 401


def at_once(n: int, fn: Any) -> list[Any]:
    """``fn(i)`` for i in range(n), in n threads let go together; the results."""
    import threading

    results: list[Any] = []
    barrier = threading.Barrier(n)

    def run(i: int) -> None:
        barrier.wait()
        results.append(fn(i))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_on_postgresql_a_challenge_and_a_sign_count_are_spent_once(postgres: str) -> None:  # noqa: F811
    """Two servers on one PostgreSQL: a challenge answered at both at once is spent by one; a
    sign count moved at both at once moves once."""
    from canasta.web.passkeys import Passkey, PasskeyStore
    from canasta.web.store import Store

    stores = [Store(postgres), Store(postgres)]
    try:
        keys = [PasskeyStore(s.engine) for s in stores]
        for round_ in range(3):
            challenge = bytes([round_]) * 32
            assert keys[0].begin(challenge, "signin", None, "a", 1.0)
            spent = at_once(6, lambda i, c=challenge: keys[i % 2].spend(c, "signin", 2.0))
            assert len(spent) == 6 and sum(s is not None for s in spent) == 1
        assert keys[0].add(Passkey("cred", "acct", b"k", 4, ("internal",), 1.0, None)) is None
        moved = at_once(4, lambda i: keys[i % 2].used("cred", 4, 5 + i, 3.0))
        assert sorted(moved) == [False, False, False, True]
        found = keys[1].get("cred")
        assert found is not None and 5 <= found.sign_count <= 8
    finally:
        for s in stores:
            s.close()


def test_an_account_holds_a_limited_number_of_passkeys(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    import canasta.web.passkey_auth as ceremonies

    monkeypatch.setattr(ceremonies, "MAX_PASSKEYS", 2)
    register(client, "Ann")
    assert add_passkey(client, SoftKey()).status_code == 201
    options = post(client, "passkeys/options", {}).json()["options"]  # asked before the second was kept
    assert add_passkey(client, SoftKey()).status_code == 201
    refused = post(client, "passkeys/options", {})
    assert (refused.status_code, refused.json()["detail"]) == (
        409, "an account holds at most 2 passkeys: remove one first")
    late = post(client, "passkeys", {"credential": SoftKey().create(options)})  # refused as it is kept
    assert late.status_code == 409 and len(rows(client, passkeys_t)) == 2


def test_the_serve_options_of_passkeys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``--passkey-rp-id`` and ``--passkey-origin`` reach the settings; a bad one is refused in
    one line before anything starts."""
    import argparse

    import uvicorn

    from canasta.engine.errors import CanastaError
    from canasta.web.commands import configure_serve, run_serve
    from canasta.web.devserver import free_port

    parser = argparse.ArgumentParser()
    configure_serve(parser)
    seen: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.append(app))
    db = str(tmp_path / "s.db")
    for bad, needle in ((["--passkey-rp-id", "https://example.org"], "passkey-rp-id"),
                        (["--passkey-rp-id", ".example.org"], "passkey-rp-id"),
                        (["--passkey-origin", "example.org"], "passkey-origin"),
                        (["--passkey-origin", "https://example.org/path"], "passkey-origin")):
        with pytest.raises(CanastaError, match=needle):
            run_serve(parser.parse_args(["--db", db, *bad]))
    assert seen == []
    args = parser.parse_args(["--db", db, "--port", str(free_port()), "--bot-workers", "0",
                              "--passkey-rp-id", "Example.org", "--passkey-origin", "https://cards.example.org"])
    assert run_serve(args) == 0
    s: Settings = seen[0].state.hub.settings
    seen[0].state.hub.store.close()
    assert (s.passkey_rp_id, s.passkey_origins) == ("example.org", ("https://cards.example.org",))
