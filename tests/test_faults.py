"""The card room under single faults: two servers and a worker on a PostgreSQL and a
Redis of the test's own (:mod:`instances`), or one server on that PostgreSQL alone
(the same rooms and events, its jobs on its own loop); tables with two people each
(one on each server) and two bots, people playing over real websockets while a
service is stopped, killed or paused.  After each fault, read from the database itself:

* every table's event numbers are 1..N, each once, and the table replays;
* every state any person was sent equals the stored game replayed to that number
  (nobody was shown a move the database does not hold);
* no bot played a connected person's seat (no take-over, no turn timer);
* play resumes within 5 s of the service's return.

Skipped where the binaries or the cluster extra are missing, failed instead where
``CANASTA_SERVICES_REQUIRED=1`` (CI)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conftest import need
from instances import Postgres, Redis, postgres_binaries, redis_binary

need("fastapi")
httpx = need("httpx2")
websockets_sync = need("websockets.sync.client")

from canasta.bots import make_bot  # noqa: E402
from canasta.view import SeatView  # noqa: E402
from canasta.web.devserver import ServerProcess, WorkerProcess  # noqa: E402

Msg = dict[str, Any]
GRACE = 12  # seconds a person may be away before a bot plays the seat: shorter than a fault plus recovery
RESUME_WITHIN = 5.0


def unavailable(reason: str) -> None:
    if os.environ.get("CANASTA_SERVICES_REQUIRED") == "1":
        pytest.fail(f"CANASTA_SERVICES_REQUIRED=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture
def own() -> Iterator[tuple[Postgres, Redis]]:
    try:
        import arq  # noqa: F401
        import psycopg  # noqa: F401
        import redis  # noqa: F401
    except ImportError as exc:
        unavailable(f"the cluster-web extra is not installed ({exc.name} is missing): pip install -e '.[dev]'")
    if postgres_binaries() is None or redis_binary() is None:
        unavailable("PostgreSQL's initdb/pg_ctl or redis-server are not installed")
    # PostgreSQL runs as its own user where the tests run as root: a folder it can reach
    from canasta.web.vault import ENV, new_key

    had_key = os.environ.get(ENV)
    os.environ[ENV] = had_key or new_key()  # the servers and workers started here share it
    folder = Path(tempfile.mkdtemp(prefix="canasta-faults-"))
    folder.chmod(0o755)
    (folder / "pg").mkdir()
    (folder / "redis").mkdir()
    try:
        pg = Postgres(folder / "pg").start()
        rd = Redis(folder / "redis").start()
        try:
            yield pg, rd
        finally:
            rd.close()
            pg.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if had_key is None:
            os.environ.pop(ENV, None)


def server_args(redis_url: str | None) -> list[str]:
    """A cluster's server (or worker) on ``redis_url``; None: a single server."""
    cluster = [] if redis_url is None else ["--redis", redis_url, "--redis-prefix", "faults", "--job-timeout", "2"]
    return [*cluster, "--bot-delay", "0", "--allow-fixed-seeds", "--grace", str(GRACE), "--tables-per-minute", "0"]


@dataclass
class Person:
    """Someone at a table over a websocket, playing what a basic bot picks from their view;
    every state they are sent is kept as (seq, view)."""

    server: ServerProcess
    table: str
    token: str
    seen: list[tuple[int, Any]] = field(default_factory=list)
    answers: dict[str, int] = field(default_factory=dict)
    state: Msg = field(default_factory=dict)
    waiting_since: int | None = None  # the seq at which a move was sent and not yet answered

    def __post_init__(self) -> None:
        self.connect()
        self.bot = make_bot("basic", seed=31 + self.seat)

    def connect(self) -> None:
        self.cm = websockets_sync.connect(f"{self.server.ws_url}/ws/{self.table}", open_timeout=10)
        self.ws = self.cm.__enter__()
        self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        welcome = self.recv(15)
        assert welcome is not None and welcome["type"] == "welcome", welcome
        self.seat: int = welcome["seat"]
        self.rules: Msg = welcome["rules"]
        self.state = {}
        while not self.state:
            self.recv(15)

    def move_to(self, server: ServerProcess) -> None:
        """Reconnect to another server with the same token (a load balancer's next pick)."""
        self.close()
        self.server = server
        self.waiting_since = None  # an answer the dead server owed is not coming
        self.connect()

    def recv(self, timeout: float) -> Msg | None:
        try:
            text = self.ws.recv(timeout=timeout)
        except TimeoutError:
            return None
        msg: Msg = json.loads(text)
        if msg["type"] == "state":
            self.state = msg
            self.seen.append((msg["seq"], msg["view"]))
            if self.waiting_since is not None and msg["seq"] > self.waiting_since:
                self.waiting_since = None
        elif msg["type"] == "error" and msg.get("ref") == "move" and self.waiting_since is not None:
            self.waiting_since = None
            self.answers[msg["code"]] = self.answers.get(msg["code"], 0) + 1
        return msg

    def pump(self) -> None:
        while self.recv(0.01) is not None:
            pass

    def my_move(self) -> bool:
        v = self.state.get("view")
        return (v is not None and self.state["status"] == "playing" and not self.state["hand_over"]
                and v["to_move"] == self.seat and not self.state["players"][self.seat]["bot_playing"])

    def step(self) -> None:
        """Send a move if it is this person's turn and no move of theirs is unanswered."""
        self.pump()
        if self.waiting_since is not None or not self.my_move():
            return
        view = SeatView.from_dict({**self.state["view"], "rules": self.rules})
        self.waiting_since = self.state["seq"]
        self.ws.send(json.dumps({"type": "move", "move": str(self.bot.choose(view))}))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.cm.__exit__(None, None, None)


