"""Several servers on one PostgreSQL database with Redis (``canasta serve --redis``):
real server and worker processes against the machine's PostgreSQL and Redis.

Skipped when PostgreSQL (127.0.0.1:5432, database ``test``) or Redis (127.0.0.1:6379)
is not there, unless ``CANASTA_SERVICES_REQUIRED=1`` (CI sets it): then they fail.
``CANASTA_TEST_PG`` and ``CANASTA_TEST_REDIS`` name other ones.  Each run makes its
own database (dropped after) and its own Redis key prefix, so runs never collide."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conftest import need

need("fastapi")
httpx = need("httpx2")  # the HTTP client the dev extra pins (the one starlette asks for)
websockets_sync = need("websockets.sync.client")

from canasta.bots import make_bot  # noqa: E402
from canasta.views.seat import SeatView  # noqa: E402
from canasta.web.devserver import ServerProcess, WorkerProcess  # noqa: E402

Msg = dict[str, Any]
PG_ADMIN = os.environ.get("CANASTA_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("CANASTA_TEST_REDIS", "redis://127.0.0.1:6379/0")


def unavailable(reason: str) -> None:
    if os.environ.get("CANASTA_SERVICES_REQUIRED") == "1":
        pytest.fail(f"CANASTA_SERVICES_REQUIRED=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def services() -> Iterator[tuple[str, str]]:
    """A fresh database in the PostgreSQL cluster and a fresh Redis key prefix."""
    try:
        import arq  # noqa: F401
        import psycopg
        import redis
    except ImportError as exc:
        unavailable(f"the cluster-web extra is not installed ({exc.name} is missing): pip install -e '.[dev]'")
        raise
    try:
        admin = psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=3)
    except Exception as exc:
        unavailable(f"no PostgreSQL at {PG_ADMIN}: {exc}")
        raise
    try:
        r = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3)
        r.ping()
    except Exception as exc:
        admin.close()
        unavailable(f"no Redis at {REDIS_URL}: {exc}")
        raise
    from canasta.web.vault import ENV, new_key

    had_key = os.environ.get(ENV)
    os.environ[ENV] = had_key or new_key()  # the servers and workers started here share it
    run = uuid.uuid4().hex[:12]
    name = f"canasta_test_{run}"
    admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}", f"canasta-test-{run}"
    finally:
        if had_key is None:
            os.environ.pop(ENV, None)
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
        prefix = f"canasta-test-{run}"
        for pattern in (f"{prefix}:*", f"arq:*:{prefix}:*"):
            keys = list(r.scan_iter(match=pattern, count=1000))
            if keys:
                r.delete(*keys)
        r.close()


def server_args(prefix: str, *extra: str) -> list[str]:
    return ["--redis", REDIS_URL, "--redis-prefix", prefix, "--bot-delay", "0", "--allow-fixed-seeds",
            "--grace", "60", "--job-timeout", "2", "--tables-per-minute", "0", *extra]


class Player:
    """A scripted person on a real websocket: plays what a basic bot picks from its own view."""

    def __init__(self, server: ServerProcess, table: str, token: str, seq: int | None = None) -> None:
        self.cm = websockets_sync.connect(f"{server.ws_url}/ws/{table}", open_timeout=10)
        self.ws = self.cm.__enter__()
        self.raw: list[str] = []
        self.logs: dict[tuple[int, int], str] = {}  # (hand, n) -> move, every log line seen
        hello: Msg = {"type": "hello", "token": token}
        if seq is not None:
            hello["seq"] = seq
        self.ws.send(json.dumps(hello))
        welcome = self.recv()
        assert welcome["type"] == "welcome", welcome
        self.seat: int = welcome["seat"]
        self.rules: Msg = welcome["rules"]
        self.state: Msg = self.until(lambda m: m["type"] == "state")
        self.bot = make_bot("basic", seed=17 + self.seat)

    def recv(self, timeout: float = 15) -> Msg:
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        self.raw.append(text)
        msg: Msg = json.loads(text)
        if msg["type"] == "state":
            self.state = msg
            hand = len(msg["sheet"]) + (0 if msg["hand_over"] else 1)
            for e in msg["log"]:
                if e.get("kind") != "notice":  # a notice (a turn timer ran out) is no move
                    self.logs[(hand, e["n"])] = e["move"]
        return msg

    def until(self, pred: Callable[[Msg], bool], timeout: float = 20) -> Msg:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = self.recv(timeout=max(0.1, deadline - time.monotonic()))
            if pred(msg):
                return msg
        raise AssertionError(f"the expected message never came (seat {self.seat}, last state seq "
                             f"{self.state.get('seq')})")

    def pump(self) -> None:
        while True:
            try:
                self.recv(timeout=0.02)
            except TimeoutError:
                return

    def my_move(self) -> bool:
        v: Msg | None = self.state.get("view")
        return v is not None and self.state["status"] == "playing" and not self.state["hand_over"] \
            and v["to_move"] == self.seat and not self.state["players"][self.seat]["bot_playing"]

    def play(self) -> None:
        """One move; waits for the state that shows it."""
        view = SeatView.from_dict({**self.state["view"], "rules": self.rules})
        move = str(self.bot.choose(view))
        seq = self.state["seq"]
        self.send(type="move", move=move)
        reply = self.until(lambda m: m["type"] == "error" or (m["type"] == "state" and m["seq"] > seq))
        assert reply["type"] == "state", reply

    def send(self, **msg: Any) -> None:
        self.ws.send(json.dumps(msg))

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the server was killed under it
            self.cm.__exit__(None, None, None)


def events(db: str, table: str) -> list[tuple[int, str, int, str]]:
    """The table's events as the database holds them."""
    import psycopg

    with psycopg.connect(db) as conn:
        rows = conn.execute("SELECT num, kind, seat, line FROM canasta_events WHERE table_id = %s ORDER BY num",
                            (table,)).fetchall()
    return [(int(a), str(b), int(c), str(d)) for a, b, c, d in rows]


