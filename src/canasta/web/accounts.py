"""Accounts as the card room serves them: signing up and in (argon2id passwords hashed in
threads of their own, never on the event loop), throttled sign-ins, sessions.

:class:`Accounts` is what the routes (:mod:`canasta.web.account_routes`) and the seats call;
its rows are :mod:`canasta.web.account_store`'s.  Every refusal is a
:func:`canasta.web.guards.bad` (an English template of the ``canasta`` catalog, said in the
asker's language).

* Passwords: argon2id (``argon2-cffi``) at 19 MiB, 2 passes, 1 lane (about 25 ms of CPU on
  this project's machines; a stored hash of other parameters is hashed again at the next
  sign-in).  A password is never logged nor stored.
* A sign-in answers the same for an unknown name and a wrong password (the same words, the
  same status, and a hash is verified either way, so it takes as long).
* Throttling: at most :attr:`Limits.failures_per_name` failed sign-ins to one name and
  :attr:`Limits.failures_per_address` from one client address in :attr:`Limits.window`
  seconds, counted in the database (every server of a cluster counts together); beyond,
  429 with ``Retry-After`` and the password is not even checked.  A name is counted whether
  or not an account has it, so the throttle tells nothing either.
"""

from __future__ import annotations

import asyncio
import hmac
import math
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from canasta.i18n import LANGUAGES, N_
from canasta.web.account_store import Account, AccountStore, Session, Taken, digest
from canasta.web.guards import bad
from canasta.web.names import NameRefused, check_name, name_key
from canasta.web.vault import Vault

T = TypeVar("T")
MIN_PASSWORD = 8
MAX_PASSWORD = 256
WRONG = N_("wrong name or password")


@dataclass
class Limits:
    """The allowances of signing up and in (per cluster: counted in the database)."""

    failures_per_name: int = 5
    failures_per_address: int = 20
    window: float = 900.0  # seconds over which failures are counted
    signups_per_address: int = 5
    signup_window: float = 3600.0
    session_days: float = 30.0


def hasher() -> PasswordHasher:
    """argon2id at the parameters of the module's docstring."""
    return PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1, hash_len=32, salt_len=16, type=Type.ID)


def check_password(password: Any, name: str) -> str:
    if not isinstance(password, str):
        raise bad(N_("give a password"))
    if len(password) < MIN_PASSWORD:
        raise bad(N_("a password has at least {n} characters"), n=MIN_PASSWORD)
    if len(password) > MAX_PASSWORD:
        raise bad(N_("a password has at most {n} characters"), n=MAX_PASSWORD)
    if name_key(password) == name_key(name):
        raise bad(N_("the password may not be the name"))
    return password


def refused_name(exc: NameRefused, status: int = 400) -> Exception:
    return bad(exc.template, status, **exc.fields)