@dataclass
class Room:
    s1: ServerProcess
    s2: ServerProcess | None  # None: a single server
    worker: WorkerProcess | None
    tables: list[str]
    people: list[Person]

    def play_for(self, seconds: float, until: Callable[[], bool] | None = None) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for p in self.people:
                with contextlib.suppress(Exception):  # a paused or killed server's socket
                    p.step()
            if until is not None and until():
                return
            time.sleep(0.02)

    def heads(self) -> dict[str, int]:
        """The last event number of each table, as people were last shown it."""
        out: dict[str, int] = {}
        for p in self.people:
            out[p.table] = max(out.get(p.table, 0), int(p.state.get("seq", 0)))
        return out

    def close(self) -> None:
        for p in self.people:
            p.close()
        for proc in (self.s1, self.s2):
            if proc is None:
                continue
            with contextlib.suppress(Exception):
                if proc.proc is not None:
                    proc.proc.send_signal(signal.SIGCONT)
            proc.stop()
        if self.worker is not None:
            self.worker.stop()


def start_room(pg: Postgres, rd: Redis | None, tables: int = 3) -> Room:
    """Two servers and a worker on ``pg`` and ``rd``; one server on ``pg`` alone if ``rd`` is None."""
    args = server_args(None if rd is None else rd.url)
    worker = None if rd is None else WorkerProcess(pg.url, args).start()
    s1 = ServerProcess(pg.url, args=args).start()
    s2 = None if rd is None else ServerProcess(pg.url, args=args).start()
    room = Room(s1, s2, worker, [], [])
    for i in range(tables):
        first, other = (s1, s2 or s1) if i % 2 == 0 else (s2 or s1, s1)
        r = httpx.post(f"{first.url}/api/tables", json={
            "preset": "classic-4p", "name": "Ann", "seat": 0, "seed": 100 + i,
            "seats": [{}, {"kind": "bot", "level": "basic"}, {"kind": "open"}, {"kind": "bot", "level": "basic"}]})
        assert r.status_code == 200, r.text
        table, token = r.json()["table"], r.json()["token"]
        j = httpx.post(f"{other.url}/api/tables/{table}/join", json={"name": "Bea", "seat": 2})
        assert j.status_code == 200, j.text
        room.tables.append(table)
        room.people += [Person(first, table, token), Person(other, table, j.json()["token"])]
    start = room.heads()
    room.play_for(30, until=lambda: all(room.heads()[t] >= start[t] + 8 for t in room.tables))
    assert all(room.heads()[t] >= start[t] + 8 for t in room.tables), "play did not get going"
    return room


def everyone_seated(room: Room) -> None:
    """Every person is shown connected, and no bot plays their seat."""
    for p in room.people:
        assert p.state["players"][p.seat]["connected"], f"seat {p.seat} of {p.table} is shown away"
        assert not p.state["players"][p.seat]["bot_playing"], f"a bot plays seat {p.seat} of {p.table}"


def resume_time(room: Room, since: float) -> float:
    """Seconds from ``since`` until every table has moved on (a new event shown to its people)."""
    before = room.heads()
    moved: dict[str, float] = {}

    def all_moved() -> bool:
        heads = room.heads()
        for t in room.tables:
            if t not in moved and heads[t] > before[t]:
                moved[t] = time.monotonic() - since
        return len(moved) == len(room.tables)

    room.play_for(30, until=all_moved)
    assert all_moved(), f"tables that never moved again: {sorted(set(room.tables) - set(moved))}"
    return max(moved.values())


