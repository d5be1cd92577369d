"""Friends and civility in the card room's database, beside the accounts (SQLAlchemy Core, a
:class:`~sqlalchemy.MetaData` of its own on the same engine, one short transaction a call,
synchronous: the server calls it from its database threads).

* ``canasta_relations``: what one account holds about another: ``follow``, ``mute``, ``block``.
* ``canasta_inbox``: what an account is told when it next looks: an ``invitation`` to a seat
  (with the seat's link) or a moderator's ``warning``.
* ``canasta_reports``: a player or a chat line reported, with the reason; a chat line's text is
  copied from the table's stored event (never taken from the reporter), so it stays as said.
* ``canasta_audit``: every moderator's action (warn, ban, unban, close a report), and the
  operator's bans from ``canasta accounts``: who, on whom, what, when, why.
* ``canasta_last_seen``: when an account last had the lobby open (a friend is online while
  seen within :data:`ONLINE_SECONDS`, or while seated at a table with a socket open).

An existing database opens and gets these tables (``create_all`` creates only the missing
ones); servers starting together create them once (PostgreSQL advisory lock)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    and_,
    delete,
    func,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from canasta.web.account_store import accounts_t

KINDS = ("follow", "mute", "block")
ONLINE_SECONDS = 90.0  # a lobby seen this recently is online
MAX_FOLLOWS = 500  # accounts one account may follow (each kind of relation)
MAX_INBOX = 50  # items an inbox keeps (the oldest dropped)
_LOCK = 7310454  # PostgreSQL advisory lock of this module's tables (account_store's is 7310453)

meta = MetaData()

relations_t = Table(
    "canasta_relations", meta,
    Column("account_id", String(32), primary_key=True),
    Column("other_id", String(32), primary_key=True, index=True),
    Column("kind", String(8), primary_key=True),
    Column("at", Float, nullable=False),
)

inbox_t = Table(
    "canasta_inbox", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", String(32), nullable=False, index=True),
    Column("kind", String(16), nullable=False),  # invitation, warning
    Column("from_name", String(64), nullable=True),
    Column("table_id", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("link", String(200), nullable=True),
    Column("text", String(400), nullable=True),
    Column("at", Float, nullable=False),
)

reports_t = Table(
    "canasta_reports", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("reporter_id", String(32), nullable=False, index=True),
    Column("reported_id", String(32), nullable=False, index=True),
    Column("table_id", String(32), nullable=True),
    Column("chat_num", Integer, nullable=True),  # the chat event's number at the table
    Column("chat_text", String(400), nullable=True),  # its text as stored (or its quick phrase's key)
    Column("reason", String(400), nullable=False),
    Column("at", Float, nullable=False),
    Column("status", String(8), nullable=False),  # open, closed
    Column("handled_by", String(64), nullable=True),
    Column("handled_at", Float, nullable=True),
)

audit_t = Table(
    "canasta_audit", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("moderator", String(64), nullable=False),  # a moderator's name, or "operator" (canasta accounts)
    Column("action", String(16), nullable=False),  # warn, ban, unban, close
    Column("target", String(64), nullable=True),  # the account's name at the time
    Column("target_id", String(32), nullable=True),
    Column("until", Float, nullable=True),
    Column("reason", String(400), nullable=True),
    Column("report_id", Integer, nullable=True),
)

last_seen_t = Table(
    "canasta_last_seen", meta,
    Column("account_id", String(32), primary_key=True),
    Column("at", Float, nullable=False),
)


@dataclass(frozen=True)
class Report:
    id: int
    reporter: str
    reported: str
    table_id: str | None
    chat_num: int | None
    chat_text: str | None
    reason: str
    at: float
    status: str
    handled_by: str | None
    handled_at: float | None

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "reporter": self.reporter, "reported": self.reported, "table": self.table_id,
                "chat": self.chat_num, "chat_text": self.chat_text, "reason": self.reason, "at": self.at,
                "status": self.status, "handled_by": self.handled_by, "handled_at": self.handled_at}


class SocialStore:
    """Relations, inboxes, reports and the audit log on ``engine`` (the card room's own)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        with engine.begin() as db:
            self._lock(db)
            meta.create_all(db)

    def _lock(self, db: Connection) -> None:
        if self.engine.dialect.name == "postgresql":
            db.execute(text(f"SELECT pg_advisory_xact_lock({_LOCK})"))

    # -------------------------------------------------------------- relations

    def relate(self, account_id: str, other_id: str, kind: str, now: float) -> bool:
        """``account_id`` now ``kind``s ``other_id`` (False: it did already, or holds too many)."""
        assert kind in KINDS
        try:
            with self.engine.begin() as db:
                held = db.execute(select(func.count()).select_from(relations_t).where(
                    relations_t.c.account_id == account_id, relations_t.c.kind == kind)).scalar_one()
                if held >= MAX_FOLLOWS:
                    return False
                db.execute(relations_t.insert().values(account_id=account_id, other_id=other_id, kind=kind, at=now))
        except IntegrityError:
            return False
        return True

    def unrelate(self, account_id: str, other_id: str, kind: str) -> bool:
        with self.engine.begin() as db:
            return bool(db.execute(delete(relations_t).where(
                relations_t.c.account_id == account_id, relations_t.c.other_id == other_id,
                relations_t.c.kind == kind)).rowcount)

    def holds(self, account_id: str, other_id: str, kind: str) -> bool:
        with self.engine.connect() as db:
            return db.execute(select(relations_t.c.at).where(
                relations_t.c.account_id == account_id, relations_t.c.other_id == other_id,
                relations_t.c.kind == kind)).first() is not None

    def related(self, account_id: str, kind: str) -> list[tuple[str, str]]:
        """The (id, name) of the accounts ``account_id`` ``kind``s, by name."""
        with self.engine.connect() as db:
            rows = db.execute(select(accounts_t.c.id, accounts_t.c.name).join(
                relations_t, relations_t.c.other_id == accounts_t.c.id).where(
                relations_t.c.account_id == account_id, relations_t.c.kind == kind)
                .order_by(accounts_t.c.name_key)).all()
        return [(r.id, r.name) for r in rows]

    def muted_ids(self, account_id: str) -> frozenset[str]:
        with self.engine.connect() as db:
            return frozenset(r[0] for r in db.execute(select(relations_t.c.other_id).where(
                relations_t.c.account_id == account_id, relations_t.c.kind == "mute")).all())

    def blocking(self, blocked_id: str, among: list[str]) -> list[str]:
        """Which of the accounts ``among`` block ``blocked_id``."""
        if not among:
            return []
        with self.engine.connect() as db:
            return [r[0] for r in db.execute(select(relations_t.c.account_id).where(
                relations_t.c.other_id == blocked_id, relations_t.c.kind == "block",
                relations_t.c.account_id.in_(among))).all()]

    def forget_account(self, account_id: str) -> None:
        """An account deleted: what it held and what was held about it (reports and the audit stay)."""
        with self.engine.begin() as db:
            db.execute(delete(relations_t).where((relations_t.c.account_id == account_id)
                                                 | (relations_t.c.other_id == account_id)))
            db.execute(delete(inbox_t).where(inbox_t.c.account_id == account_id))
            db.execute(delete(last_seen_t).where(last_seen_t.c.account_id == account_id))

    def export(self, account_id: str) -> dict[str, Any]:
        """What is kept of an account's relations, inbox and reports, for its own export."""
        out: dict[str, Any] = {kind: [n for _, n in self.related(account_id, kind)] for kind in KINDS}
        out["inbox"] = self.inbox(account_id)
        out["reports_made"] = [r.public() for r in self.reports(reporter_id=account_id)]
        return out

    # ------------------------------------------------------------------ inbox

    def tell(self, account_id: str, kind: str, now: float, *, from_name: str | None = None,
             table_id: str | None = None, seat: int | None = None, link: str | None = None,
             said: str | None = None) -> int:
        """Put an item in ``account_id``'s inbox; its id."""
        with self.engine.begin() as db:
            new = db.execute(inbox_t.insert().values(account_id=account_id, kind=kind, from_name=from_name,
                                                     table_id=table_id, seat=seat, link=link, text=said, at=now))
            key = new.inserted_primary_key
            assert key is not None
            ids = [r[0] for r in db.execute(select(inbox_t.c.id).where(inbox_t.c.account_id == account_id)
                                            .order_by(inbox_t.c.id.desc())).all()]
            if len(ids) > MAX_INBOX:
                db.execute(delete(inbox_t).where(inbox_t.c.id.in_(ids[MAX_INBOX:])))
        return int(key[0])

    def inbox(self, account_id: str) -> list[dict[str, Any]]:
        with self.engine.connect() as db:
            rows = db.execute(select(inbox_t).where(inbox_t.c.account_id == account_id)
                              .order_by(inbox_t.c.id.desc())).all()
        return [{"id": r.id, "kind": r.kind, "from": r.from_name, "table": r.table_id, "seat": r.seat,
                 "link": r.link, "text": r.text, "at": r.at} for r in rows]

    def dismiss(self, account_id: str, item: int) -> bool:
        with self.engine.begin() as db:
            return bool(db.execute(delete(inbox_t).where(inbox_t.c.account_id == account_id,
                                                         inbox_t.c.id == item)).rowcount)

    # ---------------------------------------------------------------- presence

    def seen(self, account_id: str, now: float) -> None:
        with self.engine.begin() as db:
            if not db.execute(update(last_seen_t).where(last_seen_t.c.account_id == account_id)
                              .values(at=now)).rowcount:
                try:
                    with db.begin_nested():
                        db.execute(last_seen_t.insert().values(account_id=account_id, at=now))
                except IntegrityError:
                    pass

    def last_seen(self, ids: list[str]) -> dict[str, float]:
        if not ids:
            return {}
        with self.engine.connect() as db:
            return {r[0]: float(r[1]) for r in db.execute(select(last_seen_t.c.account_id, last_seen_t.c.at)
                                                          .where(last_seen_t.c.account_id.in_(ids))).all()}

    # ---------------------------------------------------------------- reports

    def report(self, reporter_id: str, reported_id: str, reason: str, now: float, table_id: str | None = None,
               chat_num: int | None = None, chat_text: str | None = None) -> int:
        with self.engine.begin() as db:
            new = db.execute(reports_t.insert().values(
                reporter_id=reporter_id, reported_id=reported_id, table_id=table_id, chat_num=chat_num,
                chat_text=chat_text, reason=reason, at=now, status="open"))
            key = new.inserted_primary_key
        assert key is not None
        return int(key[0])

    def reports(self, *, status: str | None = None, reporter_id: str | None = None,
                limit: int = 200) -> list[Report]:
        """Reports, the newest first, with the names of the reporter and the reported."""
        reporter, reported = accounts_t.alias("reporter"), accounts_t.alias("reported")
        q = (select(reports_t, reporter.c.name.label("reporter_name"), reported.c.name.label("reported_name"))
             .outerjoin(reporter, reporter.c.id == reports_t.c.reporter_id)
             .outerjoin(reported, reported.c.id == reports_t.c.reported_id)
             .order_by(reports_t.c.id.desc()).limit(limit))
        conds = []
        if status is not None:
            conds.append(reports_t.c.status == status)
        if reporter_id is not None:
            conds.append(reports_t.c.reporter_id == reporter_id)
        if conds:
            q = q.where(and_(*conds))
        with self.engine.connect() as db:
            rows = db.execute(q).all()
        return [Report(r.id, r.reporter_name or "(deleted)", r.reported_name or "(deleted)", r.table_id, r.chat_num,
                       r.chat_text, r.reason, r.at, r.status, r.handled_by, r.handled_at) for r in rows]

    def open_reports_about(self, reported_id: str, reporter_id: str) -> int:
        with self.engine.connect() as db:
            return int(db.execute(select(func.count()).select_from(reports_t).where(
                reports_t.c.reported_id == reported_id, reports_t.c.reporter_id == reporter_id,
                reports_t.c.status == "open")).scalar_one())

    def close_report(self, report_id: int, by: str, now: float) -> bool:
        with self.engine.begin() as db:
            return bool(db.execute(update(reports_t).where(reports_t.c.id == report_id, reports_t.c.status == "open")
                                   .values(status="closed", handled_by=by, handled_at=now)).rowcount)

    def report_exists(self, report_id: int) -> bool:
        with self.engine.connect() as db:
            return db.execute(select(reports_t.c.id).where(reports_t.c.id == report_id)).first() is not None

    # ------------------------------------------------------------------ audit

    def audit(self, moderator: str, action: str, now: float, *, target: str | None = None,
              target_id: str | None = None, until: float | None = None, reason: str | None = None,
              report_id: int | None = None) -> int:
        with self.engine.begin() as db:
            new = db.execute(audit_t.insert().values(at=now, moderator=moderator, action=action, target=target,
                                                     target_id=target_id, until=until, reason=reason,
                                                     report_id=report_id))
            key = new.inserted_primary_key
        assert key is not None
        return int(key[0])

    def audit_log(self, limit: int = 200) -> list[dict[str, Any]]:
        with self.engine.connect() as db:
            rows = db.execute(select(audit_t).order_by(audit_t.c.id.desc()).limit(limit)).all()
        return [{"id": r.id, "at": r.at, "moderator": r.moderator, "action": r.action, "target": r.target,
                 "until": r.until, "reason": r.reason, "report": r.report_id} for r in rows]


__all__ = ["KINDS", "MAX_FOLLOWS", "ONLINE_SECONDS", "Report", "SocialStore", "audit_t", "inbox_t", "meta",
           "relations_t", "reports_t"]