class Accounts:
    """Signing up, in and out; ``run_db(fn, *args)`` runs a store call off the event loop
    (the hub's database threads)."""

    def __init__(self, store: AccountStore, vault: Vault, run_db: Callable[..., Awaitable[Any]],
                 limits: Limits | None = None, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.vault = vault
        self.run_db = run_db
        self.limits = limits or Limits()
        self.clock = clock
        self.hasher = hasher()
        # hashing has threads of its own: a burst of sign-ins waits for them, never the database's
        self.hash_threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="canasta-hash")
        self._dummy = self.hasher.hash("the hash an unknown name is checked against")

    def close(self) -> None:
        self.hash_threads.shutdown(wait=False, cancel_futures=True)

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        result: T = await self.run_db(fn, *args)
        return result

    async def _hashing(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.hash_threads, fn, *args)

    async def hash(self, password: str) -> str:
        return await self._hashing(self.hasher.hash, password)

    def _verify(self, stored: str | None, password: str) -> bool:
        try:
            return self.hasher.verify(stored or self._dummy, password) and stored is not None
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    async def check(self, stored: str | None, password: str) -> bool:
        """Is ``password`` the one ``stored`` hashes (checked in a hashing thread)?"""
        return await self._hashing(self._verify, stored, password)

    # ------------------------------------------------------------------ keys

    def name_key_digest(self, name: str) -> str:
        return "n:" + self.vault.tag("signin:" + name_key(name))

    def address_digest(self, address: str, what: str = "signin") -> str:
        return "a:" + self.vault.tag(f"{what}:{address}")

    # ------------------------------------------------------------- signing up

    async def register(self, name: Any, password: Any, lang: str, address: str) -> tuple[Account, str, str]:
        """A new account and a session for it: (account, cookie, CSRF token)."""
        try:
            shown = check_name(name)
        except NameRefused as exc:
            raise refused_name(exc) from None
        check_password(password, shown)
        now = self.clock()
        lim = self.limits
        key = self.address_digest(address, "signup")
        if lim.signups_per_address:
            seen = (await self._db(self.store.attempts, [key], now - lim.signup_window)).get(key)
            if seen is not None and seen[0] >= lim.signups_per_address:
                self._too_many(seen[1] + lim.signup_window - now)
        why = await self._db(self.store.available, shown)
        if why is not None:
            raise refused_name(why, 409)
        hashed = await self.hash(password)
        try:
            account = await self._db(self.store.create, shown, hashed, lang if lang in LANGUAGES else "en",
                                     self.clock())
        except Taken as exc:  # made meanwhile (by another server, say)
            raise refused_name(exc.refusal, 409) from None
        await self._db(self.store.note_attempt, [key], now, now - lim.signup_window)
        token, csrf = await self._db(self.store.open_session, account.id, self.clock(), lim.session_days * 86400)
        return account, token, csrf

    # ---------------------------------------------------------------- signing in

    @staticmethod
    def _too_many(wait: float) -> None:
        seconds = max(1, math.ceil(wait))
        raise bad(N_("too many sign-in attempts: try again in {seconds} s"), 429, {"Retry-After": str(seconds)},
                  seconds=seconds)

    async def login(self, name: Any, password: Any, address: str,
                    held: str | None = None) -> tuple[Account, str, str]:
        """(account, cookie, CSRF token) of a new session; ``held``: the session cookie the browser
        came with, ended (a sign-in never keeps a session id it was handed)."""
        if not isinstance(name, str) or not isinstance(password, str) or not name.strip() \
                or len(name) > 200 or len(password) > MAX_PASSWORD:
            raise bad(WRONG, 401)
        lim = self.limits
        now = self.clock()
        keys = [self.name_key_digest(name), self.address_digest(address)]
        seen = await self._db(self.store.attempts, keys, now - lim.window)
        for key, limit in zip(keys, (lim.failures_per_name, lim.failures_per_address), strict=True):
            count, first = seen.get(key, (0, now))
            if limit and count >= limit:
                self._too_many(first + lim.window - now)
        account = await self._db(self.store.find, name)
        stored = account.password if account is not None else None
        if not await self._hashing(self._verify, stored, password) or account is None:
            await self._db(self.store.note_attempt, keys, now, now - lim.window)
            raise bad(WRONG, 401)
        await self._db(self.store.clear_attempts, keys[0])
        if account.banned(self.clock()):
            raise self.banned(account)
        assert stored is not None
        if self.hasher.check_needs_rehash(stored):
            await self._db(self.store.rehash, account.id, stored, await self.hash(password))
        token, csrf = await self._db(self.store.open_session, account.id, self.clock(), lim.session_days * 86400,
                                     None if held is None else digest(held))
        return account, token, csrf

    @staticmethod
    def banned(account: Account) -> Exception:
        from canasta.web.account_store import FOREVER

        if account.banned_until is not None and account.banned_until >= FOREVER:
            return bad(N_("this account is banned"), 403)
        until = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(account.banned_until or 0))
        return bad(N_("this account is banned until {until}"), 403, until=until)

    async def session(self, token: str | None) -> Session | None:
        """The session a cookie holds, or None (no cookie, ended, expired, banned)."""
        if not token or len(token) > 200:
            return None
        found: Session | None = await self._db(self.store.session, token, self.clock())
        return found

    async def logout(self, token: str | None) -> None:
        if token and len(token) <= 200:
            await self._db(self.store.end_session, token)


def same(given: str | None, expected: str | None) -> bool:
    """Constant-time comparison of two tokens (no token is nobody's)."""
    return bool(given) and bool(expected) and hmac.compare_digest(str(given), str(expected))


__all__ = ["Accounts", "Limits", "check_password", "hasher", "same"]
