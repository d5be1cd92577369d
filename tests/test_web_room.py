"""The card room's table, in process through the websocket: the turn timer's public
notice (every seat is told, each in its language, and the log shows it in its place),
and the one-click rematch of a created table (same seats, rules, target, timer, bots)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from canasta.bots import make_bot
from canasta.i18n import translator
from canasta.web.room import TIMED_OUT, TIMED_OUT_YOU, Room
from canasta.web.store import Store
from test_web import Msg, database, hello, human_table, recv_until, room_client, room_of


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with room_client(database(tmp_path)) as c:
        yield c


def hello_in(ws: WebSocketTestSession, token: str, lang: str) -> Msg:
    ws.send_text(json.dumps({"type": "hello", "token": token, "lang": lang}))
    welcome = recv_until(ws, lambda m: m["type"] in ("welcome", "error"))
    assert welcome["type"] == "welcome", welcome
    return recv_until(ws, lambda m: m["type"] == "state")


def has_notice(m: Msg) -> bool:
    return m["type"] == "state" and bool(m.get("notices"))


def test_a_turn_timer_that_runs_out_is_told_to_every_seat_in_its_language(client: TestClient) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "open"}, {"kind": "bot"}, {"kind": "bot"}])
    room = room_of(client, tid)
    room.config["turn_seconds"] = 0.3
    with client.websocket_connect(f"/ws/{tid}") as ann, client.websocket_connect(f"/ws/{tid}") as bea:
        hello(ann, tokens[0])
        hello_in(bea, tokens[1], "it")
        first = recv_until(ann, lambda m: m["type"] == "state" and bool(m["view"]) and bool(m["deadline"]))
        assert first["turn_seconds"] == 0.3 and first["notices"] == []
        late = first["view"]["to_move"]
        assert late in (0, 1)  # a person's turn: the timer runs only for people
        seen = recv_until(ann, has_notice)
        seen_it = recv_until(bea, has_notice)
        names = room.table.names
        (notice,) = seen["notices"]
        assert notice["kind"] == "timeout" and notice["seat"] == late
        assert seen["players"][late]["bot_playing"]
        said = {0: "your time ran out: the computer played your turn",
                1: f"time ran out: the computer played for {names[1]}"}
        assert notice["text"] == (said[0] if late == 0 else said[1].replace(names[1], names[late]))
        it = translator("it")
        (notice_it,) = seen_it["notices"]
        want_it = it.gettext(TIMED_OUT_YOU) if late == 1 else it.gettext(TIMED_OUT).format(name=names[late])
        assert notice_it["text"] == want_it and notice_it["id"] == notice["id"]
        assert it.has(TIMED_OUT) and it.has(TIMED_OUT_YOU) and want_it != notice["text"]
        # the log shows it where it happened: after the moves played before it, then the bot's moves
        after = recv_until(ann, lambda m: m["type"] == "state" and m["view"]["to_move"] != late)
        kinds = [line.get("kind", "move") for line in after["log"]]
        at = kinds.index("notice")
        # the log says it by name to everyone (the notice above says "your" to the seat itself)
        assert after["log"][at]["text"] == said[1].replace(names[1], names[late]) and after["log"][at]["move"] is None
        assert all(line["n"] == k + 1 for k, line in enumerate(after["log"][:at]))
        assert after["log"][at + 1]["seat"] == late  # the bot's first move for the person
        assert after["notices"] == seen["notices"]  # kept for the hand


def test_no_notice_without_a_timeout(client: TestClient) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "bot"}, {"kind": "bot"}, {"kind": "bot"}])
    with client.websocket_connect(f"/ws/{tid}") as ann:
        state = hello(ann, tokens[0])
        if not (state["view"] and state["view"]["to_move"] == 0):
            state = recv_until(ann, lambda m: m["type"] == "state" and bool(m["view"]) and m["view"]["to_move"] == 0)
        assert state["notices"] == [] and state["deadline"] is None and state["turn_seconds"] == 0
        assert all(line.get("kind") != "notice" for line in state["log"])


def test_the_notices_are_kept_with_the_table_across_a_restart(tmp_path: Path) -> None:
    db = database(tmp_path)
    with room_client(db) as first:
        tid, tokens = human_table(first, [{}, {"kind": "bot"}, {"kind": "bot"}, {"kind": "bot"}])
        room = room_of(first, tid)
        room.config["turn_seconds"] = 0.3  # in memory only: the restarted table has no timer
        with first.websocket_connect(f"/ws/{tid}") as ann:
            hello(ann, tokens[0])
            seen = recv_until(ann, has_notice)
        (notice,) = seen["notices"]
        hand = room.table.hand_number
    with room_client(db) as again, again.websocket_connect(f"/ws/{tid}") as ann:
        state = hello_in(ann, tokens[0], "it")
        assert room_of(again, tid).table.hand_number == hand
        kept = state["notices"][0]
        assert (kept["id"], kept["seat"], kept["after"]) == (notice["id"], notice["seat"], notice["after"])
        assert kept["text"] == translator("it").gettext(TIMED_OUT_YOU)  # said again, in this reader's language
        lines = [line for line in state["log"] if line.get("kind") == "notice"]
        assert lines[0]["text"] == translator("it").gettext(TIMED_OUT).format(name="Ann")
        # numbering goes on after the stored ones (a new notice is shown as new)
        assert room_of(again, tid).notice_count >= max(n["id"] for n in state["notices"])


def play_to_the_end(client: TestClient, tid: str, token: str) -> None:
    """Ann plays her seat (a basic bot's choices) until the match is over; the other people's
    seats, never connected, are played by the stand-in bot after the grace."""
    room = room_of(client, tid)
    chooser = make_bot("basic", seed=1)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        hello(ws, token)
        while True:
            state = recv_until(ws, lambda m: m["type"] == "state" and m["seq"] == room.seq)
            if state["match_over"]:
                return
            if state["hand_over"]:
                ws.send_text(json.dumps({"type": "next_hand"}))
            elif state["view"]["to_move"] == 0 and not state["players"][0]["bot_playing"]:
                ws.send_text(json.dumps({"type": "move", "move": str(chooser.choose(room.table.view(0)))}))


def test_a_created_table_rematches_in_one_click_with_the_same_seats_and_rules(client: TestClient) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "open"}, {"kind": "bot", "level": "random"}, {"kind": "bot"}],
                              target=100, options={"C-O2": True}, turn_seconds=30, bot_delay=0.0, title="Friday")
    early = client.post(f"/api/tables/{tid}/rematch", json={"token": tokens[0]})
    assert early.status_code == 409  # the match is not over
    old = room_of(client, tid)
    play_to_the_end(client, tid, tokens[0])
    assert client.post(f"/api/tables/{tid}/rematch", json={}).status_code == 403  # a spectator
    (listed,) = [t for t in client.get("/api/history").json()["tables"] if t["table"] == tid]
    assert listed["kinds"] == ["human", "human", "bot", "bot"]  # the lobby says bots' compass names in its language
    assert client.post(f"/api/tables/{tid}/rematch", json={"token": "not-a-seat"}).status_code == 403

    made = client.post(f"/api/tables/{tid}/rematch", json={"token": tokens[0]})
    assert made.status_code == 200, made.text
    new_id = made.json()["table"]
    assert new_id != tid and made.json()["seat"] == 0 and made.json()["token"] == tokens[0]
    new = room_of(client, new_id)
    assert new.table.rules.to_dict() == old.table.rules.to_dict()  # the preset, house rules and target
    assert new.table.rules.target == 100 and new.table.rules.black_three_freezes is True
    assert {k: new.config.get(k) for k in ("title", "host", "turn_seconds", "bot_delay")} == \
        {"title": "Friday", "host": "Ann", "turn_seconds": 30, "bot_delay": 0.0}
    assert [(s.kind, s.name, s.level) for s in new.seats] == [
        ("human", "Ann", None), ("reserved", "P1", None), ("bot", old.seats[2].name, "random"),
        ("bot", old.seats[3].name, "basic")]
    assert new.status == "open"  # kept for P1, who is asked by the old table's state
    with client.websocket_connect(f"/ws/{tid}") as ws:  # P1's page still at the finished table
        seen = hello(ws, tokens[1])
        assert seen["rematch"] == new_id
    assert client.app.state.hub.store.load(tid).config["rematch"] == new_id  # type: ignore[attr-defined]

    again = client.post(f"/api/tables/{tid}/rematch", json={"token": tokens[0]})  # a second click: the same table
    assert again.status_code == 200 and again.json()["table"] == new_id
    bea = client.post(f"/api/tables/{tid}/rematch", json={"token": tokens[1]})  # one click for P1 too
    assert bea.status_code == 200, bea.text
    assert bea.json() | {"next_deal": None} == {"table": new_id, "seat": 1, "token": tokens[1], "next_deal": None}
    assert new.status == "playing" and [s.kind for s in new.seats] == ["human", "human", "bot", "bot"]
    with client.websocket_connect(f"/ws/{new_id}") as ws:  # the seat token P1's page holds sits at the new table
        assert hello(ws, tokens[1])["seat"] == 1


# ------------------------------------------------------------------ the order of a hand


def order_answer(m: Msg) -> bool:
    return m["type"] == "order" or (m["type"] == "error" and m.get("ref") == "order")


def test_a_seats_order_of_its_hand_is_its_own_and_kept_across_a_restart(tmp_path: Path) -> None:
    db = database(tmp_path)
    with room_client(db) as first:
        tid, tokens = human_table(first, [{}, {"kind": "open"}, {"kind": "bot"}, {"kind": "bot"}])
        with first.websocket_connect(f"/ws/{tid}") as ann, first.websocket_connect(f"/ws/{tid}") as ann2, \
                first.websocket_connect(f"/ws/{tid}") as bea, first.websocket_connect(f"/ws/{tid}") as watcher:
            state = hello(ann, tokens[0])
            hello(ann2, tokens[0])
            hello(bea, tokens[1])
            hello(watcher)
            assert state["order"] is None  # nothing chosen yet: the page sorts by rank
            hand = recv_until(ann, lambda m: m["type"] == "state" and bool(m["view"]))["view"]["hand"]
            room = room_of(first, tid)
            seq = room.seq
            mine = list(reversed(hand))
            ann.send_text(json.dumps({"type": "order", "sort": "suit", "cards": mine}))
            said = recv_until(ann, order_answer)
            assert said == {"type": "order", "seq": seq,
                            "order": {"sort": "suit", "cards": mine, "hand": room.table.hand_number}}
            assert recv_until(ann2, order_answer)["order"] == said["order"]  # the seat's other page
            assert room.seq == seq  # not an event of the game: nobody else is told
            for bad in ({"sort": "colour"}, {"sort": "rank", "cards": "8H 8S"}, {"sort": "rank", "cards": ["8X"]},
                        {"sort": "rank", "cards": ["8H"] * 201}):
                ann.send_text(json.dumps({"type": "order", **bad}))
                assert recv_until(ann, order_answer)["code"] == "BAD_MESSAGE", bad
            watcher.send_text(json.dumps({"type": "order", "sort": "rank"}))
            assert recv_until(watcher, order_answer)["code"] == "SPECTATOR"
            bea.send_text(json.dumps({"type": "order", "sort": "meld"}))
            assert recv_until(bea, order_answer)["order"]["sort"] == "meld"
            bea.send_text(json.dumps({"type": "sync"}))
            assert recv_until(bea, lambda m: m["type"] == "state")["order"]["sort"] == "meld"
            ann.send_text(json.dumps({"type": "sync"}))
            assert recv_until(ann, lambda m: m["type"] == "state")["order"]["cards"] == mine
            watcher.send_text(json.dumps({"type": "sync"}))
            assert recv_until(watcher, lambda m: m["type"] == "state")["order"] is None
    with room_client(db) as again, again.websocket_connect(f"/ws/{tid}") as ann:
        state = hello(ann, tokens[0])
        assert state["order"] == said["order"]  # read back from the database for the seat


# ------------------------------------------------------------------ the table chat


def chat_of(ws: WebSocketTestSession, n: int) -> list[Msg]:
    """The chat as the next state with ``n`` lines has it."""
    state = recv_until(ws, lambda m: m["type"] == "state" and len(m.get("chat") or []) >= n)
    chat: list[Msg] = state["chat"]
    return chat


def client_store(client: TestClient) -> Store:
    store: Store = client.app.state.hub.store  # type: ignore[attr-defined]
    return store


def plays_on_from_the_last_move(store: Store, room: Room) -> bool:
    """A bot waits for the table's last event that is not a chat line (polled until the room and
    the database agree on the last event: bots may be moving)."""
    for _ in range(200):
        events = store.events_after(room.id, 0)
        seq, play_seq = room.seq, room.play_seq
        if events and events[-1].num == seq:
            last = max(e.num for e in events if e.kind != "chat")
            return play_seq == last
    return False


def chat_refusal(ws: WebSocketTestSession) -> Msg:
    return recv_until(ws, lambda m: m["type"] == "error" and m.get("ref") == "chat")


def test_the_chat_is_kept_with_the_table_limited_per_seat_and_shown_to_spectators_if_allowed(tmp_path: Path) -> None:
    db = database(tmp_path)
    with room_client(db, chat_rate=(0.001, 3.0)) as first:
        tid, tokens = human_table(first, [{}, {"kind": "open"}, {"kind": "bot"}, {"kind": "bot"}])
        open_tid, _ = human_table(first, [{}, {"kind": "bot"}, {"kind": "bot"}, {"kind": "bot"}], chat_spectators=True)
        assert first.post("/api/tables", json={"preset": "classic-4p", "name": "Ann", "seats": [{}, {}, {}, {}],
                                               "chat_spectators": 1}).status_code == 400
        room = room_of(first, tid)
        with first.websocket_connect(f"/ws/{tid}") as ann, first.websocket_connect(f"/ws/{tid}") as ann2, \
                first.websocket_connect(f"/ws/{tid}") as bea, first.websocket_connect(f"/ws/{tid}") as watcher:
            assert hello(ann, tokens[0])["chat"] == []
            hello(ann2, tokens[0])
            hello(bea, tokens[1])
            assert hello(watcher)["chat"] is None  # this table keeps its chat from spectators
            recv_until(ann, lambda m: m["type"] == "state" and bool(m["view"]))
            play_seq = room.play_seq
            markup = "<script>window.pwned = 1</script>  <b>hi</b>\u0007"
            ann.send_text(json.dumps({"type": "chat", "text": markup}))
            (line,) = chat_of(bea, 1)
            # kept as text (the page shows it as text): whitespace made single, control characters gone
            assert line | {"id": 0, "at": 0} == {"id": 0, "seat": 0, "phrase": None, "at": 0,
                                                 "text": "<script>window.pwned = 1</script> <b>hi</b>"}
            assert line["id"] > play_seq  # numbered as the table's events are
            assert plays_on_from_the_last_move(client_store(first), room)  # no bot waits again for a chat line
            ann2.send_text(json.dumps({"type": "chat", "phrase": "gg"}))  # the seat's other page
            assert chat_of(bea, 2)[-1] | {"id": 0, "at": 0} == {"id": 0, "seat": 0, "text": None, "phrase": "gg", "at": 0}
            for bad in ({"text": ""}, {"text": "x" * 201}, {"text": 7}, {"phrase": "insult"}, {"phrase": "gg", "text": "x"}):
                ann.send_text(json.dumps({"type": "chat", **bad}))
                assert chat_refusal(ann)["code"] == "BAD_MESSAGE", bad
            watcher.send_text(json.dumps({"type": "chat", "text": "hello"}))
            assert chat_refusal(watcher)["code"] == "SPECTATOR"
            # the seat's allowance is shared by its sockets: two lines said, one left, then refused
            ann.send_text(json.dumps({"type": "chat", "phrase": "hello"}))
            chat_of(bea, 3)
            ann2.send_text(json.dumps({"type": "chat", "text": "one too many"}))
            refused = chat_refusal(ann2)
            assert refused["code"] == "TOO_FAST" and refused["message"] == "you are chatting too fast: wait a moment"
            bea.send_text(json.dumps({"type": "chat", "text": "ciao"}))  # another seat has its own
            assert [x["text"] or x["phrase"] for x in chat_of(ann, 4)] == [line["text"], "gg", "hello", "ciao"]
            watcher.send_text(json.dumps({"type": "sync"}))
            assert recv_until(watcher, lambda m: m["type"] == "state")["chat"] is None
        with first.websocket_connect(f"/ws/{open_tid}") as watcher:
            assert hello(watcher)["chat"] == []  # a table that lets spectators read its chat
    with room_client(db) as again, again.websocket_connect(f"/ws/{tid}") as bea:
        kept = hello(bea, tokens[1])["chat"]  # read back from the table's events
        assert [x["text"] or x["phrase"] for x in kept] == [line["text"], "gg", "hello", "ciao"]
