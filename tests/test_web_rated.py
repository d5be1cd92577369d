"""Rated play (issue 53): a rated table refuses guests, bots and house rules; a finished rated
match moves its players' ratings once (a second look, or a second server, rates nothing);
leaving (saying so, a stand-in after the grace period, the turn timer run out three times)
is a loss; the leaderboard and the profile's ratings show the numbers."""

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
need("openskill")

from fastapi.testclient import TestClient  # noqa: E402

from canasta.bots import make_bot  # noqa: E402
from canasta.web.app import create_app  # noqa: E402
from canasta.web.rated import MAX_TIMEOUTS, RatedPlay  # noqa: E402
from canasta.web.room import Settings  # noqa: E402
from test_web import hello, recv_until, room_of, send  # noqa: E402
from test_web_accounts import accounts_of, csrf, post, register  # noqa: E402

Msg = dict[str, Any]


@contextlib.contextmanager
def card_room(tmp_path: Path, **settings: Any) -> Iterator[TestClient]:
    base = {"bot_workers": 0, "review_workers": 0, "bot_delay": 0, "fixed_seeds": True, "grace": 3600.0}
    app = create_app(str(tmp_path / "t.db"), settings=Settings(**(base | settings)))
    with TestClient(app) as client:
        accounts_of(client).limits.signups_per_address = 0
        yield client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with card_room(tmp_path) as c:
        yield c


def rated_of(client: TestClient) -> RatedPlay:
    found: RatedPlay = client.app.state.rated  # type: ignore[attr-defined]
    return found


class Settled:
    """Waits for a rated table's result (the event the server's RatedPlay reports)."""

    def __init__(self, client: TestClient) -> None:
        self.done: dict[str, threading.Event] = {}
        rated_of(client).rated_listeners.append(lambda table, outcome: self.event(table).set())

    def event(self, table: str) -> threading.Event:
        return self.done.setdefault(table, threading.Event())

    def wait(self, table: str, seconds: float = 30.0) -> None:
        assert self.event(table).wait(seconds), f"table {table} was never rated"


def as_player(client: TestClient, name: str) -> None:
    """Sign out whoever is signed in; sign up ``name``."""
    post(client, "logout", {})
    assert register(client, name).status_code == 201


def rated_table(client: TestClient, preset: str = "classic-2p", **body: Any) -> Any:
    return client.post("/api/rated/tables", json={"preset": preset, **body}, headers={"X-CSRF-Token": csrf(client)})


def join(client: TestClient, table: str, seat: int, signed: bool = True) -> Any:
    headers = {"X-CSRF-Token": csrf(client)} if signed else {}
    return client.post(f"/api/tables/{table}/join", json={"seat": seat, "name": "typed"}, headers=headers)


def two_players(client: TestClient, **body: Any) -> tuple[str, list[str]]:
    """Ann makes a rated classic-2p table to 100 (seed 2); Bea takes the other seat."""
    as_player(client, "Ann")
    made = rated_table(client, target=100, seed=2, **body)
    assert made.status_code == 200, made.text
    data = made.json()
    assert data["rated"] == "classic-2p"
    as_player(client, "Bea")
    joined = join(client, data["table"], 1)
    assert joined.status_code == 200, joined.text
    return data["table"], [data["token"], joined.json()["token"]]


def board(client: TestClient, pool: str = "classic-2p") -> dict[str, Msg]:
    got = client.get(f"/api/leaderboard/{pool}")
    assert got.status_code == 200, got.text
    return {row["name"]: row for row in got.json()["rows"]}


