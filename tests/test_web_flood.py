"""One socket flooding its table: every kind of message has a per-socket rate (a token
bucket), refused beyond it with a clear answer; pace changes settle into one event; the
other people at the table are not sent a state per message."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

import canasta.web.room_writes as room_module
from canasta.web.room import RATES, Limiter
from test_web import hello, human_table, recv, recv_until, room_client, room_of, send


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with room_client(str(tmp_path / "f.db"), grace=30) as c:
        yield c


def until_ping(ws: Any) -> list[dict[str, Any]]:
    """Send a ping and return every message before its answer (a pong, or its refusal):
    the socket's earlier messages have all been handled by then."""
    send(ws, type="ping")
    before = []
    while (msg := recv(ws))["type"] != "pong" and msg.get("ref") != "ping":
        before.append(msg)
    return before


def test_a_bucket_refuses_beyond_its_burst_and_refills_at_its_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    limiter = Limiter({"pace": (2.0, 4.0), "check": (100.0, 100.0)})
    assert [limiter.take("pace") for _ in range(5)] == [None, None, None, None, "pace"]
    assert limiter.take("check") is None and limiter.take("move") is None  # other kinds: their own allowance
    now[0] += 0.5  # one more pace message a half second later (2 a second)
    assert limiter.take("pace") is None and limiter.take("pace") == "pace"
    now[0] += 60  # refilled to the burst, never beyond
    assert [limiter.take("pace") for _ in range(5)].count(None) == 4


def test_a_flood_of_pace_messages_is_refused_settled_and_unseen_by_others(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
    room = room_of(client, tid)
    store = client.app.state.hub.store  # type: ignore[attr-defined]
    writes: list[Any] = []
    real = store.append

    def counted(table_id: str, ev: Any, *args: Any) -> None:
        if ev.kind == "pace":
            writes.append(dict(ev.data))
        real(table_id, ev, *args)

    monkeypatch.setattr(store, "append", counted)
    # On a busy machine the flood can outlast the settling window; with the bucket's refill
    # slowed, only its burst is let through, at once, so the flood is one change however slow.
    monkeypatch.setitem(RATES, "pace", (0.001, RATES["pace"][1]))
    monkeypatch.setattr(room_module, "PACE_SETTLE", 2.0)
    with client.websocket_connect(f"/ws/{tid}") as ws, client.websocket_connect(f"/ws/{tid}") as other:
        hello(ws, tokens[0])
        hello(other, tokens[1])
        flood = 400
        for i in range(flood):
            send(ws, type="pace", seconds=round(0.1 + (i % 40) / 10, 1))
        send(ws, type="pace", seconds=4.5)  # probably refused too: what settles is the last one let through
        answers = until_ping(ws)
        refused = [m for m in answers if m["type"] == "error"]
        assert len(refused) >= flood - RATES["pace"][1] - 5
        assert all(m["code"] == "TOO_FAST" and m["ref"] == "pace" and "a second" in m["message"] for m in refused)
        wanted = room.pace_wanted
        assert wanted is not None
        settled = recv_until(other, lambda m: m["type"] == "state" and m["bot_delay"] == wanted)
        assert settled["bot_delay"] == wanted
        extra = until_ping(other)
    assert len(writes) == 1 and writes[0]["seconds"] == wanted  # one stored change for the whole flood
    stored = store.load(tid)
    assert stored is not None and stored.config["bot_delay"] == wanted
    assert not [m for m in extra if m["type"] == "state"]  # the bystander was sent one state, not hundreds


def test_every_kind_of_message_is_bounded(client: TestClient) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
    with client.websocket_connect(f"/ws/{tid}") as ws:
        hello(ws, tokens[0])
        for _ in range(200):
            send(ws, type="sync")
        for _ in range(200):
            ws.send_text("not json")
        answers = until_ping(ws)
        states = [m for m in answers if m["type"] == "state"]
        bad = [m for m in answers if m["type"] == "error" and m["code"] == "BAD_JSON"]
        assert len(states) <= RATES["sync"][1] + 2  # not 200 full states
        assert len(bad) < 200  # garbage beyond the allowance is dropped unanswered
