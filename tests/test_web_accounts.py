"""Accounts (issue 52): signing up, in and out through the JSON API, and every attack on it
refused with nothing changed: brute force (throttled per name and per address), enumeration
of names through sign-in, session fixation and reuse after signing out, CSRF, markup and
look-alike names; passwords kept as argon2id and hashed off the event loop."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import need

need("fastapi")
need("argon2")

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from canasta.web.account_routes import SESSION_COOKIE  # noqa: E402
from canasta.web.account_store import FOREVER, accounts_t, sessions_t  # noqa: E402
from canasta.web.accounts import Accounts  # noqa: E402
from canasta.web.app import create_app  # noqa: E402
from canasta.web.names import normalise  # noqa: E402
from canasta.web.room import Settings  # noqa: E402

PASSWORD = "correct horse battery"
Msg = dict[str, Any]


@contextlib.contextmanager
def card_room(tmp_path: Path, base_url: str = "http://testserver") -> Iterator[TestClient]:
    app = create_app(str(tmp_path / "t.db"), settings=Settings(bot_workers=0, review_workers=0, bot_delay=0,
                                                               fixed_seeds=True, grace=3600.0))
    with TestClient(app, base_url=base_url) as client:
        accounts_of(client).limits.signups_per_address = 0  # many accounts from the test's one address
        yield client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with card_room(tmp_path) as c:
        yield c


def accounts_of(client: TestClient) -> Accounts:
    found: Accounts = client.app.state.accounts  # type: ignore[attr-defined]
    return found


def csrf(client: TestClient) -> str:
    token: str = client.get("/api/account/me").json()["csrf"]
    return token


def post(client: TestClient, path: str, body: Msg, token: str | None = None, **headers: str) -> Any:
    if token is None:
        token = csrf(client)
    return client.post(f"/api/account/{path}", json=body, headers={"X-CSRF-Token": token, **headers})


def register(client: TestClient, name: str, password: str = PASSWORD, **headers: str) -> Any:
    return post(client, "register", {"name": name, "password": password}, **headers)


def login(client: TestClient, name: str, password: str = PASSWORD, **headers: str) -> Any:
    return post(client, "login", {"name": name, "password": password}, **headers)


def me(client: TestClient) -> Msg | None:
    account: Msg | None = client.get("/api/account/me").json()["account"]
    return account


def plant(client: TestClient, token: str) -> None:
    """A session cookie put in the browser by someone else (or kept after signing out)."""
    client.cookies.delete(SESSION_COOKIE)
    client.cookies.set(SESSION_COOKIE, token, domain="testserver.local")


def count(client: TestClient, table: Any) -> int:
    with accounts_of(client).store.engine.connect() as db:
        return int(db.execute(select(func.count()).select_from(table)).scalar_one())


def test_sign_up_sign_out_sign_in(client: TestClient) -> None:
    assert me(client) is None
    made = register(client, "Ann")
    assert made.status_code == 201, made.text
    assert made.json()["account"]["name"] == "Ann" and made.json()["account"]["role"] == "player"
    cookie = made.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie and "Secure" not in cookie
    assert me(client) == made.json()["account"]
    out = post(client, "logout", {})
    assert out.status_code == 200 and me(client) is None
    back = login(client, "ANN")  # a name is found whatever its case
    assert back.status_code == 200 and back.json()["account"]["name"] == "Ann"
    assert me(client) is not None


def test_the_cookie_is_secure_behind_tls(tmp_path: Path) -> None:
    with card_room(tmp_path, "https://testserver") as client:
        made = register(client, "Ann")
        assert made.status_code == 201
        assert "Secure" in made.headers["set-cookie"]


def test_a_password_is_stored_as_argon2id_and_nowhere_else(client: TestClient, tmp_path: Path) -> None:
    assert register(client, "Ann", "a secret nobody knows").status_code == 201
    with accounts_of(client).store.engine.connect() as db:
        stored = db.execute(select(accounts_t.c.password)).scalar_one()
    assert stored.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    for path in tmp_path.iterdir():
        assert b"a secret nobody knows" not in path.read_bytes(), path


def test_hashing_runs_off_the_event_loop(client: TestClient) -> None:
    accounts = accounts_of(client)
    threads = []
    real = accounts.hasher

    class Spy:
        def __getattr__(self, name: str) -> Any:
            attr = getattr(real, name)
            if name in ("hash", "verify"):
                def spied(*args: Any) -> Any:
                    threads.append(threading.current_thread().name)
                    return attr(*args)
                return spied
            return attr

    accounts.hasher = Spy()  # type: ignore[assignment]
    assert register(client, "Ann").status_code == 201
    assert login(client, "Ann").status_code == 200
    assert login(client, "Ann", "wrong password").status_code == 401
    assert login(client, "Nobody here").status_code == 401
    assert len(threads) == 4 and all(t.startswith("canasta-hash") for t in threads), threads


def test_an_unknown_name_and_a_wrong_password_get_the_same_answer(client: TestClient) -> None:
    accounts_of(client).clock = lambda: 1.0e9  # the throttle's "try again in N s" is the same for both, on a busy machine too
    register(client, "Ann")
    post(client, "logout", {})
    wrong, unknown = login(client, "Ann", "not the password"), login(client, "Anne", "not the password")
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"detail": "wrong name or password"}
    assert "set-cookie" not in wrong.headers and "set-cookie" not in unknown.headers
    italian = login(client, "Anne", "x" * 9, **{"Accept-Language": "it"})
    assert italian.json()["detail"] == "nome o password errati"
    # the throttle says nothing either: an unknown name is counted as a known one is
    for _ in range(4):
        login(client, "Ann", "not the password")
        login(client, "Anne", "not the password")
    a, b = login(client, "Ann", "not the password"), login(client, "Anne", "not the password")
    assert a.status_code == b.status_code == 429
    assert a.json() == b.json()


def test_brute_force_is_throttled_per_name(client: TestClient) -> None:
    accounts = accounts_of(client)
    now = [1.0e9]
    accounts.clock = lambda: now[0]
    register(client, "Ann")
    post(client, "logout", {})
    for i in range(accounts.limits.failures_per_name):
        assert login(client, "Ann", f"guess number {i}").status_code == 401
    refused = login(client, "Ann")  # even the right password: it is not checked
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) == 900
    assert "too many sign-in attempts" in refused.json()["detail"]
    assert me(client) is None and count(client, sessions_t) == 0
    now[0] += 300
    assert int(login(client, "Ann").headers["Retry-After"]) == 600
    now[0] += 601  # the failures are older than the window
    assert login(client, "Ann").status_code == 200


def test_brute_force_is_throttled_per_address(client: TestClient) -> None:
    accounts = accounts_of(client)
    accounts.limits.failures_per_name = 1000
    accounts.limits.failures_per_address = 6
    register(client, "Ann")
    post(client, "logout", {})
    for i in range(6):  # a different name each time: only the address counts them
        assert login(client, f"Someone{i}").status_code == 401
    assert login(client, "Ann").status_code == 429
    assert me(client) is None


def test_a_successful_sign_in_forgets_the_names_failures(client: TestClient) -> None:
    register(client, "Ann")
    post(client, "logout", {})
    for _ in range(4):
        login(client, "Ann", "wrong password")
    assert login(client, "Ann").status_code == 200
    post(client, "logout", {})
    for _ in range(4):
        assert login(client, "Ann", "wrong password").status_code == 401


def test_a_session_id_the_browser_brings_is_never_adopted(tmp_path: Path) -> None:
    with card_room(tmp_path) as mallory:
        register(mallory, "Mallory")
        planted = mallory.cookies[SESSION_COOKIE]
        victim = TestClient(mallory.app)
        plant(victim, planted)  # the attacker's session, planted in the victim's browser
        register(victim, "Victim")
        assert victim.cookies[SESSION_COOKIE] != planted
        assert (me(victim) or {})["name"] == "Victim"
        assert me(mallory) is None  # the planted session was ended, not handed to the victim
        # the same at sign-in: a fresh session every time, the one brought ended
        post(victim, "logout", {})
        plant(victim, planted)
        assert login(victim, "Victim").status_code == 200
        assert victim.cookies[SESSION_COOKIE] != planted
        fake = TestClient(mallory.app)
        plant(fake, "made-up-by-the-attacker")
        assert me(fake) is None


def test_a_session_is_worth_nothing_after_signing_out(client: TestClient) -> None:
    register(client, "Ann")
    token = client.cookies[SESSION_COOKIE]
    session_csrf = csrf(client)
    assert post(client, "logout", {}, session_csrf).status_code == 200
    assert count(client, sessions_t) == 0
    plant(client, token)  # the cookie kept and sent again
    assert me(client) is None
    assert post(client, "logout", {}, session_csrf).status_code == 403  # its CSRF token died with it


def test_state_changes_need_the_csrf_token(client: TestClient) -> None:
    client.get("/api/account/me")
    no_header = client.post("/api/account/register", json={"name": "Ann", "password": PASSWORD})
    assert no_header.status_code == 403 and "security token" in no_header.json()["detail"]
    wrong = post(client, "register", {"name": "Ann", "password": PASSWORD}, "a guess")
    assert wrong.status_code == 403
    assert count(client, accounts_t) == 0
    assert register(client, "Ann").status_code == 201
    session_csrf = csrf(client)
    for token in (None, "", "a guess", client.cookies.get("canasta_csrf")):
        headers = {} if token is None else {"X-CSRF-Token": token}
        out = client.post("/api/account/logout", json={}, headers=headers)
        assert out.status_code == 403, token
        assert me(client) is not None  # still signed in
    evil = client.post("/api/account/logout", json={}, headers={"X-CSRF-Token": session_csrf,
                                                                 "Origin": "https://evil.example"})
    assert evil.status_code == 403 and me(client) is not None
    form = client.post("/api/account/logout", content=b"x=1", headers={
        "X-CSRF-Token": session_csrf, "Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415 and me(client) is not None
    login_form = client.post("/api/account/login", content=b"name=Ann&password=x", headers={
        "Content-Type": "application/x-www-form-urlencoded"})
    assert login_form.status_code == 415


@pytest.mark.parametrize(("name", "english", "italian"), [
    ("<script>", "a name may hold only letters, digits, spaces and . _ - (not '<')",
     "un nome può contenere solo lettere, cifre, spazi e . _ - (non '<')"),
    ("Ann\u202eevil", "a name may hold only letters, digits, spaces and . _ - (not U+202E)",
     "un nome può contenere solo lettere, cifre, spazi e . _ - (non U+202E)"),
    ("pаypal", "a name may not mix alphabets (such as Latin and Cyrillic letters)",
     "un nome non può mescolare alfabeti (come lettere latine e cirilliche)"),
    ("ab", "a name has 3 to 24 characters", "un nome ha da 3 a 24 caratteri"),
    ("Admin", "the name Admin is reserved: choose another", "il nome Admin è riservato: scegline un altro"),
])
def test_a_bad_name_is_refused_in_the_players_language(client: TestClient, name: str, english: str,
                                                       italian: str) -> None:
    en = register(client, name)
    it = register(client, name, **{"Accept-Language": "it"})
    assert (en.status_code, en.json()["detail"]) == (400, english)
    assert (it.status_code, it.json()["detail"]) == (400, italian)
    assert count(client, accounts_t) == 0 and "set-cookie" not in en.headers


@pytest.mark.parametrize(("first", "second", "why"), [
    ("Ann", "ANN", "taken"),
    ("Ann", "ＡＮＮ", "taken"),  # full-width letters are the same letters (NFKC)
    ("Straße", "STRASSE", "taken"),  # case folding
    ("Ann_1", "annl", "looks"),
    ("Paul", "PauI", "looks"),
    ("modem", "modern", "looks"),
    ("José", "Jose", "looks"),
    ("рор", "pop", "looks"),  # all Cyrillic beside all Latin
    ("Bea.Rossi", "bea rossi", "looks"),
])
def test_a_name_like_anothers_is_refused(client: TestClient, first: str, second: str, why: str) -> None:
    assert register(client, first).status_code == 201
    post(client, "logout", {})
    again = register(client, second)
    assert again.status_code == 409
    shown = normalise(second)
    expected = (f"the name {shown} is taken: choose another" if why == "taken" else
                f"the name {shown} looks too much like another player's name: choose another")
    assert again.json()["detail"] == expected
    assert count(client, accounts_t) == 1 and me(client) is None
    it = register(client, second, **{"Accept-Language": "it"})
    assert it.status_code == 409 and it.json()["detail"] != again.json()["detail"]


@pytest.mark.parametrize(("password", "why"), [
    ("short", "a password has at least 8 characters"),
    ("x" * 257, "a password has at most 256 characters"),
    ("annabella", "the password may not be the name"),
    (12345678, "give a password"),
])
def test_a_weak_password_is_refused(client: TestClient, password: Any, why: str) -> None:
    out = post(client, "register", {"name": "Annabella", "password": password})
    assert (out.status_code, out.json()["detail"]) == (400, why)
    assert count(client, accounts_t) == 0


def test_bad_sign_in_input_is_the_same_refusal(client: TestClient) -> None:
    for body in ({}, {"name": 3, "password": PASSWORD}, {"name": "Ann", "password": ["x"]},
                 {"name": "x" * 500, "password": PASSWORD}):
        out = post(client, "login", body)
        assert (out.status_code, out.json()["detail"]) == (401, "wrong name or password")


def test_signups_from_one_address_are_limited(client: TestClient) -> None:
    accounts_of(client).limits.signups_per_address = 2
    assert register(client, "Ann").status_code == 201
    assert register(client, "Bea").status_code == 201
    third = register(client, "Cyd")
    assert third.status_code == 429 and "Retry-After" in third.headers
    assert count(client, accounts_t) == 2


def test_a_ban_ends_the_sessions_and_refuses_signing_in(client: TestClient) -> None:
    register(client, "Ann")
    store = accounts_of(client).store
    account = store.find("ann")
    assert account is not None
    assert store.ban(account.id, FOREVER, "cheating") == 1
    assert me(client) is None
    refused = login(client, "Ann")
    assert (refused.status_code, refused.json()["detail"]) == (403, "this account is banned")
    assert login(client, "Ann", "not the password").status_code == 401  # the wrong password tells nothing
    store.ban(account.id, 2.0e9, "a week off")
    assert login(client, "Ann").json()["detail"] == "this account is banned until 2033-05-18 03:33 UTC"
    store.ban(account.id, None, None)
    assert login(client, "Ann").status_code == 200


def test_an_expired_session_is_none(client: TestClient) -> None:
    accounts = accounts_of(client)
    register(client, "Ann")
    real = accounts.clock
    accounts.clock = lambda: real() + 31 * 86400
    assert me(client) is None
