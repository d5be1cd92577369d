"""The single-server card room when its database fails a write: the change is refused
with "not saved", nothing a person is shown or the server keeps runs ahead of the
database, and once the database answers again play goes on from what it holds.  (The
cluster's faults, with real PostgreSQL and Redis stopped and killed: test_faults.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from canasta.play.table import Table
from canasta.web.store import Store, Unreached
from test_web import hello, human_table, recv_until, room_client, room_of, send


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with room_client(str(tmp_path / "t.db"), grace=30) as c:
        yield c


class Outage:
    """Make the store's writes fail (as a database that went away does: no connection, so
    nothing of the write is sent) until ended."""

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.failed = 0

        def fail(*_args: Any, **_kw: Any) -> None:
            self.failed += 1
            raise Unreached("OperationalError: connection refused")

        for name in ("append", "note_status"):  # every change of a table is an event appended
            monkeypatch.setattr(store, name, fail)

    def end(self) -> None:
        self.monkeypatch.undo()


def stored(client: TestClient, table_id: str) -> Table:
    row = client.app.state.hub.store.load(table_id)  # type: ignore[attr-defined]
    assert row is not None
    return Table.from_dict(row.state)


def test_a_move_the_database_did_not_take_is_refused_and_changes_nothing(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "bot", "level": "basic"}, {"kind": "open"},
                                       {"kind": "bot", "level": "basic"}])
    with client.websocket_connect(f"/ws/{tid}") as ws:
        hello(ws, tokens[0])
        state = recv_until(ws, lambda m: m["type"] == "state" and m["view"]["to_move"] == 0
                           and m["view"]["phase"] == "draw")
        room = room_of(client, tid)
        seq, version, moves = room.seq, room.table.version, len(room.table.moves[-1])
        assert state["seq"] == seq
        outage = Outage(client.app.state.hub.store, monkeypatch)  # type: ignore[attr-defined]
        send(ws, type="move", move="draw")
        answer = recv_until(ws, lambda m: m["type"] in ("error", "state"))
        assert answer["type"] == "error" and answer["code"] == "NOT_SAVED", answer
        assert "not saved" in answer["message"] and answer["ref"] == "move"
        assert outage.failed == 1
        assert (room.seq, room.table.version, len(room.table.moves[-1])) == (seq, version, moves)
        assert room_of(client, tid) is room  # the copy still equals the database: it is kept
        outage.end()
        send(ws, type="move", move="draw")  # tried again: played
        after = recv_until(ws, lambda m: m["type"] == "state" and m["seq"] > seq)
        assert after["log"][-1]["move"] == "draw" and after["view"]["phase"] == "meld"
    truth = stored(client, tid)
    assert [str(m) for _, m in truth.moves[-1]] == [str(m) for _, m in room.table.moves[-1]]


def test_a_change_the_database_did_not_take_is_refused_and_the_table_stays_as_stored(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "bot", "level": "basic"}, {"kind": "open"},
                                       {"kind": "bot", "level": "basic"}])
    with client.websocket_connect(f"/ws/{tid}") as ws:
        state = hello(ws, tokens[0])
        room = room_of(client, tid)
        seq, pace = room.seq, room.bot_delay
        outage = Outage(client.app.state.hub.store, monkeypatch)  # type: ignore[attr-defined]
        send(ws, type="pace", seconds=1.5)
        told = recv_until(ws, lambda m: m["type"] == "error")
        assert told["code"] == "NOT_SAVED" and told["ref"] == "pace"
        assert outage.failed == 1 and (room.seq, room.bot_delay) == (seq, pace)  # nothing changed here
        assert room_of(client, tid) is room  # the copy still equals the database: it is kept
        outage.end()
        send(ws, type="pace", seconds=1.5)  # tried again: taken
        again = recv_until(ws, lambda m: m["type"] == "state" and m["bot_delay"] == 1.5)
        assert again["seq"] == seq + 1 > state["seq"] - 1
        # read while Ann is still here (once she leaves, a bot may play for her after the grace
        # period, and the bots play on): the change is stored, and the room is not ahead of the store
        stored = client.app.state.hub.store.load(tid)  # type: ignore[attr-defined]
        assert stored is not None and stored.config["bot_delay"] == 1.5 and stored.seq >= again["seq"]
        assert room.seq <= stored.seq


def test_a_table_that_cannot_be_read_is_answered_not_crashed(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    tid, _ = human_table(client, [{}, {"kind": "bot", "level": "basic"}, {"kind": "open"},
                                  {"kind": "bot", "level": "basic"}])
    hub = client.app.state.hub  # type: ignore[attr-defined]
    hub.rooms.pop(tid)

    def away(*_args: Any) -> None:
        raise OperationalError("SELECT", {}, ConnectionRefusedError("connection refused"))

    monkeypatch.setattr(hub.store, "load_base", away)  # what a room is read from
    r = client.get(f"/api/tables/{tid}")
    assert r.status_code == 503 and "does not answer" in r.json()["detail"]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        msg = ws.receive_json()
        assert msg["code"] == "DB_UNAVAILABLE" and "try again" in msg["message"]


def test_a_move_whose_commit_was_not_confirmed_is_said_unknown_and_played_once_when_sent_again(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database commits the move but its answer is lost (a hang past the timeout, a cut
    connection): the player is told the outcome is unknown, not "nothing changed"; the move
    sent again with the same key is answered with the stored result and is not played twice."""
    tid, tokens = human_table(client, [{}, {"kind": "bot", "level": "basic"}, {"kind": "open"},
                                       {"kind": "bot", "level": "basic"}])
    store = client.app.state.hub.store  # type: ignore[attr-defined]
    real = store.append
    lost: list[int] = []

    def commit_then_lose_the_answer(table_id: str, ev: Any, *args: Any) -> None:
        real(table_id, ev, *args)
        if not lost:
            lost.append(ev.num)
            raise OperationalError("COMMIT", {}, ConnectionResetError("server closed the connection unexpectedly"))

    with client.websocket_connect(f"/ws/{tid}") as ws:
        hello(ws, tokens[0])
        recv_until(ws, lambda m: m["type"] == "state" and m["view"]["to_move"] == 0
                   and m["view"]["phase"] == "draw")
        monkeypatch.setattr(store, "append", commit_then_lose_the_answer)
        send(ws, type="move", move="draw", key="k-1")
        answer = recv_until(ws, lambda m: m["type"] in ("error", "moved"))
        assert answer["type"] == "error" and answer["code"] == "UNKNOWN", answer
        assert "not known" in answer["message"] and "nothing changed" not in answer["message"]
        assert answer["key"] == "k-1" and answer["move"] == "draw"
        send(ws, type="move", move="draw", key="k-1")  # the page sends it again with its key
        states: list[dict[str, Any]] = []

        def answered(m: dict[str, Any]) -> bool:
            states.append(m)
            return m["type"] in ("error", "moved")

        again = recv_until(ws, answered)
        assert again == {"type": "moved", "key": "k-1", "num": lost[0], "move": "draw", "again": True,
                         "seq": again["seq"]}, again
        if not any(m["type"] == "state" and m["seq"] >= lost[0] for m in states):  # the stored state
            states.append(recv_until(ws, lambda m: m["type"] == "state" and m["seq"] >= lost[0]))
        shown = next(m for m in states if m["type"] == "state" and m["seq"] >= lost[0])
        assert shown["view"]["phase"] == "meld" and shown["log"][-1]["move"] == "draw"
        send(ws, type="move", move="draw", key="k-1")  # a third time: still the stored result
        assert recv_until(ws, lambda m: m["type"] in ("error", "moved"))["again"] is True
    events = store.events_after(tid, 0)
    assert [e.num for e in events if (e.data or {}).get("key") == "k-1"] == [lost[0]]


def test_an_unknown_outcome_is_said_in_the_players_language() -> None:
    """UNKNOWN reaches an Italian page in Italian, with its code and key kept."""
    from canasta.web.language import localize, say_error
    from canasta.web.room import UNKNOWN

    msg = localize(say_error("UNKNOWN", UNKNOWN, ref="move", move="draw", key="k-1"), "it")
    assert msg["code"] == "UNKNOWN" and msg["key"] == "k-1" and msg["move"] == "draw"
    assert msg["message"].startswith("non si sa ancora") and "checking" not in msg["message"]
    assert localize(say_error("UNKNOWN", UNKNOWN), "en")["message"].startswith("not known yet")
