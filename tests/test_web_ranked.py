"""The ranked queue (issue 53): players close in rating are matched at once, players far apart
only once their windows have widened with waiting; a group is seated at a rated table (the
strongest partnering the weakest) with each player's seat token waiting for their page; a group
is claimed once; guests are refused; leaving the queue; the estimate of the wait."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import need

need("fastapi")
need("argon2")
need("openskill")

from fastapi.testclient import TestClient  # noqa: E402

from canasta.web.ranked import (  # noqa: E402
    BASE_WINDOW,
    STALE_CLAIM,
    WIDEN,
    RankedQueue,
    Waiting,
    choose,
    seating,
)
from test_web import hello  # noqa: E402
from test_web_accounts import accounts_of, csrf  # noqa: E402
from test_web_rated import as_player, card_room  # noqa: E402


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with card_room(tmp_path) as c:
        yield c


def test_the_window_widens_with_waiting() -> None:
    far = 10.0
    a, b = Waiting("a", "A", 25.0, 0.0), Waiting("b", "B", 25.0 + far, 0.0)
    assert choose([a, b], 2, now=0.0) is None
    ready = (far - BASE_WINDOW) / WIDEN  # seconds until the window reaches them
    assert choose([a, b], 2, now=ready - 1) is None
    assert choose([a, b], 2, now=ready + 1) == [a, b]
    # the closest are taken first, the oldest waiting player anchoring
    c = Waiting("c", "C", 26.0, 5.0)
    assert choose([a, b, c], 2, now=6.0) == [a, c]


def test_the_strongest_partners_the_weakest() -> None:
    group = [Waiting(str(i), str(i), mu, 0.0) for i, mu in enumerate([20.0, 30.0, 25.0, 27.0])]
    seats = seating(group, 4)
    assert [w.mu for w in seats] == [30.0, 27.0, 20.0, 25.0]  # 30 & 20 (seats 0, 2) against 27 & 25


def test_a_group_is_claimed_once(client: TestClient) -> None:
    queue = RankedQueue(client.app.state.hub.store.engine)  # type: ignore[attr-defined]
    store = accounts_of(client).store
    for name in ("ann", "bea"):
        account = store.create(name, None, "en", 0.0)
        queue.join("classic-2p", account, 25.0, 0.0)
    first = queue.claim("classic-2p", 2, 1.0)
    assert first is not None and sorted(w.name for w in first[1]) == ["ann", "bea"]
    assert queue.claim("classic-2p", 2, 1.0) is None  # a second server finds nobody left to seat
    # the first server died before their table was made: after STALE_CLAIM they are waiting again
    assert queue.claim("classic-2p", 2, 1.0 + STALE_CLAIM - 1) is None
    again = queue.claim("classic-2p", 2, 1.0 + STALE_CLAIM + 1)
    assert again is not None and again[0] != first[0]


def test_two_players_are_seated_at_a_rated_table(client: TestClient) -> None:
    guest = client.post("/api/ranked/classic-2p/join", json={})
    assert guest.status_code == 401
    as_player(client, "Ann")
    ann = client.post("/api/ranked/classic-2p/join", json={}, headers={"X-CSRF-Token": csrf(client)}).json()
    assert ann["status"] == "waiting" and ann["needed"] == 2 and ann["waiting"] == 1 and ann["estimate"] is None
    assert client.post("/api/ranked/nonsense/join", json={}, headers={"X-CSRF-Token": csrf(client)}).status_code == 404
    as_player(client, "Bea")
    bea = client.post("/api/ranked/classic-2p/join", json={}, headers={"X-CSRF-Token": csrf(client)}).json()
    assert bea["status"] == "matched", bea
    table = bea["table"]
    info = client.get(f"/api/tables/{table}").json()
    assert info["rated"] == "classic-2p" and sorted(s["name"] for s in info["seats"]) == ["Ann", "Bea"]
    assert info["status"] == "playing" and all(s["kind"] == "human" for s in info["seats"])
    owners = accounts_of(client).store.owners(table)
    assert {accounts_of(client).store.get(a).name for a in owners.values()} == {"Ann", "Bea"}  # type: ignore[union-attr]
    with client.websocket_connect(f"/ws/{table}") as ws:  # the token waiting in the queue is the seat's
        state = hello(ws, bea["token"])
        assert state["seat"] == bea["seat"]
    # Ann's page, asking, learns of the same table; the estimate now comes from the matched waits
    post = client.post("/api/account/logout", json={}, headers={"X-CSRF-Token": csrf(client)})
    assert post.status_code == 200
    login = client.post("/api/account/login", json={"name": "Ann", "password": "correct horse battery"},
                        headers={"X-CSRF-Token": csrf(client)})
    assert login.status_code == 200
    mine = client.get("/api/ranked/classic-2p").json()
    assert mine["status"] == "matched" and mine["table"] == table and mine["seat"] == 1 - bea["seat"]
    assert mine["estimate"] is not None and mine["estimate"] >= 0


def test_leaving_the_queue(client: TestClient) -> None:
    as_player(client, "Ann")
    headers = {"X-CSRF-Token": csrf(client)}
    assert client.post("/api/ranked/classic-4p/join", json={}, headers=headers).json()["status"] == "waiting"
    assert client.post("/api/ranked/classic-4p/leave", json={}, headers=headers).json() == {"left": True}
    assert client.get("/api/ranked/classic-4p").json()["status"] == "none"


def test_players_far_apart_in_rating_wait(client: TestClient) -> None:
    store = accounts_of(client).store
    as_player(client, "Bea")
    as_player(client, "Ann")
    ann, other = store.find("Ann"), store.create("Xavier", None, "en", 0.0)
    assert ann is not None
    ratings = client.app.state.rated.ratings  # type: ignore[attr-defined]
    for _ in range(6):  # Ann beats Xavier six times: her mean is well above a new player's
        ratings.rate("classic-2p", [[ann.id], [other.id]], ranks=[1, 2])
    assert ratings.pool("classic-2p").rating(ann.id).mu > 25 + BASE_WINDOW + 1
    headers = {"X-CSRF-Token": csrf(client)}
    assert client.post("/api/ranked/classic-2p/join", json={}, headers=headers).json()["status"] == "waiting"
    as_player_again = client.post("/api/account/logout", json={}, headers=headers)
    assert as_player_again.status_code == 200
    login = client.post("/api/account/login", json={"name": "Bea", "password": "correct horse battery"},
                        headers={"X-CSRF-Token": csrf(client)})
    assert login.status_code == 200
    bea = client.post("/api/ranked/classic-2p/join", json={}, headers={"X-CSRF-Token": csrf(client)}).json()
    assert bea["status"] == "waiting" and bea["waiting"] == 2 and BASE_WINDOW <= bea["window"] < BASE_WINDOW + 1
