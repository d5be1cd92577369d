"""Players' profiles (``/u/NAME``, ``GET /api/players/NAME``): the games an account played,
with their replay, record and review links, and its statistics per preset; a player's own
export of everything kept about them (``GET /api/account/export``) and the deletion of their
account (``POST /api/account/delete``), after which their games stay playable and
verifiable under another name.

The statistics are counted from the games themselves (each finished table replayed from
its events: the engine's own scores), for the :data:`COUNTED` most recent ones:

* games and games won; hands and hands won (the hand's best score, alone);
* points per hand (the player's side's, or the player's in cut-throat);
* canastas per hand (the side's) and going out per hand (the player's own);
* seconds per move: the time from the event before each of the player's moves to it."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse
from sqlalchemy import select, update

from canasta.i18n import N_
from canasta.play.table import Table
from canasta.web.account_routes import TheAccounts, signed_in, with_session
from canasta.web.account_store import Account, AccountStore, sessions_t
from canasta.web.guards import bad
from canasta.web.pages import STATIC
from canasta.web.passkeys import forget_account, kept_about
from canasta.web.service import TheCardRoom
from canasta.web.social_store import SocialStore
from canasta.web.store import Store, TableRow, events_t, seats_t, tables_t

COUNTED = 100  # the most recent games a profile counts and lists
CACHED = 4096  # finished games' figures kept in memory (a finished game does not change)


@dataclass
class Tally:
    """One preset's figures of one player."""

    games: int = 0
    won: int = 0
    hands: int = 0
    hands_won: int = 0
    points: int = 0
    canastas: int = 0
    went_out: int = 0
    moves: int = 0
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def add(self, other: Tally) -> None:
        for name in ("games", "won", "hands", "hands_won", "points", "canastas", "went_out", "moves", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def public(self) -> dict[str, Any]:
        per_hand = (lambda n: round(n / self.hands, 2)) if self.hands else (lambda n: None)
        return {"games": self.games, "won": self.won, "hands": self.hands, "hands_won": self.hands_won,
                "points_per_hand": per_hand(self.points), "canastas_per_hand": per_hand(self.canastas),
                "going_out_per_hand": per_hand(self.went_out),
                "seconds_per_move": round(self.seconds / self.moves, 1) if self.moves else None}


def count_game(tally: Tally, row: TableRow, seat: int, times: list[tuple[int, float, str]]) -> dict[str, Any]:
    """Add one finished game of ``seat`` to ``tally``; the game's line of the profile."""
    table = Table.from_dict(row.state)
    try:
        rules = table.rules
        slot = seat if rules.cutthroat else table.side_of(seat)
        hands = table.match.hands
        tally.games += 1
        won = table.match.winner == slot
        tally.won += won
        for h in hands:
            mine = h.scores[slot].total
            tally.hands += 1
            tally.points += mine
            tally.hands_won += all(mine > s.total for i, s in enumerate(h.scores) if i != slot)
            tally.canastas += len(h.scores[slot].canastas)
            tally.went_out += h.went_out == seat
        previous: float | None = None
        for who, at, kind in times:
            if kind == "move" and who == seat and previous is not None:
                tally.moves += 1
                tally.seconds += max(0.0, at - previous)
            previous = at
        return {"hands": len(hands), "won": won, "totals": list(table.match.totals), "slot": slot}
    finally:
        table.close()


_figures: dict[tuple[str, int], tuple[Tally, dict[str, Any]]] = {}


def finished_game(store: Store, table_id: str, seat: int) -> tuple[Tally, dict[str, Any]] | None:
    """A finished game's figures for ``seat`` and its line of the profile (replayed once, then
    kept: a profile asked again does not replay its games again)."""
    key = (table_id, seat)
    if key in _figures:
        return _figures[key]
    loaded = store.load(table_id)
    if loaded is None:
        return None
    with store.engine.connect() as db:
        times = [(e.seat, e.at, e.kind) for e in db.execute(
            select(events_t.c.seat, events_t.c.at, events_t.c.kind)
            .where(events_t.c.table_id == table_id).order_by(events_t.c.num)).all()]
    tally = Tally()
    line = count_game(tally, loaded, seat, times)
    line["names"] = loaded.state.get("names")
    if len(_figures) >= CACHED:
        _figures.pop(next(iter(_figures)))
    _figures[key] = (tally, line)
    return tally, line


def profile_of(store: Store, accounts: AccountStore, account: Account) -> dict[str, Any]:
    """What ``/u/NAME`` shows (read in a database thread)."""
    seats = dict(accounts.seats_of(account.id))
    games: list[dict[str, Any]] = []
    tallies: dict[str, Tally] = {}
    if seats:
        with store.engine.connect() as db:
            rows = db.execute(select(tables_t.c.id, tables_t.c.status, tables_t.c.updated, tables_t.c.config)
                              .where(tables_t.c.id.in_(list(seats))).order_by(tables_t.c.updated.desc())
                              .limit(COUNTED)).all()
        for r in rows:
            seat = seats[r.id]
            config = json.loads(r.config)
            preset = str(config.get("preset", "?"))
            game: dict[str, Any] = {"table": r.id, "seat": seat, "preset": preset, "status": r.status,
                                    "updated": r.updated, "title": config.get("title"), "host": config.get("host"),
                                    "link": f"/t/{r.id}"}
            if r.status == "finished":
                found = finished_game(store, r.id, seat)
                if found is not None:
                    tallies.setdefault(preset, Tally()).add(found[0])
                    game.update(found[1])
                    game.update({"replay": f"/replay/{r.id}", "record": f"/api/tables/{r.id}/record",
                                 "review": f"/review/{r.id}?hand=1&seat={seat}"})
            games.append(game)
    return {"name": account.name, "lang": account.lang, "role": account.role, "created": account.created,
            "games": games, "stats": {p: t.public() for p, t in sorted(tallies.items())}}


def export_of(store: Store, accounts: AccountStore, account: Account) -> dict[str, Any]:
    """Everything kept about an account, for its owner: the account (not its password's hash), its
    sessions, its seats with their games' names, and the chat lines said from its seats."""
    now = time.time()
    with accounts.engine.connect() as db:
        sessions = [{"created": s.created, "expires": s.expires} for s in db.execute(
            select(sessions_t.c.created, sessions_t.c.expires).where(sessions_t.c.account_id == account.id,
                                                                     sessions_t.c.expires > now)).all()]
    seats = accounts.seats_of(account.id)
    chat = []
    with store.engine.connect() as db:
        for table_id, seat in seats:
            for e in db.execute(select(events_t.c.line, events_t.c.data, events_t.c.at).where(
                    events_t.c.table_id == table_id, events_t.c.seat == seat, events_t.c.kind == "chat")).all():
                data = json.loads(e.data) if e.data else {}
                chat.append({"table": table_id, "at": e.at, "text": data.get("text", e.line),
                             "phrase": data.get("phrase")})
    return {"exported": now, "account": {**account.public(), "banned_until": account.banned_until,
                                         "ban_reason": account.ban_reason, "password": "argon2id hash, not exported"},
            "sessions": sessions, "passkeys": kept_about(accounts.engine, account.id),
            "profile": profile_of(store, accounts, account), "chat": chat,
            "social": SocialStore(accounts.engine).export(account.id)}  # follows, mutes, blocks, inbox, reports


def forget(store: Store, accounts: AccountStore, account: Account) -> tuple[str, list[tuple[str, int]]]:
    """Delete ``account``: its seats keep their games under another name (``deleted-XXXXXX``),
    written into the tables' headers, seats and join events so records and replays carry it;
    then the account, its sessions and links go.  The new name and the seats renamed."""
    new = f"deleted-{account.id[:6]}"
    seats = accounts.seats_of(account.id)
    with store.engine.begin() as db:
        for table_id, seat in seats:
            t = db.execute(select(tables_t.c.header, tables_t.c.config).where(tables_t.c.id == table_id)).first()
            if t is None:
                continue
            header, config = json.loads(t.header), json.loads(t.config)
            names = header.get("names")
            if isinstance(names, list) and 0 <= seat < len(names):
                names[seat] = new
            if config.get("host") == account.name:
                config["host"] = new
            db.execute(update(tables_t).where(tables_t.c.id == table_id)
                       .values(header=json.dumps(header), config=json.dumps(config)))
            db.execute(update(seats_t).where(seats_t.c.table_id == table_id, seats_t.c.seat == seat).values(name=new))
            db.execute(update(events_t).where(events_t.c.table_id == table_id, events_t.c.seat == seat,
                                              events_t.c.kind == "join").values(line=new))
    forget_account(accounts.engine, account.id)
    accounts.delete(account.id)
    SocialStore(accounts.engine).forget_account(account.id)  # follows, mutes, blocks, inbox (reports and audit stay)
    renamed = {table_id for table_id, _seat in seats}
    for key in [k for k in _figures if k[0] in renamed]:
        _figures.pop(key, None)  # the names it holds changed
    return new, seats


routes = APIRouter()


async def account_named(card: Any, accounts: Any, name: str) -> Account:
    if len(name) > 100:
        raise bad(N_("no player is named {name}"), 404, name=name[:30])
    found: Account | None = await card.hub.db(accounts.store.find, name)
    if found is None:
        raise bad(N_("no player is named {name}"), 404, name=name)
    return found


@routes.get("/u/{name}", include_in_schema=False)
async def profile_page(name: str) -> FileResponse:
    return FileResponse(STATIC / "profile.html")


@routes.get("/api/players/{name}")
async def player(name: str, card: TheCardRoom, accounts: TheAccounts) -> dict[str, Any]:
    """A player's profile: games (with links) and statistics per preset."""
    account = await account_named(card, accounts, name)
    found: dict[str, Any] = await card.hub.db(profile_of, card.store, accounts.store, account, timeout=30.0)
    return found


@routes.get("/api/account/export")
async def export(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    """Everything kept about the signed-in player, as a JSON file (their own only)."""
    session = await signed_in_reading(request, accounts)
    data = await card.hub.db(export_of, card.store, accounts.store, session.account, timeout=30.0)
    return JSONResponse(data, headers={"Content-Disposition": f'attachment; filename="canasta-{session.account.name}'
                                                              '.json"', "Cache-Control": "no-store"})


async def signed_in_reading(request: Request, accounts: Any) -> Any:
    """The session of a read that only its owner may make (a cookie alone is enough: another
    site cannot read the answer)."""
    from canasta.web.account_routes import current

    session = await current(request, accounts)
    if session is None:
        raise bad(N_("sign in first"), 401)
    return session


@routes.post("/api/account/delete")
async def delete(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    """``{"password"}``: the signed-in player's account deleted (the password asked again);
    their games stay, under another name."""
    body = await card.body(request)
    session = await signed_in(request, accounts)
    account = await card.hub.db(accounts.store.get, session.account.id)
    password = body.get("password")
    if account is None or not isinstance(password, str) or \
            not await accounts.check(account.password, password):
        raise bad(N_("wrong password: the account was not deleted"), 403)
    new, seats = await card.hub.db(forget, card.store, accounts.store, account, timeout=30.0)
    for table_id, seat in seats:  # the live tables say the new name at once
        room = card.hub.rooms.get(table_id)
        if room is not None:
            room.table.rename(seat, new)
    return with_session(request, {"deleted": True, "name": new}, None)


__all__ = ["export_of", "forget", "profile_of", "routes"]