def move_events(db: str, table: str) -> list[str]:
    """Every move of the table, in order, as 'SEAT: move' (undo takes the last one back)."""
    moves: list[str] = []
    for _num, kind, seat, line in events(db, table):
        if kind == "move":
            moves.append(f"{seat}: {line}")
        elif kind == "undo":
            moves.pop()
    return moves


def test_an_event_number_is_written_once(services: tuple[str, str]) -> None:
    """The database is the arbiter: a second write of the same event number is refused."""
    from canasta.web.store import Conflict, Event, Store, TableRow

    db, _ = services
    store = Store(db)
    try:
        store.create(TableRow("unit-race", 0.0, 0.0, "playing", {}, {"hands": []}, 0, []))
        store.append("unit-race", Event(1, "move", 0, "draw", None, 1.0), "playing", 1)
        with pytest.raises(Conflict):
            store.append("unit-race", Event(1, "move", 2, "draw", None, 1.0), "playing", 1)
        store.append("unit-race", Event(2, "move", 0, "discard 4C", None, 2.0), "playing", 1)
        assert [(e.num, e.seat, e.line) for e in store.events_after("unit-race", 0)] == \
            [(1, 0, "draw"), (2, 0, "discard 4C")]
    finally:
        store.close()


def test_a_status_is_noted_only_while_its_event_is_the_last(services: tuple[str, str]) -> None:
    """The lobby's status (a match over: the history lists it) is written beside the event
    that changed it, and not over a later event's."""
    from canasta.web.store import Event, Store, TableRow

    db, _ = services
    store = Store(db)
    try:
        store.create(TableRow("unit-status", 0.0, 0.0, "playing", {}, {"hands": []}, 0, []))
        store.append("unit-status", Event(1, "move", 0, "draw", None, 1.0), "playing", 1)
        store.append("unit-status", Event(2, "move", 0, "discard 4C", None, 2.0), "playing", 1)
        store.note_status("unit-status", "finished", 1)  # event 1 is no longer the last
        assert "unit-status" in store.ids_with_status("playing", None)
        store.note_status("unit-status", "finished", 2)
        assert "unit-status" in store.ids_with_status("finished", None)
        assert "unit-status" not in store.ids_with_status("playing", None)
    finally:
        store.close()


