"""The online card room, in process: lobby, websocket flows, refusals, hidden
information, grace and bot takeover, turn timer, history and replay."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from canasta.bots import make_bot
from canasta.engine.cards import card_str
from canasta.engine.game import Game
from canasta.engine.moves import MELD, Move
from canasta.engine.rules import RuleSet
from canasta.present import proposal
from canasta.web.app import create_app
from canasta.web.room import MAX_MESSAGE, Room, Settings
from canasta.web.store import Store, metadata

Msg = dict[str, Any]
CARD = re.compile(r"\b(?:10|[2-9JQKA])[SHDC]\b|\bJK\b")


def database(tmp_path: Path) -> str:
    """A fresh database: a SQLite file, or the PostgreSQL database named by
    ``CANASTA_TEST_POSTGRES`` (emptied first), e.g.
    ``CANASTA_TEST_POSTGRES=postgresql://canasta@127.0.0.1:5433/canasta pytest tests/test_web.py``."""
    url = os.environ.get("CANASTA_TEST_POSTGRES")
    if not url:
        return str(tmp_path / "t.db")
    store = Store(url)
    metadata.drop_all(store.engine)
    store.close()
    return url


@contextlib.contextmanager
def room_client(db: str, **settings: Any) -> Iterator[TestClient]:
    """The card room on ``db`` in this process (no bot delay, fixed seeds allowed, as ``settings`` say)."""
    app = create_app(db, settings=Settings(**{"grace": 0.2, "bot_delay": 0, "fixed_seeds": True, **settings}))
    with TestClient(app) as c:
        yield c
        c.app.state.hub.store.close()  # type: ignore[attr-defined]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with room_client(database(tmp_path)) as c:
        yield c


def room_of(client: TestClient, table_id: str) -> Room:
    room: Room = client.app.state.hub.rooms[table_id]  # type: ignore[attr-defined]
    return room


def recv(ws: WebSocketTestSession) -> Msg:
    msg: Msg = json.loads(ws.receive_text())
    return msg


def recv_until(ws: WebSocketTestSession, pred: Callable[[Msg], bool], limit: int = 2000) -> Msg:
    for _ in range(limit):
        msg = recv(ws)
        if pred(msg):
            return msg
    raise AssertionError("the expected message never came")


def hello(ws: WebSocketTestSession, token: str | None = None) -> Msg:
    ws.send_text(json.dumps({"type": "hello", "token": token} if token else {"type": "hello"}))
    welcome = recv_until(ws, lambda m: m["type"] in ("welcome", "error"))
    assert welcome["type"] == "welcome", welcome
    return recv_until(ws, lambda m: m["type"] == "state")


def send(ws: WebSocketTestSession, **msg: Any) -> None:
    ws.send_text(json.dumps(msg))


def human_table(client: TestClient, seats: list[dict[str, Any]], preset: str = "classic-4p",
                **extra: Any) -> tuple[str, list[str]]:
    """A table; every open seat is then taken.  Returns its id and the tokens by seat."""
    r = client.post("/api/tables", json={"preset": preset, "name": "Ann", "seat": 0, "seats": seats,
                                         "seed": 11, **extra})
    assert r.status_code == 200, r.text
    data = r.json()
    tokens = [""] * len(seats)
    tokens[0] = data["token"]
    for i, s in enumerate(seats):
        if i and s.get("kind") == "open":
            j = client.post(f"/api/tables/{data['table']}/join", json={"name": f"P{i}", "seat": i})
            assert j.status_code == 200, j.text
            tokens[i] = j.json()["token"]
    return data["table"], tokens


# ------------------------------------------------------------------ the lobby


