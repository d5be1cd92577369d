"""The request's account session, read once per request: the cookies' and the CSRF header's
names, the card room's :class:`~canasta.web.accounts.Accounts`, and the session a request
brings (:mod:`canasta.web.account_routes` checks it; :mod:`canasta.web.account_seats` seats by it)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from canasta.web.account_store import Session
from canasta.web.accounts import Accounts

SESSION_COOKIE = "canasta_session"
CSRF_COOKIE = "canasta_csrf"
CSRF_HEADER = "x-csrf-token"


def accounts_of(conn: HTTPConnection) -> Accounts:
    """The card room's accounts."""
    found: Accounts = conn.app.state.accounts
    return found


TheAccounts = Annotated[Accounts, Depends(accounts_of)]


async def current(request: Request, accounts: Accounts) -> Session | None:
    """The request's session (read once per request), or None."""
    if "canasta_session" not in request.scope:
        request.scope["canasta_session"] = await accounts.session(request.cookies.get(SESSION_COOKIE))
    found: Session | None = request.scope["canasta_session"]
    return found