def test_two_servers_a_hand_across_them_survives_a_killed_server(services: tuple[str, str]) -> None:
    db, prefix = services
    worker = WorkerProcess(db, server_args(prefix)).start()
    s1 = ServerProcess(db, args=server_args(prefix)).start()
    s2 = ServerProcess(db, args=server_args(prefix)).start()
    players: list[Player] = []
    try:
        r = httpx.post(f"{s1.url}/api/tables", json={
            "preset": "classic-4p", "name": "Ann", "seat": 0, "seed": 5,
            "seats": [{}, {"kind": "bot", "level": "basic"}, {"kind": "open"}, {"kind": "bot", "level": "basic"}]})
        assert r.status_code == 200, r.text
        table, ann_token = r.json()["table"], r.json()["token"]
        j = httpx.post(f"{s2.url}/api/tables/{table}/join", json={"name": "Bea", "seat": 2})  # on the other server
        assert j.status_code == 200, j.text
        ann, bea = Player(s1, table, ann_token), Player(s2, table, j.json()["token"])
        players = [ann, bea]

        def both_see_same() -> bool:
            for p in players:
                p.pump()
            return bool(ann.state["seq"] == bea.state["seq"])

        ann_moves = 0
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:  # play across the servers until Ann (server 1) has played 6 moves
            both_see_same()
            if ann_moves >= 6 and ann.my_move() and ann.state["view"]["phase"] == "draw" and both_see_same():
                break
            for p in players:
                if p.my_move():
                    p.play()
                    ann_moves += p is ann
        else:
            raise AssertionError("the hand did not get going")
        assert not ann.state["hand_over"] and ann.state["players"][2]["connected"]
        before_seq, before_view = ann.state["seq"], ann.state["view"]
        assert bea.state["view"]["to_move"] == 0  # Bea on server 2 saw Ann's moves from server 1

        s1.kill()  # SIGKILL, mid-hand
        ann.close()
        ann = Player(s2, table, ann_token, seq=before_seq)  # Ann's page reconnects to the other server
        players = [ann, bea]
        assert ann.state["view"] == before_view and ann.state["seq"] >= before_seq

        deadline = time.monotonic() + 60
        while not ann.state["hand_over"]:  # the hand is finished on server 2
            assert time.monotonic() < deadline, "the hand did not finish"
            both_see_same()
            for p in players:
                if p.my_move():
                    p.play()
        if not bea.state["hand_over"]:
            bea.until(lambda m: m["type"] == "state" and m["hand_over"])
        stored = move_events(db, table)
        nums = [e[0] for e in events(db, table)]
        assert nums == list(range(1, len(nums) + 1))  # every event once, none missing
        seen = {**ann.logs, **bea.logs}
        hand1 = [seen[(1, n)] for n in range(1, len(stored) + 1)]  # KeyError: a stored move nobody was shown
        assert [m.split(": ", 1)[1] for m in stored] == hand1  # each move recorded once, in the order played
        assert len([k for k in seen if k[0] == 1]) == len(stored)  # and no move shown that is not stored
        assert ann.state["sheet"] and ann.state["sheet"][0]["scores"]
    finally:
        for p in players:
            p.close()
        s1.stop()
        s2.stop()
        worker.stop()


def test_the_same_move_sent_to_both_servers_at_once_is_played_once(services: tuple[str, str]) -> None:
    db, prefix = services
    s1 = ServerProcess(db, args=server_args(prefix)).start()
    s2 = ServerProcess(db, args=server_args(prefix)).start()
    socks: list[Player] = []
    try:
        r = httpx.post(f"{s1.url}/api/tables", json={"preset": "classic-2p", "name": "Ann", "seat": 0, "seed": 8,
                                                      "seats": [{}, {"kind": "open"}]})
        table, ann_token = r.json()["table"], r.json()["token"]
        bea_token = httpx.post(f"{s1.url}/api/tables/{table}/join", json={"name": "Bea", "seat": 1}).json()["token"]
        a1, a2 = Player(s1, table, ann_token), Player(s2, table, ann_token)  # Ann's two windows
        b2 = Player(s2, table, bea_token)
        socks = [a1, a2, b2]
        rounds = 0
        while rounds < 6:
            for s in socks:
                s.pump()
            seq = a1.state["seq"]
            if not (a1.state["seq"] == a2.state["seq"] == b2.state["seq"]):
                time.sleep(0.02)
                continue
            if a1.my_move() and a1.state["view"]["phase"] == "draw":
                draws_before = sum(1 for m in move_events(db, table) if m == "0: draw")
                gate = threading.Barrier(2)
                replies: dict[int, Msg] = {}

                def drawn(m: Msg, seq: int = seq) -> bool:
                    return m["type"] == "error" or (m["type"] == "state" and m["seq"] > seq and bool(m["log"])
                                                    and m["log"][-1]["move"] == "draw" and m["log"][-1]["seat"] == 0)

                def race(i: int, p: Player, gate: threading.Barrier = gate,
                         replies: dict[int, Msg] = replies) -> None:
                    gate.wait()
                    p.send(type="move", move="draw")
                    replies[i] = p.until(drawn)

                threads = [threading.Thread(target=race, args=(i, p)) for i, p in enumerate((a1, a2))]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                errors = [m for m in replies.values() if m["type"] == "error"]
                for i, p in enumerate((a1, a2)):  # a window that saw the winning state first: its refusal follows
                    if replies[i]["type"] == "state":
                        with contextlib.suppress(AssertionError, TimeoutError):
                            errors.append(p.until(lambda m: m["type"] == "error", timeout=1.0))
                assert len(errors) == 1, (replies, errors)  # one window's draw refused, the other's played
                assert errors[0]["ref"] == "move" and errors[0]["code"] in ("ILLEGAL", "NOT_YOUR_TURN"), errors
                draws_after = sum(1 for m in move_events(db, table) if m == "0: draw")
                assert draws_after == draws_before + 1  # exactly one of the two was played
                rounds += 1
                for s in socks:
                    s.pump()
                time.sleep(0.2)
                for s in socks:
                    s.pump()
                if a1.my_move():
                    a1.play()
            elif b2.my_move():
                b2.play()
            elif a1.my_move():
                a1.play()
            elif a1.state["hand_over"]:
                break
            else:
                time.sleep(0.02)
        assert rounds >= 3
        nums = [e[0] for e in events(db, table)]
        assert nums == list(range(1, len(nums) + 1))
        conflicts = 0
        for server in (s1, s2):
            text = httpx.get(f"{server.url}/metrics").text
            conflicts += int(re.search(r"^canasta_write_conflicts_total (\d+)", text, re.M).group(1))  # type: ignore[union-attr]
        print(f"races: {rounds}, lost at the database (the rest refused by the loser's up-to-date copy): "
              f"{conflicts}")
    finally:
        for s in socks:
            s.close()
        s1.stop()
        s2.stop()


