"""The card room's review of a hand (issue #34): who may see what, the refusals, the
progress while it is computed off the event loop, the review kept with the table, and the
data sent (that seat's views only, never a hand in play)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from canasta.bots import make_bot
from canasta.play.table import Table
from canasta.review import tasks_of
from test_web import database, hello, human_table, recv_until, room_client, room_of, send

BOTS = [{}, {"kind": "bot", "level": "basic"}, {"kind": "bot", "level": "basic"}, {"kind": "bot", "level": "basic"}]
WORLDS = 4  # a tiny budget: the marks are noisy, the mechanics are what is tested
POLLS = 3000  # how many times a test asks for a review being computed (each answer comes at once)


def play(client: TestClient, ws: WebSocketTestSession, tid: str, until: str) -> dict[str, Any]:
    """Play seat 0 (a basic bot's choices from its view) until ``until`` ("hand_over" or "match_over")."""
    room = room_of(client, tid)
    bot = make_bot("basic", seed=1)
    send(ws, type="sync")  # the state now (hello's was read already)
    while True:
        state = recv_until(ws, lambda m: m["type"] == "state" and m["seq"] == room.seq)
        if state[until] or state["match_over"]:
            return state
        if state["hand_over"]:
            send(ws, type="next_hand")
        elif state["view"]["to_move"] == 0:
            send(ws, type="move", move=str(bot.choose(room.table.view(0))))


def ask(client: TestClient, tid: str, lang: str = "en", **body: Any) -> tuple[int, dict[str, Any]]:
    r = client.post(f"/api/tables/{tid}/review?lang={lang}", json=body)
    data: dict[str, Any] = r.json()
    return r.status_code, data


def until_done(client: TestClient, tid: str, **body: Any) -> tuple[list[tuple[int, int]], dict[str, Any]]:
    """Ask until the review is computed: the progress seen on the way, and the review."""
    seen: list[tuple[int, int]] = []
    for _ in range(POLLS):
        code, data = ask(client, tid, **body)
        assert code == 200, data
        if data["status"] == "done":
            return seen, data
        seen.append((data["done"], data["total"]))
        time.sleep(0.02)  # between two questions; the bound is the number of questions
    raise AssertionError(f"the review was not computed after {POLLS} questions: {seen[-3:]}")


def test_a_player_reviews_their_own_hand_once_it_is_over(tmp_path: Path) -> None:
    db = database(tmp_path)
    with room_client(db, review_worlds=WORLDS) as client:  # the review's own process pool
        tid, tokens = human_table(client, BOTS)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            hello(ws, tokens[0])
            code, refused = ask(client, tid, token=tokens[0], hand=1)
            assert code == 409 and "still being played" in refused["detail"]  # never a hand in play
            code, refused = ask(client, tid, lang="it", token=tokens[0], hand=1)
            assert code == 409 and refused["detail"].startswith("questa smazzata"), refused
            play(client, ws, tid, "hand_over")
        seen, review = until_done(client, tid, token=tokens[0], hand=1)
        assert seen and all(0 <= d <= t for d, t in seen) and seen[0][1] == seen[-1][1]  # decisions done / total
        assert review["seat"] == 0 and review["hand"] == 1 and review["seats"] == [0]
        table: Table = room_of(client, tid).table
        record = table.record()
        moves = record.hands[0].moves
        assert [e["index"] for e in review["timeline"]] == list(range(len(moves)))
        reviewed = [e for e in review["timeline"] if e.get("reviewed")]
        assert reviewed and review["summary"]["decisions"] == len(reviewed)
        assert all(e["seat"] == 0 for e in reviewed)
        # the positions sent are that seat's own views at each decision, and nothing else
        views = {t.index: t.view.to_dict(include_rules=False) for t in tasks_of(record, 1, [0], 1, WORLDS, 1)}
        for e in review["timeline"]:
            assert ("view" in e) == bool(e.get("reviewed"))
            if "view" in e:
                assert e["view"] == views[e["index"]] and e["view"]["seat"] == 0
        for e in reviewed:
            assert e["made"] and (e["better"] or not e["best"])
            assert e["symbol"] == {"": "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}[e["mark"]]
        # asked again: read back, not computed again
        code, again = ask(client, tid, token=tokens[0], hand=1)
        assert code == 200 and again["status"] == "done" and again["timeline"] == review["timeline"]
        assert review["canasta_size"] == 7  # the family's: the page marks a canasta by it
        # another seat's review while the match goes on: refused, to the seat's owner and to a spectator
        code, refused = ask(client, tid, token=tokens[0], hand=1, seat=1)
        assert code == 403 and "only once the match is over" in refused["detail"]
        assert ask(client, tid, hand=1, seat=0)[0] == 403
        assert ask(client, tid, token=tokens[0], hand=0)[0] == 400
        assert ask(client, tid, token=tokens[0], hand=9)[0] == 404
    with room_client(db, review_worlds=WORLDS) as client:  # the server restarted: the review is kept
        code, kept = ask(client, tid, lang="it", token=tokens[0], hand=1)
        assert code == 200 and kept["status"] == "done"
        assert [e.get("mark") for e in kept["timeline"]] == [e.get("mark") for e in review["timeline"]]
        assert any(e["text"].startswith("Ann pesca") for e in kept["timeline"]), kept["timeline"][:4]


@pytest.mark.parametrize("open_to_all", [False, True])
def test_other_seats_reviews_only_after_the_match_and_if_the_table_allows(tmp_path: Path, open_to_all: bool) -> None:
    with room_client(database(tmp_path), review_worlds=2, review_workers=0) as client:  # a thread
        extra: dict[str, Any] = {"review_others": True} if open_to_all else {}
        tid, tokens = human_table(client, BOTS, target=100, **extra)
        assert client.get(f"/api/tables/{tid}").json()["review_others"] is open_to_all
        with client.websocket_connect(f"/ws/{tid}") as ws:
            hello(ws, tokens[0])
            state = play(client, ws, tid, "hand_over")
            assert state["review_others"] is open_to_all
            if not state["match_over"]:
                assert ask(client, tid, token=tokens[0], hand=1, seat=2)[0] == 403  # not before the end
                assert ask(client, tid, hand=1, seat=0)[0] == 403
                state = play(client, ws, tid, "match_over")
        assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"
        mine = until_done(client, tid, token=tokens[0], hand=1)[1]
        assert mine["seats"] == ([0, 1, 2, 3] if open_to_all else [0])
        for body in ({"token": tokens[0], "hand": 1, "seat": 2}, {"hand": 1, "seat": 3}):  # a player, a spectator
            if open_to_all:
                other = until_done(client, tid, **body)[1]
                assert other["seat"] == body["seat"]
                assert all(e["view"]["seat"] == body["seat"] for e in other["timeline"] if "view" in e)
            else:
                code, refused = ask(client, tid, **body)
                assert code == 403 and "only if the table allows it" in refused["detail"]
        assert client.post("/api/tables", json={"preset": "classic-4p", "name": "Ann", "seats": BOTS,
                                                "review_others": "yes"}).status_code == 400


def test_the_review_route_refuses_what_is_not_a_table(tmp_path: Path) -> None:
    with room_client(database(tmp_path)) as client:
        assert ask(client, "nosuchtable", hand=1, seat=0)[0] == 404
        r = client.post("/api/tables/x/review", content=b"[1]", headers={"content-type": "application/json"})
        assert r.status_code == 400
