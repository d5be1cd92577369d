"""Rated play and the game's pause across two servers of a cluster (issue 53): real server
and worker processes on one PostgreSQL database with Redis, as tests/test_cluster.py runs them.

* A pause asked on one server and agreed on the other stops the clock on both (no deadline,
  no move) until a player on either resumes.
* A rated match played to its end with one player on each server, both servers seeing the
  end, moves the ratings once: one rated game, one point of history per player, not two.

Skipped without PostgreSQL and Redis, unless ``CANASTA_SERVICES_REQUIRED=1``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import need

need("fastapi")
need("argon2")
need("openskill")
httpx = need("httpx2")

from canasta.web.devserver import ServerProcess, WorkerProcess  # noqa: E402
from test_cluster import Player, server_args, services  # noqa: E402, F401 - the fixture

Msg = dict[str, Any]
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def cluster(services: tuple[str, str]) -> Iterator[tuple[str, ServerProcess, ServerProcess]]:  # noqa: F811
    db, prefix = services
    worker = WorkerProcess(db, server_args(prefix)).start()  # the deals' jobs, for both servers
    one = ServerProcess(db, args=server_args(prefix, "--bot-workers", "0")).start()
    other = ServerProcess(db, args=server_args(prefix, "--bot-workers", "0")).start()
    try:
        yield db, one, other
    finally:
        one.stop()
        other.stop()
        worker.stop()


def signed_up(server: ServerProcess, name: str) -> Any:
    """An HTTP client of ``server`` signed up as ``name`` (its session cookie kept)."""
    client = httpx.Client(base_url=server.url, timeout=20)
    token = client.get("/api/account/me").json()["csrf"]
    r = client.post("/api/account/register", json={"name": name, "password": PASSWORD},
                    headers={"X-CSRF-Token": token})
    assert r.status_code == 201, r.text
    client.headers["X-CSRF-Token"] = client.get("/api/account/me").json()["csrf"]
    return client


def rated_pair(one: ServerProcess, other: ServerProcess, names: tuple[str, str], seed: int) -> tuple[str, list[str]]:
    """A rated classic-2p table to 100 made on ``one`` by names[0]; names[1] sits down on ``other``."""
    ann, bea = signed_up(one, names[0]), signed_up(other, names[1])
    try:
        made = ann.post("/api/rated/tables", json={"preset": "classic-2p", "target": 100, "seed": seed})
        assert made.status_code == 200, made.text
        table = made.json()["table"]
        joined = bea.post(f"/api/tables/{table}/join", json={"seat": 1, "name": names[1]})
        assert joined.status_code == 200, joined.text
        return table, [made.json()["token"], joined.json()["token"]]
    finally:
        ann.close()
        bea.close()


def answered(seq: int) -> Any:
    """A test of a message: an error, or a state after event ``seq``."""
    return lambda m: m["type"] == "error" or (m["type"] == "state" and m["seq"] > seq)


def state_where(player: Player, test: Any) -> Msg:
    if test(player.state):
        return player.state
    return player.until(lambda m: m["type"] == "state" and test(m))


def test_a_pause_asked_on_one_server_and_agreed_on_the_other(cluster: tuple[str, ServerProcess, ServerProcess]) -> None:
    _db, one, other = cluster
    table, tokens = rated_pair(one, other, ("Ann", "Bea"), seed=3)
    ann, bea = Player(one, table, tokens[0]), Player(other, table, tokens[1])
    try:
        state_where(ann, lambda m: m["view"] is not None and m["deadline"] and m["players"][1]["connected"])
        state_where(bea, lambda m: m["view"] is not None and m["players"][0]["connected"])
        ann.send(type="pause", do="ask")
        asked = state_where(bea, lambda m: m["pause"]["asked_by"] == 0)  # seen on the other server
        assert asked["pause"]["waiting"] == [1] and not asked["pause"]["paused"]
        bea.send(type="pause", do="agree")
        paused = state_where(ann, lambda m: m["pause"]["paused"])
        assert paused["deadline"] is None and paused["pause"]["used"] == 1 and paused["pause"]["left"] == 1
        assert state_where(bea, lambda m: m["pause"]["paused"])["deadline"] is None
        mover = [ann, bea][paused["view"]["to_move"]]
        mover.send(type="move", move="draw")
        assert mover.until(lambda m: m["type"] in ("error", "state") and m.get("code") == "PAUSED")["code"] == "PAUSED"
        bea.send(type="pause", do="resume")  # either player, on either server
        resumed = state_where(ann, lambda m: not m["pause"]["paused"] and m["seq"] > paused["seq"])
        assert resumed["deadline"] is not None and resumed["pause"]["asked_by"] is None
        mover.play()  # and play goes on
    finally:
        ann.close()
        bea.close()


def test_a_rated_match_ended_across_two_servers_is_rated_once(cluster: tuple[str, ServerProcess, ServerProcess]) -> None:
    import psycopg

    db, one, other = cluster
    table, tokens = rated_pair(one, other, ("Cyd", "Dee"), seed=2)
    cyd, dee = Player(one, table, tokens[0]), Player(other, table, tokens[1])
    players = [cyd, dee]
    try:
        deadline = time.monotonic() + 50
        while not (cyd.state["match_over"] and dee.state["match_over"]):  # both servers see the end
            assert time.monotonic() < deadline, "the match did not end"
            for p in players:
                p.pump()
            for p in players:
                if p.state["hand_over"] and not p.state["match_over"] and p is cyd and p.state["seq"] == dee.state["seq"]:
                    p.send(type="next_hand")
                    p.until(answered(p.state["seq"]))
                elif p.my_move():
                    p.play()
        result = None
        until = time.monotonic() + 20
        while result is None:  # the rating is written by whichever server settles first
            assert time.monotonic() < until, "the match was never rated"
            result = httpx.get(f"{other.url}/api/rated/tables/{table}", timeout=10).json()["result"]
            if result is None:
                time.sleep(0.1)
        assert result["reason"] == "finished" and result["scores"] == [float(t) for t in cyd.state["totals"]]
        for server in (one, other):  # both servers settle on seeing the end; each finds it rated
            rows = {r["name"]: r for r in httpx.get(f"{server.url}/api/leaderboard/classic-2p", timeout=10).json()["rows"]}
            assert rows["Cyd"]["games"] == rows["Dee"]["games"] == 1
            assert rows["Cyd"]["wins"] + rows["Dee"]["wins"] == 1
        with psycopg.connect(db) as conn:
            games = conn.execute("SELECT count(*) FROM rated_games WHERE game = %s", (table,)).fetchone()
            points = conn.execute("SELECT count(*) FROM rating_history WHERE pool = 'classic-2p' AND kind = 'player' "
                                  "AND name IN (SELECT account_id FROM canasta_account_seats WHERE table_id = %s)",
                                  (table,)).fetchone()
        assert games is not None and games[0] == 1
        assert points is not None and points[0] == 2  # one point each, once
    finally:
        for p in players:
            p.close()
