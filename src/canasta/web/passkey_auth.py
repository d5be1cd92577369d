"""The passkey ceremonies (WebAuthn, checked by the ``webauthn`` library): adding a passkey to
a signed-in account and signing in with one.  The rows are :mod:`canasta.web.passkeys`'; the
session a sign-in opens is the accounts' own (:meth:`AccountStore.open_session`), throttled
with the password sign-in's counters (:class:`canasta.web.accounts.Accounts`).

Passkeys are made discoverable where the authenticator can (``residentKey: preferred``), so a
player may sign in without typing a name; the user is always verified (a PIN, a fingerprint:
``userVerification: required``), since a passkey signs in alone.  The WebAuthn user id of an
account is its random account id (no name, nothing personal).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import options_to_json_dict
from webauthn.helpers.encode_cbor import encode_cbor
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from canasta.i18n import N_
from canasta.web.account_store import Account, digest
from canasta.web.accounts import Accounts
from canasta.web.guards import DEFAULT_PORTS, bad, normalise_origin
from canasta.web.passkeys import (
    EXPIRED,
    LAST_WAY_IN,
    MAX_CREDENTIAL_ID,
    MAX_PASSKEYS,
    NO_SUCH_PASSKEY,
    NOBODY,
    NOT_ACCEPTED,
    TOO_MANY_PASSKEYS,
    Passkey,
    PasskeyStore,
    answered_challenge,
    b64url,
    new_challenge,
    unb64url,
)

T = TypeVar("T")
RP_NAME = "Canasta"
TIMEOUT_MS = 120_000
TRANSPORTS = frozenset(t.value for t in AuthenticatorTransport)
TOO_MANY_CEREMONIES = N_("too many passkey requests from your address: try again in a few minutes")


@dataclass(frozen=True)
class RelyingParty:
    """Whom passkeys are made for (``id``: a domain) and the page origins they are used from."""

    id: str
    origins: tuple[str, ...]

    def expected_origins(self) -> list[str]:
        """The origins as a browser writes them (the default port left out) and as given."""
        out: list[str] = []
        for origin in self.origins:
            out.append(origin)
            scheme = origin.split(":", 1)[0]
            default = f":{DEFAULT_PORTS.get(scheme)}"
            if origin.endswith(default):
                out.append(origin[: -len(default)])
        return list(dict.fromkeys(out))


def relying_party(rp_id: str | None, own: str | None, configured: tuple[str, ...],
                  allow_origins: tuple[str, ...]) -> RelyingParty:
    """The relying party of a request: the configured RP id, else the host the page was asked
    by (``own``: its origin); the configured origins, else the page's own and the allowed ones."""
    origins = [o for o in (normalise_origin(x) for x in configured) if o is not None]
    if not origins:
        origins = [o for o in [own, *(normalise_origin(x) for x in allow_origins)] if o is not None]
    host = rp_id or (urlsplit(own).hostname if own else None) or "localhost"
    return RelyingParty(host.strip("[]"), tuple(dict.fromkeys(origins)))


def _nobodys_key() -> bytes:
    """A COSE public key of nobody's: an unknown credential's answer is checked against it, so
    it costs what a wrong signature costs."""
    numbers = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
    return encode_cbor({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})