def test_presets_quick_play_and_a_human_move(client: TestClient) -> None:
    assert any(p["name"] == "classic-4p" for p in client.get("/api/presets").json()["presets"])
    data = client.post("/api/quick", json={"name": "Ann", "seed": 3}).json()
    assert client.get(f"/t/{data['table']}").status_code == 200
    assert "Initial meld minimums" in client.get(f"/t/{data['table']}/rules").text
    with client.websocket_connect(f"/ws/{data['table']}") as ws:
        state = hello(ws, data["token"])
        assert state["seat"] == 0 and len(state["view"]["hand"]) == 11
        state = recv_until(ws, lambda m: m["type"] == "state" and m["view"]["to_move"] == 0
                           and m["view"]["phase"] == "draw")
        send(ws, type="check", id=1, moves=["draw", "discard " + state["view"]["hand"][0], "meld XX"])
        check = recv_until(ws, lambda m: m["type"] == "check")
        assert check["id"] == 1 and check["results"][0] is None
        assert check["results"][1]["message"] and check["results"][2]["code"] == "BAD_MOVE"
        send(ws, type="move", move="draw")
        after = recv_until(ws, lambda m: m["type"] == "state" and m["seq"] > state["seq"])
        assert after["log"][-1]["text"] == "Ann draws" and after["log"][-1]["move"] == "draw" and len(after["view"]["hand"]) == 12
        send(ws, type="hint")
        hint = recv_until(ws, lambda m: m["type"] == "hint")
        # the hint is said as something to do, by the one describer every interface uses
        assert hint["text"] == proposal(Move.parse(hint["move"]), RuleSet.preset("classic-4p"))


def test_create_join_invite_and_open_tables(client: TestClient) -> None:
    r = client.post("/api/tables", json={
        "preset": "classic-4p", "name": "Ann", "seat": 0, "target": 1500, "options": {"C-O2": True},
        "seats": [{}, {"kind": "open"}, {"kind": "reserved", "name": "Bea"}, {"kind": "bot", "level": "advanced"}]})
    assert r.status_code == 200, r.text
    data = r.json()
    tid = data["table"]
    listed = client.get("/api/tables").json()["tables"]
    assert [t["table"] for t in listed] == [tid]
    assert room_of(client, tid).table.rules.black_three_freezes and room_of(client, tid).table.rules.target == 1500
    # the reserved seat needs its invite; taken seats cannot be taken again
    assert client.post(f"/api/tables/{tid}/join", json={"name": "Eve", "seat": 2}).status_code == 403
    assert client.post(f"/api/tables/{tid}/join", json={"name": "Eve", "seat": 0}).status_code == 409
    assert client.post(f"/api/tables/{tid}/join", json={"name": "Eve", "seat": 3}).status_code == 409
    invite = data["invites"]["2"].split("invite=")[1]
    bea = client.post(f"/api/tables/{tid}/join", json={"name": "Bea", "seat": 2, "invite": invite})
    assert bea.status_code == 200
    assert room_of(client, tid).status == "open"
    carl = client.post(f"/api/tables/{tid}/join", json={"name": "Carl", "seat": 1})
    assert carl.status_code == 200 and room_of(client, tid).status == "playing"
    assert client.get("/api/tables").json()["tables"] == []
    assert room_of(client, tid).table.names == ["Ann", "Carl", "Bea", "East"]


@pytest.mark.parametrize("body, needle", [
    ({"preset": "nope"}, "unknown rules preset"),
    ({"seats": [{}, {"kind": "bot", "level": "cmd:rm -rf /"}, {}, {}]}, "bot level"),
    ({"seats": [{}, {}]}, "give 4 seats"),
    ({"options": {"C-O1": "sometimes"}}, "C-O1"),
    ({"target": 5}, "target score"),
    ({"name": ""}, "pick a name"),
])
def test_table_creation_refusals(client: TestClient, body: dict[str, Any], needle: str) -> None:
    base = {"preset": "classic-4p", "name": "Ann", "seats": [{}, {"kind": "bot"}, {"kind": "open"}, {"kind": "bot"}]}
    r = client.post("/api/tables", json=base | body)
    assert r.status_code == 400 and needle in r.json()["detail"]
    assert client.post("/api/tables", content=b"not json", headers={"content-type": "application/json"}).status_code == 400


