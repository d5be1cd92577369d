"""Accounts in the card room's database, beside its tables (SQLAlchemy Core, one short
transaction a call, synchronous: the server calls it from its database threads).

* ``canasta_accounts``: one row an account: the name as shown, its key (:func:`name_key`,
  unique) and its skeleton (:func:`skeleton`, unique: a look-alike of a name cannot be
  written, even by two servers at once), the argon2id hash of the password (never the
  password), the role (``player``, ``moderator``, ``admin``), the language, a ban.
* ``canasta_sessions``: a signed-in browser: the SHA-256 of its cookie (never the cookie),
  the account, its CSRF token and when it ends.  Every server of a cluster reads the same
  rows, so a sign-out or a ban ends a session everywhere at once.
* ``canasta_signin_attempts``: failed sign-ins (and accounts made), by a keyed digest of the
  name tried or of the client address, counted over a window to throttle them.
* ``canasta_account_seats``: the seats an account played (a seat taken signed in, or a
  guest's seats brought along when the guest signed up).

Opening a database of an earlier version creates the tables it lacks and adds the columns
an earlier version of these tables lacked (:meth:`AccountStore.upgrade`).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    delete,
    func,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from canasta.i18n import N_
from canasta.web.names import NameRefused, name_key, skeleton

ROLES = ("player", "moderator", "admin")
FOREVER = 253402300799.0  # a ban for good ends at the end of the year 9999
_LOCK = 7310453  # PostgreSQL advisory lock: servers starting together create the tables once

meta = MetaData()

accounts_t = Table(
    "canasta_accounts", meta,
    Column("id", String(32), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("name_key", String(128), nullable=False, unique=True),
    Column("skeleton", String(128), nullable=False, unique=True),
    Column("password", String(256), nullable=True),  # argon2id, PHC string; None: no password (passkeys only)
    Column("role", String(16), nullable=False),
    Column("lang", String(16), nullable=False),
    Column("created", Float, nullable=False),
    Column("banned_until", Float, nullable=True),
    Column("ban_reason", String(400), nullable=True),
)

sessions_t = Table(
    "canasta_sessions", meta,
    Column("id", String(64), primary_key=True),  # SHA-256 of the session cookie
    Column("account_id", String(32), nullable=False, index=True),
    Column("csrf", String(64), nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)

attempts_t = Table(
    "canasta_signin_attempts", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", String(64), nullable=False, index=True),  # a keyed digest: a name tried, an address
    Column("at", Float, nullable=False),
)

account_seats_t = Table(
    "canasta_account_seats", meta,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", String(32), nullable=False, index=True),
)

#: columns added after a table's first version: (table, column, its SQL type and default)
ADDED_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("canasta_accounts", "lang", "VARCHAR(16) NOT NULL DEFAULT 'en'"),
    ("canasta_accounts", "banned_until", "FLOAT"),
    ("canasta_accounts", "ban_reason", "VARCHAR(400)"),
)


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    role: str
    lang: str
    created: float
    banned_until: float | None = None
    ban_reason: str | None = None
    password: str | None = None  # the stored hash (never sent anywhere)

    def banned(self, now: float) -> bool:
        return self.banned_until is not None and self.banned_until > now

    def public(self) -> dict[str, object]:
        """What the account's own pages are told."""
        return {"name": self.name, "role": self.role, "lang": self.lang, "created": self.created}


@dataclass(frozen=True)
class Session:
    account: Account
    csrf: str
    expires: float


class Taken(Exception):
    """The name (or a look-alike of it) belongs to another account."""

    def __init__(self, refusal: NameRefused) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


def digest(text_: str) -> str:
    return hashlib.sha256(text_.encode("utf-8")).hexdigest()


def _account(r: object) -> Account:
    return Account(r.id, r.name, r.role, r.lang, r.created, r.banned_until, r.ban_reason,  # type: ignore[attr-defined]
                   r.password)  # type: ignore[attr-defined]


