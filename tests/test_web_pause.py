"""The game's pause (issue 53): a player asks, every person at the table agrees, and the clock
stops (no turn timer, grace period, bot or deal runs; no move is played) until any player
resumes; the turn timer then runs on from what it had left.  A rated match allows two pauses.
Bad requests are refused by name and change nothing; a pause survives a restart.  Checked from
the table's events and state, not from the wall clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import need

need("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from starlette.testclient import WebSocketTestSession  # noqa: E402

from canasta.web.jobs import JOBS  # noqa: E402
from canasta.web.pause import RATED_PAUSES, RESUME_SECONDS, pause_refusal  # noqa: E402
from canasta.web.room import Room  # noqa: E402
from test_web import database, hello, human_table, recv_until, room_client, room_of, send  # noqa: E402

Msg = dict[str, Any]
TURN = 30  # the tables' turn timer, in seconds (never reached: the tests wait on events)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with room_client(database(tmp_path), grace=60.0) as c:
        yield c


def two_people(client: TestClient, **extra: Any) -> tuple[str, list[str]]:
    """A classic-2p table of Ann and P1 with a turn timer."""
    return human_table(client, [{}, {"kind": "open"}], preset="classic-2p", turn_seconds=TURN, **extra)


def state_after(ws: WebSocketTestSession, seq: int) -> Msg:
    return recv_until(ws, lambda m: m["type"] == "state" and m["seq"] > seq)


def refused(ws: WebSocketTestSession, **msg: Any) -> Msg:
    send(ws, **msg)
    return recv_until(ws, lambda m: m["type"] == "error")


def pause(ws: WebSocketTestSession, room: Room, does: str) -> Msg:
    seq = room.seq
    send(ws, type="pause", do=does)
    return state_after(ws, seq)


def jobs(room: Room) -> set[str]:
    return {fn for fn, *_ in room.due_jobs()}


def stored_pauses(client: TestClient, table: str) -> list[tuple[int, str]]:
    events = client.app.state.hub.store.load_base(table)[1]  # type: ignore[attr-defined]
    return [(ev.seat, ev.line) for ev in events if ev.kind == "pause"]


def pause_lines(state: Msg) -> list[tuple[str, str]]:
    """The pause's lines in a state's log: (the notice's kind, its text)."""
    return [(e["notice"], e["text"]) for e in state["log"] if str(e.get("notice", "")).startswith("pause_")]


def test_every_person_agrees_the_clock_stops_and_runs_on_after_the_resume(client: TestClient) -> None:
    table, tokens = two_people(client)
    room = room_of(client, table)
    with client.websocket_connect(f"/ws/{table}") as ann, client.websocket_connect(f"/ws/{table}") as bea:
        hello(ann, tokens[0])
        hello(bea, tokens[1])
        first = recv_until(ann, lambda m: m["type"] == "state" and m["deadline"] and m["players"][1]["connected"])
        assert first["pause"] == {"used": 0, "limit": None, "left": None, "asked_by": None, "agreed": [],
                                  "waiting": [], "paused": False, "since": None, "turn_left": None}
        deadline = first["deadline"]
        # Ann asks: the other person must agree; meanwhile the clock runs on as it was
        asked = pause(ann, room, "ask")
        assert asked["pause"]["asked_by"] == 0 and asked["pause"]["waiting"] == [1] and not asked["pause"]["paused"]
        assert asked["deadline"] == deadline and "turn" in jobs(room)
        # Bea agrees: paused; no turn timer, no grace period, no move
        paused = pause(bea, room, "agree")
        assert paused["pause"]["paused"] and paused["pause"]["agreed"] == [0, 1] and paused["pause"]["used"] == 1
        assert paused["deadline"] is None and room.timer_key is None
        started = room.pause.paused_at if room.pause else None
        assert started is not None
        held = paused["pause"]["turn_left"]
        assert held == pytest.approx(deadline - started, abs=0.1) and 0 < held <= TURN
        assert jobs(room) == set()
        seq = room.seq
        to_move = room.table.to_move
        mover = [ann, bea][to_move]
        assert refused(mover, type="move", move="draw")["code"] == "PAUSED"
        assert refused(mover, type="undo")["code"] == "PAUSED"
        assert refused(ann, type="pause", do="ask")["code"] == "ALREADY_PAUSED"
        assert refused(bea, type="pause", do="agree")["code"] == "ALREADY_PAUSED"
        # the turn timer's job, run now, finds no timer to run out
        h, turn = room.table.hand_number, room.table.turn_number
        assert client.portal is not None
        hub = client.app.state.hub  # type: ignore[attr-defined]
        client.portal.call(JOBS["turn"], hub, table, h, turn, to_move)
        assert room.seq == seq and room.auto_turn is None
        # Bea goes away during the pause: no grace period runs for her until play resumes
        bea.close()
        away = recv_until(ann, lambda m: m["type"] == "state" and not m["players"][1]["connected"])
        assert away["pause"]["paused"] and "grace" not in jobs(room)
        # Ann resumes: the turn timer runs on from what it had left, Bea's grace period afresh
        resumed = pause(ann, room, "resume")
        assert not resumed["pause"]["paused"] and resumed["pause"]["asked_by"] is None
        stop = room.last_event_at
        assert resumed["deadline"] == pytest.approx(stop + max(held, min(TURN, RESUME_SECONDS)), abs=0.11)
        ids = {job_id for _fn, job_id, *_ in room.due_jobs()}
        assert f"turn:{table}:{h}:{turn}:{to_move}:r{room.seq}" in ids
        assert f"grace:{table}:1:{room.seq}" in ids
        assert stored_pauses(client, table) == [(0, "ask"), (1, "agree"), (0, "resume")]
        # each step of the pause is a line of the log, in its place among the moves, and a notice
        assert pause_lines(asked) == [("pause_ask", "Ann asks for a pause")]
        assert pause_lines(paused)[-1] == ("pause_start", "the game is paused: every player agreed")
        assert pause_lines(resumed) == [*pause_lines(paused), ("pause_resume", "Ann resumes the game")]
        assert resumed["notices"][-1]["kind"] == "pause_resume"
        assert [e.get("notice") for e in resumed["log"]][-3:] == ["pause_ask", "pause_start", "pause_resume"]
        if to_move == 0:  # play goes on (Bea's socket is closed)
            send(ann, type="move", move="draw")
            moved = recv_until(ann, lambda m: m["type"] == "state" and bool(m["log"]) and m["log"][-1]["seat"] == 0
                               and m["log"][-1]["move"] is not None)
            assert moved["log"][-1]["move"] == "draw"


def test_bad_requests_are_refused_by_name_and_change_nothing(client: TestClient) -> None:
    table, tokens = two_people(client)
    room = room_of(client, table)
    with client.websocket_connect(f"/ws/{table}") as ann, client.websocket_connect(f"/ws/{table}") as bea, \
            client.websocket_connect(f"/ws/{table}") as watcher:
        hello(ann, tokens[0])
        hello(bea, tokens[1])
        hello(watcher)
        recv_until(ann, lambda m: m["type"] == "state" and m["players"][1]["connected"])
        seq = room.seq
        assert refused(ann, type="pause", do="agree")["code"] == "NO_PAUSE_ASKED"
        assert refused(ann, type="pause", do="decline")["code"] == "NO_PAUSE_ASKED"
        assert refused(ann, type="pause", do="resume")["code"] == "NOT_PAUSED"
        assert refused(bea, type="pause", do="sleep")["code"] == "BAD_MESSAGE"
        assert refused(bea, type="pause")["code"] == "BAD_MESSAGE"
        assert refused(watcher, type="pause", do="ask")["code"] == "SPECTATOR"
        assert room.seq == seq and room.pause is None
        pause(ann, room, "ask")
        seq = room.seq
        assert refused(ann, type="pause", do="agree")["code"] == "ALREADY_AGREED"  # asking is agreeing
        assert refused(bea, type="pause", do="ask")["code"] == "PAUSE_ASKED"
        assert refused(bea, type="pause", do="resume")["code"] == "NOT_PAUSED"
        assert room.seq == seq and room.pause is not None and not room.paused
        # a request declined (or withdrawn) is gone, and does not count as a pause
        declined = pause(bea, room, "decline")
        assert declined["pause"]["asked_by"] is None and declined["pause"]["used"] == 0
        # in Italian: the refusal's words are the catalog's, its code the same
        with client.websocket_connect(f"/ws/{table}") as italian:
            send(italian, type="hello", token=tokens[1], lang="it")
            recv_until(italian, lambda m: m["type"] == "state")
            said = refused(italian, type="pause", do="resume")
            assert said["code"] == "NOT_PAUSED" and said["message"] != "the game is not paused"


def test_not_before_the_table_fills_nor_after_the_match() -> None:
    """The refusals' logic: a table still open and a finished match have nothing to pause."""
    assert pause_refusal(None, 0, None, "open", 0, "ask")[0] == "PAUSE_NOT_NOW"  # type: ignore[index]
    assert pause_refusal(None, 0, None, "finished", 0, "ask")[0] == "MATCH_OVER"  # type: ignore[index]
    assert pause_refusal(None, 0, None, "abandoned", 0, "resume")[0] == "PAUSE_NOT_NOW"  # type: ignore[index]
    assert pause_refusal(None, 2, 2, "playing", 0, "ask")[0] == "NO_PAUSES_LEFT"  # type: ignore[index]
    assert pause_refusal(None, 1, 2, "playing", 0, "ask") is None


def test_an_open_table_refuses_a_pause(client: TestClient) -> None:
    made = client.post("/api/tables", json={"preset": "classic-2p", "name": "Ann", "seat": 0, "seed": 3,
                                             "seats": [{}, {"kind": "open"}]}).json()
    room = room_of(client, made["table"])
    with client.websocket_connect(f"/ws/{made['table']}") as ann:
        hello(ann, made["token"])
        seq = room.seq
        assert refused(ann, type="pause", do="ask")["code"] == "PAUSE_NOT_NOW"
        assert room.seq == seq and room.pause is None


def test_one_person_with_bots_pauses_at_once_and_the_bots_wait(client: TestClient) -> None:
    data = client.post("/api/quick", json={"name": "Ann", "seed": 4}).json()
    table = data["table"]
    room = room_of(client, table)
    with client.websocket_connect(f"/ws/{table}") as ann:
        hello(ann, data["token"])
        recv_until(ann, lambda m: m["type"] == "state" and m["view"] and m["view"]["to_move"] == 0)
        paused = pause(ann, room, "ask")  # the bots do not vote
        assert paused["pause"]["paused"] and paused["pause"]["agreed"] == [0] and paused["pause"]["waiting"] == []
        send(ann, type="move", move="draw")
        recv_until(ann, lambda m: m["type"] == "error" and m["code"] == "PAUSED")
        assert not room.needs_bot() and jobs(room) == set()
        resumed = pause(ann, room, "resume")
        assert not resumed["pause"]["paused"]
        send(ann, type="move", move="draw")
        drawn = recv_until(ann, lambda m: m["type"] == "state" and m["log"] and m["log"][-1]["seat"] == 0)
        assert drawn["log"][-1]["move"] == "draw"


def test_a_rated_match_allows_two_pauses(tmp_path: Path) -> None:
    need("argon2")
    need("openskill")
    from test_web_rated import card_room, two_players

    with card_room(tmp_path) as client:
        table, tokens = two_players(client)
        room = room_of(client, table)
        with client.websocket_connect(f"/ws/{table}") as ann, client.websocket_connect(f"/ws/{table}") as bea:
            hello(ann, tokens[0])
            hello(bea, tokens[1])
            first = recv_until(ann, lambda m: m["type"] == "state" and m["players"][1]["connected"])
            assert first["pause"]["limit"] == RATED_PAUSES == 2 and first["pause"]["left"] == 2
            pause(ann, room, "ask")
            assert pause(bea, room, "decline")["pause"]["left"] == 2  # declined: not a pause
            for n in range(RATED_PAUSES):
                pause(bea, room, "ask")
                assert pause(ann, room, "agree")["pause"]["used"] == n + 1
                assert pause(bea, room, "resume")["pause"]["left"] == RATED_PAUSES - n - 1
            seq = room.seq
            over = refused(ann, type="pause", do="ask")
            assert over["code"] == "NO_PAUSES_LEFT" and "2" in over["message"]
            assert room.seq == seq and room.pause is None


def test_a_pause_survives_a_restart(tmp_path: Path) -> None:
    db = database(tmp_path)
    with room_client(db, grace=60.0) as client:
        table, tokens = two_people(client)
        room = room_of(client, table)
        with client.websocket_connect(f"/ws/{table}") as ann, client.websocket_connect(f"/ws/{table}") as bea:
            hello(ann, tokens[0])
            hello(bea, tokens[1])
            recv_until(ann, lambda m: m["type"] == "state" and m["players"][1]["connected"])
            pause(ann, room, "ask")
            held = pause(bea, room, "agree")["pause"]["turn_left"]
    with room_client(db, grace=60.0) as client:  # a new server process on the same database
        room = room_of(client, table)
        assert room.paused and room.pauses == 1 and room.deadline is None and jobs(room) == set()
        with client.websocket_connect(f"/ws/{table}") as bea:
            state = hello(bea, tokens[1])
            assert state["pause"]["paused"] and state["pause"]["turn_left"] == held
            resumed = pause(bea, room, "resume")
            assert not resumed["pause"]["paused"] and resumed["deadline"] is not None


def test_a_request_nobody_answered_ends_with_the_match(client: TestClient) -> None:
    """A pause asked and never agreed to does not stop play; the match's end voids it."""
    from test_web_rated import play_to_the_end

    table, tokens = two_people(client, target=100)
    room = room_of(client, table)
    with client.websocket_connect(f"/ws/{table}") as ann:
        hello(ann, tokens[0])
        assert pause(ann, room, "ask")["pause"]["asked_by"] == 0
    final = play_to_the_end(client, table, tokens)
    assert final["match_over"] and final["pause"]["asked_by"] is None and final["pause"]["used"] == 0
    assert room.pause is None and ("ask" in [line for _seat, line in stored_pauses(client, table)])


def test_a_rated_tables_maker_may_allow_another_number_of_pauses(tmp_path: Path) -> None:
    need("argon2")
    need("openskill")
    from test_web_rated import as_player, card_room, rated_table, two_players

    with card_room(tmp_path) as client:
        as_player(client, "Eve")
        many = rated_table(client, pauses=9)
        assert many.status_code == 400 and "pauses" in many.json()["detail"]
        table, _tokens = two_players(client, pauses=0)
        room = room_of(client, table)
        assert room.pause_limit == 0 and room.public()["pause"]["left"] == 0
        refusal = room.pause_refusal(0, "ask")
        assert refusal is not None and refusal["code"] == "NO_PAUSES_LEFT"