# ------------------------------------------------------------------ refusals


def test_refusals_leave_the_table_unchanged(client: TestClient) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
    room = room_of(client, tid)
    to_move = room.table.game.to_move
    other = (to_move + 1) % 4
    before = (json.dumps(room.table.to_dict()), room.table.version)

    with client.websocket_connect(f"/ws/{tid}") as ws:
        send(ws, type="move", move="draw")  # before hello
        assert recv(ws)["code"] == "NO_HELLO"
        send(ws, type="hello", token="forged")
        assert recv(ws)["code"] == "BAD_TOKEN"
        hello(ws)  # a spectator
        send(ws, type="move", move="draw")
        assert recv_until(ws, lambda m: m["type"] == "error")["code"] == "SPECTATOR"

    with client.websocket_connect(f"/ws/{tid}") as ws:
        state = hello(ws, tokens[other])
        assert state["seat"] == other
        cases: list[tuple[str, str]] = [
            ("{not json", "BAD_JSON"),
            ("[1, 2]", "BAD_MESSAGE"),
            (json.dumps({"type": "dance"}), "UNKNOWN_TYPE"),
            (json.dumps({"type": "move", "move": "x" * (MAX_MESSAGE + 10)}), "TOO_LARGE"),
            (json.dumps({"type": "move", "move": "draw"}), "NOT_YOUR_TURN"),
            (json.dumps({"type": "move", "move": "draw", "seat": to_move}), "WRONG_SEAT"),
            (json.dumps({"type": "move"}), "BAD_MESSAGE"),
            (json.dumps({"type": "check", "moves": "draw"}), "BAD_MESSAGE"),
            (json.dumps({"type": "undo"}), "NOTHING_TO_UNDO"),
            (json.dumps({"type": "next_hand"}), "HAND_NOT_OVER"),
            (json.dumps({"type": "hint"}), "NOT_YOUR_TURN"),
        ]
        for raw, code in cases:
            ws.send_text(raw)
            err = recv_until(ws, lambda m: m["type"] == "error")
            assert err["code"] == code, (raw[:40], err)
            assert err["message"]
        send(ws, type="ping")
        assert recv_until(ws, lambda m: m["type"] == "pong")["seq"] == room.seq  # still usable

    with client.websocket_connect(f"/ws/{tid}") as ws:
        hello(ws, tokens[to_move])
        for move, code in [("meld 4Z", "BAD_MOVE"), ("discard 9C", "ILLEGAL"), ("frobnicate", "BAD_MOVE")]:
            send(ws, type="move", move=move)
            err = recv_until(ws, lambda m: m["type"] == "error")
            assert err["code"] == code, (move, err)
        send(ws, type="move", move="discard " + card_str(room.table.game.hand(to_move)[0]))
        err = recv_until(ws, lambda m: m["type"] == "error")
        assert err["code"] == "ILLEGAL" and err["rule"], err  # discarding before drawing names its rule
    assert (json.dumps(room.table.to_dict()), room.table.version) == before


# ------------------------------------------------------------- hidden cards


def knowable(g: Game, seat: int) -> Counter[str]:
    """Every card ``seat`` may know now, counted, straight from the game's state."""
    cards: list[int] = list(g.hand(seat)) if seat >= 0 else []
    for side in g.melds:
        for m in side.values():
            cards.extend(m.cards)
    for side_closed in (g.set_aside(side) for side in range(len(g.melds))):
        for m in side_closed:
            cards.extend(m.cards)
    for reds in g.red3:
        cards.extend(reds)
    lo, hi = g.face_down()
    cards.extend(c for i, c in enumerate(g.pile) if not lo <= i < hi)
    for s in range(g.players):
        if s != seat:
            cards.extend(c for c in range(len(g.known[s])) for _ in range(g.known[s][c]))
    cards.extend(g.shown_at_deal())
    return Counter(card_str(c) for c in cards)