class AccountStore:
    """The accounts' rows on ``engine`` (the card room's own)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        with engine.begin() as db:
            self._lock(db)
            meta.create_all(db)
        self.upgrade()

    def _lock(self, db: Connection) -> None:
        if self.engine.dialect.name == "postgresql":
            db.execute(text(f"SELECT pg_advisory_xact_lock({_LOCK})"))

    def upgrade(self) -> list[str]:
        """Add the columns an earlier version's tables lack; the ones added, as ``table.column``."""
        added = []
        with self.engine.begin() as db:
            self._lock(db)
            found = inspect(db)
            for table, column, sql in ADDED_COLUMNS:
                if column not in {c["name"] for c in found.get_columns(table)}:
                    db.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {sql}"))
                    added.append(f"{table}.{column}")
        return added

    # --------------------------------------------------------------- accounts

    def create(self, name: str, password_hash: str | None, lang: str, now: float, role: str = "player") -> Account:
        """A new account named ``name`` (checked by :func:`canasta.web.names.check_name`);
        :class:`Taken` if the name or a look-alike is another's (nothing written)."""
        account = Account(secrets.token_hex(8), name, role, lang, now, password=password_hash)
        try:
            with self.engine.begin() as db:
                db.execute(accounts_t.insert().values(
                    id=account.id, name=name, name_key=name_key(name), skeleton=skeleton(name),
                    password=password_hash, role=role, lang=lang, created=now))
        except IntegrityError:
            raise Taken(self.why_taken(name)) from None
        return account

    def why_taken(self, name: str) -> NameRefused:
        with self.engine.connect() as db:
            same = db.execute(select(accounts_t.c.id).where(accounts_t.c.name_key == name_key(name))).first()
        if same is not None:
            return NameRefused(N_("the name {name} is taken: choose another"), name=name)
        return NameRefused(N_("the name {name} looks too much like another player's name: choose another"),
                           name=name)

    def available(self, name: str) -> NameRefused | None:
        """Why ``name`` cannot be a new account's (taken, or like another's), or None."""
        with self.engine.connect() as db:
            hit = db.execute(select(accounts_t.c.id).where(
                (accounts_t.c.name_key == name_key(name)) | (accounts_t.c.skeleton == skeleton(name)))).first()
        return None if hit is None else self.why_taken(name)

    def find(self, name: str) -> Account | None:
        """The account whose name is ``name`` (as :func:`name_key` compares), or None."""
        with self.engine.connect() as db:
            r = db.execute(select(accounts_t).where(accounts_t.c.name_key == name_key(name))).first()
        return None if r is None else _account(r)

    def get(self, account_id: str) -> Account | None:
        with self.engine.connect() as db:
            r = db.execute(select(accounts_t).where(accounts_t.c.id == account_id)).first()
        return None if r is None else _account(r)

    def everyone(self, role: str | None = None) -> list[Account]:
        q = select(accounts_t).order_by(accounts_t.c.name_key)
        if role is not None:
            q = q.where(accounts_t.c.role == role)
        with self.engine.connect() as db:
            return [_account(r) for r in db.execute(q).all()]

    def set_password(self, account_id: str, password_hash: str) -> None:
        """A new password hash; every session of the account ends (a reset throws out whoever
        held one)."""
        with self.engine.begin() as db:
            db.execute(update(accounts_t).where(accounts_t.c.id == account_id).values(password=password_hash))
            db.execute(delete(sessions_t).where(sessions_t.c.account_id == account_id))

    def rehash(self, account_id: str, old: str, new: str) -> None:
        """The same password under newer hashing parameters (only if unchanged meanwhile)."""
        with self.engine.begin() as db:
            db.execute(update(accounts_t).where(accounts_t.c.id == account_id, accounts_t.c.password == old)
                       .values(password=new))

    def set_role(self, account_id: str, role: str) -> None:
        if role not in ROLES:
            raise ValueError(role)
        with self.engine.begin() as db:
            db.execute(update(accounts_t).where(accounts_t.c.id == account_id).values(role=role))

    def set_lang(self, account_id: str, lang: str) -> None:
        with self.engine.begin() as db:
            db.execute(update(accounts_t).where(accounts_t.c.id == account_id).values(lang=lang))

    def ban(self, account_id: str, until: float | None, reason: str | None) -> int:
        """Ban until ``until`` (None: lift the ban); a ban ends every session of the account at
        once.  How many sessions ended."""
        with self.engine.begin() as db:
            db.execute(update(accounts_t).where(accounts_t.c.id == account_id)
                       .values(banned_until=until, ban_reason=reason if until is not None else None))
            if until is None:
                return 0
            return int(db.execute(delete(sessions_t).where(sessions_t.c.account_id == account_id)).rowcount)

    def delete(self, account_id: str) -> None:
        """The account, its sessions and its seats' links gone (the seats' names are the caller's)."""
        with self.engine.begin() as db:
            db.execute(delete(sessions_t).where(sessions_t.c.account_id == account_id))
            db.execute(delete(account_seats_t).where(account_seats_t.c.account_id == account_id))
            db.execute(delete(accounts_t).where(accounts_t.c.id == account_id))

    # --------------------------------------------------------------- sessions

    def open_session(self, account_id: str, now: float, seconds: float, ending: str | None = None) -> tuple[str, str]:
        """A new session (its cookie and CSRF token); ``ending``: the digest of a session the
        browser held, ended in the same transaction (a sign-in never keeps a session id the
        browser brought)."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
        with self.engine.begin() as db:
            if ending is not None:
                db.execute(delete(sessions_t).where(sessions_t.c.id == ending))
            db.execute(delete(sessions_t).where(sessions_t.c.account_id == account_id, sessions_t.c.expires < now))
            db.execute(sessions_t.insert().values(id=digest(token), account_id=account_id, csrf=csrf, created=now,
                                                  expires=now + seconds))
        return token, csrf

    def session(self, token: str, now: float) -> Session | None:
        """The live session of a cookie (not expired, its account not banned), or None."""
        with self.engine.connect() as db:
            r = db.execute(select(sessions_t.c.csrf, sessions_t.c.expires, accounts_t).join(
                accounts_t, accounts_t.c.id == sessions_t.c.account_id).where(sessions_t.c.id == digest(token))).first()
        if r is None or r.expires <= now:
            return None
        account = _account(r)
        if account.banned(now):
            return None
        return Session(account, r.csrf, r.expires)

    def end_session(self, token: str) -> bool:
        with self.engine.begin() as db:
            return bool(db.execute(delete(sessions_t).where(sessions_t.c.id == digest(token))).rowcount)

    def sessions_of(self, account_id: str, now: float) -> int:
        with self.engine.connect() as db:
            return int(db.execute(select(func.count()).select_from(sessions_t).where(
                sessions_t.c.account_id == account_id, sessions_t.c.expires > now)).scalar_one())

    # --------------------------------------------------------------- attempts

    def attempts(self, keys: Sequence[str], since: float) -> dict[str, tuple[int, float]]:
        """For each key, the attempts noted since ``since`` and the earliest of them."""
        with self.engine.connect() as db:
            rows = db.execute(select(attempts_t.c.key, func.count(), func.min(attempts_t.c.at))
                              .where(attempts_t.c.key.in_(list(keys)), attempts_t.c.at > since)
                              .group_by(attempts_t.c.key)).all()
        return {r[0]: (int(r[1]), float(r[2])) for r in rows}

    def note_attempt(self, keys: Iterable[str], now: float, forget_before: float) -> None:
        """One attempt under each key (the ones older than ``forget_before`` of these keys dropped)."""
        keys = list(keys)
        with self.engine.begin() as db:
            db.execute(delete(attempts_t).where(attempts_t.c.key.in_(keys), attempts_t.c.at < forget_before))
            for k in keys:
                db.execute(attempts_t.insert().values(key=k, at=now))

    def clear_attempts(self, key: str) -> None:
        with self.engine.begin() as db:
            db.execute(delete(attempts_t).where(attempts_t.c.key == key))

    # ------------------------------------------------------------------ seats

    def link_seat(self, table_id: str, seat: int, account_id: str) -> bool:
        """The seat is the account's (a seat already an account's stays that account's)."""
        try:
            with self.engine.begin() as db:
                db.execute(account_seats_t.insert().values(table_id=table_id, seat=seat, account_id=account_id))
        except IntegrityError:
            return False
        return True

    def seats_of(self, account_id: str) -> list[tuple[str, int]]:
        with self.engine.connect() as db:
            rows = db.execute(select(account_seats_t.c.table_id, account_seats_t.c.seat)
                              .where(account_seats_t.c.account_id == account_id)).all()
        return [(r.table_id, r.seat) for r in rows]

    def owners(self, table_id: str) -> dict[int, str]:
        """The seats of a table that are accounts', and whose."""
        with self.engine.connect() as db:
            rows = db.execute(select(account_seats_t.c.seat, account_seats_t.c.account_id)
                              .where(account_seats_t.c.table_id == table_id)).all()
        return {r.seat: r.account_id for r in rows}


__all__ = ["FOREVER", "ROLES", "Account", "AccountStore", "Session", "Taken", "digest"]