def test_a_rated_table_refuses_guests_bots_and_house_rules(client: TestClient) -> None:
    guest = client.post("/api/rated/tables", json={"preset": "classic-4p"})
    assert guest.status_code == 401 and "signed-in" in guest.json()["detail"]
    as_player(client, "Ann")
    bots = rated_table(client, "classic-4p", seats=[{}, {"kind": "bot", "level": "basic"}, {}, {}])
    assert bots.status_code == 400 and "bots never play rated games" in bots.json()["detail"]
    house = rated_table(client, "classic-4p", options={"wild_meld": "never"})
    assert house.status_code == 400 and "standard rules" in house.json()["detail"]
    odd = rated_table(client, "classic-3p-cutthroat")
    assert odd.status_code == 400 and "classic-4p" in odd.json()["detail"]
    made = rated_table(client, "classic-4p")
    assert made.status_code == 200, made.text
    table = made.json()["table"]
    info = client.get(f"/api/tables/{table}").json()
    assert info["rated"] == "classic-4p" and info["turn_seconds"] == 60 and info["target"] == 5000
    assert [s["kind"] for s in info["seats"]] == ["human", "open", "open", "open"]
    # the same account in a second seat, and a guest, are refused; another account sits
    again = join(client, table, 1)
    assert again.status_code == 409 and "already have a seat" in again.json()["detail"]
    post(client, "logout", {})
    guest_join = join(client, table, 1, signed=False)
    assert guest_join.status_code == 401 and "signed-in" in guest_join.json()["detail"]
    assert client.get(f"/api/tables/{table}").json()["seats"][1]["kind"] == "open"
    register(client, "Bea")
    assert join(client, table, 1).status_code == 200
    # a refusal in the reader's language
    post(client, "logout", {})
    italian = client.post("/api/rated/tables?lang=it", json={"preset": "classic-4p"})
    assert italian.status_code == 401 and italian.json()["detail"] != guest.json()["detail"]


def test_no_hints_at_a_rated_table(client: TestClient) -> None:
    table, tokens = two_players(client)
    with client.websocket_connect(f"/ws/{table}") as ws:
        state = hello(ws, tokens[0])
        assert state["view"]["to_move"] in (0, 1) and state["rated"] == "classic-2p"
        send(ws, type="hint")
        refused = recv_until(ws, lambda m: m["type"] == "error")
        assert refused["code"] == "REFUSED" and "hint" in refused["message"]


def play_to_the_end(client: TestClient, table: str, tokens: list[str]) -> Msg:
    room = room_of(client, table)
    hinter = make_bot("basic", seed=1)
    with client.websocket_connect(f"/ws/{table}") as ws0, client.websocket_connect(f"/ws/{table}") as ws1:
        hello(ws0, tokens[0])
        hello(ws1, tokens[1])
        sockets = [ws0, ws1]
        while True:
            state = recv_until(ws0, lambda m: m["type"] == "state" and m["seq"] == room.seq)
            if state["match_over"]:
                return state
            if state["hand_over"]:
                send(ws0, type="next_hand")
            else:
                seat = room.table.to_move
                send(sockets[seat], type="move", move=str(hinter.choose(room.table.view(seat))))


def test_a_finished_rated_match_is_rated_once(client: TestClient) -> None:
    settled = Settled(client)
    table, tokens = two_players(client)
    final = play_to_the_end(client, table, tokens)
    settled.wait(table)
    winner = final["winner"]
    names = ["Ann", "Bea"]
    rows = board(client)
    assert set(rows) == {"Ann", "Bea"}
    assert all(r["games"] == 1 and r["provisional"] for r in rows.values())
    assert rows[names[winner]]["wins"] == 1 and rows[names[1 - winner]]["wins"] == 0
    assert rows[names[winner]]["mu"] > 25 > rows[names[1 - winner]]["mu"]
    result = client.get(f"/api/rated/tables/{table}").json()["result"]
    assert result["reason"] == "finished" and result["scores"] == [float(t) for t in final["totals"]]
    # seen again here, and by a second server on the same database: nothing more is rated
    rated = rated_of(client)
    assert rated.settle_now(table) == (None, False)
    other = RatedPlay(client.app.state.hub, client.app.state.hub.store, accounts_of(client).store)  # type: ignore[attr-defined]
    assert other.settle_now(table) == (None, False)
    assert {n: r["games"] for n, r in board(client).items()} == {"Ann": 1, "Bea": 1}
    assert rated.ratings.pool("classic-2p").games == 1
    # a rated match has no rematch
    again = client.post(f"/api/tables/{table}/rematch", json={"token": tokens[0]})
    assert again.status_code == 409 and "no rematch" in again.json()["detail"]


