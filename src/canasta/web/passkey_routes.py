"""The passkeys' JSON API (:mod:`canasta.web.passkey_auth` does the ceremonies):

* ``GET /api/account/passkeys``: the signed-in account's passkeys (id, made, last used).
* ``POST /api/account/passkeys/options``: options for ``navigator.credentials.create`` (signed in).
* ``POST /api/account/passkeys``: ``{"credential"}``, the browser's answer: the passkey kept (201).
* ``POST /api/account/passkeys/remove``: ``{"id"}``: one of the account's passkeys removed.
* ``POST /api/account/passkeys/signin/options``: ``{"name"?}``: options for ``navigator.credentials.get``.
* ``POST /api/account/passkeys/signin``: ``{"credential", "seats"?}``: a new session, as
  ``POST /api/account/login`` gives (the same cookie, the CSRF token, the guest's seats brought along).

Every POST carries ``X-CSRF-Token`` as the account routes' do (:func:`check_csrf`).  The
relying party is the settings' (``passkey_rp_id``, ``passkey_origins``) or, unset, the host
and origin the page was asked by (with the ``allow_origins``)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from canasta.i18n import N_
from canasta.web.account_routes import check_csrf, signed_in, with_session
from canasta.web.account_seats import claim
from canasta.web.account_session import SESSION_COOKIE, TheAccounts, current
from canasta.web.guards import bad, client_address, own_origin
from canasta.web.passkey_auth import Passkeys, RelyingParty, relying_party
from canasta.web.service import CardRoom, TheCardRoom

NO_STORE = {"Cache-Control": "no-store"}


def passkeys_of(conn: HTTPConnection) -> Passkeys:
    found: Passkeys = conn.app.state.passkeys
    return found


def rp_of(request: Request, card: CardRoom) -> RelyingParty:
    cfg = card.settings
    return relying_party(cfg.passkey_rp_id, own_origin(request.scope, request.headers), cfg.passkey_origins,
                         cfg.allow_origins)


routes = APIRouter()


@routes.get("/api/account/passkeys")
async def listed(request: Request, accounts: TheAccounts) -> JSONResponse:
    """The signed-in account's passkeys."""
    session = await current(request, accounts)
    if session is None:
        raise bad(N_("sign in first"), 401)
    return JSONResponse({"passkeys": await passkeys_of(request).listed(session.account)}, headers=NO_STORE)


@routes.post("/api/account/passkeys/options")
async def registration_options(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    await card.body(request)
    session = await signed_in(request, accounts)
    options = await passkeys_of(request).registration_options(session.account, rp_of(request, card),
                                                              client_address(request))
    return JSONResponse({"options": options}, headers=NO_STORE)


@routes.post("/api/account/passkeys", status_code=201)
async def register(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    body = await card.body(request)
    session = await signed_in(request, accounts)
    passkey = await passkeys_of(request).register(session.account, body.get("credential"), rp_of(request, card))
    return JSONResponse({"passkey": passkey.public()}, status_code=201, headers=NO_STORE)


@routes.post("/api/account/passkeys/remove")
async def remove(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    body = await card.body(request)
    session = await signed_in(request, accounts)
    keys = passkeys_of(request)
    await keys.remove(session.account, body.get("id"))
    return JSONResponse({"passkeys": await keys.listed(session.account)}, headers=NO_STORE)


@routes.post("/api/account/passkeys/signin/options")
async def signin_options(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    body = await card.body(request)
    await check_csrf(request, accounts)
    options = await passkeys_of(request).signin_options(body.get("name"), rp_of(request, card),
                                                        client_address(request))
    return JSONResponse({"options": options}, headers=NO_STORE)


@routes.post("/api/account/passkeys/signin")
async def signin(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    body = await card.body(request)
    await check_csrf(request, accounts)
    account, token, csrf = await passkeys_of(request).signin(body.get("credential"), rp_of(request, card),
                                                             client_address(request),
                                                             request.cookies.get(SESSION_COOKIE))
    claimed = await claim(request, account, body.get("seats"))
    return with_session(request, {"account": account.public(), "csrf": csrf, "claimed": claimed}, token)


__all__ = ["passkeys_of", "routes"]
