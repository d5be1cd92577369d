"""The card room's record, through SQLAlchemy: a SQLite file by default, PostgreSQL by URL.

One model in every deployment (one server on SQLite or PostgreSQL, or several
servers on PostgreSQL with Redis): a table's header (rules, seeds, the first
hand's fair-deal secret, as :meth:`canasta.play.table.Table.to_dict` writes it) is
written when it is made; every change after that is one row of
``canasta_events``, append-only, keyed by (table, event number).  A change is
accepted only by writing the next number: the header row's ``seq`` moves from
N-1 to N in the transaction that inserts event N, so the numbers are unique and
contiguous, enforced by the database, whoever writes.  Loading replays the
events on the header (:meth:`Store.load`), so a table is rebuilt exactly.  Deal
secrets are sealed (:mod:`canasta.web.vault`).  A seat row holds the player's
name and the SHA-256 of their seat token (never the token itself).  An idle
table closed by the server keeps its rows, with status ``abandoned``.

A database written before events (moves in ``canasta_moves``) is brought over
when it is opened: each such table's moves are folded into its header, and its
events go on from the number it had reached (:meth:`Store.upgrade`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    inspect,
    select,
    text,
    tuple_,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from canasta.engine.errors import CanastaError
from canasta.engine.fairdeal import FairDeal
from canasta.play.table import Table as GameTable
from canasta.web.redact import redact, said
from canasta.web.vault import PREFIX, Vault, vault_for

metadata = MetaData()

tables_t = Table(
    "canasta_tables", metadata,
    Column("id", String(32), primary_key=True),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
    Column("status", String(16), nullable=False, index=True),  # open | playing | finished | abandoned
    Column("config", Text, nullable=False),  # JSON: preset, bots, timers, title
    Column("header", Text, nullable=False),  # JSON: Table.to_dict() as the table was made
    Column("hands", Integer, nullable=False),  # hands dealt
    Column("seq", Integer, nullable=False),  # the last event's number
)

seats_t = Table(
    "canasta_seats", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),  # human | bot | open | reserved
    Column("name", String(64), nullable=False),
    Column("level", String(16), nullable=True),  # bot level
    Column("token_hash", String(64), nullable=True),
    Column("invite_hash", String(64), nullable=True),  # reserved seats: who holds the invite may sit
)

events_t = Table(
    "canasta_events", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("num", Integer, primary_key=True),  # the event number (the clients' seq); one writer per number
    Column("kind", String(16), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("line", String(400), nullable=False),  # the move, the seed, the name
    Column("data", Text, nullable=True),  # JSON: a deal's next secret, presence, pace
    Column("at", Float, nullable=False),
)

reviews_t = Table(
    "canasta_reviews", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("hand", Integer, primary_key=True),  # the hand's number (1, 2, ...)
    Column("seat", Integer, primary_key=True),  # the seat reviewed
    Column("worlds", Integer, nullable=False),  # the budget it was computed with
    Column("data", Text, nullable=False),  # JSON: the decisions (canasta.review.DecisionReview as dicts)
)

orders_t = Table(
    "canasta_hand_orders", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),  # a seat's own arrangement of its hand: not an event of the game
    Column("data", Text, nullable=False),  # JSON: {"sort": "rank"|"suit"|"meld", "cards": [...] or null, "hand": N}
)

#: the moves and notices of a database written before events: read once by Store.upgrade
legacy = MetaData()
legacy_moves_t = Table(
    "canasta_moves", legacy,
    Column("table_id", String(32), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("hand", Integer, nullable=False),
    Column("line", String(400), nullable=False),
)
legacy_notices_t = Table(
    "canasta_notices", legacy,
    Column("table_id", String(32), primary_key=True),
    Column("id", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("hand", Integer, nullable=False),
    Column("after", Integer, nullable=False),
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
# re-encryption, a batch at a time: a row is written only if it still holds what was read
_RESEAL_HEADER = update(tables_t).where(tables_t.c.id == bindparam("tid"), tables_t.c.header == bindparam("old")) \
    .values(header=bindparam("new"))
_RESEAL_EVENT = update(events_t).where(events_t.c.table_id == bindparam("tid"), events_t.c.num == bindparam("at_num"),
                                       events_t.c.data == bindparam("old")).values(data=bindparam("new"))
DB_TIMEOUT = 5.0  # seconds: a database call that takes longer is given up (the change is not saved)
# a connection attempt, and a statement at the server, give up in time too (libpq's own settings)
PG_TIMEOUTS = {"connect_timeout": int(DB_TIMEOUT), "options": f"-c statement_timeout={int(DB_TIMEOUT * 1000)}"}
SECRET_KINDS = frozenset({"deal"})  # events whose data is never published (read from the database)


class NotSaved(CanastaError):
    """The database did not take a change (it is away, or did not answer in time): nothing
    was changed in memory.  ``unknown``: the write reached the database and its outcome is
    not known (it may commit later: a move sent again with its key is played at most once);
    else nothing was written and the change may simply be tried again."""

    def __init__(self, message: str, unknown: bool = False) -> None:
        super().__init__(message)
        self.unknown = unknown


class Unreached(Exception):
    """No connection to the database could be had: nothing of a write was sent."""


class NeverRan(TimeoutError):
    """A database call given up before it started: every database thread was waiting."""


class Conflict(Exception):
    """Another writer took this event number first (or the table is not where the writer thought)."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class SeatRow:
    seat: int
    kind: str
    name: str
    level: str | None = None
    token_hash: str | None = None
    invite_hash: str | None = None