def test_a_bot_table_plays_on_when_a_worker_is_killed_and_keeps_its_secrets(services: tuple[str, str]) -> None:
    """A fair table of one person and three bots; one of two workers is killed mid-play.
    The bots go on; no message to the player nor any Redis publication carries a hand's
    secret before that hand is over."""
    import redis

    db, prefix = services
    w1 = WorkerProcess(db, server_args(prefix, "--auto-deal", "0.3")).start()
    w2 = WorkerProcess(db, server_args(prefix, "--auto-deal", "0.3")).start()
    s1 = ServerProcess(db, args=server_args(prefix, "--auto-deal", "0.3")).start()
    published: list[bytes] = []
    stop = threading.Event()
    sub = redis.Redis.from_url(REDIS_URL).pubsub()  # type: ignore[no-untyped-call]
    sub.psubscribe(f"{prefix}:t:*")

    def listen() -> None:
        while not stop.is_set():
            m = sub.get_message(timeout=0.2)
            if m is not None and m["type"] == "pmessage":
                published.append(m["data"])

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    ann: Player | None = None
    try:
        r = httpx.post(f"{s1.url}/api/quick", json={"name": "Ann", "level": "basic", "target": 100000})
        assert r.status_code == 200, r.text
        table, token = r.json()["table"], r.json()["token"]
        cm = websockets_sync.connect(f"{s1.ws_url}/ws/{table}", open_timeout=10)
        ann = Player.__new__(Player)
        ann.cm, ann.ws, ann.raw, ann.logs = cm, cm.__enter__(), [], {}
        ann.ws.send(json.dumps({"type": "hello", "token": token, "client_seed": "ann-seed",
                                "commitment": r.json()["next_deal"]["commitment"]}))
        welcome = ann.recv()
        ann.seat, ann.rules, ann.bot = welcome["seat"], welcome["rules"], make_bot("basic", seed=3)
        ann.state = ann.until(lambda m: m["type"] == "state" and m["dealt"])  # dealt by a worker
        first_commitment = ann.state["deal"]["commitment"]

        def bot_moves() -> int:
            return sum(1 for (h, n), mv in ann.logs.items() if h >= 1) - ann_moves

        ann_moves = 0
        killed_at: int | None = None
        deadline = time.monotonic() + 45
        while True:
            assert time.monotonic() < deadline, f"the bots stopped: {bot_moves()} moves, worker killed at {killed_at}"
            ann.pump()
            if killed_at is None and bot_moves() >= 12:
                w1.kill()  # SIGKILL: its jobs (if it held one) are run again by the other worker
                killed_at = bot_moves()
            if killed_at is not None and bot_moves() >= killed_at + 40 and len(ann.state["sheet"]) >= 1:
                break
            if ann.my_move():
                ann.play()
                ann_moves += 1
            else:
                time.sleep(0.01)
        # the secrets: each finished hand's secret hashes to the commitment shown before it,
        # and appears nowhere (messages to the player, Redis) before its hand was over
        revealed = ann.state["revealed"]
        assert revealed[0]["commitment"] == first_commitment
        for hand in revealed:
            secret = hand["secret"]
            assert hashlib.sha256(bytes.fromhex(secret)).hexdigest() == hand["commitment"]
            over = next(i for i, raw in enumerate(ann.raw)
                        if json.loads(raw).get("type") == "state" and len(json.loads(raw)["sheet"]) >= hand["hand"])
            assert all(secret not in raw for raw in ann.raw[:over])
            assert all(secret.encode() not in p for p in published)
        nums = [e[0] for e in events(db, table)]
        assert nums == list(range(1, len(nums) + 1))
    finally:
        stop.set()
        listener.join(2)
        sub.close()
        if ann is not None:
            ann.close()
        s1.stop()
        w1.stop()
        w2.stop()


