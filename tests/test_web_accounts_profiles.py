"""Profiles (issue 52): a signed-in player's finished game on ``/u/NAME`` with its links and the
statistics per preset, counted from the engine's scores; the export of everything kept (one's
own only); deleting the account, after which the game replays and its record verifies under
another name; nobody deletes or exports another's account."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import need

need("fastapi")
need("argon2")

from fastapi.testclient import TestClient  # noqa: E402

from canasta.play.record import parse_records, verify  # noqa: E402
from canasta.play.table import Table  # noqa: E402
from test_web import play_seat_zero_to_the_end  # noqa: E402
from test_web_accounts import PASSWORD, card_room, csrf, me, post, register  # noqa: E402

Msg = dict[str, Any]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with card_room(tmp_path) as c:
        yield c


def play_a_match(client: TestClient) -> Msg:
    """A quick classic-4p match to 100 played to its end by the signed-in player (seed 2)."""
    data: Msg = client.post("/api/quick", json={"name": "typed", "seed": 2, "target": 100, "level": "basic"},
                            headers={"X-CSRF-Token": csrf(client)}).json()
    play_seat_zero_to_the_end(client, data["table"], data["token"])
    return data


def test_a_finished_game_is_on_the_profile_with_its_figures(client: TestClient) -> None:
    register(client, "Ann")
    data = play_a_match(client)
    row = client.app.state.hub.store.load(data["table"])  # type: ignore[attr-defined]
    table = Table.from_dict(row.state)
    profile = client.get("/api/players/ann").json()
    assert profile["name"] == "Ann" and profile["lang"] == "en"
    [game] = profile["games"]
    tid = data["table"]
    assert (game["table"], game["seat"], game["status"], game["preset"]) == (tid, 0, "finished", "classic-4p")
    assert (game["replay"], game["record"], game["review"]) == (f"/replay/{tid}", f"/api/tables/{tid}/record",
                                                                f"/review/{tid}?hand=1&seat=0")
    hands = table.match.hands
    mine = [h.scores[0].total for h in hands]  # seat 0 is side 0
    stats = profile["stats"]["classic-4p"]
    assert stats["games"] == 1 and stats["won"] == int(table.match.winner == 0) == int(game["won"])
    assert stats["hands"] == len(hands)
    assert stats["hands_won"] == sum(h.scores[0].total > h.scores[1].total for h in hands)
    assert stats["points_per_hand"] == round(sum(mine) / len(hands), 2)
    assert stats["canastas_per_hand"] == round(sum(len(h.scores[0].canastas) for h in hands) / len(hands), 2)
    assert stats["going_out_per_hand"] == round(sum(h.went_out == 0 for h in hands) / len(hands), 2)
    assert stats["seconds_per_move"] is not None and stats["seconds_per_move"] >= 0
    for link in (game["replay"], game["record"], f"/u/{profile['name']}"):
        assert client.get(link).status_code == 200
    assert client.get("/api/players/nobody").status_code == 404


def test_the_export_is_ones_own(client: TestClient) -> None:
    register(client, "Ann")
    play_a_match(client)
    mine = client.get("/api/account/export")
    assert mine.status_code == 200 and "attachment" in mine.headers["content-disposition"]
    data = mine.json()
    assert data["account"]["name"] == "Ann" and len(data["profile"]["games"]) == 1
    assert "$argon2" not in mine.text
    post(client, "logout", {})
    assert client.get("/api/account/export").status_code == 401
    register(client, "Bea")
    theirs = client.get("/api/account/export").json()
    assert theirs["account"]["name"] == "Bea" and theirs["profile"]["games"] == []


def test_deleting_the_account_keeps_its_games_under_another_name(client: TestClient) -> None:
    register(client, "Ann")
    data = play_a_match(client)
    tid = data["table"]
    session_csrf = csrf(client)
    no_token = client.post("/api/account/delete", json={"password": PASSWORD})
    assert no_token.status_code == 403
    wrong = post(client, "delete", {"password": "not the password"}, session_csrf)
    assert wrong.status_code == 403 and me(client) is not None
    done = post(client, "delete", {"password": PASSWORD}, session_csrf)
    assert done.status_code == 200 and done.json()["deleted"]
    new = done.json()["name"]
    assert new.startswith("deleted-") and me(client) is None
    assert client.get("/api/players/Ann").status_code == 404
    record = client.get(f"/api/tables/{tid}/record")
    assert record.status_code == 200 and new in record.text and "Ann" not in record.text
    games, problems = parse_records(record.text)
    assert not problems and len(games) == 1 and verify(games[0]) == []
    replay = client.get(f"/api/tables/{tid}/replay").json()
    assert replay["names"][0] == new
    assert register(client, "Ann").status_code == 201  # the name is free again


def test_nobody_deletes_anothers_account(client: TestClient) -> None:
    register(client, "Ann")
    post(client, "logout", {})
    register(client, "Bea")
    out = post(client, "delete", {"password": PASSWORD})  # Ann's password, from Bea's session: Bea's account
    assert out.status_code == 200 and out.json()["deleted"]
    assert client.get("/api/players/Ann").status_code == 200  # Ann is untouched
    assert client.get("/api/players/Bea").status_code == 404
