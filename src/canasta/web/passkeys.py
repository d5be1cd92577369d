"""Passkeys (WebAuthn, the ``webauthn`` library): a signed-in player adds one to their account,
lists and removes them; anyone signs in with one, with or without giving a name, and gets the
same database session as a password sign-in (:meth:`AccountStore.open_session`).

Rows, beside the accounts' (their own SQLAlchemy ``MetaData`` on the card room's engine):

* ``canasta_passkeys``: a credential: its id (base64url), the account, its COSE public key,
  the sign count last seen, the transports the browser reported, when it was made and last used.
* ``canasta_passkey_challenges``: a ceremony under way: the SHA-256 of its random challenge,
  what it is for (``register``: the account adding a passkey; ``signin``: the account named,
  ``-`` for a name nobody has, or none), the keyed digest of the asking address, when it
  expires.  A challenge is deleted as the answer to it is checked (single use, on whichever
  server of a cluster the answer reaches), and lives :data:`CHALLENGE_SECONDS` at most.

What is refused, each with nothing changed (the challenge aside, spent): a signature that does
not verify, an answer to a challenge spent or expired or never given, another origin or RP id,
a sign count not above the one stored (a cloned authenticator), a credential of another
account than the one named, a user handle that is not the credential's account.  An unknown
credential gets the same words and status as a wrong signature (:data:`NOT_ACCEPTED`), after
the same work (a signature checked against a key of nobody's).  Failures count against the
address and the account as a password's do (:class:`canasta.web.accounts.Limits`), and a
banned account is refused as at a password sign-in.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    LargeBinary,
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
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from canasta.i18n import N_

meta = MetaData()

passkeys_t = Table(
    "canasta_passkeys", meta,
    Column("id", String(400), primary_key=True),  # the credential id, base64url (at most 255 bytes)
    Column("account_id", String(32), nullable=False, index=True),
    Column("public_key", LargeBinary, nullable=False),  # COSE_Key, as the authenticator gave it
    Column("sign_count", BigInteger, nullable=False),
    Column("transports", String(200), nullable=False),  # JSON list
    Column("created", Float, nullable=False),
    Column("last_used", Float, nullable=True),
)

challenges_t = Table(
    "canasta_passkey_challenges", meta,
    Column("id", String(64), primary_key=True),  # SHA-256 of the challenge
    Column("purpose", String(16), nullable=False),  # register, signin
    Column("account_id", String(32), nullable=True),
    Column("address", String(80), nullable=False, index=True),  # keyed digest of the client address
    Column("expires", Float, nullable=False, index=True),
)

CHALLENGE_SECONDS = 300.0
CHALLENGES_PER_ADDRESS = 30  # ceremonies under way from one client address
MAX_PASSKEYS = 20  # per account
MAX_CREDENTIAL_ID = 255  # bytes
_LOCK = 7310454  # PostgreSQL advisory lock (the accounts' is 7310453)
NOBODY = "-"  # a sign-in challenge for a name no account has: no credential answers it

NOT_ACCEPTED = N_("this passkey was not accepted: try again, or sign in with your password")
EXPIRED = N_("the passkey request expired: try again")
TOO_MANY_PASSKEYS = N_("an account holds at most {n} passkeys: remove one first")
ALREADY = N_("this passkey is already registered")
NO_SUCH_PASSKEY = N_("no such passkey on your account")
LAST_WAY_IN = N_("this is your account's only way to sign in: add a password or another passkey first")


@dataclass(frozen=True)
class Passkey:
    id: str
    account_id: str
    public_key: bytes
    sign_count: int
    transports: tuple[str, ...]
    created: float
    last_used: float | None

    def public(self) -> dict[str, object]:
        """What the account's own page is told (never the key)."""
        return {"id": self.id, "created": self.created, "last_used": self.last_used,
                "transports": list(self.transports)}


