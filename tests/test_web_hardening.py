"""The card room under hostile input: every probe gets a clear refusal and changes nothing.

Origins and content types, security headers, binary and deeply nested messages,
per-address limits, idle tables, spectators' presence, strict types, and the
searching bots' worker processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from sqlalchemy import event, func, select
from starlette.websockets import WebSocketDisconnect

from canasta.engine.rules import PRESETS, RuleSet
from canasta.play.table import Table
from canasta.web.app import create_app
from canasta.web.botpool import BotPool, decide, decision_seed
from canasta.web.devserver import free_port
from canasta.web.guards import normalise_origin
from canasta.web.hub import Hub
from canasta.web.lobby import build_rules
from canasta.web.room import Room, Settings
from canasta.web.store import Store, tables_t
from test_web import (
    database,
    hello,
    human_table,
    recv,
    recv_until,
    room_of,
    send,
)

Msg = dict[str, Any]
SEATS = [{}, {"kind": "bot"}, {"kind": "open"}, {"kind": "bot"}]
EVIL = "https://evil.example"


def make_client(tmp_path: Path, **settings: Any) -> TestClient:
    # a long grace: no bot takes over a seat nobody connected to while a test probes the table
    tmp_path.mkdir(parents=True, exist_ok=True)
    app = create_app(database(tmp_path), settings=Settings(**({"grace": 3600.0, "bot_delay": 0, "fixed_seeds": True}
                                                              | settings)))
    return TestClient(app)


@contextlib.contextmanager
def client_with(tmp_path: Path, **settings: Any) -> Iterator[TestClient]:
    with make_client(tmp_path, **settings) as c:
        yield c
        hub_of(c).store.close()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_with(tmp_path) as c:
        yield c


def hub_of(client: TestClient) -> Hub:
    hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
    return hub


def stored_tables(client: TestClient) -> int:
    with hub_of(client).store.engine.connect() as db:
        return int(db.execute(select(func.count()).select_from(tables_t)).scalar_one())


def snapshot(client: TestClient) -> tuple[int, int]:
    return len(hub_of(client).rooms), stored_tables(client)


def table_state(room: Room) -> tuple[str, int, int]:
    return json.dumps(room.table.to_dict()), room.table.version, room.seq


@contextlib.contextmanager
def db_writes(store: Store) -> Iterator[list[str]]:
    """Every INSERT, UPDATE or DELETE sent to the database meanwhile."""
    writes: list[str] = []

    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            writes.append(statement)

    event.listen(store.engine, "before_cursor_execute", before)
    try:
        yield writes
    finally:
        event.remove(store.engine, "before_cursor_execute", before)


def until(pred: Callable[[], bool], what: str) -> None:
    """Wait for the server side of the test client to catch up (a condition, not a timing)."""
    for _ in range(2000):
        if pred():
            return
        time.sleep(0.005)
    raise AssertionError(f"never: {what}")


def closed_with(ws: Any) -> int:
    with pytest.raises(WebSocketDisconnect) as info:
        ws.receive_text()
    return int(info.value.code)


# ---------------------------------------------------------------- 1. origins


def test_origins_normalise() -> None:
    assert normalise_origin("http://Example.org") == "http://example.org:80"
    assert normalise_origin("https://example.org:443/") == "https://example.org:443"
    assert normalise_origin("http://[::1]:8000") == "http://[::1]:8000"
    for bad in ("null", "example.org", "ftp://example.org", "https://example.org/path", "http://u:p@example.org",
                "http://example.org:99999", ""):
        assert normalise_origin(bad) is None, bad


def test_a_foreign_origin_is_refused_on_posts_and_nothing_is_made(client: TestClient) -> None:
    before = snapshot(client)
    body = {"name": "Eve", "seats": SEATS}
    for path in ("/api/tables", "/api/quick"):
        r = client.post(path, json=body, headers={"origin": EVIL})
        assert r.status_code == 403 and "not accepted" in r.json()["detail"], r.text
        r = client.post(path, json=body, headers={"origin": "null"})
        assert r.status_code == 403
    tid, _ = human_table(client, [{}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
    room = room_of(client, tid)
    seats = [(s.kind, s.name) for s in room.seats]
    r = client.post(f"/api/tables/{tid}/join", json={"name": "Eve", "seat": 1}, headers={"origin": EVIL})
    assert r.status_code == 403
    assert [(s.kind, s.name) for s in room.seats] == seats
    assert snapshot(client) == (before[0] + 1, before[1] + 1)  # only the table made without an origin
    # the server's own pages may post (the test client's host is "testserver")
    own = client.post("/api/quick", json={"name": "Ann"}, headers={"origin": "http://testserver"})
    assert own.status_code == 200, own.text


def test_allowed_origins_behind_a_proxy(tmp_path: Path) -> None:
    with client_with(tmp_path, allow_origins=("https://cards.example.org",)) as c:
        ok = c.post("/api/quick", json={"name": "Ann"}, headers={"origin": "https://cards.example.org"})
        assert ok.status_code == 200, ok.text
        assert c.post("/api/quick", json={"name": "Ann"}, headers={"origin": "http://cards.example.org"}) \
            .status_code == 403  # another scheme is another origin
        tid = ok.json()["table"]
        with c.websocket_connect(f"/ws/{tid}", headers={"origin": "https://cards.example.org:443"}) as ws:
            assert hello(ws)["seat"] == -1


def test_a_foreign_origin_cannot_open_a_websocket(client: TestClient) -> None:
    data = client.post("/api/quick", json={"name": "Ann", "seed": 3}).json()
    room = room_of(client, data["table"])
    before = table_state(room)
    with client.websocket_connect(f"/ws/{data['table']}", headers={"origin": EVIL}) as ws:
        err = recv(ws)
        assert err["code"] == "BAD_ORIGIN" and "allow-origin" in err["message"]
        assert closed_with(ws) == 4403
    assert table_state(room) == before and room.conns == []
    with client.websocket_connect(f"/ws/{data['table']}", headers={"origin": "http://testserver"}) as ws:
        assert hello(ws, data["token"])["seat"] == 0


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None])
def test_json_endpoints_refuse_other_content_types(client: TestClient, ctype: str | None) -> None:
    before = snapshot(client)
    raw = json.dumps({"name": "Ann", "seats": SEATS}).encode()
    headers = {"content-type": ctype} if ctype else {}
    for path in ("/api/tables", "/api/quick"):
        r = client.post(path, content=raw, headers=headers)
        assert r.status_code == 415 and "Content-Type: application/json" in r.json()["detail"], r.text
    assert snapshot(client) == before
    ok = client.post("/api/quick", content=raw, headers={"content-type": "application/json; charset=utf-8"})
    assert ok.status_code == 200


# ------------------------------------------------------- 2. security headers


def check_headers(r: Any) -> None:
    csp = r.headers["content-security-policy"]
    directives = {d.split()[0]: d.split()[1:] for d in csp.split(";") if d.strip()}
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["script-src"] == ["'self'"]  # no inline script, no eval
    assert "'unsafe-inline'" not in directives["default-src"]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"


def test_every_response_has_the_security_headers(client: TestClient) -> None:
    tid = client.post("/api/quick", json={"name": "Ann"}).json()["table"]
    for path in ("/", f"/t/{tid}", f"/t/{tid}/rules", "/replay/x", "/static/style.css", "/static/lobby.js",
                 "/api/presets", "/api/tables", "/api/tables/nope", "/nowhere"):
        r = client.get(path)
        check_headers(r)
    check_headers(client.post("/api/quick", content=b"x", headers={"content-type": "text/plain"}))


def test_api_docs_are_off_unless_asked_for(client: TestClient, tmp_path: Path) -> None:
    for path in ("/openapi.json", "/docs", "/redoc"):
        assert client.get(path).status_code == 404, path
    with client_with(tmp_path / "docs", api_docs=True) as c:
        assert "/api/quick" in c.get("/openapi.json").json()["paths"]
        assert c.get("/docs").status_code == 200 and c.get("/redoc").status_code == 200


def test_the_static_pages_need_no_inline_script() -> None:
    """The Content-Security-Policy forbids inline scripts and event handlers."""
    import re

    from canasta.web.pages import STATIC

    pages = sorted(STATIC.glob("*.html"))
    assert pages
    for page in pages:
        text = page.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text, re.I):
            assert "src=" in tag, f"{page.name}: inline script {tag}"
        assert not re.search(r"<[^>]+\son[a-z]+\s*=", text, re.I), f"{page.name}: inline event handler"
        assert "javascript:" not in text.lower(), page.name


# ------------------------------------------- 3. binary and deeply nested JSON


def test_binary_frames_and_deep_nesting_are_bad_json(client: TestClient) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
    room = room_of(client, tid)
    to_move = room.table.game.to_move
    before = table_state(room)
    probes: list[tuple[str, bytes | str]] = [
        ("bytes", b"\x00\x01binary"),
        ("bytes", json.dumps({"type": "move", "move": "draw"}).encode()),  # even JSON, as a binary frame
        ("text", "[" * 4000),
        ("text", '{"type": "move", "move": ' + "[" * 3000),
        ("text", '{"type": "check", "moves": [], "id": ' + "[" * 1900 + "]" * 1900 + "}"),  # closed: valid JSON
    ]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        for kind, raw in probes:  # before hello
            ws.send_bytes(raw) if isinstance(raw, bytes) else ws.send_text(raw)
            err = recv(ws)
            assert err["code"] == "BAD_JSON" and err["message"], (kind, err)
        hello(ws, tokens[to_move])
        for kind, raw in probes:  # and after
            ws.send_bytes(raw) if isinstance(raw, bytes) else ws.send_text(raw)
            err = recv_until(ws, lambda m: m["type"] == "error")
            assert err["code"] == "BAD_JSON", (kind, err)
        send(ws, type="ping")
        assert recv_until(ws, lambda m: m["type"] == "pong")["seq"] == room.seq  # still open
    assert table_state(room)[:2] == before[:2]
    r = client.post("/api/tables", content=b"[" * 4000, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["detail"]


# --------------------------------------------------------------- 4. limits


def test_open_websockets_per_address_are_limited(tmp_path: Path) -> None:
    with client_with(tmp_path, sockets_per_address=2) as c:
        hub = hub_of(c)
        tid = c.post("/api/quick", json={"name": "Ann"}).json()["table"]
        room = room_of(c, tid)
        with c.websocket_connect(f"/ws/{tid}") as a, c.websocket_connect(f"/ws/{tid}") as b:
            hello(a)
            hello(b)
            with c.websocket_connect(f"/ws/{tid}") as third:
                err = recv(third)
                assert err["code"] == "TOO_MANY_CONNECTIONS" and "at most 2" in err["message"]
                assert closed_with(third) == 4429
            assert len(room.conns) == 2
            send(a, type="ping")
            assert recv_until(a, lambda m: m["type"] == "pong")
        until(lambda: not hub.sockets, "every socket counted out")
        with c.websocket_connect(f"/ws/{tid}") as again:  # room again once they are closed
            hello(again)


def test_table_creation_is_rate_limited_per_address(tmp_path: Path) -> None:
    with client_with(tmp_path, tables_per_minute=2) as c:
        assert c.post("/api/tables", json={"name": "Ann", "seats": [{}]}).status_code == 400  # refused: not counted
        assert c.post("/api/quick", json={"name": "Ann"}).status_code == 200
        assert c.post("/api/tables", json={"name": "Ann", "seats": SEATS}).status_code == 200
        before = snapshot(c)
        for path, body in (("/api/quick", {"name": "Ann"}), ("/api/tables", {"name": "Ann", "seats": SEATS})):
            r = c.post(path, json=body)
            assert r.status_code == 429, r.text
            assert "at most 2 a minute" in r.json()["detail"] and "try again in" in r.json()["detail"]
            assert 1 <= int(r.headers["retry-after"]) <= 60
        assert snapshot(c) == before
        # a minute later the address may create again
        hub = hub_of(c)
        now = time.monotonic()
        assert hub.creation_wait("testclient", now) > 0
        assert hub.creation_wait("testclient", now + 61) == 0
        assert hub.creation_wait("elsewhere", now) == 0


def expire(client: TestClient, now: float) -> list[str]:
    """The hub's sweep of idle tables, run on the server's loop as if ``now`` were the time."""
    assert client.portal is not None
    closed: list[str] = client.portal.call(hub_of(client).expire_idle, now)
    return closed


def test_an_idle_table_is_closed_and_kept(client: TestClient) -> None:
    hub = hub_of(client)
    tid, tokens = human_table(client, [{}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
    room = room_of(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        state = hello(ws, tokens[room.table.game.to_move])
        send(ws, type="move", move="draw")
        recv_until(ws, lambda m: m["type"] == "state" and m["seq"] > state["seq"])
        assert expire(client, time.time() + 48 * 3600) == []  # someone is connected
    until(lambda: not room.conns, "the socket detached")
    saved = hub.store.load(tid)
    assert saved is not None
    assert expire(client, time.time() + 23 * 3600) == []  # not idle long enough
    assert expire(client, time.time() + 25 * 3600) == [tid]
    assert tid not in hub.rooms
    row = hub.store.load(tid)
    assert row is not None and row.status == "abandoned" and row.state == saved.state  # kept, moves and all
    assert tid not in [r.id for r in hub.store.unfinished()]
    for path in (f"/t/{tid}", f"/api/tables/{tid}", f"/api/tables/{tid}/record", f"/api/tables/{tid}/replay"):
        r = client.get(path)
        assert r.status_code == 410 and "closed" in r.json()["detail"], path
    r = client.post(f"/api/tables/{tid}/join", json={"name": "Eve", "seat": 1})
    assert r.status_code == 410
    with client.websocket_connect(f"/ws/{tid}") as ws:
        assert recv(ws)["code"] == "TABLE_CLOSED"
        assert closed_with(ws) == 4410
    assert client.get("/api/tables/nope").status_code == 404
    assert hub.store.load(tid).status == "abandoned"  # type: ignore[union-attr]


def test_idle_tables_are_kept_when_the_limit_is_off(tmp_path: Path) -> None:
    with client_with(tmp_path, idle_hours=0) as c:
        tid = c.post("/api/quick", json={"name": "Ann"}).json()["table"]
        assert expire(c, time.time() + 10**6) == [] and tid in hub_of(c).rooms


def test_spectators_coming_and_going_are_not_events(client: TestClient) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
    room = room_of(client, tid)
    store = hub_of(client).store
    with client.websocket_connect(f"/ws/{tid}") as ann:
        first = room.seq
        hello(ann, tokens[0])
        assert room.seq == first + 1  # a seat's presence is an event
        seq = room.seq
        with db_writes(store) as writes:
            for _ in range(3):
                with client.websocket_connect(f"/ws/{tid}") as watcher:
                    state = hello(watcher)
                    assert state["seat"] == -1 and state["seq"] == seq
                until(lambda: len(room.conns) == 1, "the spectator detached")
            with client.websocket_connect(f"/ws/{tid}") as second_window:  # the same seat again
                assert hello(second_window, tokens[0])["seq"] == seq
            until(lambda: len(room.conns) == 1, "the second window detached")
        assert writes == [] and room.seq == seq
        assert store.load(tid).seq == seq  # type: ignore[union-attr]
        send(ann, type="ping")
        assert recv(ann)["type"] == "pong"  # nothing was broadcast meanwhile
        with client.websocket_connect(f"/ws/{tid}") as bea:
            assert hello(bea, tokens[1])["seq"] == seq + 1  # another seat: an event
        until(lambda: room.seq == seq + 2, "bea's leaving is an event too")


# ---------------------------------------------------------- 5. strict types


def test_message_fields_have_strict_types(client: TestClient) -> None:
    tid, tokens = human_table(client, [{}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
    room = room_of(client, tid)
    me = room.table.game.to_move
    before = table_state(room)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        for probe in ({"type": "hello", "token": tokens[me], "seq": "3"}, {"type": "hello", "token": 5},
                      {"type": "hello", "token": tokens[me], "seq": True}):
            ws.send_text(json.dumps(probe))
            assert recv(ws)["code"] == "BAD_MESSAGE", probe
        hello(ws, tokens[me])
        for claimed in (me == 1, me == 0, float(me), str(me), [me], None):  # true is not seat 1
            send(ws, type="move", move="draw", seat=claimed)
            err = recv(ws)  # the very next message: a refusal (not a state: nothing was played)
            assert err["code"] == "BAD_MESSAGE" and "seat" in err["message"], (claimed, err)
        for ref in ({"a": 1}, [1], "x" * 65, 1.5):
            send(ws, type="check", id=ref, moves=["draw"])
            assert recv(ws)["code"] == "BAD_MESSAGE", ref
        for bad_move in (["draw"], 5, None, {"m": "draw"}):
            send(ws, type="move", move=bad_move)
            assert recv(ws)["code"] == "BAD_MESSAGE", bad_move
        assert table_state(room)[:2] == before[:2]
        send(ws, type="check", id="k" * 64, moves=["draw"])
        assert recv_until(ws, lambda m: m["type"] == "check")["id"] == "k" * 64
        send(ws, type="move", move="draw", seat=me)  # the right seat, as a number: played
        recv_until(ws, lambda m: m["type"] == "state" and m["seq"] > before[2])
    assert room.table.version == before[1] + 1


@pytest.mark.parametrize("body, needle", [
    ({"seat": True}, "your seat"),
    ({"seat": 1.0}, "your seat"),
    ({"turn_seconds": True}, "turn timer"),
    ({"turn_seconds": 30.5}, "turn timer"),
    ({"turn_seconds": "30"}, "turn timer"),
    ({"turn_seconds": 5}, "turn timer"),
    ({"target": True}, "target score"),
    ({"target": 1500.0}, "target score"),
    ({"target": "1500"}, "target score"),
    ({"target": 100001}, "target score"),
    ({"options": {"C-O2": 1}}, "C-O2"),  # 1 is not true
    ({"options": {"C-O2": "true"}}, "C-O2"),
    ({"options": {"players": 2}}, "unknown house rule"),
    ({"options": {"packs": 1000}}, "unknown house rule"),
    ({"options": {"target": 5}}, "unknown house rule"),
    ({"options": {"hand_size": 500}}, "unknown house rule"),
    ({"options": {"I-O1": True}}, "unknown house rule"),  # an Italian option on a Classic table
    ({"options": {"c-o2": True}}, "unknown house rule"),
    ({"options": [["C-O2", True]]}, "house rules"),
    ({"title": 5}, "table's name"),
    ({"name": ["Ann"]}, "your name"),
    ({"seed": "7"}, "seed"),
    ({"seed": -1}, "seed"),
    ({"seed": 2**64}, "seed"),
    ({"seats": [{}, {"kind": ["bot"]}, {"kind": "open"}, {"kind": "bot"}]}, "kind"),
    ({"seats": [{}, {"kind": "bot", "level": 3}, {"kind": "open"}, {"kind": "bot"}]}, "bot level"),
    ({"seats": [{}, {"kind": "reserved", "name": 7}, {"kind": "open"}, {"kind": "bot"}]}, "name"),
])
def test_lobby_fields_have_strict_types(client: TestClient, body: dict[str, Any], needle: str) -> None:
    before = snapshot(client)
    base = {"preset": "classic-4p", "name": "Ann", "seats": SEATS}
    r = client.post("/api/tables", json=base | body)
    assert r.status_code == 400 and needle in r.json()["detail"], r.text
    assert snapshot(client) == before


def test_join_and_quick_fields_have_strict_types(client: TestClient) -> None:
    tid, _ = human_table(client, [{}, {"kind": "open"}, {"kind": "reserved"}, {"kind": "open"}])
    room = room_of(client, tid)
    seats = [(s.kind, s.name, s.token_hash) for s in room.seats]
    joins: list[Msg] = [{"name": "Eve", "seat": True}, {"name": "Eve", "seat": "1"}, {"name": "Eve", "seat": 1.0},
             {"name": 5, "seat": 1}, {"name": "Eve", "seat": 2, "invite": 12345}]
    for body in joins:
        r = client.post(f"/api/tables/{tid}/join", json=body)
        assert r.status_code == 400, (body, r.text)
    assert [(s.kind, s.name, s.token_hash) for s in room.seats] == seats
    before = snapshot(client)
    quicks: list[Msg] = [{"name": "Ann", "level": 3}, {"name": "Ann", "level": "cmd:ls"}, {"name": "Ann", "level": None}]
    for body in quicks:
        r = client.post("/api/quick", json=body)
        assert r.status_code == 400 and "level" in r.json()["detail"], body
    assert snapshot(client) == before


def test_every_lobby_choice_is_accepted_and_nothing_else() -> None:
    """The lobby form offers each option's choices: each one builds, with its type."""
    from fastapi import HTTPException

    refused = []
    for name, preset in sorted(PRESETS.items()):
        for opt in preset.options:
            for choice in opt.choices:
                try:
                    rules = build_rules(name, {opt.id: choice}, None)
                except HTTPException as exc:  # a choice this preset cannot take says why, naming the option
                    assert exc.status_code == 400 and opt.id in exc.detail, exc.detail
                    assert choice != preset.get(opt.field)  # the preset's own value always builds
                    refused.append((name, opt.id, choice))
                    continue
                assert rules.get(opt.field) == choice and type(rules.get(opt.field)) is type(choice)
        assert build_rules(name, {}, 100).target == 100 and build_rules(name, None, 100000).target == 100000
    # a few combinations only (cut-throat needs 3 players ...)
    assert len(refused) < 20, refused
    assert not [r for r in refused if r[0].startswith("american")], refused
    with pytest.raises(Exception, match="target score"):
        build_rules("classic-4p", None, 99)
    assert build_rules("classic-4p", None, "") == RuleSet.preset("classic-4p")


