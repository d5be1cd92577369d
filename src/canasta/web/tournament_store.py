"""The card room's tournaments in its database (SQLAlchemy Core, beside the tables' own rows).

Three tables: ``canasta_tournaments`` holds each tournament as one JSON document (its settings,
entries, and once started the :class:`~canasta.club.tournament.Tournament`'s saved form, each
finished board's scores and the boards being played), ``canasta_tournament_boards`` each finished
board's game record at each table (written in the transaction that writes the document's state
with it), and ``canasta_tournament_audit`` the director's actions.  A change is
accepted only by moving the row's ``seq`` from N to N + 1 (:meth:`TournamentStore.save`), so two
servers, or a job run twice, change a tournament at most once for each state they read; the
loser reads it again.  The round secrets still to be revealed and the deals of the boards in
play are sealed with the room's deal-secret keys (:mod:`canasta.web.vault`), as the tables'
deal secrets are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, Float, Integer, MetaData, String, Table, Text, select, update
from sqlalchemy.engine import Engine

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


class TournamentStore:
    """Reads and writes tournaments on the room's engine."""

    def __init__(self, engine: Engine, vault: Vault | None) -> None:
        self.engine = engine
        self.vault = vault
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

    def save(self, got: Stored, now: float) -> bool:
        """Write ``got.state`` as state ``got.seq + 1``; False (nothing written) if another writer
        moved the tournament on since ``got`` was read."""
        boards = got.state.pop("_boards", [])
        with self.engine.begin() as db:
            done = db.execute(update(tournaments_t).where(tournaments_t.c.id == got.id,
                                                          tournaments_t.c.seq == got.seq)
                              .values(seq=got.seq + 1, status=got.state["status"], updated=now,
                                      state=self._seal(got.state)))
            if done.rowcount != 1:
                return False  # nothing written: the transaction ends without the boards' rows
            if boards:
                db.execute(boards_t.insert(), [{"tournament": got.id, "round": r, "tbl": t, "board": b, "record": text}
                                               for r, t, b, text in boards])
        got.seq += 1
        got.status = got.state["status"]
        got.updated = now
        return True

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

    def audit(self, tid: str, actor: str, action: str, detail: dict[str, Any], now: float) -> None:
        with self.engine.begin() as db:
            db.execute(audit_t.insert().values(tournament=tid, at=now, actor=actor, action=action,
                                               detail=json.dumps(detail)))

    def audit_log(self, tid: str) -> list[dict[str, Any]]:
        with self.engine.connect() as db:
            rows = db.execute(select(audit_t).where(audit_t.c.tournament == tid).order_by(audit_t.c.id)).all()
        return [{"at": r.at, "actor": r.actor, "action": r.action, "detail": json.loads(r.detail)} for r in rows]


__all__ = ["Stored", "TournamentStore", "audit_t", "boards_t", "meta", "tournaments_t"]
