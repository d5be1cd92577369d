"""Storage of tables through SQLAlchemy: a SQLite file by default, PostgreSQL by URL.

A table is stored as :meth:`canasta.table.Table.to_dict` writes it: rules +
seeds (the ``header``, written when the table is made and when a seat gets a
name) and the ordered list of moves, one row per move, appended as it is played
(an undo deletes the last row; dealing a hand bumps ``hands``).  Loading puts
them back together and :meth:`~canasta.table.Table.from_dict` replays them, so a
table is rebuilt exactly, and a move costs one small insert however long the
match.  An idle table closed by the server keeps its rows, with status
``abandoned``: it is neither loaded nor listed again.  A seat row holds the player's name and the SHA-256 of their seat token
(never the token itself).  Every accepted change is written before it is broadcast.
"""

from __future__ import annotations

import hashlib
import json
import time
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
    func,
    select,
    update,
)
from sqlalchemy.engine import Engine

from canasta.errors import CanastaError
from canasta.web.redact import redact
from canasta.web.vault import Vault, vault_for

metadata = MetaData()

tables_t = Table(
    "canasta_tables", metadata,
    Column("id", String(32), primary_key=True),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
    Column("status", String(16), nullable=False, index=True),  # open | playing | finished | abandoned
    Column("config", Text, nullable=False),  # JSON: preset, bots, timers, title
    Column("header", Text, nullable=False),  # JSON: Table.to_dict() without its moves
    Column("hands", Integer, nullable=False),  # hands dealt
    Column("seq", Integer, nullable=False),  # the last event number sent to clients
)

