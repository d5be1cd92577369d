"""Moderation: the reports, warnings, bans and the audit log, for the accounts whose role is
``moderator`` or ``admin`` (``canasta accounts role NAME moderator`` makes one).

* ``/moderation``: the moderators' page; ``GET /api/moderation/reports?status=open|closed|all``
  and ``GET /api/moderation/audit`` (the last actions, newest first).
* ``POST /api/moderation/warn`` ``{"name", "text", "report"?}``: a warning in the player's
  inbox (and at once on their open sockets).
* ``POST /api/moderation/ban`` ``{"name", "reason", "days"?, "report"?}``: banned for ``days``
  (leave it out: for good).  Every session of the player is deleted at once and every socket
  of theirs closed, on this server and (over Redis) on every other of a cluster.
* ``POST /api/moderation/unban`` ``{"name", "reason"?}``; ``POST /api/moderation/close``
  ``{"report", "reason"?}``: a report dealt with without more.

Each action is a row of the audit log (with the report it answers, which it closes).  A
moderator acts on players only (an admin on moderators too), never on themselves."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse

from canasta.i18n import N_
from canasta.web.account_routes import current, signed_in
from canasta.web.account_session import TheAccounts
from canasta.web.account_store import ROLES, Account, Session
from canasta.web.accounts import Accounts
from canasta.web.guards import bad, is_int
from canasta.web.pages import STATIC
from canasta.web.service import TheCardRoom
from canasta.web.social import Social, ban_until
from canasta.web.social_routes import MAX_REASON, named, no_store, reason_of, social_of

MODERATORS = ("moderator", "admin")


def moderator(session: Session | None) -> Account:
    if session is None:
        raise bad(N_("sign in first"), 401)
    if session.account.role not in MODERATORS:
        raise bad(N_("only a moderator may do this"), 403)
    return session.account


def may_act_on(me: Account, other: Account) -> None:
    if other.id == me.id:
        raise bad(N_("a moderator does not act on their own account"))
    if ROLES.index(other.role) >= ROLES.index(me.role):
        raise bad(N_("{name} is a moderator or an admin: only an admin may act on a moderator"), 403,
                  name=other.name)


async def report_of(social: Social, accounts: Accounts, value: Any) -> int | None:
    if value is None:
        return None
    if not is_int(value) or not await accounts.run_db(social.store.report_exists, value):
        raise bad(N_("there is no such report"), 404)
    return value


routes = APIRouter()


@routes.get("/moderation", include_in_schema=False)
async def page() -> FileResponse:
    return FileResponse(STATIC / "moderation.html")


@routes.get("/api/moderation/reports")
async def reports(request: Request, accounts: TheAccounts, status: str = "open") -> JSONResponse:
    moderator(await current(request, accounts))
    if status not in ("open", "closed", "all"):
        raise bad(N_("a report's status is open, closed or all"))
    social = social_of(request)
    found = await accounts.run_db(lambda: social.store.reports(status=None if status == "all" else status))
    return no_store({"reports": [r.public() for r in found]})


@routes.get("/api/moderation/audit")
async def audit(request: Request, accounts: TheAccounts) -> JSONResponse:
    moderator(await current(request, accounts))
    social = social_of(request)
    return no_store({"audit": await accounts.run_db(social.store.audit_log)})


@routes.post("/api/moderation/{action}")
async def act(action: str, request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    if action not in ("warn", "ban", "unban", "close"):
        raise bad(N_("there is no such action"), 404)
    body = await card.body(request)
    me = moderator(await signed_in(request, accounts))
    social = social_of(request)
    store, now = social.store, social.clock()
    report = await report_of(social, accounts, body.get("report"))
    reason: str | None
    if action == "close":
        if report is None:
            raise bad(N_("say which report: its number"))
        reason = reason_of(body["reason"]) if body.get("reason") is not None else None
        if not await accounts.run_db(store.close_report, report, me.name, now):
            raise bad(N_("this report is closed already"), 409)
        await accounts.run_db(lambda: store.audit(me.name, "close", now, reason=reason, report_id=report))
        return no_store({"closed": report})
    other = await named(accounts, body.get("name"))
    may_act_on(me, other)
    until: float | None = None
    if action == "warn":
        text = reason_of(body.get("text"), N_("write the warning (1 to {n} characters)"))
        item = await accounts.run_db(lambda: store.tell(other.id, "warning", now, from_name=me.name, said=text))
        social.invite(other.id, {"type": "warning", "id": item, "from": me.name, "text": text})
        reason = text
    elif action == "ban":
        reason = reason_of(body.get("reason"))
        until = ban_until(body.get("days"), now)
        if until is None:
            raise bad(N_("a ban lasts a number of days above 0 (at most 36500), or leave it out to ban for good"))
        await accounts.run_db(accounts.store.ban, other.id, until, reason)
        await social.banned(other.id)
    else:
        if not other.banned(now):
            raise bad(N_("{name} is not banned"), 409, name=other.name)
        reason = reason_of(body["reason"]) if body.get("reason") is not None else None
        await accounts.run_db(accounts.store.ban, other.id, None, None)
    if report is not None:
        await accounts.run_db(store.close_report, report, me.name, now)
    entry = await accounts.run_db(lambda: store.audit(me.name, action, now, target=other.name, target_id=other.id,
                                                      until=until, reason=reason, report_id=report))
    return no_store({"done": action, "name": other.name, "until": until, "audit": entry,
                     "max_reason": MAX_REASON})


__all__ = ["routes"]
