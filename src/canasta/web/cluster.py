"""Several ``canasta serve`` processes on one database, with Redis to fan out.

``canasta serve --db postgresql://… --redis redis://…`` runs as one of N equal
server processes; ``canasta serve --worker --db … --redis …`` as one of M workers.

* **The record** is PostgreSQL: a table's header (rules, seeds, the first hand's
  fair-deal secret) is written when it is made; every change after that is one
  row of ``canasta_events``, append-only, keyed by (table, event number).  A
  process accepts a change only by inserting the next number (optimistic
  concurrency): when two processes race on a table, the database refuses the
  second insert, and the loser re-reads the table and answers from the truth.
  Changes that hold secrets (a deal draws the next hand's secret) carry them in
  the event row, so the fair-deal state is written by the same single insert.
* **Fan-out** is Redis pub/sub: every accepted event is published on the table's
  channel (``PREFIX:t:TABLE``); each server applies it to its copy of the table
  and sends each of its own sockets that seat's view.  A deal's data (the next
  secret) is never published: servers read it from the database.  A server that
  sees a gap in the numbers, reconnects to Redis, or finds the database ahead
  (checked every few seconds) catches up from PostgreSQL.
* **Bots, timers and stand-ins** run in workers fed by an arq queue in Redis.
  After each event the writer enqueues what the new state waits for, each job
  with an id naming the state it belongs to (``bot:TABLE:N``, ``turn:TABLE:H:T:S``,
  ``deal:TABLE:H:…``, ``grace:TABLE:SEAT:N``), deferred to when it is due; a job id
  is enqueued once, however many processes ask.  A job re-reads the table and
  acts only if the state it was made for is still there, and writes through the
  same single insert, so a job run twice (a dead worker's job is retried) still
  changes the table at most once.
* **Presence** (which seats have a socket somewhere) is a Redis hash per table
  (``SERVER:SEAT`` → open sockets) beside a liveness key per server; a change is
  an event, so every server shows the same seats connected.  A killed server's
  seats drop out once its liveness key expires.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import secrets
import sys
import time
from collections.abc import AsyncIterator, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Text,
    bindparam,
    create_engine,
    event,
    select,
    text,
    update,
)
from sqlalchemy import Table as SqlTable
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from canasta.bots import make_bot
from canasta.errors import CanastaError, IllegalMoveError
from canasta.fairdeal import FairDeal
from canasta.table import Table
from canasta.web.botpool import decision_seed
from canasta.web.language import refused, say_error
from canasta.web.room import BUSY, NO_NEXT_DEAL, NOTHING_TO_UNDO, QUICK_BOTS, Conn, Hub, Room, Settings, error
from canasta.web.store import (
    SeatRow,
    Store,
    TableRow,
    _sqlite_pragmas,
    metadata,
    normalise_url,
    seats_t,
    tables_t,
)

cluster_metadata = MetaData()

events_t = SqlTable(
    "canasta_events", cluster_metadata,
    Column("table_id", String(32), primary_key=True),
    Column("num", Integer, primary_key=True),  # the event number (the clients' seq); one writer per number
    Column("kind", String(16), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("line", String(400), nullable=False),  # the move, the seed, the name
    Column("data", Text, nullable=True),  # JSON: a deal's next secret, presence, pace
    Column("at", Float, nullable=False),
)

_INSERT_EVENT = events_t.insert()  # the hot path: statements built once, only parameters change
_TOUCH = update(tables_t).where(tables_t.c.id == bindparam("tid")).values(
    seq=bindparam("seq"), status=bindparam("status"), hands=bindparam("hands"), updated=bindparam("updated"))
_EVENTS_AFTER = select(events_t).where(events_t.c.table_id == bindparam("tid"), events_t.c.num > bindparam("num")) \
    .order_by(events_t.c.num)
SECRET_KINDS = frozenset({"deal"})  # events whose data is never published (read from the database)
ROOM_STATE = ("table", "seats", "config", "status", "seq", "takeover", "auto_turn", "present", "gone",
              "deadline", "timer_key", "deal_at", "deal_key", "last_active", "last_event_at")
RETRIES = 3  # a change lost to another writer is re-checked against the truth and tried again


@dataclass
class ClusterConfig:
    redis_url: str
    prefix: str = "canasta"  # every Redis key, channel, queue and job id starts with it
    server_id: str = field(default_factory=lambda: secrets.token_hex(6))
    heartbeat: float = 2.0  # seconds between a server's liveness refreshes and database checks
    alive_ttl: float = 6.0  # a server not heard of for this long is gone (its sockets with it)
    stall: float = 2.0  # a job due this long ago whose state still waits is enqueued again

    @property
    def queue(self) -> str:
        return f"{self.prefix}:queue"

    def channel(self, table_id: str) -> str:
        return f"{self.prefix}:t:{table_id}"

    def presence_key(self, table_id: str) -> str:
        return f"{self.prefix}:presence:{table_id}"

    def alive_key(self, server_id: str) -> str:
        return f"{self.prefix}:alive:{server_id}"


@dataclass
class Event:
    num: int
    kind: str
    seat: int = -1
    line: str = ""
    data: dict[str, Any] | None = None
    at: float = 0.0

    def message(self, server_id: str) -> str:
        out: dict[str, Any] = {"from": server_id, "num": self.num, "kind": self.kind, "seat": self.seat,
                               "line": self.line, "at": self.at}  # "from" first: a server skips its own unread
        if self.kind not in SECRET_KINDS:
            out["data"] = self.data
        return json.dumps(out)

    @staticmethod
    def from_message(msg: dict[str, Any]) -> Event | None:
        """The event a publication carries, or None if it must be read from the database."""
        if "data" not in msg:
            return None
        return Event(int(msg["num"]), str(msg["kind"]), int(msg["seat"]), str(msg["line"]), msg["data"],
                     float(msg["at"]))


class Conflict(Exception):
    """Another process wrote this event number first."""


class ClusterStore(Store):
    """The store of a cluster: tables and seats as made, then their events."""

    def __init__(self, url: str) -> None:
        self.url = normalise_url(url)
        try:
            self.engine: Engine = create_engine(self.url, future=True, pool_size=10, max_overflow=10) \
                if not self.url.startswith("sqlite") else create_engine(self.url, future=True)
        except Exception as exc:
            hint = " (pip install 'canasta[cluster-web]')" if "postgres" in self.url else ""
            raise CanastaError(f"cannot open database {url!r}: {exc}{hint}") from None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            with self.engine.begin() as db:
                if self.engine.dialect.name == "postgresql":  # servers starting together: one creates the tables
                    db.execute(text("SELECT pg_advisory_xact_lock(7310452)"))
                metadata.create_all(db)
                cluster_metadata.create_all(db)
        except Exception as exc:
            raise CanastaError(f"cannot open database {url!r}: {exc}") from None

    def create(self, row: TableRow) -> None:
        """The table as made: its header (with the hands dealt so far, empty) and seats."""
        with self.engine.begin() as db:
            db.execute(tables_t.insert().values(
                id=row.id, created=row.created, updated=row.updated, status=row.status,
                config=json.dumps(row.config), header=json.dumps(row.state),
                hands=len(row.state.get("hands", [])), seq=row.seq))
            for s in row.seats:
                db.execute(seats_t.insert().values(
                    table_id=row.id, seat=s.seat, kind=s.kind, name=s.name, level=s.level,
                    token_hash=s.token_hash, invite_hash=s.invite_hash))

    def append(self, table_id: str, ev: Event, status: str, hands: int, seat: SeatRow | None = None) -> None:
        """Write event ``ev.num``; :class:`Conflict` if that number is taken."""
        try:
            with self.engine.begin() as db:
                db.execute(_INSERT_EVENT, {"table_id": table_id, "num": ev.num, "kind": ev.kind, "seat": ev.seat,
                                           "line": ev.line, "data": None if ev.data is None else json.dumps(ev.data),
                                           "at": ev.at})
                db.execute(_TOUCH, {"tid": table_id, "seq": ev.num, "status": status, "hands": hands,
                                    "updated": ev.at})
                if seat is not None:  # a person sat down: the lobby and the history show the name
                    db.execute(update(seats_t).where(seats_t.c.table_id == table_id, seats_t.c.seat == seat.seat)
                               .values(name=seat.name))
        except IntegrityError:
            raise Conflict(f"event {ev.num} of table {table_id} was written by another process") from None

    def events_after(self, table_id: str, num: int) -> list[Event]:
        with self.engine.connect() as db:
            rows = db.execute(_EVENTS_AFTER, {"tid": table_id, "num": num}).all()
        return [Event(r.num, r.kind, r.seat, r.line, None if r.data is None else json.loads(r.data), r.at)
                for r in rows]

    def load_base(self, table_id: str) -> tuple[TableRow, list[Event]] | None:
        """The table as made (``state``: its header) and every event since."""
        with self.engine.connect() as db:
            t = db.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            if t is None:
                return None
            srows = db.execute(select(seats_t).where(seats_t.c.table_id == table_id).order_by(seats_t.c.seat)).all()
        seats = [SeatRow(s.seat, s.kind, s.name, s.level, s.token_hash, s.invite_hash) for s in srows]
        row = TableRow(t.id, t.created, t.updated, t.status, json.loads(t.config), json.loads(t.header), 0, seats)
        return row, self.events_after(table_id, 0)

    def load(self, table_id: str) -> TableRow | None:
        """The whole table (``state``: ``Table.to_dict()`` after every event), for records and replays."""
        got = self.load_base(table_id)
        if got is None:
            return None
        row, events = got
        table = Table.from_dict(row.state)
        for ev in events:
            apply_to_table(table, ev)
        row.state, row.seq = table.to_dict(), (events[-1].num if events else 0)
        status = self._status(table_id)
        row.status = status or row.status
        table.close()
        return row

    def _status(self, table_id: str) -> str | None:
        with self.engine.connect() as db:
            value = db.execute(select(tables_t.c.status).where(tables_t.c.id == table_id)).scalar()
        return None if value is None else str(value)

    def unfinished(self) -> list[TableRow]:
        return []  # a cluster server loads tables when they are asked for

    def finished(self, limit: int = 100) -> list[TableRow]:
        """Finished tables for the history list: names from the seats, hands counted."""
        with self.engine.connect() as db:
            trows = db.execute(select(tables_t).where(tables_t.c.status == "finished")
                               .order_by(tables_t.c.updated.desc()).limit(limit)).all()
            out = []
            for t in trows:
                names = [s.name for s in db.execute(select(seats_t.c.name).where(seats_t.c.table_id == t.id)
                                                    .order_by(seats_t.c.seat)).all()]
                state = {**json.loads(t.header), "names": names, "hands": [[]] * t.hands}
                out.append(TableRow(t.id, t.created, t.updated, t.status, json.loads(t.config), state, t.seq, []))
        return out

    def heads(self, table_ids: Sequence[str]) -> dict[str, int]:
        """The last event number of each table."""
        if not table_ids:
            return {}
        with self.engine.connect() as db:
            rows = db.execute(select(tables_t.c.id, tables_t.c.seq).where(tables_t.c.id.in_(list(table_ids)))).all()
        return {r.id: r.seq for r in rows}

    def ids_with_status(self, status: str, limit: int = 50) -> list[str]:
        with self.engine.connect() as db:
            rows = db.execute(select(tables_t.c.id).where(tables_t.c.status == status)
                              .order_by(tables_t.c.updated.desc()).limit(limit)).all()
        return [r.id for r in rows]

    def idle_ids(self, before: float, limit: int = 100) -> list[str]:
        """Tables in play with no change since ``before``."""
        with self.engine.connect() as db:
            rows = db.execute(select(tables_t.c.id).where(tables_t.c.status.in_(("open", "playing")),
                                                          tables_t.c.updated < before).limit(limit)).all()
        return [r.id for r in rows]

    def ping(self) -> None:
        with self.engine.connect() as db:
            db.execute(text("SELECT 1"))


def apply_to_table(table: Table, ev: Event) -> None:
    """The part of an event that changes the game (the rest is the room's)."""
    k = ev.kind
    if k == "move":
        ev.line = str(table.play(ev.seat, ev.line))  # the writer stores the move as the engine writes it
    elif k == "undo":
        table.undo(ev.seat)
    elif k == "deal":
        table.next_hand()
        if table.fair:
            if ev.data is None:  # the writer: the next hand's secret, drawn now, goes into the event
                assert table.pending is not None
                ev.data = {"pending": table.pending.to_dict()}
            else:
                table.pending = FairDeal.from_dict(ev.data["pending"], table.rules.players)
    elif k == "seed":
        table.set_client_seed(ev.seat, ev.line)
    elif k == "join":
        table.rename(ev.seat, ev.line)


@dataclass
class ClusterRoom(Room):
    """A live table of a cluster: its state is the events in the database, applied in order."""

    present: set[int] = field(default_factory=set)  # seats with a socket on some live server
    gone: dict[int, tuple[int, float]] = field(default_factory=dict)  # seat -> (event, time) it was last seen
    deal_key: tuple[int, bool] | None = None  # (hand, now?) of the deal this table waits for
    last_event_at: float = 0.0
    jobs_sent: set[str] = field(default_factory=set)
    presence_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    write_lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one write of this table at a time here
    behind: bool = False  # events were published while a write was under way
    catching: bool = False  # a task is reading missed events
    asking: Conn | None = None  # the connection whose message is being handled

    @property
    def chub(self) -> ClusterHub:
        assert isinstance(self.hub, ClusterHub)
        return self.hub

    # ------------------------------------------------------------ the state

    def connected(self, seat: int) -> bool:
        return seat in self.present

    def any_human_connected(self) -> bool:
        return bool(self.present)

    def apply_event(self, ev: Event) -> None:
        """Apply one event (the next number) to this copy of the table."""
        if ev.num != self.seq + 1:
            raise CanastaError(f"event {ev.num} does not follow {self.seq}")
        apply_to_table(self.table, ev)
        k, data = ev.kind, ev.data or {}
        if k == "join":
            s = self.seats[ev.seat]
            s.kind, s.name, s.token_hash, s.invite_hash = "human", ev.line, data.get("token_hash"), None
        elif k == "pace":
            self.config["bot_delay"] = float(data["seconds"])
        elif k == "presence":
            self.present = {int(x) for x in data["present"]}
            self.takeover = {int(x) for x in data["takeover"]}
            for s in self.seats:
                if s.seat in self.present:
                    self.gone.pop(s.seat, None)
                elif s.kind == "human" and s.seat not in self.gone:
                    self.gone[s.seat] = (ev.num, ev.at)
        elif k == "auto_turn":
            self.auto_turn = ev.seat
        elif k == "abandon":
            self.status = "abandoned"
        self.seq = ev.num
        self.last_event_at = ev.at
        self.last_active = ev.at
        if self.status != "abandoned":
            self.status = "finished" if self.table.match_over else ("playing" if self.filled() else "open")
        t = self.table
        if self.auto_turn is not None and (not t.dealt or t.hand_over or t.game.to_move != self.auto_turn):
            self.auto_turn = None
        self._derive_timers(ev.at)

    def _derive_timers(self, at: float) -> None:
        """The turn timer's deadline and the next deal's time, from the event that started them
        (so every process shows the same)."""
        seconds = float(self.config.get("turn_seconds") or 0)
        t = self.table
        if seconds <= 0 or not t.dealt or t.hand_over or self.status != "playing" or self.bot_plays(t.game.to_move):
            key = None
        else:
            key = (t.hand_number, t.game.turn_no, t.game.to_move)
        if key != self.timer_key:
            self.timer_key = key
            self.deadline = None if key is None else at + seconds
        delay = self._deal_delay()
        dkey = None if delay is None else (t.hand_number, delay == 0.0)
        if dkey != self.deal_key:
            self.deal_key = dkey
            self.deal_at = None if delay is None else at + delay

    async def commit(self, kind: str, seat: int = -1, line: str = "", data: dict[str, Any] | None = None) -> bool:
        """Apply a change and write it as the next event.  False: another process wrote
        first; the room has been re-read from the database (answer from it)."""
        async with self.writing():
            return await self._write(kind, seat, line, data)

    async def _write(self, kind: str, seat: int, line: str, data: dict[str, Any] | None) -> bool:
        """:meth:`commit` with the write lock held.  The database write runs in a thread,
        so the loop serves other tables while it waits for the commit to be durable."""
        ev = Event(self.seq + 1, kind, seat, line, data, time.time())
        self.apply_event(ev)  # refuses an illegal move before anything changes
        joined = self.seats[seat] if kind == "join" else None
        try:
            await asyncio.to_thread(self.chub.store.append, self.id, ev, self.status, len(self.table.moves), joined)
        except Conflict:
            self.chub.metrics.conflicts += 1
            await self.areload()
            self.broadcast()  # the truth, which the other writer's publication will not bring (it is read)
            return False
        except BaseException:
            self.reload()  # the database failed: this copy must not run ahead of it
            raise
        self.chub.metrics.events[kind] += 1
        self.chub.publish(self.id, ev)
        self.broadcast()
        self.schedule()
        return True

    async def areload(self) -> None:
        """:meth:`reload` with the database read (and the replay) in a thread."""
        self._take(await asyncio.to_thread(self.chub.load_room, self.id))

    def reload(self) -> None:
        """Read the table again from the database (after losing a race, or a gap)."""
        self._take(self.chub.load_room(self.id))

    def _take(self, fresh: ClusterRoom | None) -> None:
        if fresh is None:
            return
        old = self.table
        for name in ROOM_STATE:
            setattr(self, name, getattr(fresh, name))
        self.jobs_sent = set()
        old.close()

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """The table's write lock; events published while it was held are read after it."""
        async with self.write_lock:
            yield
        if self.behind:
            self.want_catch_up()

    def want_catch_up(self) -> None:
        """Read the missed events in a task (the database read in a thread; one task per table)."""
        if self.catching:
            self.behind = True
            return
        self.catching = True
        self.chub.spawn(self._catch_up_task())

    async def _catch_up_task(self) -> None:
        changed = False
        try:
            async with self.write_lock:
                self.behind = False
                events = await asyncio.to_thread(self.chub.store.events_after, self.id, self.seq)
                changed = self._apply_all(events)
        finally:
            self.catching = False
        if changed:
            self.chub.metrics.caught_up += 1
            self.broadcast()
        if self.behind:
            self.want_catch_up()

    def _apply_all(self, events: list[Event]) -> bool:
        changed = False
        for ev in events:
            if ev.num <= self.seq:
                continue
            try:
                self.apply_event(ev)
            except CanastaError:
                self.reload()
                return True
            changed = True
        return changed

    def catch_up(self) -> bool:
        """Apply the events this copy missed; True if there were any.  While this process
        writes an event of the table, they are read when the write is done."""
        if self.write_lock.locked():
            self.behind = True
            return False
        events = self.chub.store.events_after(self.id, self.seq)
        if not events:
            return False
        self.chub.metrics.caught_up += 1
        for ev in events:
            try:
                self.apply_event(ev)
            except CanastaError:
                self.reload()
                break
        return True

    def on_published(self, msg: dict[str, Any]) -> None:
        """An event another process wrote, as published on the table's channel."""
        num = int(msg["num"])
        if num <= self.seq and not self.write_lock.locked():
            return  # ours, or already read
        if self.write_lock.locked() or self.catching:  # a write or a read is under way: read after it
            self.behind = True
            return
        ev = Event.from_message(msg)
        if ev is not None and num == self.seq + 1:
            try:
                self.apply_event(ev)
            except CanastaError:
                self.want_catch_up()
                return
            self.broadcast()
        else:  # a gap, or a deal (its secret is read from the database only)
            self.want_catch_up()

    # ------------------------------------------------------------- the jobs

    def due_jobs(self) -> list[tuple[str, str, tuple[Any, ...], float]]:
        """(function, job id, arguments, when) of what this state waits for."""
        jobs: list[tuple[str, str, tuple[Any, ...], float]] = []
        tid = self.id
        if self.needs_bot():
            jobs.append(("bot", f"bot:{tid}:{self.seq}", (tid, self.seq), self.last_event_at + self.bot_delay))
        if self.timer_key is not None and self.deadline is not None:
            h, turn, seat = self.timer_key
            jobs.append(("turn", f"turn:{tid}:{h}:{turn}:{seat}", (tid, h, turn, seat), self.deadline))
        if self.deal_key is not None and self.deal_at is not None:
            hand, now = self.deal_key
            jobs.append(("deal", f"deal:{tid}:{hand}:{'now' if now else 'later'}", (tid, hand), self.deal_at))
        if self.status == "playing":
            grace = self.hub.settings.grace
            for seat, (num, at) in sorted(self.gone.items()):
                if seat not in self.takeover and self.seats[seat].kind == "human":
                    jobs.append(("grace", f"grace:{tid}:{seat}:{num}", (tid, seat, num), at + grace))
        return jobs

    def schedule(self, again: bool = False) -> None:
        """Enqueue the jobs this state waits for (each job id once)."""
        jobs = self.due_jobs()
        if again:
            self.jobs_sent = set()
        for fn, job_id, args, when in jobs:
            if job_id not in self.jobs_sent:
                self.chub.enqueue(fn, job_id, args, when)
        self.jobs_sent = {j[1] for j in jobs}

    def heal(self, now: float) -> None:
        """Enqueue again what should have happened by now and has not (its writer died
        between writing the event and enqueueing the job)."""
        stall = self.chub.cluster.stall
        if any(when < now - stall for _, _, _, when in self.due_jobs()):
            self.schedule(again=True)

    # ------------------------------------------- no local bots or timers

    def kick(self) -> None:
        pass  # bots play in the workers

    def _arm_timer(self) -> None:
        pass

    def _arm_deal(self) -> None:
        pass

    def resume(self) -> None:
        pass

    def _stop(self) -> None:
        self.table.close()

    # ----------------------------------------------------- client requests
    # Room.handle checks a message and calls these; here each one becomes a task that
    # takes the table's write lock, checks again against the table as it is then, and
    # writes.  An error goes to the connection that asked.

    def handle(self, conn: Conn, msg: dict[str, Any]) -> None:
        self.asking = conn
        try:
            super().handle(conn, msg)
        finally:
            self.asking = None

    def _answer(self, conn: Conn | None, message: dict[str, Any] | None) -> None:
        if conn is not None and message is not None:
            message.setdefault("seq", self.seq)
            conn.send(message)

    def play_move(self, seat: int, move_text: Any) -> dict[str, Any] | None:
        if not isinstance(move_text, str) or not move_text.strip():
            return self.refusal(seat, move_text)
        conn = self.asking
        self.chub.spawn(self._answered(conn, self.amove(seat, move_text)))
        return None

    async def _answered(self, conn: Conn | None, work: Coroutine[Any, Any, dict[str, Any] | None]) -> None:
        self._answer(conn, await work)

    async def amove(self, seat: int, move_text: str) -> dict[str, Any] | None:
        started = time.perf_counter()
        for _ in range(RETRIES):
            async with self.writing():
                err = self.refusal(seat, move_text)
                if err is not None:
                    return err | {"ref": "move", "move": move_text}
                try:
                    done = await self._write("move", seat, move_text, None)
                except CanastaError as exc:
                    return refused(exc, ref="move") if isinstance(exc, IllegalMoveError) else error("ILLEGAL", str(exc), ref="move")
            if done:
                self.chub.metrics.move_latency.observe(time.perf_counter() - started)
                return None
        return say_error("REFUSED", BUSY, ref="move")

    def undo_move(self, seat: int) -> dict[str, Any] | None:
        self.chub.spawn(self._answered(self.asking, self.aundo(seat)))
        return None

    async def aundo(self, seat: int) -> dict[str, Any] | None:
        for _ in range(RETRIES):
            async with self.writing():
                if self.status != "playing" or not self.table.undoable(seat):
                    break
                if await self._write("undo", seat, "", None):
                    return None
        return say_error("NOTHING_TO_UNDO", NOTHING_TO_UNDO, ref="undo")

    def deal(self) -> bool:
        self.chub.spawn(self._answered(None, self._dealt()))
        return True

    async def _dealt(self) -> None:
        await self.adeal()

    async def adeal(self) -> bool:
        for _ in range(RETRIES):
            async with self.writing():
                if not self.may_deal():
                    return False
                if await self._write("deal", -1, "", None):
                    return True
        return False

    def set_seed(self, seat: int, value: Any) -> dict[str, Any] | None:
        refused = self.seed_refusal(value)
        if refused is not None:
            return refused
        self.chub.spawn(self._answered(self.asking, self.aseed(seat, value)))
        return None

    async def aseed(self, seat: int, seed: str) -> dict[str, Any] | None:
        for _ in range(RETRIES):
            async with self.writing():
                if self.table.pending is None or self.table.match_over:
                    return say_error("MATCH_OVER", NO_NEXT_DEAL, ref="seed")
                if await self._write("seed", seat, seed, None):
                    return None
        return say_error("REFUSED", BUSY, ref="seed")

    def set_pace(self, seconds: float) -> None:
        self.chub.spawn(self._answered(None, self.apace(seconds)))

    async def apace(self, seconds: float) -> dict[str, Any] | None:
        for _ in range(RETRIES):
            if await self.commit("pace", data={"seconds": seconds}):
                break
        return None

    def take_seat(self, seat: int, name: str, token_hash: str) -> str | None:
        raise CanastaError("a cluster seats people with atake_seat")

    async def atake_seat(self, seat: int, name: str, token_hash: str) -> str | None:
        for _ in range(RETRIES):
            async with self.writing():
                if self.seats[seat].kind not in ("open", "reserved"):
                    return "this seat is taken"
                if await self._write("join", seat, name, {"token_hash": token_hash}):
                    return None
        return "the table is busy: try again"

    async def aabandon(self) -> None:
        for _ in range(RETRIES):
            async with self.writing():
                if self.status not in ("open", "playing") or await self._write("abandon", -1, "", None):
                    return

    # -------------------------------------------------------------- presence

    def attach(self, conn: Conn) -> None:
        self.conns.append(conn)
        self.last_active = time.time()
        self.send_state(conn)
        if conn.seat >= 0:
            self.chub.spawn(self.count_socket(conn.seat, +1))

    def detach(self, conn: Conn) -> None:
        if conn in self.conns:
            self.conns.remove(conn)
        self.last_active = time.time()
        if conn.seat >= 0:
            self.chub.spawn(self.count_socket(conn.seat, -1))
        if self.status == "finished" and not self.conns:
            self.hub.rooms.pop(self.id, None)

    async def count_socket(self, seat: int, delta: int) -> None:
        async with self.presence_lock:
            await self.chub.count_socket(self.id, seat, delta)
            await self.sync_presence()

    async def sync_presence(self) -> None:
        """Write a presence event if the seats connected anywhere are not those the table shows.
        Redis is read with the write lock held, so what is written is never older than the
        table it is written on (a race with another server's presence event is lost at the
        database, and re-read)."""
        for _ in range(RETRIES):
            async with self.writing():
                live = await self.chub.live_seats(self.id)
                if (live == self.present and not (self.takeover & live)) or self.status not in ("open", "playing"):
                    return
                if await self._write("presence", -1, "", {"present": sorted(live),
                                                          "takeover": sorted(self.takeover - live)}):
                    return

    async def take_over(self, seat: int, num: int) -> None:
        """The grace period of ``seat`` (away since event ``num``) is over: a bot plays it
        until the person is back."""
        for _ in range(RETRIES):
            async with self.writing():
                seen = self.gone.get(seat)
                if self.status != "playing" or seen is None or seen[0] != num or seat in self.takeover:
                    return
                live = await self.chub.live_seats(self.id)
                if seat in live:
                    return  # back: the server it is on writes the presence event
                if await self._write("presence", -1, "", {"present": sorted(live),
                                                          "takeover": sorted((self.takeover - live) | {seat})}):
                    return


class ClusterHub(Hub):
    """The hub of one process of a cluster: its rooms are copies of the tables in the
    database, kept current by the events published in Redis."""

    store: ClusterStore

    def __init__(self, store: ClusterStore, settings: Settings | None, cluster: ClusterConfig,
                 serving: bool = True) -> None:
        super().__init__(store, settings)
        self.store = store
        self.cluster = cluster
        self.serving = serving  # a server (sockets, pub/sub); False: a worker
        self.redis: Any = None  # an ArqRedis (redis.asyncio.Redis with enqueue_job); its stubs are loose
        self.outbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.tasks: list[asyncio.Task[None]] = []
        self.background: set[asyncio.Task[None]] = set()
        self.local_sockets: dict[tuple[str, int], int] = {}  # (table, seat) -> sockets on this server
        self.alive_before: set[str] = set()
        self.redis_lost = False
        self.own_marker = json.dumps({"from": cluster.server_id})[:-1].encode()

    # ------------------------------------------------------------ start/stop

    async def connect(self) -> None:
        from arq.connections import RedisSettings, create_pool

        try:
            self.redis = await create_pool(RedisSettings.from_dsn(self.cluster.redis_url),
                                           default_queue_name=self.cluster.queue, retry=3)
        except Exception as exc:
            raise CanastaError(f"cannot reach Redis at {self.cluster.redis_url}: {exc}") from None
        self.tasks.append(asyncio.create_task(self._drain()))
        if self.serving:
            await self.redis.set(self.cluster.alive_key(self.cluster.server_id), b"1",
                                 px=int(self.cluster.alive_ttl * 1000))
            self.tasks.append(asyncio.create_task(self._listen()))
            self.tasks.append(asyncio.create_task(self._heartbeat()))

    def start(self) -> None:
        """Servers connect in :meth:`astart` (the lifespan awaits it)."""

    async def astart(self) -> None:
        await self.connect()
        self._sweeper = asyncio.create_task(self._sweep())

    def expire_idle(self, now: float | None = None) -> list[str]:
        """Forget copies of tables nobody here is connected to (the workers close idle tables)."""
        for room in list(self.rooms.values()):
            if not room.conns:
                self.rooms.pop(room.id, None)
                room.table.close()
        mono = time.monotonic()
        for address in [a for a, times in self.created.items() if not times or mono - times[-1] >= 60.0]:
            del self.created[address]
        return []

    async def shutdown(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        for room in self.rooms.values():
            for c in list(room.conns):
                await c.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.flush(), 2)
        if self.redis is not None and self.serving:
            with contextlib.suppress(Exception):  # our sockets are gone: others see it at once
                async with self.redis.pipeline(transaction=False) as pipe:
                    for (tid, seat) in self.local_sockets:
                        pipe.hdel(self.cluster.presence_key(tid), f"{self.cluster.server_id}:{seat}")
                    pipe.delete(self.cluster.alive_key(self.cluster.server_id))
                    await pipe.execute()
        for task in [*self.tasks, *self.background]:
            task.cancel()
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await self.redis.aclose()
        for room in self.rooms.values():
            room.table.close()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    # ------------------------------------------------------------------ rooms

    def make_room(self, table_id: str, config: dict[str, Any], seats: list[SeatRow], table: Table, seq: int,
                  status: str) -> Room:
        room = ClusterRoom(self, table_id, config, seats, table, seq, status, last_event_at=time.time())
        room._derive_timers(room.last_event_at)
        room.gone = {s.seat: (0, room.last_event_at) for s in seats if s.kind == "human"}
        return room

    def after_create(self, room: Room) -> None:
        if isinstance(room, ClusterRoom):
            room.schedule()

    def load_room(self, table_id: str) -> ClusterRoom | None:
        got = self.store.load_base(table_id)
        if got is None:
            return None
        row, events = got
        base_status = "playing" if all(s.kind in ("human", "bot") for s in row.seats) else "open"
        # the seats as made (a join event seats a person again)
        room = self.make_room(row.id, row.config, row.seats, Table.from_dict(row.state), 0, base_status)
        assert isinstance(room, ClusterRoom)
        room.last_event_at = room.last_active = row.created
        room._derive_timers(row.created)
        room.gone = {s.seat: (0, row.created) for s in row.seats if s.kind == "human"}
        for ev in events:
            room.apply_event(ev)
        if row.status == "abandoned":
            room.status = "abandoned"
        return room

    def get(self, table_id: str) -> Room | None:
        room = self.rooms.get(table_id)
        if isinstance(room, ClusterRoom):
            room.catch_up()
        else:
            room = self.load_room(table_id)
            if room is None:
                return None
            self.rooms[table_id] = room
        if room.status == "abandoned":
            self.rooms.pop(table_id, None)
            return None
        return room

    async def afresh(self, table_id: str) -> ClusterRoom | None:
        """:meth:`fresh` with the database read in a thread (a worker's jobs run side by side)."""
        room = self.rooms.get(table_id)
        if not isinstance(room, ClusterRoom):
            if len(self.rooms) > 5000:  # a worker keeps the tables it played lately
                self.rooms.clear()
            loaded = await asyncio.to_thread(self.load_room, table_id)
            if loaded is None:
                return None
            room = self.rooms.setdefault(table_id, loaded)
            assert isinstance(room, ClusterRoom)
        elif not room.write_lock.locked():
            events = await asyncio.to_thread(self.store.events_after, table_id, room.seq)
            if not room.write_lock.locked():
                for ev in events:
                    if ev.num <= room.seq:
                        continue
                    try:
                        room.apply_event(ev)
                    except CanastaError:
                        room.reload()
                        break
        if room.status == "abandoned":
            self.rooms.pop(table_id, None)
            return None
        return room

    def fresh(self, table_id: str) -> ClusterRoom | None:
        room = self.get(table_id)
        return room if isinstance(room, ClusterRoom) else None

    def load_all(self) -> int:
        return 0

    def open_rooms(self) -> list[Room]:
        out = []
        for tid in self.store.ids_with_status("open"):
            room = self.get(tid)
            if room is not None:
                out.append(room)
        return out

    def bot_pool(self) -> None:
        return None  # the workers play the bots

    # ------------------------------------------------------------------ Redis

    def publish(self, table_id: str, ev: Event) -> None:
        self.outbox.put_nowait(("publish", self.cluster.channel(table_id), ev.message(self.cluster.server_id)))

    def enqueue(self, fn: str, job_id: str, args: tuple[Any, ...], when: float) -> None:
        self.outbox.put_nowait(("job", fn, f"{self.cluster.prefix}:{job_id}", args, when))

    async def flush(self) -> None:
        await self.outbox.join()

    async def _drain(self) -> None:
        """Publications and jobs, in the order they were made; the publications waiting
        together go to Redis in one round trip."""
        while True:
            batch = [await self.outbox.get()]
            while len(batch) < 200 and not self.outbox.empty():
                batch.append(self.outbox.get_nowait())
            try:
                assert self.redis is not None
                i = 0
                while i < len(batch):
                    if batch[i][0] == "publish":
                        async with self.redis.pipeline(transaction=False) as pipe:
                            while i < len(batch) and batch[i][0] == "publish":
                                pipe.publish(batch[i][1], batch[i][2])
                                i += 1
                            await pipe.execute()
                    else:
                        _, fn, job_id, args, when = batch[i]
                        at = datetime.datetime.fromtimestamp(max(when, time.time()), tz=datetime.UTC)
                        await self.redis.enqueue_job(fn, *args, _job_id=job_id, _defer_until=at)
                        i += 1
            except Exception as exc:  # Redis away: the heartbeat heals what this loses
                self.redis_lost = True
                print(f"canasta: redis: {exc}", file=sys.stderr, flush=True)
            finally:
                for _ in batch:
                    self.outbox.task_done()

    async def _listen(self) -> None:
        """Every table's channel; a reconnect is followed by a catch-up from the database."""
        assert self.redis is not None
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.psubscribe(f"{self.cluster.prefix}:t:*")
                if self.redis_lost:
                    self.redis_lost = False
                    await self.resync_all()
                while True:
                    msg = await pubsub.get_message(timeout=1.0)
                    if msg is None or msg.get("type") != "pmessage":
                        continue
                    self.on_message(msg["channel"], msg["data"])
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                raise
            except Exception as exc:
                self.redis_lost = True
                print(f"canasta: redis subscription lost ({exc}); reconnecting", file=sys.stderr, flush=True)
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                await asyncio.sleep(0.5)

    def on_message(self, channel: bytes | str, data: bytes | str) -> None:
        if isinstance(data, bytes) and data.startswith(self.own_marker):
            return  # our own event: applied when it was written
        name = channel.decode() if isinstance(channel, bytes) else channel
        room = self.rooms.get(name.rsplit(":", 1)[-1])
        if not isinstance(room, ClusterRoom):
            return
        try:
            msg = json.loads(data)
            room.on_published(msg)
        except Exception as exc:  # a bad message must not stop the listener
            print(f"canasta: event on {name}: {exc}", file=sys.stderr, flush=True)

    async def resync_all(self) -> None:
        """After losing Redis: our sockets into the presence hash again, every copy caught up."""
        assert self.redis is not None
        async with self.redis.pipeline(transaction=False) as pipe:
            for (tid, seat), n in self.local_sockets.items():
                pipe.hset(self.cluster.presence_key(tid), f"{self.cluster.server_id}:{seat}", n)
            await pipe.execute()
        for room in list(self.rooms.values()):
            if isinstance(room, ClusterRoom):
                room.want_catch_up()

    async def count_socket(self, table_id: str, seat: int, delta: int) -> None:
        assert self.redis is not None
        key = (table_id, seat)
        n = self.local_sockets.get(key, 0) + delta
        field_name = f"{self.cluster.server_id}:{seat}"
        if n > 0:
            self.local_sockets[key] = n
            await self.redis.hset(self.cluster.presence_key(table_id), field_name, n)
        else:
            self.local_sockets.pop(key, None)
            await self.redis.hdel(self.cluster.presence_key(table_id), field_name)

    async def alive_servers(self) -> set[str]:
        assert self.redis is not None
        prefix = self.cluster.alive_key("")
        found = set()
        async for key in self.redis.scan_iter(match=prefix + "*", count=500):
            found.add((key.decode() if isinstance(key, bytes) else str(key))[len(prefix):])
        return found

    async def live_seats(self, table_id: str) -> set[int]:
        """The seats of a table with a socket on a live server."""
        assert self.redis is not None
        fields = await self.redis.hgetall(self.cluster.presence_key(table_id))
        if not fields:
            return set()
        by_server: dict[str, set[int]] = {}
        for f, count in fields.items():
            sid, _, seat = (f.decode() if isinstance(f, bytes) else str(f)).rpartition(":")
            if int(count) > 0:
                by_server.setdefault(sid, set()).add(int(seat))
        servers = sorted(by_server)
        alive = await self.redis.mget([self.cluster.alive_key(s) for s in servers])
        seats: set[int] = set()
        dead: list[str] = []
        for sid, flag in zip(servers, alive, strict=True):
            if flag is not None:
                seats |= by_server[sid]
            else:
                dead.extend(f"{sid}:{seat}" for seat in by_server[sid])
        if dead:  # a killed server's sockets
            await self.redis.hdel(self.cluster.presence_key(table_id), *dead)
        return seats

    async def _heartbeat(self) -> None:
        """Liveness; the database checked for events this server missed; presence
        refreshed when a server died; jobs a dead writer never enqueued."""
        assert self.redis is not None
        while True:
            await asyncio.sleep(self.cluster.heartbeat)
            try:
                await self.redis.set(self.cluster.alive_key(self.cluster.server_id), b"1",
                                     px=int(self.cluster.alive_ttl * 1000))
                alive = await self.alive_servers()
                died = bool(self.alive_before - alive)
                self.alive_before = alive
                local = [r for r in self.rooms.values() if isinstance(r, ClusterRoom) and r.conns]
                heads = await asyncio.to_thread(self.store.heads, [r.id for r in local])
                now = time.time()
                for room in local:
                    if heads.get(room.id, room.seq) > room.seq:
                        room.want_catch_up()
                    if died:
                        async with room.presence_lock:
                            await room.sync_presence()
                    room.heal(now)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.redis_lost = True
                print(f"canasta: cluster heartbeat: {exc}", file=sys.stderr, flush=True)

    async def queue_depth(self) -> int:
        if self.redis is None:
            return 0
        return int(await self.redis.zcard(self.cluster.queue))

    async def ping(self) -> None:
        self.store.ping()
        if self.redis is None:
            raise CanastaError("not connected to Redis yet")
        await self.redis.ping()


# ---------------------------------------------------------------- worker jobs


def choose_move(room: ClusterRoom, seat: int) -> tuple[str, Any]:
    """The level that plays ``seat`` and its bot's view of the table (copied out)."""
    return room._level(seat), room.table.view(seat)


def decide_now(level: str, view: Any, seed: int) -> str:
    bot = make_bot(level, seed=seed)
    try:
        return str(bot.choose(view))
    finally:
        bot.close()


async def job_bot(ctx: dict[str, Any], table_id: str, num: int) -> None:
    """The bot to move at event ``num`` plays (if the table is still there)."""
    hub: ClusterHub = ctx["hub"]
    room = await hub.afresh(table_id)
    if room is not None and room.seq == num and room.needs_bot():
        t = room.table
        seat = t.game.to_move
        level, view = choose_move(room, seat)
        seed = decision_seed(t.seed, seat, t.hand_number, len(t.moves[-1]))
        if level in QUICK_BOTS:
            text_move = decide_now(level, view, seed)
        else:  # a searching bot: the worker's loop stays free for its other jobs
            text_move = await asyncio.to_thread(decide_now, level, view, seed)
        if room.seq == num and room.needs_bot() and room.table.game.to_move == seat:
            if room.table.why_not(seat, text_move) is not None:  # never: the bot saw this very position
                text_move = str(next(iter(room.table.game.legal_moves)))
            await room.commit("move", seat, text_move)  # lost to another writer: the table moved on
    if room is not None:
        room.schedule()
    await hub.flush()


async def job_turn(ctx: dict[str, Any], table_id: str, hand: int, turn: int, seat: int) -> None:
    hub: ClusterHub = ctx["hub"]
    room = await hub.afresh(table_id)
    if room is None:
        return
    if room.timer_key == (hand, turn, seat) and room.deadline is not None and time.time() >= room.deadline - 0.05:
        await room.commit("auto_turn", seat)  # a bot finishes this turn
    room.schedule()
    await hub.flush()


async def job_deal(ctx: dict[str, Any], table_id: str, hand: int) -> None:
    hub: ClusterHub = ctx["hub"]
    room = await hub.afresh(table_id)
    if room is None:
        return
    if room.deal_key is not None and room.deal_key[0] == hand and room.deal_at is not None \
            and time.time() >= room.deal_at - 0.05:
        await room.adeal()
    room.schedule()
    await hub.flush()


async def job_grace(ctx: dict[str, Any], table_id: str, seat: int, num: int) -> None:
    hub: ClusterHub = ctx["hub"]
    room = await hub.afresh(table_id)
    if room is None:
        return
    await room.take_over(seat, num)
    room.schedule()
    await hub.flush()


async def job_sweep(ctx: dict[str, Any]) -> None:
    """Close the tables nobody was connected to or played at for the idle time."""
    hub: ClusterHub = ctx["hub"]
    hours = hub.settings.idle_hours
    if hours <= 0:
        return
    for tid in hub.store.idle_ids(time.time() - hours * 3600):
        room = await hub.afresh(tid)
        if room is not None and not await hub.live_seats(tid):
            await room.aabandon()
        hub.rooms.pop(tid, None)
    await hub.flush()


__all__ = ["ClusterConfig", "ClusterHub", "ClusterRoom", "ClusterStore", "Conflict", "Event", "apply_to_table",
           "cluster_metadata", "events_t"]
