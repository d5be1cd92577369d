"""Friends and civility's JSON API (every change signed in, with the session's CSRF token, as
every account's change: :func:`canasta.web.account_routes.signed_in`; every refusal one line in
the asker's language):

* ``GET /api/social``: whom you follow (online or not, and at which tables), mute and block,
  and your inbox (invitations, warnings); ``GET /api/social/player/NAME``: you and one player;
  ``GET /api/social/table/ID``: the accounts seated at a table, and you and each of them.
* ``POST /api/social/follow``, ``unfollow``, ``mute``, ``unmute``, ``block``, ``unblock``:
  ``{"name"}``.  A player who blocked you cannot be followed by you.
* ``POST /api/social/invite``: ``{"name", "table", "seat", "invite"?}``: a player you follow,
  to an open seat of a table where you sit (a reserved seat with its invite key); they find
  it in their inbox, and their open sockets get ``{"type": "invitation", ...}`` at once.
* ``POST /api/social/dismiss``: ``{"id"}``: an inbox item read.
* ``POST /api/social/report``: ``{"name", "reason"}`` or ``{"table", "chat", "reason"}``
  (a chat line, by its number: its text is copied from the table's events);
  ``GET /api/social/reports``: the reports you made (another's: moderators only).

A blocked player also cannot join a table where the player who blocked them sits
(:func:`may_join`, called by the lobby's join)."""

from __future__ import annotations

import json
import secrets
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import select
from starlette.requests import HTTPConnection

from canasta.i18n import N_
from canasta.web.account_routes import current, signed_in
from canasta.web.account_session import TheAccounts, accounts_of
from canasta.web.account_store import Account, Session
from canasta.web.accounts import Accounts
from canasta.web.guards import bad, is_int
from canasta.web.room import Room
from canasta.web.service import TheCardRoom
from canasta.web.social import Social
from canasta.web.store import events_t, hash_token

MAX_REASON = 400
PAIRS = {"follow": ("follow", True), "unfollow": ("follow", False), "mute": ("mute", True),
         "unmute": ("mute", False), "block": ("block", True), "unblock": ("block", False)}
MAX_OPEN_REPORTS = 3  # open reports of one player about another


def social_of(conn: HTTPConnection) -> Social:
    found: Social = conn.app.state.social
    return found