def same_views(table: str, t: Any, num: int, wanted: dict[int, list[tuple[int, Any]]]) -> int:
    """Check that every view a seat was sent at event ``num`` is the stored game's ``t``
    at that event; how many were checked."""
    for seat, view in wanted.get(num, []):
        truth = json.loads(json.dumps(t.view(seat).to_dict(include_rules=False))) if t.dealt else None
        assert view == truth, f"table {table}: seat {seat} was shown, at event {num}, a state " \
                              "that is not the stored game's"
    return len(wanted.get(num, []))


def check_stored(db: str, room: Room) -> dict[str, int]:
    """The checks of the module docstring, on what the database holds; some figures."""
    import psycopg

    from canasta.play.table import Table
    from canasta.web.store import Store, apply_to_table

    store = Store(db)
    figures = {"events": 0, "states_checked": 0}
    try:
        for table in room.tables:
            with psycopg.connect(db) as conn:
                # one snapshot for both reads: the bots play on while this looks
                conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
                nums = [r[0] for r in conn.execute(
                    "SELECT num FROM canasta_events WHERE table_id = %s ORDER BY num", (table,)).fetchall()]
                head = conn.execute("SELECT seq FROM canasta_tables WHERE id = %s", (table,)).fetchone()
            assert nums == list(range(1, len(nums) + 1)), f"table {table}: event numbers {nums}"
            assert head is not None and head[0] == len(nums), f"table {table}: header at {head}, {len(nums)} events"
            assert store.load(table) is not None  # replays through the engine
            figures["events"] += len(nums)
            got = store.load_base(table)
            assert got is not None
            row, events = got
            wanted: dict[int, list[tuple[int, Any]]] = {}
            for p in room.people:
                if p.table == table:
                    for seq, view in p.seen:
                        assert seq <= len(nums), f"seat {p.seat} was shown event {seq}; the database has {len(nums)}"
                        wanted.setdefault(seq, []).append((p.seat, view))
            t = Table.from_dict(row.state)
            figures["states_checked"] += same_views(table, t, 0, wanted)
            for ev in events:
                apply_to_table(t, ev)
                assert ev.kind != "auto_turn", f"table {table}: a turn timer ran out (none is set)"
                if ev.kind == "presence":
                    assert not (ev.data or {}).get("takeover"), \
                        f"table {table}: event {ev.num} handed a connected person's seat to a bot"
                figures["states_checked"] += same_views(table, t, ev.num, wanted)
            t.close()
    finally:
        store.close()
    return figures


def report(name: str, room: Room, resumed: float, figures: dict[str, int]) -> None:
    answers: dict[str, int] = {}
    for p in room.people:
        for code, n in p.answers.items():
            answers[code] = answers.get(code, 0) + n
    print(f"\n{name}: resumed in {resumed:.2f} s; {figures['events']} events, "
          f"{figures['states_checked']} states compared with the database; refusals {answers}")


@pytest.mark.parametrize("cluster", [True, False], ids=["cluster", "single-server"])
def test_postgresql_stopped_for_ten_seconds_loses_and_invents_nothing(own: tuple[Postgres, Redis],
                                                                      cluster: bool) -> None:
    """Two servers and a worker, or one server on PostgreSQL without Redis: the same events,
    the same guarantee."""
    pg, rd = own
    room = start_room(pg, rd if cluster else None)
    try:
        pg.stop()
        room.play_for(10)  # people keep trying: "not saved" answers, nothing shown that is not stored
        pg.start()
        resumed = resume_time(room, time.monotonic())
        assert resumed < RESUME_WITHIN, f"play resumed {resumed:.1f} s after PostgreSQL came back"
        room.play_for(4)
        refused = sum(p.answers.get("NOT_SAVED", 0) for p in room.people)
        figures = check_stored(pg.url, room)
        report(f"{'' if cluster else 'single server, '}PostgreSQL stopped 10 s", room, resumed, figures)
        assert refused > 0, "no move was tried while the database was away: the test tested nothing"
    finally:
        room.close()


def test_a_hung_postgresql_stalls_no_server(own: tuple[Postgres, Redis]) -> None:
    """SIGSTOP on every PostgreSQL process: connections stay open and nothing answers.
    The servers keep answering (no database call blocks the event loop), moves are
    refused as not saved, and play resumes once the database does."""
    pg, rd = own
    room = start_room(pg, rd)
    slowest = 0.0
    try:
        paused = pg.pause()
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                room.play_for(0.5)
                for server in (room.s1, room.s2):
                    assert server is not None
                    began = time.monotonic()
                    r = httpx.get(f"{server.url}/healthz", timeout=10)
                    slowest = max(slowest, time.monotonic() - began)
                    assert r.status_code == 200, r.text
        finally:
            pg.resume(paused)
        resumed = resume_time(room, time.monotonic())
        assert resumed < RESUME_WITHIN, f"play resumed {resumed:.1f} s after PostgreSQL answered again"
        room.play_for(4)
        refused = sum(p.answers.get("NOT_SAVED", 0) for p in room.people)
        figures = check_stored(pg.url, room)
        report(f"PostgreSQL hung 10 s (slowest /healthz {slowest:.2f} s)", room, resumed, figures)
        assert refused > 0, "no move was tried while the database hung: the test tested nothing"
        assert slowest < 1.0, f"a server took {slowest:.2f} s to answer /healthz while the database hung"
    finally:
        room.close()