moves_t = Table(
    "canasta_moves", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("idx", Integer, primary_key=True),  # order of play
    Column("hand", Integer, nullable=False),
    Column("line", String(400), nullable=False),  # "SEAT: move", as in Table.to_dict
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

notices_t = Table(
    "canasta_notices", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("id", Integer, primary_key=True),  # the notice's number at its table
    Column("kind", String(16), nullable=False),  # timeout: a person's turn timer ran out
    Column("seat", Integer, nullable=False),
    Column("hand", Integer, nullable=False),
    Column("after", Integer, nullable=False),  # moves of the hand played before it
)

reviews_t = Table(
    "canasta_reviews", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("hand", Integer, primary_key=True),  # the hand's number (1, 2, ...)
    Column("seat", Integer, primary_key=True),  # the seat reviewed
    Column("worlds", Integer, nullable=False),  # the budget it was computed with
    Column("data", Text, nullable=False),  # JSON: the decisions (canasta.review.DecisionReview as dicts)
)


_INSERT_MOVE = moves_t.insert()
_TOUCH_TABLE = update(tables_t).where(tables_t.c.id == bindparam("tid")).values(
    seq=bindparam("seq"), status=bindparam("status"), updated=bindparam("updated"))


class NotSaved(CanastaError):
    """The database did not take a change (it is away, or did not answer in time):
    nothing was changed, in memory or in the database; the change may be tried again."""


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
    state: dict[str, Any]  # Table.to_dict(), moves included
    seq: int
    seats: list[SeatRow]
    next_idx: int = 0  # the index the next stored move gets
    notices: list[dict[str, Any]] = field(default_factory=list)  # the table's public notices (Room.notices)


def normalise_url(url: str) -> str:
    """``postgresql://`` means the psycopg (3) driver; a bare path means a SQLite file."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if "://" not in url:
        return f"sqlite:///{url}"
    return url


class Store:
    """Tables and seats in a database (synchronous; each call is one short transaction)."""

    def __init__(self, url: str) -> None:
        self.url = normalise_url(url)
        try:
            self.engine: Engine = create_engine(self.url, future=True)
        except Exception as exc:  # unknown dialect, missing driver ...
            hint = " (pip install 'canasta[postgres]')" if "postgres" in self.url else ""
            raise CanastaError(f"cannot open database {redact(url)!r}: {exc}{hint}") from None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            metadata.create_all(self.engine)
        except Exception as exc:
            raise CanastaError(f"cannot open database {redact(url)!r}: {exc}") from None
        self.vault = open_vault(self.url)

    def close(self) -> None:
        self.engine.dispose()

    # ----------------------------------------------------------------- writes

    def create(self, row: TableRow) -> None:
        header = {k: v for k, v in row.state.items() if k != "hands"}
        hands = row.state.get("hands", [[]])
        with self.engine.begin() as db:
            db.execute(tables_t.insert().values(
                id=row.id, created=row.created, updated=row.updated, status=row.status,
                config=json.dumps(row.config), header=json.dumps(self.vault.seal(header)), hands=len(hands),
                seq=row.seq))
            idx = 0
            for h, hand in enumerate(hands, start=1):
                for line in hand:
                    db.execute(moves_t.insert().values(table_id=row.id, idx=idx, hand=h, line=line))
                    idx += 1
            row.next_idx = idx
            for s in row.seats:
                db.execute(seats_t.insert().values(
                    table_id=row.id, seat=s.seat, kind=s.kind, name=s.name, level=s.level,
                    token_hash=s.token_hash, invite_hash=s.invite_hash))

    def add_move(self, table_id: str, idx: int, hand: int, line: str, seq: int, status: str) -> None:
        """The hot path (every move): statements built once, only parameters change."""
        with self.engine.begin() as db:
            db.execute(_INSERT_MOVE, {"table_id": table_id, "idx": idx, "hand": hand, "line": line})
            db.execute(_TOUCH_TABLE, {"tid": table_id, "seq": seq, "status": status, "updated": time.time()})

    def undo_move(self, table_id: str, seq: int) -> None:
        with self.engine.begin() as db:
            last = db.execute(select(func.max(moves_t.c.idx)).where(moves_t.c.table_id == table_id)).scalar()
            if last is not None:
                db.execute(delete(moves_t).where(moves_t.c.table_id == table_id, moves_t.c.idx == last))
            db.execute(update(tables_t).where(tables_t.c.id == table_id).values(seq=seq, updated=time.time()))

    def add_notice(self, table_id: str, notice: dict[str, Any]) -> None:
        """A public notice (:class:`canasta.web.room.Notice` as a dict), kept with the table."""
        with self.engine.begin() as db:
            db.execute(notices_t.insert().values(table_id=table_id, **notice))

    def set_hands(self, table_id: str, hands: int, seq: int, status: str) -> None:
        with self.engine.begin() as db:
            db.execute(update(tables_t).where(tables_t.c.id == table_id).values(
                hands=hands, seq=seq, status=status, updated=time.time()))

    def save_header(self, table_id: str, state: dict[str, Any], seq: int, status: str) -> None:
        header = {k: v for k, v in state.items() if k != "hands"}
        with self.engine.begin() as db:
            db.execute(update(tables_t).where(tables_t.c.id == table_id).values(
                header=json.dumps(self.vault.seal(header)), seq=seq, status=status, updated=time.time()))

    def save_config(self, table_id: str, config: dict[str, Any]) -> None:
        """The table's settings (title, timers, the bots' pace)."""
        with self.engine.begin() as db:
            db.execute(update(tables_t).where(tables_t.c.id == table_id).values(config=json.dumps(config)))

    def save_seq(self, table_id: str, seq: int) -> None:
        with self.engine.begin() as db:
            db.execute(update(tables_t).where(tables_t.c.id == table_id).values(seq=seq))

    def set_status(self, table_id: str, status: str) -> None:
        """A table closed without a move (``abandoned``: idle too long)."""
        with self.engine.begin() as db:
            db.execute(update(tables_t).where(tables_t.c.id == table_id).values(status=status, updated=time.time()))

    def save_seat(self, table_id: str, s: SeatRow, status: str | None = None) -> None:
        with self.engine.begin() as db:
            db.execute(update(seats_t).where(seats_t.c.table_id == table_id, seats_t.c.seat == s.seat).values(
                kind=s.kind, name=s.name, level=s.level, token_hash=s.token_hash, invite_hash=s.invite_hash))
            if status is not None:
                db.execute(update(tables_t).where(tables_t.c.id == table_id).values(
                    status=status, updated=time.time()))

    def reseal(self) -> int:
        """Every stored deal secret encrypted again with the first key (after a new key was put
        first in CANASTA_SECRET_KEYS); how many rows were rewritten."""
        n = 0
        with self.engine.begin() as db:
            for t in db.execute(select(tables_t.c.id, tables_t.c.header)).all():
                db.execute(update(tables_t).where(tables_t.c.id == t.id).values(
                    header=json.dumps(self.vault.reseal(json.loads(t.header)))))
                n += 1
        return n

    def save_review(self, table_id: str, hand: int, seat: int, worlds: int, data: dict[str, Any]) -> None:
        """A computed review of one seat in one hand, kept with the table (the last one stands)."""
        key = (reviews_t.c.table_id == table_id, reviews_t.c.hand == hand, reviews_t.c.seat == seat)
        with self.engine.begin() as db:
            db.execute(delete(reviews_t).where(*key))
            db.execute(reviews_t.insert().values(table_id=table_id, hand=hand, seat=seat, worlds=worlds,
                                                 data=json.dumps(data)))

    # ------------------------------------------------------------------ reads

    def load_review(self, table_id: str, hand: int, seat: int, worlds: int) -> dict[str, Any] | None:
        """The stored review of ``seat`` in ``hand`` computed with ``worlds``, or None."""
        with self.engine.connect() as db:
            text = db.execute(select(reviews_t.c.data).where(
                reviews_t.c.table_id == table_id, reviews_t.c.hand == hand, reviews_t.c.seat == seat,
                reviews_t.c.worlds == worlds)).scalar()
        if text is None:
            return None
        data: dict[str, Any] = json.loads(text)
        return data

    def load(self, table_id: str) -> TableRow | None:
        rows = self._load(tables_t.c.id == table_id)
        return rows[0] if rows else None

    def unfinished(self) -> list[TableRow]:
        """The tables in play (neither finished nor abandoned)."""
        return self._load(tables_t.c.status.in_(("open", "playing")))

    def finished(self, limit: int = 100) -> list[TableRow]:
        return self._load(tables_t.c.status == "finished", limit=limit)

    def _load(self, where: Any, limit: int | None = None) -> list[TableRow]:
        with self.engine.connect() as db:
            q = select(tables_t).where(where).order_by(tables_t.c.updated.desc())
            if limit is not None:
                q = q.limit(limit)
            trows = db.execute(q).all()
            out: list[TableRow] = []
            for t in trows:
                srows = db.execute(select(seats_t).where(seats_t.c.table_id == t.id).order_by(seats_t.c.seat)).all()
                seats = [SeatRow(s.seat, s.kind, s.name, s.level, s.token_hash, s.invite_hash) for s in srows]
                mrows = db.execute(select(moves_t.c.idx, moves_t.c.hand, moves_t.c.line)
                                   .where(moves_t.c.table_id == t.id).order_by(moves_t.c.idx)).all()
                hands: list[list[str]] = [[] for _ in range(t.hands)]  # none: a fair table awaiting its deal
                for m in mrows:
                    hands[m.hand - 1].append(m.line)
                state = {**self.vault.open(json.loads(t.header)), "hands": hands}
                next_idx = (mrows[-1].idx + 1) if mrows else 0
                nrows = db.execute(select(notices_t).where(notices_t.c.table_id == t.id)
                                   .order_by(notices_t.c.id)).all()
                notices = [{"id": n.id, "kind": n.kind, "seat": n.seat, "hand": n.hand, "after": n.after}
                           for n in nrows]
                out.append(TableRow(t.id, t.created, t.updated, t.status, json.loads(t.config),
                                    state, t.seq, seats, next_idx, notices))
            return out


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


__all__ = ["NotSaved", "SeatRow", "Store", "TableRow", "hash_token", "normalise_url"]