def test_serve_options(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import argparse

    import uvicorn

    from canasta.engine.errors import CanastaError
    from canasta.web.commands import configure_serve, run_serve

    parser = argparse.ArgumentParser()
    configure_serve(parser)
    seen: list[Any] = []
    options: list[dict[str, Any]] = []
    def run(app: Any, **kw: Any) -> None:
        seen.append(app)
        options.append(kw)

    monkeypatch.setattr(uvicorn, "run", run)
    db = str(tmp_path / "s.db")
    for bad, needle in ((["--allow-origin", "cards.example.org"], "allow-origin"),
                        (["--allow-origin", "https://x.org/path"], "allow-origin"),
                        (["--tables-per-minute", "-1"], "tables-per-minute"),
                        (["--idle-hours", "nan"], "idle-hours"),
                        (["--bot-workers", "-2"], "bot-workers")):
        with pytest.raises(CanastaError, match=needle):
            run_serve(parser.parse_args(["--db", db, *bad]))
    assert seen == []
    port = str(free_port())  # never the default 8000: a card room may be running beside the tests
    args = parser.parse_args(["--db", db, "--port", port, "--allow-origin", "https://a.org",
                              "--allow-origin", "http://b.org:81",
                              "--api-docs", "--sockets-per-address", "5", "--tables-per-minute", "0",
                              "--idle-hours", "2.5", "--bot-workers", "0", "--bot-timeout", "1.5"])
    assert run_serve(args) == 0
    s: Settings = seen[0].state.hub.settings
    seen[0].state.hub.store.close()
    assert (s.allow_origins, s.api_docs, s.sockets_per_address, s.tables_per_minute, s.idle_hours,
            s.bot_workers, s.bot_timeout) == (("https://a.org", "http://b.org:81"), True, 5, 0, 2.5, 0, 1.5)
    assert s.allowed_hosts == ("localhost", "127.0.0.1", "::1", "a.org", "b.org")
    assert options[0]["proxy_headers"] is False  # no X-Forwarded-For believed unless proxies are named
    seen.clear()
    options.clear()
    assert run_serve(parser.parse_args(["--db", db, "--port", port, "--host", "0.0.0.0", "--allowed-host",
                                        "*.cards.example", "--forwarded-allow-ips", "10.0.0.5"])) == 0
    seen[0].state.hub.store.close()
    hosts = seen[0].state.hub.settings.allowed_hosts
    assert "*ip" in hosts and "*.cards.example" in hosts and "evil.example" not in hosts
    assert (options[0]["proxy_headers"], options[0]["forwarded_allow_ips"]) == (True, "10.0.0.5")
    with pytest.raises(CanastaError, match="allowed-host"):
        run_serve(parser.parse_args(["--db", db, "--port", port, "--allowed-host", "https://x.org/"]))


# --------------------------------------------------------- 6. bots in workers


def expert_position(seed: int = 5) -> Table:
    table = Table(RuleSet.preset("classic-4p"), [None, "expert", "expert", "expert"], seed)
    return table


def test_a_decision_is_a_pure_function_of_view_level_and_seed() -> None:
    t = expert_position()
    view = t.view(t.game.to_move).to_dict()
    a = decide(view, "advanced", 7)
    assert t.why_not(t.game.to_move, a) is None
    assert decide(json.loads(json.dumps(view)), "advanced", 7) == a  # the view crosses a process as data
    with pytest.raises(ValueError, match="not a bot level"):
        decide(view, "cmd:rm -rf /", 1)
    assert decision_seed(1, 2, 3, 4) == decision_seed(1, 2, 3, 4) != decision_seed(1, 2, 3, 5)


def test_the_pool_answers_falls_back_and_survives_a_dead_worker() -> None:
    t = expert_position()
    view = t.view(t.game.to_move).to_dict()
    expected = decide(view, "advanced", 11)

    async def scenario() -> list[str | None]:
        pool = BotPool(1, timeout=120.0)  # generous: a spawned worker imports the engine first
        try:
            answers = [await pool.choose(view, "advanced", 11)]
            answers.append(await pool.run(os._exit, 3))  # the worker dies
            answers.append(await pool.choose(view, "advanced", 11))  # a new pool takes over
            answers.append(await pool.choose(view, "cmd:true", 1))  # the worker refuses: None
            assert (pool.stats.decisions, pool.stats.failures, pool.stats.timeouts) == (2, 2, 0)
            pool.timeout = 0.0  # no time at all: the caller plays a quick bot
            answers.append(await pool.choose(view, "advanced", 11))
            assert pool.stats.timeouts == 1
            return answers
        finally:
            pool.close()

    assert asyncio.run(scenario()) == [expected, None, expected, None, None]


class FakePool(BotPool):
    """Stands in for the worker processes: answers what it is told to, records what it saw."""

    def __init__(self, answer: Callable[[dict[str, Any]], str | None]) -> None:
        super().__init__(1, 1.0)
        self.answer = answer
        self.seen: list[tuple[dict[str, Any], str, int]] = []

    async def choose(self, view: dict[str, Any], level: str, seed: int) -> str | None:
        self.seen.append((view, level, seed))
        return self.answer(view)


@pytest.mark.parametrize("mode", ["answers", "silent", "illegal"])
def test_pooled_bots_play_their_answer_or_a_quick_bots(client: TestClient, mode: str) -> None:
    legal: list[str] = []

    def answer(view: dict[str, Any]) -> str | None:
        if mode == "silent":
            return None
        if mode == "illegal":
            return "frobnicate"
        move = decide(view, "basic", 1)
        legal.append(move)
        return move

    pool = FakePool(answer)
    hub = hub_of(client)
    hub._pool = pool
    data = client.post("/api/quick", json={"name": "Ann", "seed": 8, "level": "expert"}).json()
    room = room_of(client, data["table"])
    with client.websocket_connect(f"/ws/{data['table']}") as ws:
        state = hello(ws, data["token"])
        while not any(line["text"].startswith("North") for line in state["log"]):  # three bot turns at least
            if state["view"]["to_move"] == 0 and state["view"]["phase"] == "draw" and not state["hand_over"]:
                send(ws, type="move", move="draw")
                state = recv_until(ws, lambda m: m["type"] == "state" and m["view"]["phase"] != "draw")
                card = state["view"]["hand"][0]
                send(ws, type="check", id=1, moves=[f"discard {c}" for c in state["view"]["hand"][:16]])
                results = recv_until(ws, lambda m: m["type"] == "check")["results"]
                card = state["view"]["hand"][results.index(None)]
                send(ws, type="move", move=f"discard {card}")
            state = recv_until(ws, lambda m: m["type"] == "state")
    assert pool.seen, "the expert bots asked the pool"
    for view, level, _seed in pool.seen:
        assert level == "expert" and view["seat"] in (1, 2, 3)
        assert view["hand"] and sorted(view["hand_sizes"]) and "hands" not in view  # only the seat's own cards
    bot_lines = [line for line in room.table.log() if line.seat != 0]
    assert bot_lines
    if mode == "answers":  # the pool's moves were played
        played = [str(mv) for s, mv in room.table.moves[-1] if s != 0]
        assert played[: len(legal)] == legal[: len(played)]


def test_serve_refuses_a_busy_port_and_a_missing_database_folder(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Through the real entry point: one line each, nothing started, no folder made."""
    import socket

    from canasta.cli import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["serve", "--port", str(port), "--db", str(tmp_path / "a.db")])
    out, err = capsys.readouterr()
    assert code != 0 and f"port {port} on 127.0.0.1 is already in use" in err
    assert "serving on" not in out and len(err.strip().splitlines()) == 1
    missing = tmp_path / "no" / "such" / "folder" / "c.db"
    for db in (str(missing), f"sqlite:///{missing}"):
        code = main(["serve", "--db", db])
        err = capsys.readouterr().err
        assert code != 0 and "does not exist: create it first" in err, err
    assert not (tmp_path / "no").exists()
    code = main(["serve", "--db", str(tmp_path)])
    assert code != 0 and "that is a folder" in capsys.readouterr().err