@dataclass
class TableRow:
    id: str
    created: float
    updated: float
    status: str
    config: dict[str, Any]
    state: dict[str, Any]  # Table.to_dict(): as made (load_base) or after every event (load)
    seq: int  # the last event's number
    seats: list[SeatRow]
    notices: list[dict[str, Any]] = field(default_factory=list)  # notices kept before events (Store.upgrade)


@dataclass
class Event:
    """One change of a table, as stored: its number, what it is (``move``, ``undo``, ``deal``,
    ``seed``, ``join``, ``pace``, ``presence``, ``auto_turn``, ``rematch``, ``abandon``, ``chat``), the seat
    it is of, its text and its data."""

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


def normalise_url(url: str) -> str:
    """``postgresql://`` means the psycopg (3) driver; a bare path means a SQLite file."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if "://" not in url:
        return f"sqlite:///{url}"
    return url


class Store:
    """Tables, seats and events in a database (synchronous; each call is one short
    transaction; the rooms call it from a thread, given up after :data:`DB_TIMEOUT`)."""

    def __init__(self, url: str) -> None:
        self.url = normalise_url(url)
        postgres = self.url.startswith("postgresql")
        try:
            self.engine: Engine = create_engine(self.url, future=True, pool_size=10, max_overflow=10,
                                                pool_timeout=DB_TIMEOUT, connect_args=PG_TIMEOUTS) \
                if postgres else create_engine(self.url, future=True)
        except Exception as exc:  # unknown dialect, missing driver ...
            hint = " (pip install 'canasta[postgres]')" if "postgres" in self.url else ""
            raise CanastaError(f"cannot open database {redact(url)!r}: {said(exc)}{hint}") from None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            with self.engine.begin() as db:
                if self.engine.dialect.name == "postgresql":  # servers starting together: one creates the tables
                    db.execute(text("SELECT pg_advisory_xact_lock(7310452)"))
                metadata.create_all(db)
        except Exception as exc:
            raise CanastaError(f"cannot open database {redact(url)!r}: {said(exc)}") from None
        self.vault = open_vault(self.url)
        try:
            self.upgrade()
        except CanastaError:
            raise
        except Exception as exc:
            raise CanastaError(f"cannot bring database {redact(url)!r} over to events: {said(exc)}") from None

    def close(self) -> None:
        self.engine.dispose()

    def upgrade(self) -> int:
        """Bring over the tables of a database written before events: each one's moves are
        folded into its header (the hands as played so far), so its events go on from the
        number it had reached; its notices are kept beside them.  How many tables."""
        with self.engine.begin() as db:
            if self.engine.dialect.name == "postgresql":
                db.execute(text("SELECT pg_advisory_xact_lock(7310452)"))
            if not inspect(db).has_table("canasta_moves"):
                return 0
            done = 0
            for t in db.execute(select(tables_t)).all():
                moves = db.execute(select(legacy_moves_t.c.hand, legacy_moves_t.c.line)
                                   .where(legacy_moves_t.c.table_id == t.id).order_by(legacy_moves_t.c.idx)).all()
                header = self.vault.open(json.loads(t.header))
                if "hands" in header:
                    continue  # written by this version
                hands: list[list[str]] = [[] for _ in range(t.hands)]
                for m in moves:
                    hands[m.hand - 1].append(m.line)
                config = json.loads(t.config)
                if inspect(db).has_table("canasta_notices"):
                    config["notices"] = [{"id": n.id, "kind": n.kind, "seat": n.seat, "hand": n.hand,
                                          "after": n.after} for n in db.execute(
                        select(legacy_notices_t).where(legacy_notices_t.c.table_id == t.id)
                        .order_by(legacy_notices_t.c.id)).all()]
                db.execute(update(tables_t).where(tables_t.c.id == t.id).values(
                    header=json.dumps(self.vault.seal({**header, "hands": hands})), config=json.dumps(config)))
                done += 1
            legacy.drop_all(db)
            return done

    # ----------------------------------------------------------------- writes

    def create(self, row: TableRow) -> None:
        """The table as made: its header (with the hands dealt so far) and seats."""
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
            conn = self.engine.connect()
        except Exception as exc:
            raise Unreached(said(exc)) from None
        try:
            with conn, conn.begin():
                db = conn
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

    def reseal(self, batch: int = 200, progress: Callable[[int, int], None] | None = None) -> int:
        """Every stored deal secret (headers and deal events) encrypted again with the first key
        (after a new key was put first in CANASTA_SECRET_KEYS); how many rows were found under
        another key and written again.

        While the room plays: the rows are read and written ``batch`` at a time, each batch its
        own short transaction (no table is locked for longer than one batch's writes), in key
        order; a row already under the first key is left as it is, and a row is written only
        if it still holds what was read (compare and set), so nothing a server writes meanwhile
        is overwritten.  ``progress(rows read, rows rewritten)`` after each batch."""
        n = read = 0
        after = ""
        while True:
            with self.engine.begin() as db:
                rows = db.execute(select(tables_t.c.id, tables_t.c.header).where(tables_t.c.id > after)
                                  .order_by(tables_t.c.id).limit(batch)).all()
                todo = [{"tid": t.id, "old": t.header, "new": json.dumps(new)} for t in rows
                        if (new := self.vault.renew(json.loads(t.header))) is not None]
                if todo:  # one round trip for the batch
                    db.execute(_RESEAL_HEADER, todo)
                n += len(todo)
            read += len(rows)
            if progress is not None:
                progress(read, n)
            if len(rows) < batch:
                break
            after = rows[-1].id
        last = ("", 0)
        while True:
            with self.engine.begin() as db:
                erows = db.execute(select(events_t.c.table_id, events_t.c.num, events_t.c.data)
                                  .where(events_t.c.data.is_not(None),
                                         tuple_(events_t.c.table_id, events_t.c.num) > tuple_(*last))
                                  .order_by(events_t.c.table_id, events_t.c.num).limit(batch)).all()
                etodo = [{"tid": e.table_id, "at_num": e.num, "old": e.data, "new": json.dumps(new)} for e in erows
                         if (new := self.vault.renew(json.loads(e.data))) is not None]
                if etodo:
                    db.execute(_RESEAL_EVENT, etodo)
                n += len(etodo)
            read += len(erows)
            if progress is not None:
                progress(read, n)
            if len(erows) < batch:
                break
            last = (erows[-1].table_id, erows[-1].num)
        return n

    def save_review(self, table_id: str, hand: int, seat: int, worlds: int, data: dict[str, Any]) -> None:
        """A computed review of one seat in one hand, kept with the table (the last one stands)."""
        key = (reviews_t.c.table_id == table_id, reviews_t.c.hand == hand, reviews_t.c.seat == seat)
        with self.engine.begin() as db:
            db.execute(delete(reviews_t).where(*key))
            db.execute(reviews_t.insert().values(table_id=table_id, hand=hand, seat=seat, worlds=worlds,
                                                 data=json.dumps(data)))

    def save_order(self, table_id: str, seat: int, data: dict[str, Any]) -> None:
        """How a seat's person arranges their hand (the last one stands); seen by that seat only."""
        key = (orders_t.c.table_id == table_id, orders_t.c.seat == seat)
        with self.engine.begin() as db:
            db.execute(delete(orders_t).where(*key))
            db.execute(orders_t.insert().values(table_id=table_id, seat=seat, data=json.dumps(data)))

    # ------------------------------------------------------------------ reads

    def load_order(self, table_id: str, seat: int) -> dict[str, Any] | None:
        """A seat's arrangement of its hand (:meth:`save_order`), or None."""
        with self.engine.connect() as db:
            found = db.execute(select(orders_t.c.data).where(orders_t.c.table_id == table_id,
                                                             orders_t.c.seat == seat)).scalar()
        if found is None:
            return None
        data: dict[str, Any] = json.loads(found)
        return data

    def load_review(self, table_id: str, hand: int, seat: int, worlds: int) -> dict[str, Any] | None:
        """The stored review of ``seat`` in ``hand`` computed with ``worlds``, or None."""
        with self.engine.connect() as db:
            found = db.execute(select(reviews_t.c.data).where(
                reviews_t.c.table_id == table_id, reviews_t.c.hand == hand, reviews_t.c.seat == seat,
                reviews_t.c.worlds == worlds)).scalar()
        if found is None:
            return None
        data: dict[str, Any] = json.loads(found)
        return data

    def events_after(self, table_id: str, num: int) -> list[Event]:
        with self.engine.connect() as db:
            rows = db.execute(_EVENTS_AFTER, {"tid": table_id, "num": num}).all()
        return [self._event(r) for r in rows]

    def _event(self, r: Any) -> Event:
        """An event as a row of ``canasta_events`` holds it (its data unsealed)."""
        return Event(r.num, r.kind, r.seat, r.line, None if r.data is None else self.vault.open(json.loads(r.data)),
                     r.at)

    def status(self, table_id: str) -> str | None:
        """A table's status as the lobby reads it (None: no such table)."""
        with self.engine.connect() as db:
            value = db.execute(select(tables_t.c.status).where(tables_t.c.id == table_id)).scalar()
        return None if value is None else str(value)

    def load_base(self, table_id: str) -> tuple[TableRow, list[Event]] | None:
        """The table as made (``state``: its header; ``seq``: the number its events go on
        from) and every event since."""
        with self.engine.connect() as db:
            t = db.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            if t is None:
                return None
            srows = db.execute(select(seats_t).where(seats_t.c.table_id == table_id).order_by(seats_t.c.seat)).all()
            rows = db.execute(_EVENTS_AFTER, {"tid": table_id, "num": 0}).all()
        seats = [SeatRow(s.seat, s.kind, s.name, s.level, s.token_hash, s.invite_hash) for s in srows]
        events = [self._event(r) for r in rows]
        config = json.loads(t.config)
        base = events[0].num - 1 if events else t.seq  # an upgraded table's events start after its old number
        row = TableRow(t.id, t.created, t.updated, t.status, config, self.vault.open(json.loads(t.header)), base,
                       seats, config.pop("notices", []))
        return row, events

    def load(self, table_id: str) -> TableRow | None:
        """The whole table (``state``: ``Table.to_dict()`` after every event), for records and replays."""
        got = self.load_base(table_id)
        if got is None:
            return None
        row, events = got
        table = GameTable.from_dict(row.state)
        for ev in events:
            apply_to_table(table, ev)
            apply_to_config(row.config, ev)
            if ev.kind == "join":  # a seat taken after the table was made (an invite, an open seat, a rematch)
                s = row.seats[ev.seat]
                row.seats[ev.seat] = SeatRow(s.seat, "human", ev.line, s.level, (ev.data or {}).get("token_hash"))
        row.state = table.to_dict()
        if events:
            row.seq = events[-1].num
        table.close()
        return row

    def unfinished(self) -> list[TableRow]:
        """The tables in play (neither finished nor abandoned), replayed."""
        return [row for row in (self.load(tid) for tid in self.ids_with_status(("open", "playing"), None))
                if row is not None]

    def finished(self, limit: int = 100) -> list[TableRow]:
        """Finished tables for the history list: names from the seats, hands counted (not replayed)."""
        with self.engine.connect() as db:
            trows = db.execute(select(tables_t).where(tables_t.c.status == "finished")
                               .order_by(tables_t.c.updated.desc()).limit(limit)).all()
            out = []
            for t in trows:
                srows = db.execute(select(seats_t.c.seat, seats_t.c.kind, seats_t.c.name, seats_t.c.level)
                                   .where(seats_t.c.table_id == t.id).order_by(seats_t.c.seat)).all()
                # the seat rows are as the table was made (its events replay on them): a seat
                # taken later is a person's by its join event
                joined = set(db.execute(select(events_t.c.seat).where(events_t.c.table_id == t.id,
                                                                      events_t.c.kind == "join")).scalars())
                seats = [SeatRow(r.seat, "human" if r.seat in joined else r.kind, r.name, r.level)
                         for r in srows]  # no token hashes
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

    def ids_with_status(self, status: str | tuple[str, ...], limit: int | None = 50) -> list[str]:
        statuses = (status,) if isinstance(status, str) else status
        with self.engine.connect() as db:
            q = select(tables_t.c.id).where(tables_t.c.status.in_(statuses)).order_by(tables_t.c.updated.desc())
            rows = db.execute(q if limit is None else q.limit(limit)).all()
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

    def check_keys(self, sample: int = 3) -> str | None:
        """None if this process's keys open the deal secrets of a sample of the stored rows (the
        headers of the ``sample`` tables with a sealed secret changed last, and each one's last
        event with one), else
        why not, in one line.  A server whose keys cannot open them (a key rotation half done)
        says so at start and fails readiness instead of answering every player "try again"."""
        sealed = f"%{PREFIX}%"
        with self.engine.connect() as db:
            heads = db.execute(select(tables_t.c.id, tables_t.c.header).where(tables_t.c.header.like(sealed))
                               .order_by(tables_t.c.updated.desc()).limit(sample)).all()
            rows = [(f"the header of table {t.id}", t.header) for t in heads]
            for t in heads:
                last = db.execute(select(events_t.c.num, events_t.c.data).where(
                    events_t.c.table_id == t.id, events_t.c.data.like(sealed)).order_by(events_t.c.num.desc())
                    .limit(1)).first()
                if last is not None:
                    rows.append((f"event {last.num} of table {t.id}", last.data))
        for where, data in rows:
            try:
                self.vault.open(json.loads(data))
            except CanastaError as exc:
                return f"{where}: {exc}"
        return None


def apply_to_table(table: GameTable, ev: Event) -> None:
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


def apply_to_config(config: dict[str, Any], ev: Event) -> None:
    """The part of an event that changes the table's settings (the bots' pace, the rematch)."""
    if ev.kind == "pace":
        config["bot_delay"] = float((ev.data or {})["seconds"])
    elif ev.kind == "rematch":
        config.setdefault("rematch", ev.line)  # the first one written stands


def open_vault(url: str) -> Vault:
    """The deal secrets' vault of ``url`` (:mod:`canasta.web.vault`), a refusal as one line."""
    try:
        return vault_for(url)
    except OSError as exc:
        raise CanastaError(f"cannot keep the key of the deal secrets beside the database: {exc}") from None


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")  # a committed move survives the process being killed
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()


__all__ = [
    "DB_TIMEOUT",
    "Conflict",
    "Event",
    "NeverRan",
    "NotSaved",
    "SeatRow",
    "Store",
    "TableRow",
    "Unreached",
    "apply_to_config",
    "apply_to_table",
    "events_t",
    "hash_token",
    "normalise_url",
    "orders_t",
]