def test_a_server_killed_its_players_go_on_at_the_other(own: tuple[Postgres, Redis]) -> None:
    pg, rd = own
    room = start_room(pg, rd)
    try:
        assert room.s1.proc is not None
        room.s1.proc.send_signal(signal.SIGKILL)
        room.s1.proc.wait()
        killed = time.monotonic()
        assert room.s2 is not None
        for p in room.people:
            if p.server is room.s1:
                p.move_to(room.s2)
        resumed = resume_time(room, killed)
        assert resumed < RESUME_WITHIN, f"play resumed {resumed:.1f} s after the server was killed"
        room.play_for(GRACE + 3)  # the dead server's sockets are forgotten; nobody is handed to a bot
        figures = check_stored(pg.url, room)
        report("a server killed", room, resumed, figures)
        everyone_seated(room)
    finally:
        room.close()


def test_redis_killed_and_restarted_empty(own: tuple[Postgres, Redis]) -> None:
    pg, rd = own
    room = start_room(pg, rd)
    try:
        rd.kill()
        room.play_for(3)
        rd.start()  # the same port, no keys: queue, presence and liveness are gone
        resumed = resume_time(room, time.monotonic())
        assert resumed < RESUME_WITHIN, f"play resumed {resumed:.1f} s after Redis came back"
        room.play_for(GRACE + 3)  # past the grace period: nobody connected is handed to a bot
        assert room.worker is not None and room.worker.proc is not None and room.worker.proc.poll() is None, \
            "the worker exited"
        figures = check_stored(pg.url, room)
        report("Redis killed and restarted", room, resumed, figures)
        for p in room.people:
            assert p.state["players"][p.seat]["connected"], f"seat {p.seat} of {p.table} is shown away"
    finally:
        room.close()


def test_a_server_paused_for_ten_seconds_keeps_its_players_seats(own: tuple[Postgres, Redis]) -> None:
    pg, rd = own
    room = start_room(pg, rd)
    try:
        assert room.s1.proc is not None
        room.s1.proc.send_signal(signal.SIGSTOP)  # longer than a server's liveness: the other thinks it dead
        room.play_for(10)
        room.s1.proc.send_signal(signal.SIGCONT)
        resumed = resume_time(room, time.monotonic())
        assert resumed < RESUME_WITHIN, f"play resumed {resumed:.1f} s after the server continued"
        room.play_for(GRACE + 3)  # the grace period of a seat marked away has run out by now
        figures = check_stored(pg.url, room)
        report("a server SIGSTOPped 10 s", room, resumed, figures)
        everyone_seated(room)
    finally:
        room.close()


def test_the_worker_killed_mid_play_is_replaced(own: tuple[Postgres, Redis]) -> None:
    pg, rd = own
    room = start_room(pg, rd)
    try:
        assert room.worker is not None
        room.worker.kill()
        room.play_for(2)
        room.worker = WorkerProcess(pg.url, server_args(rd.url)).start()
        resumed = resume_time(room, time.monotonic())
        assert resumed < RESUME_WITHIN, f"play resumed {resumed:.1f} s after a new worker started"
        room.play_for(3)
        figures = check_stored(pg.url, room)
        report("the worker killed", room, resumed, figures)
    finally:
        room.close()


def test_a_single_server_killed_and_started_again_goes_on_where_it_was(own: tuple[Postgres, Redis]) -> None:
    """One server killed mid-play and started again on the same database: every table is read
    back from its events, its people reconnect within the grace period and keep their seats."""
    pg, _ = own
    room = start_room(pg, None)
    try:
        assert room.s1.proc is not None
        room.s1.proc.send_signal(signal.SIGKILL)
        room.s1.proc.wait()
        room.s1 = ServerProcess(pg.url, args=server_args(None)).start()
        back = time.monotonic()
        for p in room.people:
            p.move_to(room.s1)
        resumed = resume_time(room, back)
        assert resumed < RESUME_WITHIN, f"play resumed {resumed:.1f} s after the server was started again"
        room.play_for(GRACE + 3)  # past the grace period: nobody who came back is handed to a bot
        figures = check_stored(pg.url, room)
        report("single server killed and started again", room, resumed, figures)
        everyone_seated(room)
    finally:
        room.close()