class Passkeys:
    """The ceremonies, on ``store`` and the card room's ``accounts``."""

    def __init__(self, store: PasskeyStore, accounts: Accounts) -> None:
        self.store = store
        self.accounts = accounts
        self._nobody = _nobodys_key()

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        result: T = await self.accounts.run_db(fn, *args)
        return result

    async def _checking(self, fn: Callable[[], T]) -> T:
        """A signature checked in the accounts' hashing threads, never on the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self.accounts.hash_threads, fn)

    async def _begin(self, purpose: str, account_id: str | None, address: str) -> bytes:
        challenge = new_challenge()
        now = self.accounts.clock()
        if not await self._db(self.store.begin, challenge, purpose, account_id,
                              self.accounts.address_digest(address, "passkey"), now):
            raise bad(TOO_MANY_CEREMONIES, 429, {"Retry-After": "60"})
        return challenge

    # ------------------------------------------------------------ adding one

    async def registration_options(self, account: Account, rp: RelyingParty, address: str) -> dict[str, Any]:
        """What ``navigator.credentials.create`` is given to add a passkey to ``account``."""
        held = await self._db(self.store.of, account.id)
        if len(held) >= MAX_PASSKEYS:  # said before the device makes one that could not be kept
            raise bad(TOO_MANY_PASSKEYS, 409, n=MAX_PASSKEYS)
        challenge = await self._begin("register", account.id, address)
        options = generate_registration_options(
            rp_id=rp.id, rp_name=RP_NAME, user_name=account.name, user_id=account.id.encode("ascii"),
            user_display_name=account.name, challenge=challenge, timeout=TIMEOUT_MS,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.PREFERRED,
                user_verification=UserVerificationRequirement.REQUIRED),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=unb64url(p.id)) for p in held])
        return dict(options_to_json_dict(options))

    async def register(self, account: Account, credential: Any, rp: RelyingParty) -> Passkey:
        """The passkey of the browser's answer, kept as ``account``'s; refused (400/409) with
        nothing kept if the answer is not to this account's own challenge or does not verify."""
        try:
            challenge = answered_challenge(credential)
        except ValueError:
            raise bad(NOT_ACCEPTED, 400) from None
        now = self.accounts.clock()
        spent = await self._db(self.store.spend, challenge, "register", now)
        if spent is None or spent.account_id != account.id:
            raise bad(EXPIRED, 400)

        def check() -> Any:
            return verify_registration_response(credential=credential, expected_challenge=challenge,
                                                expected_rp_id=rp.id, expected_origin=rp.expected_origins(),
                                                require_user_verification=True)
        try:
            verified = await self._checking(check)
        except Exception:  # a malformed or forged answer: the library's errors and the decoders'
            raise bad(NOT_ACCEPTED, 400) from None
        if len(verified.credential_id) > MAX_CREDENTIAL_ID:
            raise bad(NOT_ACCEPTED, 400)
        transports = credential.get("response", {}).get("transports") or []
        kept = tuple(t for t in transports if isinstance(t, str) and t in TRANSPORTS)[:8] \
            if isinstance(transports, list) else ()
        passkey = Passkey(b64url(verified.credential_id), account.id, bytes(verified.credential_public_key),
                          verified.sign_count, kept, now, None)
        why = await self._db(self.store.add, passkey, MAX_PASSKEYS)
        if why is not None:
            raise bad(why, 409, n=MAX_PASSKEYS)
        return passkey

    async def listed(self, account: Account) -> list[dict[str, object]]:
        return [p.public() for p in await self._db(self.store.of, account.id)]

    async def remove(self, account: Account, credential_id: Any) -> None:
        """Remove one of ``account``'s passkeys (404 for any other id, nothing changed; 409 for
        the only way into an account without a password)."""
        if not isinstance(credential_id, str) or len(credential_id) > 400:
            raise bad(NO_SUCH_PASSKEY, 404)
        held = await self._db(self.store.of, account.id)
        if credential_id not in {p.id for p in held}:
            raise bad(NO_SUCH_PASSKEY, 404)
        if account.password is None and len(held) == 1:
            raise bad(LAST_WAY_IN, 409)
        if not await self._db(self.store.remove, account.id, credential_id):
            raise bad(NO_SUCH_PASSKEY, 404)

    # ------------------------------------------------------------- signing in

    async def signin_options(self, name: Any, rp: RelyingParty, address: str) -> dict[str, Any]:
        """What ``navigator.credentials.get`` is given.  Without a name, any passkey of this site
        answers; with one, only that account's: a name no account has (or without passkeys) is
        given stand-in credential ids derived from it, so the answer tells nothing either."""
        allow: list[PublicKeyCredentialDescriptor] = []
        bound: str | None = None
        if isinstance(name, str) and name.strip():
            if len(name) > 200:
                raise bad(NOT_ACCEPTED, 401)
            account = await self._db(self.accounts.store.find, name)
            held = [] if account is None else await self._db(self.store.of, account.id)
            bound = NOBODY if account is None else account.id
            allow = [PublicKeyCredentialDescriptor(
                id=unb64url(p.id), transports=[AuthenticatorTransport(t) for t in p.transports]) for p in held]
            if not allow:
                stand_in = hashlib.sha256(("passkey-stand-in:" + self.accounts.name_key_digest(name)).encode())
                allow = [PublicKeyCredentialDescriptor(id=stand_in.digest(),
                                                       transports=[AuthenticatorTransport.INTERNAL])]
        challenge = await self._begin("signin", bound, address)
        options = generate_authentication_options(rp_id=rp.id, challenge=challenge, timeout=TIMEOUT_MS,
                                                  allow_credentials=allow,
                                                  user_verification=UserVerificationRequirement.REQUIRED)
        return dict(options_to_json_dict(options))

    async def _within_limits(self, keys: list[str], limits: list[int]) -> None:
        """429 (``Retry-After``) when a key has had its limit of failed sign-ins in the window."""
        acc = self.accounts
        now = acc.clock()
        seen = await self._db(acc.store.attempts, keys, now - acc.limits.window)
        for key, limit in zip(keys, limits, strict=True):
            count, first = seen.get(key, (0, now))
            if limit and count >= limit:
                acc._too_many(first + acc.limits.window - now)

    async def signin(self, credential: Any, rp: RelyingParty, address: str,
                     held: str | None = None) -> tuple[Account, str, str]:
        """(account, cookie, CSRF token) of a new session for a verified answer (``held``: the
        session cookie the browser came with, ended).  Every failure is :data:`NOT_ACCEPTED`
        (401), counted against the address and the passkey's account; 429 past the limits."""
        acc = self.accounts
        lim = acc.limits
        now = acc.clock()
        keys = [acc.address_digest(address)]
        await self._within_limits(keys, [lim.failures_per_address])
        try:
            challenge = answered_challenge(credential)
            credential_id = credential.get("rawId")
            if not isinstance(credential_id, str) or credential_id != credential.get("id") \
                    or len(credential_id) > 400:
                raise ValueError("no credential id")
            spent = await self._db(self.store.spend, challenge, "signin", now)  # spent whatever follows
            passkey = await self._db(self.store.get, credential_id)
            owner = None if passkey is None else await self._db(acc.store.get, passkey.account_id)
            if owner is not None:  # the account's failures count, as its password's do
                keys.append(acc.name_key_digest(owner.name))
                await self._within_limits(keys[1:], [lim.failures_per_name])
            # an unknown passkey is checked against nobody's key: it costs what a wrong signature costs
            key = passkey.public_key if passkey is not None and owner is not None else self._nobody
            stored = passkey.sign_count if passkey is not None else 0

            def check() -> Any:
                return verify_authentication_response(
                    credential=credential, expected_challenge=challenge, expected_rp_id=rp.id,
                    expected_origin=rp.expected_origins(), credential_public_key=key,
                    credential_current_sign_count=stored, require_user_verification=True)
            try:
                verified = await self._checking(check)
            except Exception:  # a malformed or forged answer: the library's errors and the decoders'
                raise ValueError("not verified") from None
            if passkey is None or owner is None or spent is None:
                raise ValueError("unknown passkey, or a challenge spent, expired or never given")
            if spent.account_id is not None and spent.account_id != owner.id:
                raise ValueError("another account's passkey than the one named")
            handle = credential["response"].get("userHandle")
            if handle not in (None, "") and (not isinstance(handle, str) or unb64url(handle) != owner.id.encode()):
                raise ValueError("another account's user handle")
        except ValueError:
            await self._db(acc.store.note_attempt, keys, now, now - lim.window)
            raise bad(NOT_ACCEPTED, 401) from None
        if owner.banned(acc.clock()):
            raise acc.banned(owner)
        # the sign count moves up only from the one checked: of two answers at once, one is refused
        if not await self._db(self.store.used, passkey.id, stored, verified.new_sign_count, acc.clock()):
            await self._db(acc.store.note_attempt, keys, now, now - lim.window)
            raise bad(NOT_ACCEPTED, 401)
        if len(keys) > 1:
            await self._db(acc.store.clear_attempts, keys[1])
        token, csrf = await self._db(acc.store.open_session, owner.id, acc.clock(), lim.session_days * 86400,
                                     None if held is None else digest(held))
        return owner, token, csrf


__all__ = ["RP_NAME", "Passkeys", "RelyingParty", "relying_party"]