def view_cards(view: Msg, seat: int) -> Counter[str]:
    out: list[str] = list(view["hand"])
    for s, k in enumerate(view["known"]):
        if s != seat:  # a seat's own known cards are in its hand already
            out.extend(k)
    for k in view["red_threes"]:
        out.extend(k)
    for side in view["melds"]:
        for m in side:
            out.extend(m["cards"])
    for side in view.get("closed", []):
        for c in side:
            out.extend(c)
    out.extend(c for c in view["pile"] if c != "??")
    out.extend(view.get("cut_cards", []))
    return Counter(out)


class LeakChecker:
    """Checks every message to a seat against what that seat may know."""

    def __init__(self) -> None:
        self.public_seen: set[str] = set()  # every card public at some point of this hand
        self.own_seen: dict[int, set[str]] = {}
        self.hand = 0
        self.messages = 0

    def check(self, g: Game, seat: int, msg: Msg) -> None:
        if g.hand_number != self.hand:
            self.hand, self.public_seen, self.own_seen = g.hand_number, set(), {}
        self.public_seen |= set(knowable(g, -1))
        own = self.own_seen.setdefault(seat, set())
        if seat >= 0:
            own |= {card_str(c) for c in g.hand(seat)}
        allowed = knowable(g, seat)
        self.messages += 1
        if msg["type"] == "state":
            shown = view_cards(msg["view"], seat)
            assert not shown - allowed, f"seat {seat} was sent {shown - allowed}"
            if seat >= 0:
                assert sorted(msg["view"]["hand"]) == sorted(card_str(c) for c in g.hand(seat))
            else:
                assert msg["view"]["hand"] == []
        # any card named anywhere in the message (log lines, hints ...) was public or this seat's own
        named = set(CARD.findall(json.dumps({k: v for k, v in msg.items() if k != "view"})))
        assert named <= self.public_seen | own | set(allowed), f"seat {seat} was told of {named - self.public_seen - own}"


def test_leak_checker_catches_a_leak() -> None:
    from canasta.engine.rules import RuleSet

    g = Game(RuleSet.preset("classic-4p"), 5)
    checker = LeakChecker()
    view: Msg = {"hand": [card_str(c) for c in g.hand(0)], "known": [[], [], [], []],
                 "red_threes": [[], [], [], []], "melds": [[], []], "closed": [], "pile": [], "cut_cards": []}
    checker.check(g, 0, {"type": "state", "view": view, "log": []})  # honest
    public = knowable(g, -1)
    theirs = next(card_str(c) for c in g.hand(1) if card_str(c) not in public)
    with pytest.raises(AssertionError):  # one of West's cards, shown as "known"
        checker.check(g, 0, {"type": "state", "view": dict(view, known=[[], [theirs], [], []]), "log": []})
    secret = next(c for c in (card_str(x) for x in g.hand(2)) if c not in checker.public_seen
                  and c not in view["hand"])
    with pytest.raises(AssertionError):  # a hidden card named in a text
        checker.check(g, 0, {"type": "hint", "text": f"North holds {secret}"})


@pytest.mark.parametrize("preset, hands", [("classic-4p", 4), ("italian-4p", 2), ("classic-2p", 3),
                                           ("classic-3p-cutthroat", 2)])
