"""The card room's tournaments in its database (SQLAlchemy Core, beside the tables' own rows).

Four tables: ``canasta_tournaments`` holds each tournament as one JSON document (its settings,
entries, and once started the :class:`~canasta.club.tournament.Tournament`'s saved form: seatings
and each finished board's scores), ``canasta_tournament_live`` each board being played, one row a
table (the table's saved form with its moves, its turn clock), ``canasta_tournament_boards`` each
finished board's game record at each table, and ``canasta_tournament_audit`` the director's
actions.  Each document and each live row has its own ``seq``, and a change is accepted only by
moving it from N to N + 1, so two servers, or a job run twice, change either at most once for each
state they read; the loser reads it again.  A move writes only its table's live row; a board's
finish writes the document (its scores), the board's record row and deletes its live row in one
transaction, with both checks (:meth:`TournamentStore.save`).  The round secrets still to be
revealed and the deals of the boards in play are sealed with the room's deal-secret keys
(:mod:`canasta.web.vault`), as the tables' deal secrets are.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    delete,
    func,
    not_,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from canasta.web.vault import Vault

meta = MetaData()

tournaments_t = Table(
    "canasta_tournaments", meta,
    Column("id", String(32), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("director", String(64), nullable=False),  # the director's account id
    Column("status", String(16), nullable=False, index=True),  # registering | running | finished
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
    Column("seq", Integer, nullable=False),  # moves N -> N + 1 with each change
    Column("state", Text, nullable=False),  # JSON, secrets sealed
)

boards_t = Table(
    "canasta_tournament_boards", meta,
    Column("tournament", String(32), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("tbl", Integer, primary_key=True),
    Column("board", Integer, primary_key=True),
    Column("record", Text, nullable=False),  # the board's game record at that table
)

live_t = Table(
    "canasta_tournament_live", meta,
    Column("tournament", String(32), primary_key=True),
    Column("tbl", Integer, primary_key=True),
    Column("round", Integer, nullable=False),
    Column("board", Integer, nullable=False),
    Column("seq", Integer, nullable=False),  # moves N -> N + 1 with each change of this table
    Column("moves", Integer, nullable=False),  # the board's moves so far (the page shows them)
    Column("waiting", Integer, nullable=True),  # the seat of the person to move whose clock runs
    Column("deadline", Float, nullable=True),  # when their turn clock runs out
    Column("updated", Float, nullable=False),
    Column("data", Text, nullable=False),  # JSON, sealed: the table's saved form, the house bot's seats
)

audit_t = Table(
    "canasta_tournament_audit", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tournament", String(32), nullable=False, index=True),
    Column("at", Float, nullable=False),
    Column("actor", String(64), nullable=False),
    Column("action", String(24), nullable=False),
    Column("detail", Text, nullable=False),  # JSON
)


@dataclass
class Stored:
    """A tournament as read: its id, the state's number and the state itself."""

    id: str
    seq: int
    status: str
    state: dict[str, Any]
    updated: float = 0.0


@dataclass
class Live:
    """A board being played at one table: its row's number and columns; ``data`` (the table's saved
    form and the seats the house bot played) only when read whole (:meth:`TournamentStore.live`)."""

    table: int
    round: int
    board: int
    seq: int
    moves: int
    waiting: int | None
    deadline: float | None
    updated: float
    data: dict[str, Any] | None = None


class _Conflict(Exception):
    """Another writer came first: the transaction is rolled back."""