def test_a_turn_timer_that_runs_out_is_a_notice_on_every_server_and_after_a_restart(
        services: tuple[str, str]) -> None:
    """A worker finishes the turn of a person whose timer ran out: every server tells every
    seat (in its language, and in the log), and a server started afterwards reads the
    notice back from the stored events."""
    db, prefix = services
    worker = WorkerProcess(db, server_args(prefix)).start()
    s1 = ServerProcess(db, args=server_args(prefix)).start()
    s2 = ServerProcess(db, args=server_args(prefix)).start()
    players: list[Player] = []
    try:
        r = httpx.post(f"{s1.url}/api/tables", json={
            "preset": "classic-4p", "name": "Ann", "seat": 0, "seed": 5, "turn_seconds": 10,
            "seats": [{}, {"kind": "open"}, {"kind": "bot", "level": "basic"}, {"kind": "bot", "level": "basic"}]})
        assert r.status_code == 200, r.text
        table, ann_token = r.json()["table"], r.json()["token"]
        j = httpx.post(f"{s2.url}/api/tables/{table}/join", json={"name": "Bea", "seat": 1})
        assert j.status_code == 200, j.text
        ann = Player(s1, table, ann_token)
        players.append(ann)
        cm = websockets_sync.connect(f"{s2.ws_url}/ws/{table}", open_timeout=10)  # Bea, in Italian
        bea = Player.__new__(Player)
        bea.cm, bea.ws, bea.raw, bea.logs = cm, cm.__enter__(), [], {}
        players.append(bea)
        bea.ws.send(json.dumps({"type": "hello", "token": j.json()["token"], "lang": "it"}))
        assert bea.recv()["type"] == "welcome"
        bea.state = bea.until(lambda m: m["type"] == "state")

        def noticed(m: Msg) -> bool:
            return m["type"] == "state" and bool(m.get("notices"))

        seen = ann.until(noticed, timeout=90)  # nobody moves: a timer runs out (10 s) and a bot plays
        seen_it = bea.until(noticed, timeout=60)
        (notice,) = seen["notices"]
        late = notice["seat"]
        assert late in (0, 1) and notice["kind"] == "timeout"
        assert seen_it["notices"][0]["id"] == notice["id"]  # the event's number, the same on both servers
        name = ["Ann", "Bea"][late]
        it_for_name = f"tempo scaduto: il computer ha giocato per {name}"
        it_you = "il tuo tempo è scaduto: il computer ha giocato il tuo turno"
        assert notice["text"] == ("your time ran out: the computer played your turn" if late == 0 else
                                  f"time ran out: the computer played for {name}")
        assert seen_it["notices"][0]["text"] == (it_you if late == 1 else it_for_name)
        assert any(e.get("kind") == "notice" and e["text"] == it_for_name for e in seen_it["log"])
        assert any(kind == "auto_turn" and seat == late for _num, kind, seat, _line in events(db, table))
        for p in players:
            p.close()
        players = []
        s1.stop()
        s2.stop()
        worker.stop()  # no more timers: the table stands as stored
        s3 = ServerProcess(db, args=server_args(prefix)).start()
        try:
            again = Player(s3, table, ann_token)
            players.append(again)
            kept = [n for n in again.state["notices"] if n["id"] == notice["id"]]
            assert kept and kept[0]["seat"] == late and kept[0]["after"] == notice["after"]
            assert any(e.get("kind") == "notice" and e["id"] == notice["id"] for e in again.state["log"])
        finally:
            s3.stop()
    finally:
        for p in players:
            p.close()
        s1.stop()
        s2.stop()
        worker.stop()


