"""Seats and accounts (issue 52): guests play as before; a seat taken signed in carries the
account's name and is kept as the account's; a guest who signs up (or in) keeps the games this
browser played, and nobody can bring along a seat whose token they do not hold."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import need

need("fastapi")
need("argon2")

from fastapi.testclient import TestClient  # noqa: E402

from test_web_accounts import accounts_of, card_room, csrf, post, register  # noqa: E402

Msg = dict[str, Any]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with card_room(tmp_path) as c:
        yield c


def quick(client: TestClient, name: str = "Guest", signed: bool = True) -> Msg:
    headers = {"X-CSRF-Token": csrf(client)} if signed else {}
    out = client.post("/api/quick", json={"name": name, "level": "random"}, headers=headers)
    assert out.status_code == 200, out.text
    made: Msg = out.json()
    return made


def names(client: TestClient, table: str) -> list[str]:
    return [s["name"] for s in client.get(f"/api/tables/{table}").json()["seats"]]


def owned(client: TestClient, name: str) -> list[tuple[str, int]]:
    store = accounts_of(client).store
    account = store.find(name)
    assert account is not None
    return sorted(store.seats_of(account.id))


def test_a_guest_plays_without_an_account(client: TestClient) -> None:
    made = quick(client, "Tim")
    assert names(client, made["table"])[0] == "Tim"
    assert accounts_of(client).store.owners(made["table"]) == {}


def test_a_seat_taken_signed_in_carries_the_accounts_name(client: TestClient) -> None:
    register(client, "Ann")
    made = quick(client, "Somebody else")  # the typed name gives way to the account's
    assert names(client, made["table"])[0] == "Ann"
    assert owned(client, "Ann") == [(made["table"], 0)]
    # without the session's CSRF token the request is a guest's, as it always was
    guest = quick(client, "Tim", signed=False)
    assert names(client, guest["table"])[0] == "Tim" and accounts_of(client).store.owners(guest["table"]) == {}


def test_joining_an_open_seat_signed_in(client: TestClient) -> None:
    made = client.post("/api/tables", json={"name": "Host", "preset": "classic-2p",
                                            "seats": [{}, {"kind": "open"}]}).json()
    register(client, "Bea")
    joined = client.post(f"/api/tables/{made['table']}/join", json={"seat": 1, "name": "typed"},
                         headers={"X-CSRF-Token": csrf(client)})
    assert joined.status_code == 200, joined.text
    assert names(client, made["table"]) == ["Host", "Bea"]
    assert owned(client, "Bea") == [(made["table"], 1)]


def test_a_guest_who_signs_up_keeps_this_browsers_games(client: TestClient) -> None:
    first, second = quick(client, "Tim"), quick(client, "Tim")
    other = quick(client, "Someone")  # played in this browser too, but its token is not sent
    seats = [{"table": first["table"], "token": first["token"]}, {"table": second["table"], "token": second["token"]},
             {"table": other["table"], "token": "a guessed token"}, {"table": "nope", "token": first["token"]},
             "junk", {"table": 3}]
    made = post(client, "register", {"name": "Tim", "password": "a long password", "seats": seats})
    assert made.status_code == 201 and made.json()["claimed"] == 2
    assert owned(client, "Tim") == sorted([(first["table"], 0), (second["table"], 0)])
    post(client, "logout", {})
    # another account cannot take them, even holding the tokens
    again = post(client, "register", {"name": "Mallory", "password": "a long password", "seats": seats})
    assert again.status_code == 201 and again.json()["claimed"] == 0
    assert owned(client, "Mallory") == []
    # signing in brings along a seat played as a guest meanwhile
    post(client, "logout", {})
    later = quick(client, "Tim")
    back = post(client, "login", {"name": "Tim", "password": "a long password",
                                  "seats": [{"table": later["table"], "token": later["token"]}]})
    assert back.status_code == 200 and back.json()["claimed"] == 1
    assert len(owned(client, "Tim")) == 3


def test_a_seat_joined_as_a_guest_is_brought_along(client: TestClient) -> None:
    made = client.post("/api/tables", json={"name": "Host", "preset": "classic-2p",
                                            "seats": [{}, {"kind": "open"}]}).json()
    joined = client.post(f"/api/tables/{made['table']}/join", json={"seat": 1, "name": "Cyd"}).json()
    out = post(client, "register", {"name": "Cyd", "password": "a long password",
                                    "seats": [{"table": made["table"], "token": joined["token"]}]})
    assert out.json()["claimed"] == 1 and owned(client, "Cyd") == [(made["table"], 1)]