def test_no_message_to_a_seat_holds_a_card_it_may_not_know(client: TestClient, preset: str, hands: int) -> None:
    """Scripted people at every seat and a spectator play hands; every message is checked."""
    client.app.state.hub.settings.grace = 60  # type: ignore[attr-defined]  # no bot takes a seat here
    # scripted people ask for hints faster than a person could: past the per-socket rate
    client.app.state.hub.settings.message_rates["hint"] = (1000.0, 1000.0)  # type: ignore[attr-defined]
    from canasta.engine.rules import PRESETS

    n = PRESETS[preset].players
    tid, tokens = human_table(client, [{}] + [{"kind": "open"}] * (n - 1), preset, target=100000)
    room = room_of(client, tid)
    table = room.table
    checker = LeakChecker()
    bots = [make_bot("basic", seed=s) if s != 1 else make_bot("random", seed=s) for s in range(n)]
    conns = [client.websocket_connect(f"/ws/{tid}") for _ in range(n + 1)]
    sockets = [c.__enter__() for c in conns]
    seen = [-1] * (n + 1)

    def drain(until: int) -> None:
        """Read every socket up to event ``until``, checking each message."""
        for s, ws in enumerate(sockets):
            while seen[s] < until:
                msg = recv(ws)
                assert msg["type"] != "error", msg
                if msg["type"] == "state":
                    seen[s] = msg["seq"]
                    if msg["seq"] < room.seq:
                        continue  # a presence update sent while others connected
                checker.check(table.game, s if s < n else -1, msg)

    try:
        for s, ws in enumerate(sockets):
            seen[s] = hello(ws, tokens[s] if s < n else None)["seq"]
        moves = 0
        drain(room.seq)
        while True:
            if table.hand_over:
                if table.hand_number >= hands:
                    break
                expect = room.seq + 1
                send(sockets[0], type="next_hand")
                drain(expect)
                continue
            seat = table.game.to_move
            if moves % 7 == 0:
                send(sockets[seat], type="hint")
                checker.check(table.game, seat, recv_until(sockets[seat], lambda m: m["type"] == "hint"))
            move = bots[seat].choose(table.view(seat))
            expect = room.seq + 1
            send(sockets[seat], type="move", move=str(move))
            drain(expect)
            moves += 1
            if move.kind == MELD and moves % 3 == 0 and table.undoable(seat):
                send(sockets[seat], type="undo")  # take it back and lay it again: undo within the turn
                drain(expect + 1)
                send(sockets[seat], type="move", move=str(move))
                drain(expect + 2)
        assert table.hand_number == hands and checker.messages > 300 * hands
        stored = room.hub.store.load(tid)  # moves, undos and deals were all written as they happened
        assert stored is not None and stored.state == table.to_dict()
    finally:
        for c in conns:
            c.__exit__(None, None, None)


# --------------------------------------------------- reconnects and takeover


def test_a_sockets_messages_are_handled_in_the_order_it_sent_them(client: TestClient) -> None:
    """A move is written before it is played; a check sent right after it waits for it, and is
    answered about the position after the move (not before it, while the move was being saved)."""
    data = client.post("/api/quick", json={"name": "Ann", "seed": 8}).json()
    with client.websocket_connect(f"/ws/{data['table']}") as ws:
        hello(ws, data["token"])
        state = recv_until(ws, lambda m: m["type"] == "state" and m["view"] is not None
                           and m["view"]["to_move"] == 0 and m["view"]["phase"] == "draw")
        card = state["view"]["hand"][0]
        send(ws, type="move", move="draw")
        send(ws, type="check", id=1, moves=[f"discard {card}", "draw"])
        answer = recv_until(ws, lambda m: m["type"] in ("check", "error"))
        assert answer["type"] == "check", answer
        legal_discard, second_draw = answer["results"]
        assert legal_discard is None, answer  # after the draw: a discard is legal ...
        assert second_draw is not None  # ... and drawing again is not
        assert answer["seq"] > state["seq"]