class TournamentStore:
    """Reads and writes tournaments on the room's engine."""

    def __init__(self, engine: Engine, vault: Vault | None) -> None:
        self.engine = engine
        self.vault = vault
        #: this process's last read of each tournament, parsed (:func:`canasta.web.tournaments.current`)
        self.cache: dict[str, Any] = {}
        #: this process's players' views of each table, by its row's state (``tournaments.my_view``)
        self.views: dict[Any, Any] = {}
        #: the last glance at each tournament (:meth:`glance`), forgotten at this process's writes
        self.glances: dict[str, tuple[float, int, list[Live]]] = {}
        #: each tournament's writes by this process so far: a glance read while one was under way
        #: is not kept (it may hold the state before it)
        self.writes: dict[str, int] = {}
        self.audits: dict[str, tuple[float, list[dict[str, Any]]]] = {}
        meta.create_all(engine)

    def _seal(self, state: dict[str, Any]) -> str:
        return json.dumps(self.vault.seal(state) if self.vault is not None else state)

    def _open(self, text: str) -> dict[str, Any]:
        data = json.loads(text)
        opened: dict[str, Any] = self.vault.open(data) if self.vault is not None else data
        return opened

    def create(self, tid: str, state: dict[str, Any], now: float) -> None:
        with self.engine.begin() as db:
            db.execute(tournaments_t.insert().values(id=tid, name=state["name"], director=state["director"]["id"],
                                                     status=state["status"], created=now, updated=now, seq=0,
                                                     state=self._seal(state)))

    def load(self, tid: str) -> Stored | None:
        with self.engine.connect() as db:
            row = db.execute(select(tournaments_t).where(tournaments_t.c.id == tid)).first()
        if row is None:
            return None
        return Stored(row.id, row.seq, row.status, self._open(row.state), row.updated)

    def seq_of(self, tid: str) -> int | None:
        """The tournament's state number (None: no such tournament): whether a state read before is current."""
        with self.engine.connect() as db:
            found = db.execute(select(tournaments_t.c.seq).where(tournaments_t.c.id == tid)).scalar()
        return None if found is None else int(found)

    def save(self, got: Stored, now: float, finished: tuple[int, int | None] | None = None,
             playing: tuple[int, int] | None = None) -> bool:
        """Write ``got.state`` as state ``got.seq + 1``; False (nothing written) if another writer
        moved the tournament on since ``got`` was read.  ``finished``: the table whose board this
        state finishes and its live row's number as read (None: it had none), the row deleted in the
        same transaction (False if it moved on, or appeared, meanwhile); ``playing``: the round and
        board now dealt, every live row of another board deleted with it."""
        boards = got.state.pop("_boards", [])
        self._written(got.id)
        try:
            with self.engine.begin() as db:
                done = db.execute(update(tournaments_t).where(tournaments_t.c.id == got.id,
                                                              tournaments_t.c.seq == got.seq)
                                  .values(seq=got.seq + 1, status=got.state["status"], updated=now,
                                          state=self._seal(got.state)))
                if done.rowcount != 1:
                    raise _Conflict  # nothing written: the transaction ends without the boards' rows
                if boards:
                    db.execute(boards_t.insert(), [{"tournament": got.id, "round": r, "tbl": t, "board": b,
                                                    "record": text} for r, t, b, text in boards])
                if finished is not None:
                    self._drop(db, got.id, *finished)
                if playing is not None:
                    db.execute(delete(live_t).where(live_t.c.tournament == got.id, not_(and_(
                        live_t.c.round == playing[0], live_t.c.board == playing[1]))))
        except _Conflict:
            got.state["_boards"] = boards
            return False
        finally:
            self._written(got.id)  # after the commit too: a glance taken meanwhile held the state before
        got.seq += 1
        got.status = got.state["status"]
        got.updated = now
        return True

    @staticmethod
    def _drop(db: Connection, tid: str, table: int, seq: int | None) -> None:
        where = [live_t.c.tournament == tid, live_t.c.tbl == table]
        gone = db.execute(delete(live_t).where(*where, *([live_t.c.seq == seq] if seq is not None else [])))
        if gone.rowcount != (1 if seq is not None else 0):
            raise _Conflict  # the table moved on (or was dealt) since it was read

    # ---------------------------------------------------------------- the boards being played

    _heads = select(*[c for c in live_t.c if c.name not in ("tournament", "data")])

    def heads(self, tid: str) -> list[Live]:
        """Every live row of the tournament, without its table (the numbers and the clocks only)."""
        with self.engine.connect() as db:
            return self._heads_on(db, tid)

    def _heads_on(self, db: Connection, tid: str) -> list[Live]:
        rows = db.execute(self._heads.where(live_t.c.tournament == tid)).all()
        return [Live(r.tbl, r.round, r.board, r.seq, r.moves, r.waiting, r.deadline, r.updated) for r in rows]

    def glance(self, tid: str, now: float, fresh: float) -> tuple[int, list[Live]] | None:
        """The document's number and the live rows' heads, in one connection; as read at most
        ``fresh`` seconds ago, with this process's writes since (a live row's written into it, the
        document's forgetting it): the pages' looks, polled every second or two."""
        hit = self.glances.get(tid)
        if hit is not None and now - hit[0] < fresh:
            return hit[1], hit[2]
        writes = self.writes.get(tid, 0)
        with self.engine.connect() as db:
            seq = db.execute(select(tournaments_t.c.seq).where(tournaments_t.c.id == tid)).scalar()
            heads = self._heads_on(db, tid) if seq is not None else []
        if seq is None:
            return None
        if len(self.glances) >= 256:
            self.glances.clear()
        if self.writes.get(tid, 0) == writes:  # no write of this process began or ended while it was read
            self.glances[tid] = (now, int(seq), heads)
        return int(seq), heads

    def live(self, tid: str, table: int) -> Live | None:
        """One table's live row, whole (its table opened)."""
        with self.engine.connect() as db:
            r = db.execute(select(live_t).where(live_t.c.tournament == tid, live_t.c.tbl == table)).first()
        if r is None:
            return None
        return Live(r.tbl, r.round, r.board, r.seq, r.moves, r.waiting, r.deadline, r.updated, self._open(r.data))

    def save_live(self, tid: str, live: Live, now: float) -> bool:
        """Write ``live`` as its row's state ``live.seq + 1`` (``live.seq`` -1: a new row, dealt now);
        False (nothing written) if another writer moved the row on, or dealt it, since it was read."""
        assert live.data is not None
        values = {"round": live.round, "board": live.board, "seq": live.seq + 1, "moves": live.moves,
                  "waiting": live.waiting, "deadline": live.deadline, "updated": now, "data": self._seal(live.data)}
        try:
            with self.engine.begin() as db:
                if live.seq < 0:
                    db.execute(live_t.insert().values(tournament=tid, tbl=live.table, **values))
                else:
                    done = db.execute(update(live_t).where(live_t.c.tournament == tid, live_t.c.tbl == live.table,
                                                           live_t.c.seq == live.seq).values(**values))
                    if done.rowcount != 1:
                        return False
        except IntegrityError:
            return False  # dealt by another writer first
        live.seq += 1
        live.updated = now
        glanced = self.glances.get(tid)
        if glanced is not None:  # this write in the last glance (the others' come with the next)
            head = Live(live.table, live.round, live.board, live.seq, live.moves, live.waiting, live.deadline, now)
            self.glances[tid] = (glanced[0], glanced[1], [h for h in glanced[2] if h.table != live.table] + [head])
        return True

    def stop_clocks(self, tid: str) -> None:
        """Every live row's turn clock cleared (a pause, a resume: the clocks start again)."""
        self._written(tid)
        try:
            with self.engine.begin() as db:
                db.execute(update(live_t).where(live_t.c.tournament == tid)
                           .values(seq=live_t.c.seq + 1, waiting=None, deadline=None))
        finally:
            self._written(tid)

    def _written(self, tid: str) -> None:
        """This process writes (or has written) the tournament: its last glance forgotten, and a glance
        being read meanwhile not kept."""
        self.glances.pop(tid, None)
        self.writes[tid] = self.writes.get(tid, 0) + 1

    def last_written(self, tid: str) -> float:
        """When the tournament, or any of its boards in play, was last written."""
        with self.engine.connect() as db:
            doc = db.execute(select(tournaments_t.c.updated).where(tournaments_t.c.id == tid)).scalar()
            live = db.execute(select(func.max(live_t.c.updated)).where(live_t.c.tournament == tid)).scalar()
        return max(float(doc or 0.0), float(live or 0.0))

    def record(self, tid: str, r: int, table: int, board: int) -> str | None:
        """A finished board's game record at one table."""
        with self.engine.connect() as db:
            found = db.execute(select(boards_t.c.record).where(
                boards_t.c.tournament == tid, boards_t.c.round == r, boards_t.c.tbl == table,
                boards_t.c.board == board)).scalar()
        return None if found is None else str(found)

    def listing(self, limit: int = 100) -> list[dict[str, Any]]:
        """The newest tournaments: id, name, status, created."""
        with self.engine.connect() as db:
            rows = db.execute(select(tournaments_t.c.id, tournaments_t.c.name, tournaments_t.c.status,
                                     tournaments_t.c.created).order_by(tournaments_t.c.created.desc())
                              .limit(limit)).all()
        return [{"id": r.id, "name": r.name, "status": r.status, "created": r.created} for r in rows]

    def running(self) -> list[str]:
        """The tournaments under way (at start-up, each gets its next step)."""
        with self.engine.connect() as db:
            return [r.id for r in db.execute(select(tournaments_t.c.id).where(tournaments_t.c.status == "running"))]

    def reseal(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Every tournament's sealed values (its round secrets still to be revealed, the deals of
        its boards in play) encrypted again with the vault's first key, as
        :meth:`canasta.web.store.Store.reseal` does for the tables: a row already under the first
        key is left as it is, and a row is written only if it still holds what was read (compare
        and set: a move meanwhile wins, and its write is under the first key already).  How many
        rows were written again; ``progress(rows read, rows rewritten)`` after each kind."""
        if self.vault is None:
            return 0
        n = read = 0
        for table, key, column in ((tournaments_t, (tournaments_t.c.id,), tournaments_t.c.state),
                                   (live_t, (live_t.c.tournament, live_t.c.tbl), live_t.c.data)):
            with self.engine.connect() as db:
                rows = db.execute(select(*key, column)).all()
            for row in rows:
                read += 1
                old = row[-1]
                new = self.vault.renew(json.loads(old))
                if new is None:
                    continue
                with self.engine.begin() as db:
                    where = [c == v for c, v in zip(key, row[:-1], strict=True)]
                    done = db.execute(update(table).where(*where, column == old).values({column.name: json.dumps(new)}))
                n += done.rowcount
            if progress is not None:
                progress(read, n)
        return n

    def audit(self, tid: str, actor: str, action: str, detail: dict[str, Any], now: float) -> None:
        self.audits.pop(tid, None)
        with self.engine.begin() as db:
            db.execute(audit_t.insert().values(tournament=tid, at=now, actor=actor, action=action,
                                               detail=json.dumps(detail)))

    def audit_log(self, tid: str, now: float = 0.0, fresh: float = 0.0) -> list[dict[str, Any]] | None:
        """The director's actions, oldest first (None: no such tournament); as read at most
        ``fresh`` seconds ago if this process has logged nothing of it since (the pages' looks)."""
        hit = self.audits.get(tid)
        if hit is not None and now - hit[0] < fresh:
            return hit[1]
        with self.engine.connect() as db:
            if db.execute(select(tournaments_t.c.seq).where(tournaments_t.c.id == tid)).scalar() is None:
                return None
            rows = db.execute(select(audit_t).where(audit_t.c.tournament == tid).order_by(audit_t.c.id)).all()
        found = [{"at": r.at, "actor": r.actor, "action": r.action, "detail": json.loads(r.detail)} for r in rows]
        if len(self.audits) >= 256:
            self.audits.clear()
        self.audits[tid] = (now, found)
        return found


__all__ = ["Live", "Stored", "TournamentStore", "audit_t", "boards_t", "live_t", "meta", "tournaments_t"]
