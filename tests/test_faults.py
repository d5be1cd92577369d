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
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
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
websockets_exceptions = need("websockets.exceptions")

from canasta.bots import make_bot  # noqa: E402
from canasta.views.seat import SeatView  # noqa: E402
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
    #: where the page reconnects when its socket is closed (a load balancer's ready server); None: it does not
    fallback: Callable[[], ServerProcess] | None = None
    closed: list[tuple[float, int, str]] = field(default_factory=list)  # (when, code, reason) of closes seen
    moved_to: list[tuple[float, ServerProcess]] = field(default_factory=list)  # reconnections, when and where
    dealt_for: int = -1  # the state (seq) at which this person last asked for the next hand

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
        """Send a move if it is this person's turn and no move of theirs is unanswered; a closed
        socket reconnects through :attr:`fallback`, as the page does behind a load balancer."""
        try:
            self.pump()
        except websockets_exceptions.ConnectionClosed as exc:
            if self.fallback is None:
                raise
            rcvd = exc.rcvd
            self.closed.append((time.monotonic(), rcvd.code if rcvd else 1006, rcvd.reason if rcvd else ""))
            target = self.fallback()
            self.move_to(target)
            self.moved_to.append((time.monotonic(), target))
            return
        st = self.state
        if st.get("hand_over") and st.get("status") == "playing" and not st.get("match_over") \
                and self.dealt_for != st["seq"]:
            self.dealt_for = st["seq"]  # a hand is over: deal the next one (once per state), as a person clicks
            self.ws.send(json.dumps({"type": "next_hand"}))
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

    def ready_server(self) -> ServerProcess:
        """The first server whose /readyz says ready (as a load balancer picks for a page that
        reconnects)."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for server in (self.s1, self.s2):
                if server is None or server.proc is None or server.proc.poll() is not None:
                    continue
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{server.url}/readyz", timeout=2).status_code == 200:
                        return server
            time.sleep(0.2)
        raise AssertionError("no server was ready for 30 s")

    def wait_for_a_turn(self, seconds: float = 30) -> None:
        """Read until some person is to move (without playing it)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for p in self.people:
                p.pump()
                if p.my_move() and p.waiting_since is None:
                    return
            time.sleep(0.02)
        raise AssertionError(f"nobody was to move for {seconds:g} s")

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