def test_reconnect_resynchronises_from_the_sequence_number(client: TestClient) -> None:
    data = client.post("/api/quick", json={"name": "Ann", "seed": 8}).json()
    tid = data["table"]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        state = hello(ws, data["token"])
        state = recv_until(ws, lambda m: m["type"] == "state" and m["view"]["to_move"] == 0)
        seen = state["seq"]
    room = room_of(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        send(ws, type="hello", token=data["token"], seq=seen)
        welcome = recv(ws)
        assert welcome["type"] == "welcome" and welcome["seq"] >= seen
        first = recv_until(ws, lambda m: m["type"] == "state")
        assert first["seq"] > seen  # what happened while away (her leaving, at least)
        # her coming back is an event too: once it is in, the page is where the table is
        again = first if first["players"][0]["connected"] else \
            recv_until(ws, lambda m: m["type"] == "state" and m["players"][0]["connected"])
        assert again["seq"] == room.seq > seen
        assert again["view"] == {k: v for k, v in room.table.view(0).to_dict().items() if k != "rules"}


def discarded(card: str) -> Callable[[Msg], bool]:
    return lambda m: m["type"] == "state" and m["log"][-1]["text"].endswith(f"discards {card}")


def draw_and_discard(ws: WebSocketTestSession) -> Msg:
    """Play one plain turn for the seat on ``ws``: draw, then discard the first card allowed."""
    send(ws, type="move", move="draw")
    hand = recv_until(ws, lambda m: m["type"] == "state" and m["view"]["phase"] == "meld")["view"]["hand"]
    for card in hand:
        send(ws, type="check", id=9, moves=[f"discard {card}"])
        if recv_until(ws, lambda m: m["type"] == "check")["results"][0] is None:
            send(ws, type="move", move=f"discard {card}")
            return recv_until(ws, discarded(card))
    raise AssertionError("no card may be discarded")


def test_a_dropped_player_is_replaced_by_a_bot_and_gets_the_seat_back(client: TestClient) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "bot", "level": "basic"}, {"kind": "open"},
                                       {"kind": "bot", "level": "basic"}])
    room = room_of(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as ann:
        state = hello(ann, tokens[0])
        # seat 2 never connects: after the grace period a bot plays it
        while not any(line["text"].startswith("P2") for line in state["log"]):
            if state["view"]["to_move"] == 0 and state["view"]["phase"] == "draw":
                state = draw_and_discard(ann)
            state = recv_until(ann, lambda m: m["type"] == "state")
        assert 2 in room.takeover
        state = recv_until(ann, lambda m: m["type"] == "state" and m["seq"] == room.seq)
        assert state["players"][2]["bot_playing"] and not state["players"][2]["connected"]
        with client.websocket_connect(f"/ws/{tid}") as bea:
            back = hello(bea, tokens[2])
            if back["players"][2]["bot_playing"]:  # a bot's move was being written as she came back
                back = recv_until(bea, lambda m: m["type"] == "state" and not m["players"][2]["bot_playing"])
            assert back["seat"] == 2 and back["players"][2]["connected"]
            assert 2 not in room.takeover
            # the seat is handed back: now nobody moves for it
            state = back
            while state["view"]["to_move"] != 2 or state["hand_over"]:
                if state["view"]["to_move"] == 0 and state["view"]["phase"] == "draw":
                    draw_and_discard(ann)
                state = recv_until(bea, lambda m: m["type"] == "state")
            time.sleep(0.4)
            assert room.table.game.to_move == 2 and 2 not in room.takeover
            draw_and_discard(bea)


def test_turn_timer_lets_a_bot_finish_the_turn(client: TestClient) -> None:
    data = client.post("/api/quick", json={"name": "Ann", "seed": 4}).json()
    room = room_of(client, data["table"])
    room.config["turn_seconds"] = 0.3
    with client.websocket_connect(f"/ws/{data['table']}") as ws:
        hello(ws, data["token"])
        state = recv_until(ws, lambda m: m["type"] == "state" and m["view"]["to_move"] == 0 and m["deadline"])
        assert state["deadline"] > time.time() - 1
        recv_until(ws, lambda m: m["type"] == "state" and m["players"][0]["bot_playing"])
        after = recv_until(ws, lambda m: m["type"] == "state" and m["view"]["to_move"] != 0)
        assert any(line["text"].startswith("Ann") for line in after["log"])


# --------------------------------------------------------- history, replay


def play_seat_zero_to_the_end(client: TestClient, tid: str, token: str) -> None:
    """Seat 0 of table ``tid`` played by a basic bot's choices (seed 1) until the match is over."""
    room = room_of(client, tid)
    hinter = make_bot("basic", seed=1)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        hello(ws, token)
        while True:
            state = recv_until(ws, lambda m: m["type"] == "state" and m["seq"] == room.seq)
            if state["match_over"]:
                break
            if state["hand_over"]:
                send(ws, type="next_hand")
            elif state["view"]["to_move"] == 0:
                send(ws, type="move", move=str(hinter.choose(room.table.view(0))))


def test_finished_match_has_history_record_and_replay(client: TestClient) -> None:
    data = client.post("/api/quick", json={"name": "Ann", "seed": 2, "target": 100}).json()
    tid = data["table"]
    room = room_of(client, tid)
    assert client.get(f"/api/tables/{tid}/record").status_code == 409
    play_seat_zero_to_the_end(client, tid, data["token"])
    history = client.get("/api/history").json()["tables"]
    assert [h["table"] for h in history] == [tid]
    record = client.get(f"/api/tables/{tid}/record")
    assert record.status_code == 200 and "classic-4p" in record.text
    replay = client.get(f"/api/tables/{tid}/replay").json()
    assert len(replay["frames"]) == sum(len(h) for h in room.table.to_dict()["hands"]) + len(room.table.match.hands)
    assert all(len(f["hands"]) == 4 for f in replay["frames"])
    assert replay["canasta_size"] == 7  # the family's: the viewer marks a canasta by it
    assert client.get(f"/replay/{tid}").status_code == 200


def test_a_client_that_stops_reading_is_dropped() -> None:
    import asyncio

    from canasta.web.room import MAX_QUEUE, Conn

    class Stuck:
        closed: int | None = None

        async def send_text(self, data: str) -> None:
            await asyncio.sleep(3600)

        async def close(self, code: int = 1000, reason: str | None = None) -> None:
            self.closed = code

    async def scenario() -> tuple[bool, int]:
        conn = Conn(Stuck(), 0)
        for i in range(MAX_QUEUE + 10):
            conn.send({"type": "state", "seq": i})
        return conn.overflowed, conn.queue.qsize()

    overflowed, queued = asyncio.run(scenario())
    assert overflowed and queued == MAX_QUEUE + 1  # nothing more is queued; the writer will close it


def test_serve_command_arguments_and_missing_web_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import sys

    from canasta.engine.errors import CanastaError
    from canasta.web.commands import configure_serve, default_db, run_serve

    parser = argparse.ArgumentParser()
    configure_serve(parser)
    args = parser.parse_args(["--port", "9001", "--db", "postgresql://u@h/db", "--grace", "5"])
    assert (args.port, args.db, args.grace, args.host) == (9001, "postgresql://u@h/db", 5.0, "127.0.0.1")
    monkeypatch.setenv("XDG_DATA_HOME", "/somewhere")
    assert default_db() == "/somewhere/canasta/canasta.db"
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if the extra were not installed
    with pytest.raises(CanastaError, match=r"pip install 'canasta\[serve\]'"):
        run_serve(args)


def test_the_deal_is_chosen_by_the_server_unless_allowed(tmp_path: Path) -> None:
    for allowed in (False, True):
        app = create_app(str(tmp_path / f"s{allowed}.db"), settings=Settings(fixed_seeds=allowed))
        with TestClient(app) as c:
            tid = c.post("/api/quick", json={"name": "Ann", "seed": 77}).json()["table"]
            assert (room_of(c, tid).table.seed == 77) is allowed