@dataclass(frozen=True)
class Challenge:
    purpose: str
    account_id: str | None


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text_: str) -> bytes:
    """The bytes of base64url ``text_``; ValueError if it is not."""
    if not isinstance(text_, str) or len(text_) > 20000:
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(text_ + "=" * (-len(text_) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def challenge_key(challenge: bytes) -> str:
    return hashlib.sha256(challenge).hexdigest()


def answered_challenge(credential: Any) -> bytes:
    """The challenge a browser's answer (``credential``, its JSON) signed: read from its
    ``clientDataJSON`` (the signature over it is checked afterwards); ValueError if absent."""
    if not isinstance(credential, dict) or not isinstance(credential.get("response"), dict):
        raise ValueError("not a credential")
    try:
        client_data = json.loads(unb64url(credential["response"].get("clientDataJSON")))
    except (ValueError, TypeError, RecursionError):
        raise ValueError("no client data") from None
    if not isinstance(client_data, dict) or not isinstance(client_data.get("challenge"), str):
        raise ValueError("no challenge")
    return unb64url(client_data["challenge"])


def _passkey(r: Any) -> Passkey:
    try:
        transports = tuple(t for t in json.loads(r.transports) if isinstance(t, str))
    except (ValueError, TypeError):
        transports = ()
    return Passkey(r.id, r.account_id, bytes(r.public_key), int(r.sign_count), transports, r.created, r.last_used)


class PasskeyStore:
    """The passkeys' rows on ``engine`` (the card room's own; tables made if absent)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        with engine.begin() as db:
            if engine.dialect.name == "postgresql":  # servers starting together create the tables once
                db.execute(text(f"SELECT pg_advisory_xact_lock({_LOCK})"))
            meta.create_all(db)

    # ------------------------------------------------------------- challenges

    def begin(self, challenge: bytes, purpose: str, account_id: str | None, address: str, now: float,
              per_address: int = CHALLENGES_PER_ADDRESS) -> bool:
        """Keep a new challenge (the expired ones dropped); False, keeping nothing, when
        ``address`` has ``per_address`` ceremonies under way already."""
        with self.engine.begin() as db:
            db.execute(delete(challenges_t).where(challenges_t.c.expires <= now))
            under_way = db.execute(select(func.count()).select_from(challenges_t)
                                   .where(challenges_t.c.address == address)).scalar_one()
            if per_address and under_way >= per_address:
                return False
            db.execute(challenges_t.insert().values(id=challenge_key(challenge), purpose=purpose,
                                                    account_id=account_id, address=address,
                                                    expires=now + CHALLENGE_SECONDS))
        return True

    def spend(self, challenge: bytes, purpose: str, now: float) -> Challenge | None:
        """The challenge, deleted (once: of two servers spending it at once, one gets None), or
        None if it was never given, is spent, has expired or was for something else."""
        key = challenge_key(challenge)
        with self.engine.begin() as db:
            r = db.execute(select(challenges_t).where(challenges_t.c.id == key)).first()
            if r is None or not db.execute(delete(challenges_t).where(challenges_t.c.id == key)).rowcount:
                return None
        if r.expires <= now or r.purpose != purpose:
            return None
        return Challenge(r.purpose, r.account_id)

    # --------------------------------------------------------------- passkeys

    def add(self, passkey: Passkey, most: int = MAX_PASSKEYS) -> str | None:
        """Keep a new passkey (the account holding fewer than ``most``); why not (:data:`ALREADY`, :data:`TOO_MANY_PASSKEYS`), or None."""
        try:
            with self.engine.begin() as db:
                held = db.execute(select(func.count()).select_from(passkeys_t)
                                  .where(passkeys_t.c.account_id == passkey.account_id)).scalar_one()
                if held >= most:
                    return TOO_MANY_PASSKEYS
                db.execute(passkeys_t.insert().values(
                    id=passkey.id, account_id=passkey.account_id, public_key=passkey.public_key,
                    sign_count=passkey.sign_count, transports=json.dumps(list(passkey.transports)),
                    created=passkey.created, last_used=passkey.last_used))
        except IntegrityError:
            return ALREADY
        return None

    def get(self, credential_id: str) -> Passkey | None:
        with self.engine.connect() as db:
            r = db.execute(select(passkeys_t).where(passkeys_t.c.id == credential_id)).first()
        return None if r is None else _passkey(r)

    def of(self, account_id: str) -> list[Passkey]:
        with self.engine.connect() as db:
            rows = db.execute(select(passkeys_t).where(passkeys_t.c.account_id == account_id)
                              .order_by(passkeys_t.c.created, passkeys_t.c.id)).all()
        return [_passkey(r) for r in rows]

    def used(self, credential_id: str, was: int, now_count: int, now: float) -> bool:
        """The sign count moved from ``was`` to ``now_count`` (only if still ``was``: of two
        answers checked at once, one is refused)."""
        with self.engine.begin() as db:
            done = db.execute(update(passkeys_t).where(passkeys_t.c.id == credential_id,
                                                       passkeys_t.c.sign_count == was)
                              .values(sign_count=now_count, last_used=now)).rowcount
        return bool(done)

    def remove(self, account_id: str, credential_id: str) -> bool:
        """The account's passkey gone (another account's is not touched)."""
        with self.engine.begin() as db:
            return bool(db.execute(delete(passkeys_t).where(passkeys_t.c.id == credential_id,
                                                            passkeys_t.c.account_id == account_id)).rowcount)

    def forget(self, account_id: str) -> int:
        """Every passkey of an account (deleted, or found gone)."""
        with self.engine.begin() as db:
            return int(db.execute(delete(passkeys_t).where(passkeys_t.c.account_id == account_id)).rowcount)

    def count(self, account_ids: Sequence[str]) -> dict[str, int]:
        with self.engine.connect() as db:
            rows = db.execute(select(passkeys_t.c.account_id, func.count()).where(
                passkeys_t.c.account_id.in_(list(account_ids))).group_by(passkeys_t.c.account_id)).all()
        return {r[0]: int(r[1]) for r in rows}


def kept_about(engine: Engine, account_id: str) -> list[dict[str, object]]:
    """An account's passkeys as its export gives them (no key); [] on a database without them."""
    if not inspect(engine).has_table(passkeys_t.name):
        return []
    with engine.connect() as db:
        rows = db.execute(select(passkeys_t).where(passkeys_t.c.account_id == account_id)
                          .order_by(passkeys_t.c.created, passkeys_t.c.id)).all()
    return [_passkey(r).public() for r in rows]


def forget_account(engine: Engine, account_id: str) -> int:
    """Delete an account's passkeys and its ceremonies under way (an account deleted); how many
    passkeys went."""
    if not inspect(engine).has_table(passkeys_t.name):
        return 0
    with engine.begin() as db:
        db.execute(delete(challenges_t).where(challenges_t.c.account_id == account_id))
        return int(db.execute(delete(passkeys_t).where(passkeys_t.c.account_id == account_id)).rowcount)


def new_challenge() -> bytes:
    return secrets.token_bytes(32)


__all__ = ["ALREADY", "CHALLENGE_SECONDS", "EXPIRED", "LAST_WAY_IN", "MAX_PASSKEYS", "NOBODY", "NOT_ACCEPTED",
           "NO_SUCH_PASSKEY", "TOO_MANY_PASSKEYS", "Challenge", "Passkey", "PasskeyStore", "answered_challenge",
           "b64url", "challenge_key", "forget_account", "kept_about", "new_challenge", "unb64url"]