class Link:
    """A TCP path to a service that can be cut as a network partition cuts it: nothing is
    refused, what is sent is held (connections and new connections hang) until it is healed."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.open = threading.Event()
        self.open.set()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def url_of(self, url: str, port: int) -> str:
        """``url`` (of the service on ``port``) through this path."""
        return url.replace(f":{port}/", f":{self.port}/")

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._join, args=(client,), daemon=True).start()

    def _join(self, client: socket.socket) -> None:
        self.open.wait()
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target))
        except OSError:
            client.close()
            return
        self.sockets += [client, upstream]
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := a.recv(65536):
                self.open.wait()  # cut: held here, as the network holds it
                b.sendall(data)
        for end in (a, b):
            with contextlib.suppress(OSError):
                end.close()

    def cut(self) -> None:
        self.open.clear()

    def heal(self) -> None:
        self.open.set()

    def close(self) -> None:
        self.open.set()
        self.listener.close()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()


def start_room(pg: Postgres, rd: Redis | None, tables: int = 3,
               s1_links: tuple[Link, Link] | None = None) -> Room:
    """Two servers and a worker on ``pg`` and ``rd``; one server on ``pg`` alone if ``rd`` is None.
    ``s1_links``: server 1 reaches PostgreSQL and Redis through these (so they can be cut)."""
    args = server_args(None if rd is None else rd.url)
    worker = None if rd is None else WorkerProcess(pg.url, args).start()
    if s1_links is not None and rd is not None:
        db_link, redis_link = s1_links
        s1 = ServerProcess(db_link.url_of(pg.url, pg.port),
                           args=server_args(redis_link.url_of(rd.url, rd.port))).start()
    else:
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
    if s2 is not None:  # a page whose socket is closed reconnects, through the proxy, to a ready server
        for p in room.people:
            p.fallback = room.ready_server
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


class Probes:
    """What a load balancer and visitors send each server while a test runs, from threads: the
    readiness probe (every 0.5 s), and in turn a table's page, the lobby's list, a table's
    lobby entry and a new table.  Every answer is kept: (when, server, kind, status, seconds);
    status 0: no answer within 15 s."""

    def __init__(self, servers: list[ServerProcess], table: str) -> None:
        self.answers: list[tuple[float, str, str, int, float]] = []
        self.done = threading.Event()
        create = {"preset": "classic-4p", "name": "Probe", "seat": 0,
                  "seats": [{}, *[{"kind": "bot", "level": "basic"}] * 3]}
        asks = [("readyz", "GET", "/readyz", None, 0.5), ("page", "GET", f"/t/{table}", None, 0.2),
                ("lobby", "GET", "/api/tables", None, 0.2), ("table", "GET", f"/api/tables/{table}", None, 0.2),
                ("create", "POST", "/api/tables", create, 0.2)]
        self.threads = [threading.Thread(target=self._loop, args=(s, *ask), daemon=True) for s in servers for ask in asks]
        for t in self.threads:
            t.start()

    def _loop(self, server: ServerProcess, kind: str, method: str, path: str, body: Msg | None, every: float) -> None:
        """One kind of request to one server, again and again, each answer kept."""
        with httpx.Client() as client:
            while not self.done.wait(every):
                began = time.monotonic()
                try:
                    status = client.request(method, server.url + path, timeout=15, json=body).status_code
                except httpx.HTTPError:
                    status = 0
                self.answers.append((began, server.url, kind, status, time.monotonic() - began))

    def stop(self) -> None:
        self.done.set()
        for t in self.threads:
            t.join(20)

    def between(self, start: float, end: float, kind: str | None = None) -> list[tuple[float, str, str, int, float]]:
        return [a for a in self.answers if start <= a[0] < end and (kind is None or a[2] == kind)]


def test_a_hung_postgresql_stalls_no_server(own: tuple[Postgres, Redis]) -> None:
    """SIGSTOP on every PostgreSQL process: connections stay open and nothing answers.  While
    a readiness probe, page loads, lobby calls and table creations go on at both servers,
    every server keeps answering: /healthz within 100 ms, /readyz failing within about a
    second (no address in its answer), every other request answered (a 503 at worst) within
    the database timeout; moves are refused, and play resumes once the database answers."""
    pg, rd = own
    room = start_room(pg, rd)
    servers = [room.s1, room.s2]
    assert room.s2 is not None
    probes = Probes([room.s1, room.s2], room.tables[0])
    health: list[float] = []
    bodies: list[str] = []
    try:
        room.play_for(2)
        room.wait_for_a_turn()  # someone is to move when the database hangs: a move is tried during it
        paused = pg.pause()
        hung = time.monotonic()
        try:
            with httpx.Client() as client:
                while time.monotonic() < hung + 10:
                    room.play_for(0.1)
                    for server in servers:
                        assert server is not None
                        began = time.monotonic()
                        r = client.get(f"{server.url}/healthz", timeout=10)
                        health.append(time.monotonic() - began)
                        assert r.status_code == 200, r.text
                        if time.monotonic() > hung + 2:
                            ready = client.get(f"{server.url}/readyz", timeout=10)
                            bodies.append(ready.text)
        finally:
            pg.resume(paused)
        back = time.monotonic()
        resumed = resume_time(room, back)
        assert resumed < RESUME_WITHIN, f"play resumed {resumed:.1f} s after PostgreSQL answered again"
        room.play_for(4)
        probes.stop()
        refused = sum(p.answers.get("NOT_SAVED", 0) + p.answers.get("UNKNOWN", 0) for p in room.people)
        figures = check_stored(pg.url, room)
        during = probes.between(hung + 1.5, back)
        ready = [a for a in during if a[2] == "readyz"]
        others = [a for a in during if a[2] != "readyz"]
        health.sort()
        report(f"PostgreSQL hung 10 s (/healthz: {len(health)} asked, median {health[len(health) // 2] * 1000:.1f} ms, "
               f"slowest {health[-1] * 1000:.1f} ms; /readyz: {len(ready)} probes, slowest "
               f"{max((a[4] for a in ready), default=0) * 1000:.0f} ms; other requests: {len(others)}, slowest "
               f"{max((a[4] for a in others), default=0):.2f} s, statuses "
               f"{sorted({(a[2], a[3]) for a in others})})", room, resumed, figures)
        assert refused > 0, "no move was tried while the database hung: the test tested nothing"
        assert health[-1] < 0.1, f"a server took {health[-1] * 1000:.0f} ms to answer /healthz while the database hung"
        assert ready and all(a[3] == 503 for a in ready), f"readiness during the hang: {ready}"
        assert max(a[4] for a in ready) < 1.5, f"a readiness probe took {max(a[4] for a in ready):.2f} s"
        assert bodies and not any("127.0.0.1" in b or str(pg.port) in b for b in bodies), bodies
        assert {a[2] for a in others} == {"page", "lobby", "table", "create"}, "some requests were never sent"
        assert all(a[3] in (200, 503) for a in others), f"answers during the hang: {sorted({a[3] for a in others})}"
        assert max(a[4] for a in others) < 7.0, f"a request took {max(a[4] for a in others):.1f} s"
        after = probes.between(back + 2, time.monotonic(), "readyz")
        assert after and after[-1][3] == 200, "readiness did not come back"
    finally:
        probes.stop()
        room.close()


@pytest.mark.parametrize("seconds", [30, pytest.param(120, marks=pytest.mark.soak)])
def test_a_server_cut_off_from_both_stores_hands_no_connected_seat_to_a_bot(own: tuple[Postgres, Redis],
                                                                            seconds: int) -> None:
    """Server 1 loses PostgreSQL and Redis (a network partition: nothing refused, nothing
    answered) for 30 s or (a soak: ``--soak``) 120 s, far past the grace period.  It notices within seconds, fails
    readiness and closes its sockets with a reason; the pages reconnect through the ready
    server and play on; no connected person's seat goes to a bot (no take-over event, no turn
    timer); after the partition server 1 is ready again."""
    pg, rd = own
    links = (Link(pg.port), Link(rd.port))
    room = start_room(pg, rd, s1_links=links)
    assert room.s2 is not None
    try:
        cut_off = [p for p in room.people if p.server is room.s1]
        assert cut_off
        for link in links:
            link.cut()
        cut = time.monotonic()
        room.play_for(GRACE - 2, until=lambda: all(p.moved_to for p in cut_off))
        moved = [p.moved_to[0][0] - cut if p.moved_to else None for p in cut_off]
        assert all(m is not None for m in moved), f"pages not reconnected {GRACE - 2} s into the partition"
        seen = room.heads()
        r = httpx.get(f"{room.s1.url}/readyz", timeout=5)
        assert r.status_code == 503 and "127.0.0.1" not in r.text, r.text
        room.play_for(max(0.0, cut + seconds - time.monotonic()))
        moved_on = room.heads()
        for link in links:
            link.heal()
        healed = time.monotonic()
        while time.monotonic() < healed + 15:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{room.s1.url}/readyz", timeout=2).status_code == 200:
                    break
            room.play_for(0.5)
        ready_again = time.monotonic() - healed
        room.play_for(3)
        figures = check_stored(pg.url, room)
        closes = [c for p in cut_off for c in p.closed]
        report(f"server 1 cut off from PostgreSQL and Redis for {seconds} s (its pages reconnected "
               f"{min(m or 0 for m in moved):.1f}-{max(m or 0 for m in moved):.1f} s after the cut; "
               f"ready again {ready_again:.1f} s after it healed)", room, 0.0, figures)
        assert all(c[1] == 1012 and "reconnect" in c[2] for c in closes), closes
        assert max(m or 0 for m in moved) < GRACE - 4, moved
        assert all(moved_on[t] > seen[t] for t in room.tables), "play stopped during the partition"
        assert ready_again < 15, "server 1 did not get ready again after the partition"
        everyone_seated(room)
    finally:
        room.close()
        for link in links:
            link.close()


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
        assert room.worker is not None and room.worker.proc is not None
        assert room.worker.proc.poll() is None, f"the worker exited: {room.worker.stderr_text()[-3000:]}"
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


def test_a_move_whose_commit_outcome_is_unknown_is_played_once_when_sent_again(own: tuple[Postgres, Redis]) -> None:
    """A move is sent while PostgreSQL hangs: the server gives up on the commit it sent, and
    says the outcome is unknown (not "nothing changed"); the database commits it when it
    resumes; the move sent again with the same key is answered with the stored result and
    the table holds it once."""
    pg, _ = own
    room = start_room(pg, None, tables=1)
    try:
        room.wait_for_a_turn()
        p = next(p for p in room.people if p.my_move())
        move = str(p.bot.choose(SeatView.from_dict({**p.state["view"], "rules": p.rules})))
        key = secrets.token_hex(8)

        def answer() -> Msg:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                msg = p.recv(1)
                if msg is not None and (msg["type"] == "moved" or (msg["type"] == "error" and msg.get("ref") == "move")):
                    return msg
            raise AssertionError("the move was not answered")

        paused = pg.pause()
        try:
            p.ws.send(json.dumps({"type": "move", "move": move, "key": key}))
            first = answer()
        finally:
            pg.resume(paused)
        assert first["code"] == "UNKNOWN" and first["key"] == key, first
        assert "not known" in first["message"] and "nothing changed" not in first["message"]
        p.ws.send(json.dumps({"type": "move", "move": move, "key": key}))  # the page sends it again
        again = answer()
        assert again["type"] == "moved" and again["again"] is True and again["key"] == key, again
        room.play_for(3)
        figures = check_stored(pg.url, room)
        import psycopg

        with psycopg.connect(pg.url) as conn:
            nums = [r[0] for r in conn.execute("SELECT num FROM canasta_events WHERE table_id = %s AND data LIKE %s",
                                               (p.table, f'%"key": "{key}"%')).fetchall()]
        assert nums == [again["num"]], f"the move is stored as events {nums}"
        report("a move's commit outcome unknown, sent again", room, 0.0, figures)
    finally:
        room.close()


def test_keys_rotated_and_secrets_reencrypted_while_the_room_plays(own: tuple[Postgres, Redis]) -> None:
    """The documented rotation, one process at a time while people play: the new key added
    second everywhere, then put first, the stored secrets re-encrypted in batches while the
    room plays (no move refused), then the old key dropped.  A server given the new key alone
    before the re-encryption says so and is not ready.  Afterwards every secret opens with
    the new key alone."""
    from canasta.web.vault import ENV, Vault, new_key

    pg, rd = own
    old, new = os.environ[ENV], new_key()
    room = start_room(pg, rd)
    assert room.s2 is not None and room.worker is not None
    # rows enough that one transaction over all of them would hold the room up: sealed with the old key
    import psycopg

    vault, fake_tables, per_table = Vault([old], "the test"), 4, 10000
    header = json.dumps(vault.seal({"fair": {"deals": [{"hand": 1, "secret": "ab" * 32}]}, "hands": [[]]}))
    with psycopg.connect(pg.url) as conn:
        for i in range(fake_tables):
            conn.execute("INSERT INTO canasta_tables VALUES (%s, 0, 0, 'finished', '{}', %s, 1, %s)",
                         (f"bulk{i}", header, per_table))
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO canasta_events VALUES (%s, %s, 'deal', -1, '', %s, 0)", [
                    (f"bulk{i}", n, json.dumps(vault.seal({"pending": {"hand": n, "secret": f"{n:064x}"}})))
                    for n in range(1, per_table + 1)])

    def env(keys: str) -> dict[str, str]:
        return {**os.environ, ENV: keys}

    def replace(which: str, keys: str) -> None:
        """A rolling restart of one process with ``keys``: the new one started, its people moved, the old stopped."""
        if which == "worker":
            fresh_worker = WorkerProcess(pg.url, server_args(rd.url), env=env(keys)).start()
            assert room.worker is not None
            room.worker.stop()
            room.worker = fresh_worker
            return
        was: ServerProcess = getattr(room, which)
        fresh = ServerProcess(pg.url, args=server_args(rd.url), env=env(keys)).start()
        ready = httpx.get(f"{fresh.url}/readyz", timeout=5)
        assert ready.status_code == 200, f"{which} with keys {keys!r}: {ready.text}"
        for p in room.people:
            if p.server is was:
                p.move_to(fresh)
        was.stop()
        setattr(room, which, fresh)
        room.play_for(1)

    try:
        for which in ("s1", "s2", "worker"):  # 1. the new key added, second: read everywhere, written nowhere yet
            replace(which, f"{old},{new}")
        for which in ("s1", "s2", "worker"):  # 2. put first: new secrets are written with it
            replace(which, f"{new},{old}")
        room.play_for(3)
        lone = ServerProcess(pg.url, args=server_args(rd.url), env=env(new)).start()  # too early: the old key dropped
        try:
            said = httpx.get(f"{lone.url}/readyz", timeout=5)
            assert said.status_code == 503 and "keys" in said.json()["reason"], said.text
        finally:
            lone.stop()
        assert "do not open the stored secrets" in lone.stderr_text()
        # 3. every stored secret written again with the new key, while the room plays
        for p in room.people:
            p.answers.clear()
        before = room.heads()
        code = "import sys; from canasta.cli import main; sys.exit(main(sys.argv[1:]))"
        began = time.monotonic()
        job = subprocess.Popen([sys.executable, "-c", code, "serve", "--db", pg.url, "--reencrypt-secrets"],
                               env=env(f"{new},{old}"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        room.play_for(120, until=lambda: job.poll() is not None)
        took = time.monotonic() - began
        out = job.communicate(timeout=30)[0].decode(errors="replace")
        assert job.returncode == 0, out
        rows = fake_tables * (per_table + 1)
        refused = {code: n for p in room.people for code, n in p.answers.items()}
        room.play_for(2)
        moved = room.heads()
        assert not refused, f"moves refused during the re-encryption: {refused}"
        assert all(moved[t] > before[t] for t in room.tables), \
            f"play stopped during the re-encryption ({took:.1f} s): {before} then {moved}"
        for which in ("s1", "s2", "worker"):  # 4. the old key dropped
            replace(which, new)
        room.play_for(3)
        os.environ[ENV] = new  # what the checks below read the database with
        figures = check_stored(pg.url, room)
        from canasta.web.store import Store

        store = Store(pg.url)
        try:
            assert store.check_keys(sample=fake_tables + len(room.tables)) is None
            assert store.events_after("bulk0", per_table - 1)[0].data == {"pending": {"hand": per_table,
                                                                                       "secret": f"{per_table:064x}"}}
        finally:
            store.close()
        report(f"keys rotated; {rows}+ rows re-encrypted in {took:.1f} s while the room played "
               f"({out.strip().splitlines()[-1]})", room, 0.0, figures)
    finally:
        os.environ[ENV] = old
        room.close()