def later_than(seq: int) -> Callable[[Msg], bool]:
    """A state message after event ``seq``."""
    return lambda m: m["type"] == "state" and m["seq"] > seq


def test_a_finished_match_rematches_once_whichever_server_is_asked(services: tuple[str, str]) -> None:
    """A created table's match ends; its player asks one server for a rematch, then the other:
    one rematch is made (an event of the finished table), with the same rules and bots."""
    db, prefix = services
    worker = WorkerProcess(db, server_args(prefix)).start()
    s1 = ServerProcess(db, args=server_args(prefix)).start()
    s2 = ServerProcess(db, args=server_args(prefix)).start()
    players: list[Player] = []
    try:
        r = httpx.post(f"{s1.url}/api/tables", json={
            "preset": "classic-4p", "name": "Ann", "seat": 0, "seed": 2, "target": 100, "options": {"C-O2": True},
            "seats": [{}, {"kind": "bot", "level": "basic"}, {"kind": "bot", "level": "random"},
                      {"kind": "bot", "level": "basic"}]})
        assert r.status_code == 200, r.text
        table, token = r.json()["table"], r.json()["token"]
        ann = Player(s1, table, token)
        players.append(ann)
        while not ann.state["match_over"]:  # fails only if the table stops moving
            if ann.my_move():
                ann.play()
                continue
            if ann.state["hand_over"]:
                ann.send(type="next_hand")
            ann.until(later_than(ann.state["seq"]), timeout=60)  # a bound for a busy machine
        (listed,) = [t for t in httpx.get(f"{s2.url}/api/history").json()["tables"] if t["table"] == table]
        assert listed["kinds"] == ["human", "bot", "bot", "bot"]  # the lobby says the bots' seats in its words
        made = httpx.post(f"{s1.url}/api/tables/{table}/rematch", json={"token": token})
        assert made.status_code == 200, made.text
        again = httpx.post(f"{s2.url}/api/tables/{table}/rematch", json={"token": token})
        assert again.status_code == 200 and again.json()["table"] == made.json()["table"]
        new_id = made.json()["table"]
        ann.until(lambda m: m["type"] == "state" and m.get("rematch") == new_id, timeout=60)
        assert [kind for _num, kind, _seat, _line in events(db, table)].count("rematch") == 1
        info = httpx.get(f"{s2.url}/api/tables/{new_id}").json()
        assert info["status"] == "playing" and info["target"] == 100
        assert [(s["kind"], s["level"]) for s in info["seats"]] == [
            ("human", None), ("bot", "basic"), ("bot", "random"), ("bot", "basic")]
        fresh = Player(s2, new_id, token)  # the seat token Ann's page already holds
        players.append(fresh)
        assert fresh.seat == 0 and fresh.rules["black_three_freezes"] is True
    finally:
        for p in players:
            p.close()
        s1.stop()
        s2.stop()
        worker.stop()


def test_health_readiness_and_metrics_of_a_single_server(tmp_path: Any) -> None:
    """The probes a proxy or an orchestrator uses, on the default single process (no services)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from canasta.web.app import create_app
    from canasta.web.room import Settings

    with TestClient(create_app(str(tmp_path / "h.db"), settings=Settings(bot_delay=0, bot_workers=0,
                                                                                   fixed_seeds=True)),
                    client=("127.0.0.1", 50000)) as client:  # /metrics answers this machine only
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.get("/readyz").json() == {"status": "ready"}
        data = client.post("/api/quick", json={"name": "Ann", "seed": 3}).json()
        with client.websocket_connect(f"/ws/{data['table']}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": data["token"]}))
            for _ in range(200):
                msg = json.loads(ws.receive_text())
                if msg["type"] == "state" and msg["view"]["to_move"] == 0:
                    break
            moved = msg["seq"]
            ws.send_text(json.dumps({"type": "move", "move": "draw"}))
            while not (msg["type"] == "state" and msg["seq"] > moved):
                msg = json.loads(ws.receive_text())
            text = client.get("/metrics").text
            assert 'canasta_tables{status="playing"} 1' in text and "canasta_sockets 1" in text
            assert "canasta_move_seconds_count 1" in text and "canasta_queue_depth 0" in text
            assert int(re.search(r"^canasta_moves_total (\d+)", text, re.M).group(1)) >= 4  # type: ignore[union-attr]