def test_leaving_is_a_loss(client: TestClient) -> None:
    table, tokens = two_players(client)
    stranger = client.post(f"/api/rated/tables/{table}/leave", json={"token": "not-a-seat"})
    assert stranger.status_code == 403
    left = client.post(f"/api/rated/tables/{table}/leave", json={"token": tokens[0]})
    assert left.status_code == 200, left.text
    assert left.json()["left"] and left.json()["result"]["reason"] == "left" and left.json()["result"]["leaver"] == 0
    rows = board(client)
    assert rows["Bea"]["wins"] == 1 and rows["Ann"]["wins"] == 0 and rows["Ann"]["mu"] < 25 < rows["Bea"]["mu"]
    twice = client.post(f"/api/rated/tables/{table}/leave", json={"token": tokens[1]})
    assert twice.status_code == 409 and "settled" in twice.json()["detail"]
    assert rated_of(client).ratings.pool("classic-2p").games == 1
    # the numbers on the profile and the leaderboard
    ratings = client.get("/api/players/ann/ratings").json()
    (pool,) = ratings["pools"]
    assert pool["pool"] == "classic-2p" and pool["games"] == 1 and pool["provisional"]
    assert pool["shown"] == rows["Ann"]["shown"] and pool["sigma"] == rows["Ann"]["sigma"]
    assert pool["place"] == 2 and pool["of"] == 2
    assert pool["plot"].startswith("<svg") and "<polyline" in pool["plot"] and len(pool["history"]) == 1
    assert client.get("/api/leaderboard/nonsense-9p").status_code == 404
    assert client.get("/leaderboard/classic-2p").status_code == 200


def test_a_stand_in_after_the_grace_period_is_leaving(tmp_path: Path) -> None:
    with card_room(tmp_path, grace=0.5) as client:
        settled = Settled(client)
        as_player(client, "Ann")
        made = rated_table(client, target=100, seed=2).json()
        table = made["table"]
        with client.websocket_connect(f"/ws/{table}") as ws:  # Ann is here before the table fills
            hello(ws, made["token"])
            as_player(client, "Bea")
            joined = join(client, table, 1)
            assert joined.status_code == 200
            with client.websocket_connect(f"/ws/{table}") as bea:  # Bea sits down, then drops for good
                hello(bea, joined.json()["token"])
            settled.wait(table)
        result = client.get(f"/api/rated/tables/{table}").json()["result"]
        assert result["reason"] == "left" and result["leaver"] == 1 and result["why"] == "takeover"
        rows = board(client)
        assert rows["Ann"]["wins"] == 1 and rows["Bea"]["wins"] == 0


def test_the_turn_timer_run_out_repeatedly_is_leaving(client: TestClient) -> None:
    settled = Settled(client)
    table, tokens = two_players(client, turn_seconds=1)
    room = room_of(client, table)
    first = room.table.to_move
    with client.websocket_connect(f"/ws/{table}") as ws0, client.websocket_connect(f"/ws/{table}") as ws1:
        hello(ws0, tokens[0])
        hello(ws1, tokens[1])  # both here, neither moves: a stand-in finishes each turn
        settled.wait(table, 60.0)
    result = client.get(f"/api/rated/tables/{table}").json()["result"]
    assert result["reason"] == "left" and result["why"] == "timeouts" and result["leaver"] == first
    # the stored events: the leaver's turn timer ran out MAX_TIMEOUTS times before the other's did
    events = client.app.state.hub.store.load_base(table)[1]  # type: ignore[attr-defined]
    outs = [ev.seat for ev in events if ev.kind == "auto_turn"]
    third = [i for i, seat in enumerate(outs) if seat == first][MAX_TIMEOUTS - 1]
    assert outs[:third + 1].count(1 - first) < MAX_TIMEOUTS


def test_in_a_partnership_game_leaving_is_the_sides_loss(client: TestClient) -> None:
    as_player(client, "Ann")
    made = rated_table(client, "classic-4p", target=100, seed=3)
    assert made.status_code == 200, made.text
    table, token = made.json()["table"], made.json()["token"]
    for seat, name in ((1, "Bea"), (2, "Cyd"), (3, "Dee")):
        as_player(client, name)
        assert join(client, table, seat).status_code == 200
    left = client.post(f"/api/rated/tables/{table}/leave", json={"token": token}).json()
    assert left["result"]["reason"] == "left" and left["result"]["ranks"] == [2.0, 1.0]  # Ann's side, then theirs
    rows = board(client, "classic-4p")
    assert {n: r["wins"] for n, r in rows.items()} == {"Ann": 0, "Cyd": 0, "Bea": 1, "Dee": 1}  # partners share it
    assert rows["Ann"]["mu"] == rows["Cyd"]["mu"] < 25 < rows["Bea"]["mu"] == rows["Dee"]["mu"]
    pool = rated_of(client).ratings.pool("classic-4p")
    assert pool.games == 1 and set(pool.partnerships) == {
        " & ".join(sorted(accounts_of(client).store.find(a).id for a in pair))  # type: ignore[union-attr]
        for pair in (("Ann", "Cyd"), ("Bea", "Dee"))}
