"""What the servers and workers of a cluster share: the cluster's configuration
(Redis, key names) and the record in the database: a table's header, then its
events, append-only, one row per event number (:mod:`canasta.web.cluster` says
how they are used)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
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

from canasta.errors import CanastaError
from canasta.fairdeal import FairDeal
from canasta.table import Table
from canasta.web.redact import redact
from canasta.web.store import (
    NotSaved,
    SeatRow,
    Store,
    TableRow,
    _sqlite_pragmas,
    metadata,
    normalise_url,
    open_vault,
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
# the event's number must follow the stored last one: the header row's seq moves from N-1 to N
# in the transaction that inserts event N, so the database keeps the numbers contiguous
_TOUCH = update(tables_t).where(tables_t.c.id == bindparam("tid"), tables_t.c.seq == bindparam("prev")).values(
    seq=bindparam("seq"), status=bindparam("status"), hands=bindparam("hands"), updated=bindparam("updated"))
# (a bind parameter may not be named after a column the statement sets: "at_seq", not "seq")
_SET_STATUS = update(tables_t).where(tables_t.c.id == bindparam("tid"), tables_t.c.seq == bindparam("at_seq")) \
    .values(status=bindparam("status"))
_EVENTS_AFTER = select(events_t).where(events_t.c.table_id == bindparam("tid"), events_t.c.num > bindparam("num")) \
    .order_by(events_t.c.num)
DB_TIMEOUT = 5.0  # seconds: a database call that takes longer is given up (the change is not saved)
# a connection attempt, and a statement at the server, give up in time too (libpq's own settings)
PG_TIMEOUTS = {"connect_timeout": int(DB_TIMEOUT), "options": f"-c statement_timeout={int(DB_TIMEOUT * 1000)}"}
SECRET_KINDS = frozenset({"deal"})  # events whose data is never published (read from the database)


@dataclass
class ClusterConfig:
    redis_url: str
    prefix: str = "canasta"  # every Redis key, channel, queue and job id starts with it
    server_id: str = field(default_factory=lambda: secrets.token_hex(6))
    heartbeat: float = 2.0  # seconds between a server's liveness refreshes and database checks
    alive_ttl: float = 6.0  # a server not heard of for this long is gone (its sockets with it)
    stall: float = 2.0  # a job due this long ago whose state still waits is enqueued again
    call_timeout: float = 3.0  # seconds a Redis call may take before it is given up (Redis treated as away)

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
            self.engine: Engine = create_engine(self.url, future=True, pool_size=10, max_overflow=10,
                                                pool_timeout=DB_TIMEOUT, connect_args=PG_TIMEOUTS) \
                if self.url.startswith("postgresql") else create_engine(self.url, future=True)
        except Exception as exc:
            hint = " (pip install 'canasta[cluster-web]')" if "postgres" in self.url else ""
            raise CanastaError(f"cannot open database {redact(url)!r}: {exc}{hint}") from None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            with self.engine.begin() as db:
                if self.engine.dialect.name == "postgresql":  # servers starting together: one creates the tables
                    db.execute(text("SELECT pg_advisory_xact_lock(7310452)"))
                metadata.create_all(db)
                cluster_metadata.create_all(db)
        except Exception as exc:
            raise CanastaError(f"cannot open database {redact(url)!r}: {exc}") from None
        self.vault = open_vault(self.url)

    def create(self, row: TableRow) -> None:
        """The table as made: its header (with the hands dealt so far, empty) and seats."""
        with self.engine.begin() as db:
            db.execute(tables_t.insert().values(
                id=row.id, created=row.created, updated=row.updated, status=row.status,
                config=json.dumps(row.config), header=json.dumps(self.vault.seal(row.state)),
                hands=len(row.state.get("hands", [])), seq=row.seq))
            for s in row.seats:
                db.execute(seats_t.insert().values(
                    table_id=row.id, seat=s.seat, kind=s.kind, name=s.name, level=s.level,
                    token_hash=s.token_hash, invite_hash=s.invite_hash))

    def append(self, table_id: str, ev: Event, status: str, hands: int, seat: SeatRow | None = None) -> None:
        """Write event ``ev.num``, which must follow the stored last number; :class:`Conflict`
        if that number is taken or the table is not at ``ev.num - 1`` (nothing is written)."""
        try:
            with self.engine.begin() as db:
                moved = db.execute(_TOUCH, {"tid": table_id, "prev": ev.num - 1, "seq": ev.num, "status": status,
                                            "hands": hands, "updated": ev.at})
                if moved.rowcount != 1:
                    raise Conflict(f"event {ev.num} of table {table_id} does not follow the stored last event")
                data = None if ev.data is None else json.dumps(self.vault.seal(ev.data))
                db.execute(_INSERT_EVENT, {"table_id": table_id, "num": ev.num, "kind": ev.kind, "seat": ev.seat,
                                           "line": ev.line, "data": data, "at": ev.at})
                if seat is not None:  # a person sat down: the lobby and the history show the name
                    db.execute(update(seats_t).where(seats_t.c.table_id == table_id, seats_t.c.seat == seat.seat)
                               .values(name=seat.name))
        except IntegrityError:
            raise Conflict(f"event {ev.num} of table {table_id} was written by another process") from None

    def note_status(self, table_id: str, status: str, seq: int) -> None:
        """The lobby's status of a table whose last event ``seq`` changed it (the match ended,
        the last seat was taken, it was closed); not written if another event came since."""
        with self.engine.begin() as db:
            db.execute(_SET_STATUS, {"tid": table_id, "status": status, "at_seq": seq})

    def reseal(self) -> int:
        """Every stored deal secret (headers and deal events) encrypted again with the first key."""
        n = super().reseal()
        with self.engine.begin() as db:
            for e in db.execute(select(events_t.c.table_id, events_t.c.num, events_t.c.data)
                                .where(events_t.c.data.is_not(None))).all():
                db.execute(update(events_t).where(events_t.c.table_id == e.table_id, events_t.c.num == e.num)
                           .values(data=json.dumps(self.vault.reseal(json.loads(e.data)))))
                n += 1
        return n

    def events_after(self, table_id: str, num: int) -> list[Event]:
        with self.engine.connect() as db:
            rows = db.execute(_EVENTS_AFTER, {"tid": table_id, "num": num}).all()
        return [Event(r.num, r.kind, r.seat, r.line, None if r.data is None else self.vault.open(json.loads(r.data)),
                      r.at) for r in rows]

    def load_base(self, table_id: str) -> tuple[TableRow, list[Event]] | None:
        """The table as made (``state``: its header) and every event since."""
        with self.engine.connect() as db:
            t = db.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            if t is None:
                return None
            srows = db.execute(select(seats_t).where(seats_t.c.table_id == table_id).order_by(seats_t.c.seat)).all()
        seats = [SeatRow(s.seat, s.kind, s.name, s.level, s.token_hash, s.invite_hash) for s in srows]
        row = TableRow(t.id, t.created, t.updated, t.status, json.loads(t.config),
                       self.vault.open(json.loads(t.header)), 0, seats)
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
                srows = db.execute(select(seats_t.c.seat, seats_t.c.kind, seats_t.c.name, seats_t.c.level)
                                   .where(seats_t.c.table_id == t.id).order_by(seats_t.c.seat)).all()
                seats = [SeatRow(r.seat, r.kind, r.name, r.level) for r in srows]  # no token hashes
                state = {**json.loads(t.header), "names": [r.name for r in srows], "hands": [[]] * t.hands}
                out.append(TableRow(t.id, t.created, t.updated, t.status, json.loads(t.config), state, t.seq, seats))
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


__all__ = ["ClusterConfig", "ClusterStore", "Conflict", "Event", "NotSaved", "apply_to_table", "cluster_metadata", "events_t"]
