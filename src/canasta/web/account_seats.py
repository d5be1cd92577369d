"""Seats and accounts: a seat taken signed in carries the account's name and is kept as the
account's (``canasta_account_seats``); a guest who signs up or in brings along the seats
this browser played (the page sends the seat tokens it holds, and a seat is the account's
only if its token is right).  A guest plays as before: nothing here is needed to play.

A lobby request counts as the account's only when it carries the session's CSRF token
(``X-CSRF-Token``), as every state-changing request of an account must; without it, it is a
guest's request, as it always was."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from sqlalchemy import select

from canasta.web.account_session import CSRF_HEADER, accounts_of, current
from canasta.web.account_store import Account, AccountStore
from canasta.web.accounts import same
from canasta.web.store import events_t, hash_token, seats_t

MAX_CLAIMED = 200  # seat tokens one sign-up may bring along


async def player(request: Request) -> Account | None:
    """The account a lobby request is made for (a session and its CSRF token), or None: a guest."""
    accounts = accounts_of(request)
    session = await current(request, accounts)
    if session is None or not same(request.headers.get(CSRF_HEADER), session.csrf):
        return None
    return session.account


def named(body: dict[str, Any], account: Account | None) -> dict[str, Any]:
    """A lobby request's body with the account's name for the seat taken (a guest's as typed)."""
    return body if account is None else {**body, "name": account.name}


async def keep(request: Request, account: Account | None, made: dict[str, Any]) -> None:
    """The seat a lobby answer gave (``table``, ``seat``) kept as the account's."""
    if account is None:
        return
    accounts = accounts_of(request)
    await accounts.run_db(accounts.store.link_seat, made["table"], made["seat"], account.id)


def seat_of_token(store: AccountStore, table_id: str, token: str) -> int | None:
    """The seat of ``table_id`` that ``token`` holds (as the table was made, or taken later), or None."""
    digest = hash_token(token)
    with store.engine.connect() as db:
        found = db.execute(select(seats_t.c.seat).where(seats_t.c.table_id == table_id,
                                                        seats_t.c.token_hash == digest)).scalar()
        if found is not None:
            return int(found)
        for seat, data in db.execute(select(events_t.c.seat, events_t.c.data).where(
                events_t.c.table_id == table_id, events_t.c.kind == "join")).all():
            if data is not None and json.loads(data).get("token_hash") == digest:
                return int(seat)
    return None


def claim_seats(store: AccountStore, account_id: str, seats: list[tuple[str, str]]) -> int:
    """The seats of ``(table, token)`` whose token is right, kept as the account's; how many."""
    done = 0
    for table_id, token in seats:
        seat = seat_of_token(store, table_id, token)
        if seat is not None and store.link_seat(table_id, seat, account_id):
            done += 1
    return done


def seats_asked(value: Any) -> list[tuple[str, str]]:
    """``[{"table": ID, "token": T}, ...]`` as the page sends them (what is not that is left out)."""
    if not isinstance(value, list):
        return []
    out = []
    for item in value[:MAX_CLAIMED]:
        if isinstance(item, dict):
            table, token = item.get("table"), item.get("token")
            if isinstance(table, str) and isinstance(token, str) and 0 < len(table) <= 32 and 0 < len(token) <= 64:
                out.append((table, token))
    return out


async def claim(request: Request, account: Account, value: Any) -> int:
    """A guest's seats (``value``, from the sign-up or sign-in's body) brought along."""
    asked = seats_asked(value)
    if not asked:
        return 0
    accounts = accounts_of(request)
    done: int = await accounts.run_db(claim_seats, accounts.store, account.id, asked)
    return done


__all__ = ["claim", "keep", "named", "player"]