def no_store(body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


async def reading(request: Request, accounts: Accounts) -> Session:
    """The session of a read of one's own (the cookie is enough: another site cannot read the answer)."""
    session = await current(request, accounts)
    if session is None:
        raise bad(N_("sign in first"), 401)
    return session


async def named(accounts: Accounts, name: Any) -> Account:
    """The account called ``name``, or the refusal a person reads."""
    if not isinstance(name, str) or not name.strip():
        raise bad(N_("give a player's name"))
    found: Account | None = await accounts.run_db(accounts.store.find, name[:100])
    if found is None:
        raise bad(N_("no player is named {name}"), 404, name=name[:30])
    return found


def reason_of(value: Any, what: str = N_("give a reason (1 to {n} characters)")) -> str:
    text = " ".join(value.split()) if isinstance(value, str) else ""
    if not 0 < len(text) <= MAX_REASON:
        raise bad(what, n=MAX_REASON)
    return text


routes = APIRouter()


@routes.get("/api/social")
async def mine(request: Request, accounts: TheAccounts) -> JSONResponse:
    """Whom you follow (``online``, ``tables``), mute and block; your inbox."""
    session = await reading(request, accounts)
    social, me = social_of(request), session.account
    await accounts.run_db(social.store.seen, me.id, social.clock())
    followed = await accounts.run_db(social.store.related, me.id, "follow")
    return no_store({
        "name": me.name, "role": me.role, "following": await social.whereabouts(followed),
        "muted": [n for _, n in await accounts.run_db(social.store.related, me.id, "mute")],
        "blocked": [n for _, n in await accounts.run_db(social.store.related, me.id, "block")],
        "inbox": await accounts.run_db(social.store.inbox, me.id)})


async def relations(social: Social, accounts: Accounts, me: Account, other: Account) -> dict[str, Any]:
    store = social.store
    out: dict[str, Any] = {"name": other.name, "me": other.id == me.id}
    for kind in ("follow", "mute", "block"):
        out[{"follow": "following", "mute": "muted", "block": "blocked"}[kind]] = \
            await accounts.run_db(store.holds, me.id, other.id, kind)
    return out


@routes.get("/api/social/player/{name}")
async def about(name: str, request: Request, accounts: TheAccounts) -> JSONResponse:
    """You and ``name``: following, muted, blocked; where they are if you follow them."""
    session = await reading(request, accounts)
    social, other = social_of(request), await named(accounts, name)
    out = await relations(social, accounts, session.account, other)
    if out["following"]:
        out.update((await social.whereabouts([(other.id, other.name)]))[0])
    return no_store(out)


@routes.get("/api/social/table/{table_id}")
async def at_table(table_id: str, request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    """The seats of a table taken by accounts: each seat's name and you and them."""
    session = await reading(request, accounts)
    room = await card.room(table_id)
    social = social_of(request)
    owners: dict[int, str] = await accounts.run_db(accounts.store.owners, room.id)
    seats = []
    for seat, account_id in sorted(owners.items()):
        other = await accounts.run_db(accounts.store.get, account_id)
        if other is not None:
            seats.append({"seat": seat, **await relations(social, accounts, session.account, other)})
    return no_store({"table": room.id, "seats": seats})


@routes.post("/api/social/{what}")
async def change(what: str, request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    """Follow, mute or block a player, or stop (``what``); invite, dismiss and report are below."""
    if what == "invite":
        return await invite(request, card, accounts)
    if what == "dismiss":
        return await dismiss(request, card, accounts)
    if what == "report":
        return await report(request, card, accounts)
    if what not in PAIRS:
        raise bad(N_("there is no such action"), 404)
    body = await card.body(request)
    session = await signed_in(request, accounts)
    social, me = social_of(request), session.account
    other = await named(accounts, body.get("name"))
    kind, on = PAIRS[what]
    if other.id == me.id:
        raise bad({"follow": N_("you cannot follow yourself"), "mute": N_("you cannot mute yourself"),
                   "block": N_("you cannot block yourself")}[kind])
    if on and kind == "follow" and await accounts.run_db(social.store.holds, other.id, me.id, "block"):
        raise bad(N_("{name} does not let you follow them"), 403, name=other.name)
    if on:
        await accounts.run_db(social.store.relate, me.id, other.id, kind, social.clock())
        if kind == "block":  # who blocks someone no longer follows them, nor is followed by them
            await accounts.run_db(social.store.unrelate, other.id, me.id, "follow")
            await accounts.run_db(social.store.unrelate, me.id, other.id, "follow")
    else:
        await accounts.run_db(social.store.unrelate, me.id, other.id, kind)
    if kind == "mute":
        await social.muted_changed(me.id)
    return no_store(await relations(social, accounts, me, other))


async def invite(request: Request, card: TheCardRoom, accounts: Accounts) -> JSONResponse:
    body = await card.body(request)
    session = await signed_in(request, accounts)
    social, me = social_of(request), session.account
    other = await named(accounts, body.get("name"))
    if other.id == me.id:
        raise bad(N_("you cannot invite yourself"))
    store = social.store
    if await accounts.run_db(store.holds, other.id, me.id, "block"):
        raise bad(N_("{name} does not accept your invitations"), 403, name=other.name)
    if not await accounts.run_db(store.holds, me.id, other.id, "follow"):
        raise bad(N_("follow {name} first: you may invite the players you follow"), 403, name=other.name)
    table_id, seat = body.get("table"), body.get("seat")
    if not isinstance(table_id, str) or not 0 < len(table_id) <= 32:
        raise bad(N_("say which table: its id"))
    room = await card.room(table_id)
    if not is_int(seat) or not 0 <= seat < room.players:
        raise bad(N_("choose a seat: a whole number from 0 to {last}"), last=room.players - 1)
    owners: dict[int, str] = await accounts.run_db(accounts.store.owners, room.id)
    if me.id not in owners.values():
        raise bad(N_("take a seat at this table before inviting someone to it"), 403)
    link = seat_link(room, seat, body.get("invite"))
    item = await accounts.run_db(lambda: store.tell(other.id, "invitation", social.clock(), from_name=me.name,
                                                    table_id=room.id, seat=seat, link=link))
    social.invite(other.id, {"type": "invitation", "id": item, "from": me.name, "table": room.id, "seat": seat,
                             "link": link})
    return no_store({"invited": other.name, "link": link})


def seat_link(room: Room, seat: int, key: Any) -> str:
    """The link to an open seat (a reserved one with its right invite key), or the refusal."""
    s = room.seats[seat]
    if room.status not in ("open", "playing"):
        raise bad(N_("the match is over"), 409)
    if s.kind == "open":
        return f"/t/{room.id}?seat={seat}"
    if s.kind == "reserved" and isinstance(key, str) and len(key) <= 64 and s.invite_hash is not None \
            and secrets.compare_digest(hash_token(key), s.invite_hash):
        return f"/t/{room.id}?seat={seat}&invite={key}"
    if s.kind == "reserved":
        raise bad(N_("this seat is reserved: give its invite key to invite someone to it"), 403)
    raise bad(N_("this seat is taken"), 409)


async def dismiss(request: Request, card: TheCardRoom, accounts: Accounts) -> JSONResponse:
    body = await card.body(request)
    session = await signed_in(request, accounts)
    item = body.get("id")
    if not is_int(item) or not await accounts.run_db(social_of(request).store.dismiss, session.account.id, item):
        raise bad(N_("there is no such item in your inbox"), 404)
    return no_store({"dismissed": item})


def chat_event(card: Any, table_id: str, num: int) -> tuple[int, str, dict[str, Any]] | None:
    """A table's chat event: its seat, line and data."""
    with card.store.engine.connect() as db:
        r = db.execute(select(events_t.c.seat, events_t.c.line, events_t.c.data).where(
            events_t.c.table_id == table_id, events_t.c.num == num, events_t.c.kind == "chat")).first()
    if r is None:
        return None
    return int(r.seat), str(r.line or ""), json.loads(r.data) if r.data else {}


async def report(request: Request, card: TheCardRoom, accounts: Accounts) -> JSONResponse:
    body = await card.body(request)
    session = await signed_in(request, accounts)
    social, me = social_of(request), session.account
    reason = reason_of(body.get("reason"))
    table_id, num, chat_text = None, None, None
    if "chat" in body:
        table_id, num = body.get("table"), body.get("chat")
        if not isinstance(table_id, str) or not 0 < len(table_id) <= 32 or not is_int(num):
            raise bad(N_("say which chat line: the table's id and the line's number"))
        room = await card.room(table_id)
        found = await accounts.run_db(chat_event, card, room.id, num)
        if found is None:
            raise bad(N_("there is no such chat line at this table"), 404)
        seat, line, data = found
        owners: dict[int, str] = await accounts.run_db(accounts.store.owners, room.id)
        if me.id not in owners.values() and not room.config.get("chat_spectators"):
            raise bad(N_("only the players of this table read its chat"), 403)
        reported_id = data.get("by") or owners.get(seat)
        if not isinstance(reported_id, str):
            raise bad(N_("this line was said by a guest: only players with an account can be reported"), 409)
        other = await accounts.run_db(accounts.store.get, reported_id)
        if other is None:
            raise bad(N_("this line's player has deleted their account"), 410)
        chat_text = f"[{data['phrase']}]" if data.get("phrase") else line
    else:
        other = await named(accounts, body.get("name"))
    if other.id == me.id:
        raise bad(N_("you cannot report yourself"))
    if await accounts.run_db(social.store.open_reports_about, other.id, me.id) >= MAX_OPEN_REPORTS:
        raise bad(N_("you have reported {name} already: a moderator will look at it"), 429, name=other.name)
    made = await accounts.run_db(social.store.report, me.id, other.id, reason, social.clock(), table_id, num,
                                 chat_text)
    return no_store({"report": made, "reported": other.name, "chat_text": chat_text})


@routes.get("/api/social/reports")
async def my_reports(request: Request, accounts: TheAccounts, of: str | None = None) -> JSONResponse:
    """The reports you made; ``of``: another player's, for moderators only."""
    session = await reading(request, accounts)
    me, social = session.account, social_of(request)
    whose = me
    if of is not None:
        whose = await named(accounts, of)
        if whose.id != me.id and me.role not in ("moderator", "admin"):
            raise bad(N_("only a moderator may see another player's reports"), 403)
    found = await accounts.run_db(lambda: social.store.reports(reporter_id=whose.id))
    return no_store({"reports": [r.public() for r in found]})


async def may_join(request: Request, room: Room) -> None:
    """Refuse a signed-in player (their session's cookie, whether or not the request carries its
    CSRF token) a seat at a table where a player who blocked them sits."""
    accounts = accounts_of(request)
    session = await current(request, accounts)
    if session is None:
        return
    owners: dict[int, str] = await accounts.run_db(accounts.store.owners, room.id)
    if await accounts.run_db(social_of(request).store.blocking, session.account.id, list(owners.values())):
        raise bad(N_("a player at this table has blocked you: you cannot join it"), 403)


__all__ = ["may_join", "routes", "social_of"]
