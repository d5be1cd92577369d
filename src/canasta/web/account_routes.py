"""The accounts' JSON API: ``POST /api/account/register``, ``/login``, ``/logout`` and
``GET /api/account/me``; the session cookie and the CSRF check every state-changing
request passes.

* The session cookie (``canasta_session``) is ``HttpOnly``, ``SameSite=Lax``, ``Path=/``,
  and ``Secure`` when the page came over TLS; it holds a random token whose SHA-256 the
  database keeps.  Signing in always makes a new one (a session id a browser brings is
  never adopted: no fixation), signing out deletes it in the database.
* CSRF: a state-changing request carries ``X-CSRF-Token``: the session's token when signed
  in, else the token of the ``canasta_csrf`` cookie (set by ``GET /api/account/me``, which
  answers either in its body).  Another site's page can neither read it nor send the header
  (and its JSON posts are refused anyway: :func:`canasta.web.guards.json_body`).
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from canasta.i18n import LANGUAGES, N_
from canasta.web.account_seats import claim
from canasta.web.account_session import (
    CSRF_COOKIE,
    CSRF_HEADER,
    SESSION_COOKIE,
    TheAccounts,
    accounts_of,
    current,
)
from canasta.web.account_store import Session
from canasta.web.accounts import Accounts, same
from canasta.web.guards import bad, client_address
from canasta.web.language import choose
from canasta.web.service import TheCardRoom


async def check_csrf(request: Request, accounts: Accounts) -> Session | None:
    """Refuse a state-changing request without the right ``X-CSRF-Token`` (403); the session."""
    session = await current(request, accounts)
    expected = session.csrf if session is not None else request.cookies.get(CSRF_COOKIE)
    if not same(request.headers.get(CSRF_HEADER), expected):
        raise bad(N_("this request lacks its security token: reload the page and try again"), 403)
    return session


async def signed_in(request: Request, accounts: Accounts) -> Session:
    """The session of a request that needs one, CSRF checked (401 when signed out)."""
    session = await check_csrf(request, accounts)
    if session is None:
        raise bad(N_("sign in first"), 401)
    return session


def with_session(request: Request, body: dict[str, Any], token: str | None, status: int = 200) -> JSONResponse:
    """``body`` as JSON, setting the session cookie to ``token`` (None: clearing it)."""
    out = JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})
    secure = request.url.scheme in ("https", "wss")
    if token is None:
        out.delete_cookie(SESSION_COOKIE, path="/", secure=secure, httponly=True, samesite="lax")
    else:
        out.set_cookie(SESSION_COOKIE, token, max_age=int(accounts_of(request).limits.session_days * 86400),
                       path="/", secure=secure, httponly=True, samesite="lax")
    return out


def lang_of(request: Request, body: dict[str, Any]) -> str:
    asked = body.get("lang")
    if isinstance(asked, str) and asked in LANGUAGES:
        return asked
    return choose(None, request.headers.get("accept-language"))


routes = APIRouter()


@routes.get("/api/account/me")
async def me(request: Request, accounts: TheAccounts) -> JSONResponse:
    """Who this browser is signed in as (``account``: null for a guest) and the CSRF token its
    state-changing requests carry."""
    session = await current(request, accounts)
    if session is not None:
        return JSONResponse({"account": session.account.public(), "csrf": session.csrf},
                            headers={"Cache-Control": "no-store"})
    token = request.cookies.get(CSRF_COOKIE)
    fresh = not token or len(token) > 100
    if fresh:
        token = secrets.token_urlsafe(24)
    out = JSONResponse({"account": None, "csrf": token}, headers={"Cache-Control": "no-store"})
    if fresh:
        assert token is not None
        out.set_cookie(CSRF_COOKIE, token, path="/", httponly=True, samesite="strict",
                       secure=request.url.scheme == "https")
    return out


@routes.post("/api/account/register", status_code=201)
async def register(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    """``{"name", "password", "lang"?, "seats"?}``: a new account, signed in; ``seats``: the
    ``{"table", "token"}`` of the seats this browser played as a guest, kept as the account's."""
    body = await card.body(request)
    await check_csrf(request, accounts)
    account, token, csrf = await accounts.register(body.get("name"), body.get("password"), lang_of(request, body),
                                                   client_address(request))
    held = request.cookies.get(SESSION_COOKIE)
    if held:
        await accounts.logout(held)
    claimed = await claim(request, account, body.get("seats"))
    return with_session(request, {"account": account.public(), "csrf": csrf, "claimed": claimed}, token, 201)


@routes.post("/api/account/login")
async def login(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    """``{"name", "password", "seats"?}``: a new session (the one the browser held, if any, ended)."""
    body = await card.body(request)
    await check_csrf(request, accounts)
    account, token, csrf = await accounts.login(body.get("name"), body.get("password"), client_address(request),
                                                request.cookies.get(SESSION_COOKIE))
    claimed = await claim(request, account, body.get("seats"))
    return with_session(request, {"account": account.public(), "csrf": csrf, "claimed": claimed}, token)


@routes.post("/api/account/logout")
async def logout(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    """The session ended in the database (its cookie is worth nothing after, anywhere)."""
    await card.body(request)
    await check_csrf(request, accounts)
    await accounts.logout(request.cookies.get(SESSION_COOKIE))
    return with_session(request, {"account": None}, None)


__all__ = ["CSRF_COOKIE", "CSRF_HEADER", "SESSION_COOKIE", "TheAccounts", "check_csrf", "current", "routes",
           "signed_in"]
