"""The tournaments' pages and JSON API (``/tournaments``; :mod:`canasta.web.tournaments` is the play).

* ``GET /tournaments``, ``/tournaments/ID``: the page; ``GET /api/tournaments``: the newest.
* ``POST /api/tournaments`` (signed in): a new tournament, its maker the director:
  ``{"name", "form": "swiss"|"duplicate", "rounds", "hands", "preset", "scoring": "matchpoints"|"vp",
  "entry": "pairs"|"individuals", "turn_seconds", "round_minutes"}`` (``"seed"`` on a server with
  fixed seeds; ``round_minutes``, 1 to 600 or none: a round's time limit, after which no board of
  it is dealt, the boards in play finished).
* ``GET /api/tournaments/ID``: everything public (no cards of a board being played), and the
  signed-in player's own seat (``"me"``: their hand, whose move; no suggestion: a hint has no place
  in a tournament); ``"seq"`` the version (``"N.M"``: the document's number and its live rows', moved
  on by every move), ``"doc"`` the document's number.  ``?known=N``, the document's number the page
  has read whole: while it is still N, only what moves between two of its changes is sent (the
  status, the round, the board, each table's progress and the player's seat; ``"same": true``), not
  the entries, standings, final table and proof again.
* ``POST /api/tournaments/ID/enter`` (``{"partner": NAME}`` for a fixed partnership): before the
  start an entry, after it a late entry into a house bot's seat; ``/withdraw``; ``/move``
  ``{"move": "..."}`` at the player's own seat (written to its table's row only; ``{"seq"}``: what
  was written).
* ``POST /api/tournaments/ID/director/ACTION``, the director's only (403 for anyone else):
  ``start``, ``pause``, ``resume``, ``bots`` ``{"count", "level"}``, ``adjust``
  ``{"pair", "points", "reason"}``; each written to the tournament's audit log
  (``GET /api/tournaments/ID/audit``).
* ``GET /api/tournaments/ID/boards/R/T/B/record`` and ``.../replay``: a board's game record and the
  room's replay frames of it (``/tournaments/ID/replay/R/T/B``, the room's replay page), once every
  table has finished that board.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse

from canasta.club.boards import board_dealer
from canasta.club.scoring import SCORINGS
from canasta.club.tournament import FORMATS, MAX_HANDS, MAX_ROUNDS, Tournament
from canasta.engine.rules import PRESETS
from canasta.i18n import N_
from canasta.play.record import parse_records
from canasta.play.table import Table
from canasta.web.account_routes import current as signed
from canasta.web.account_routes import signed_in
from canasta.web.account_session import TheAccounts
from canasta.web.account_store import Session
from canasta.web.guards import bad, is_int
from canasta.web.language import choose
from canasta.web.lobby import clean_name
from canasta.web.pages import STATIC
from canasta.web.records import replay_frames
from canasta.web.service import CardRoom, TheCardRoom
from canasta.web.store import TableRow
from canasta.web.tournament_store import Live, Stored, TournamentStore
from canasta.web.tournaments import (
    Refused,
    closed,
    current,
    enter,
    entered,
    late_entry,
    my_view,
    new_state,
    next_step,
    pause_clock,
    play_move,
    public,
    record_of,
    start,
    store_for,
    tournament_of,
    withdraw,
    withdraw_entry,
)

#: the presets a pairs tournament plays: two sides
PRESETS_OK = tuple(sorted(n for n, r in PRESETS.items() if len(r.teams) == 2 and not r.cutthroat))
ENTRIES = ("pairs", "individuals")
BOT_ENTRIES = ("random", "basic")  # the levels a director may enter (cheap: a step stays short)
TURN_RANGE = (5, 600)
ROUND_MINUTES = (1, 600)
MAX_BOTS = 64
MAX_TRIES = 8
_ID = re.compile(r"^[A-Za-z0-9]{6,32}$")

routes = APIRouter()


def store_of(card: CardRoom) -> TournamentStore:
    return store_for(card.store.engine, card.store.vault)


def refusal(exc: Refused) -> Exception:
    return bad(exc.message, exc.status, **exc.fields)


async def read(card: CardRoom, tid: str) -> Stored:
    if not _ID.match(tid):
        raise bad(N_("there is no such tournament"), 404)
    got = await card.hub.db(store_of(card).load, tid)
    if got is None:
        raise bad(N_("there is no such tournament"), 404)
    return got


async def change(card: CardRoom, tid: str, fn: Callable[[dict[str, Any]], Any]) -> tuple[Stored, Any]:
    """Apply ``fn`` to the tournament's state and write it (read again and again if another writer
    came first); the step after it asked for, if it runs."""
    store = store_of(card)
    for _ in range(MAX_TRIES):
        got = await read(card, tid)
        try:
            answer = fn(got.state)
        except Refused as exc:
            raise refusal(exc) from None
        if await card.hub.db(store.save, got, time.time()):
            if got.status == "running" and not got.state["paused"]:
                next_step(card.hub, tid, got.seq, time.time())
            return got, answer
        await asyncio.sleep(0.01 * secrets.randbelow(10))
    raise bad(N_("the tournament is busy: try again"), 503)


def director(state: dict[str, Any], session: Session) -> None:
    if state["director"]["id"] != session.account.id:
        raise Refused(N_("only the tournament's director may do this"), 403)


def whole(body: dict[str, Any], key: str, low: int, high: int, default: int) -> int:
    value = body.get(key, default)
    if not is_int(value) or not low <= value <= high:
        raise bad(N_("{what} is a whole number from {low} to {high}"), what=key, low=low, high=high)
    return value


def choice(body: dict[str, Any], key: str, options: tuple[str, ...]) -> str:
    value = body.get(key, options[0])
    if not isinstance(value, str) or value not in options:
        raise bad(N_("{what} is one of {options}"), what=key, options=", ".join(options))
    return value


@routes.get("/tournaments", include_in_schema=False)
async def page() -> FileResponse:
    return FileResponse(STATIC / "tournaments.html")


@routes.get("/tournaments/{tid}", include_in_schema=False)
async def one_page(tid: str) -> FileResponse:
    return FileResponse(STATIC / "tournaments.html")


@routes.get("/api/tournaments")
async def listing(card: TheCardRoom) -> dict[str, Any]:
    found = await card.hub.db(store_of(card).listing)
    return {"tournaments": found, "presets": list(PRESETS_OK), "formats": list(FORMATS), "scorings": list(SCORINGS),
            "entries": list(ENTRIES), "bot_levels": list(BOT_ENTRIES)}


@routes.post("/api/tournaments")
async def create(request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    body = await card.body(request)
    session = await signed_in(request, accounts)
    name = clean_name(body.get("name")) or session.account.name
    form = choice(body, "form", FORMATS)
    settings = {"form": form, "rounds": whole(body, "rounds", 1, MAX_ROUNDS, 4),
                "hands": whole(body, "hands", 1, MAX_HANDS, 2), "preset": choice(body, "preset", PRESETS_OK),
                "scoring": choice(body, "scoring", SCORINGS), "entry": choice(body, "entry", ENTRIES),
                "turn_seconds": whole(body, "turn_seconds", *TURN_RANGE, 60), "round_minutes": None}
    if body.get("round_minutes") not in (None, 0):  # a round's time limit: no board of it dealt after it
        settings["round_minutes"] = whole(body, "round_minutes", *ROUND_MINUTES, 0)
    if body.get("preset") is None:
        settings["preset"] = "classic-4p"
    seed = body.get("seed")
    if seed is not None and not (card.settings.fixed_seeds and is_int(seed) and 0 <= seed < 2**31):
        raise bad(N_("a tournament's seed is chosen by the server"))
    state = new_state(name, {"id": session.account.id, "name": session.account.name}, settings, seed)
    tid = secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")
    store = store_of(card)
    await card.hub.db(store.create, tid, state, time.time())
    await card.hub.db(store.audit, tid, session.account.name, "create", {"settings": settings}, time.time())
    return JSONResponse({"id": tid, "link": f"/tournaments/{tid}", "commitments": state["commitments"]},
                        status_code=201)


#: what each tournament shows everyone, by the number of the document it was made from: a look at
#: an unchanged tournament reads only its number and its tables' heads (at most MAX_CACHED kept)
_seen: dict[str, tuple[int, dict[str, Any]]] = {}
MAX_CACHED = 64
#: seconds a look at a tournament may be old (this server's own writes are seen at once)
FRESH = 0.3


def looked(store: TournamentStore, tid: str
           ) -> tuple[Stored, Tournament | None, dict[str, Any], str, dict[int, Live]] | None:
    """The tournament as :func:`current` has it, what it shows everyone (each table's moves from the
    live rows' heads) and its version (the document's number and its live rows': changed by every move)."""
    glanced = store.glance(tid, time.time(), FRESH)
    found = current(store, tid, glanced[0]) if glanced is not None else None
    if glanced is None or found is None:
        return None
    got, t = found
    hit = _seen.get(tid)
    if hit is None or hit[0] != got.seq:
        hit = got.seq, public(got.state, t, None)
        _seen.pop(tid, None)
        while len(_seen) >= MAX_CACHED:
            _seen.pop(next(iter(_seen)))
        _seen[tid] = hit
    base = dict(hit[1])
    live = 0
    heads: list[Live] = []
    if got.status == "running":
        heads = glanced[1]
        moves = {h.table: h.moves for h in heads if t is not None and (h.round, h.board) == (t.played + 1,
                                                                                             got.state["board"])}
        base["tables"] = [dict(x, moves=moves.get(x["table"], 0)) for x in base.get("tables", [])]
        live = sum(h.seq + 1 for h in heads)
    return got, t, base, f"{got.seq}.{live}", {h.table: h for h in heads}


#: what a look at a tournament sends while its document has not moved on since the page read it whole
MOVING = ("status", "paused", "round", "board", "played", "tables")


@routes.get("/api/tournaments/{tid}")
async def show(tid: str, request: Request, card: TheCardRoom, accounts: TheAccounts) -> JSONResponse:
    if not _ID.match(tid):
        raise bad(N_("there is no such tournament"), 404)
    store = store_of(card)
    hit = await card.hub.db(looked, store, tid)
    if hit is None:
        raise bad(N_("there is no such tournament"), 404)
    got, t, base, version, heads = hit
    session = await signed(request, accounts)
    me = session.account.id if session is not None else None

    known = request.query_params.get("known")

    def build() -> dict[str, Any]:
        out = {k: base[k] for k in MOVING if k in base} | {"same": True} if known == str(got.seq) else base
        out["is_director"] = me is not None and me == got.state["director"]["id"]
        out["entered"] = me is not None and entered(got.state, me)
        out["id"], out["seq"], out["doc"] = tid, version, got.seq
        if t is not None and me is not None:
            out["me"] = my_view(store, got.state, t, tid, me, heads)
        return out

    return JSONResponse(await card.hub.db(build), headers={"Cache-Control": "no-store"})


@routes.get("/api/tournaments/{tid}/audit")
async def audit(tid: str, card: TheCardRoom) -> dict[str, Any]:
    found = await card.hub.db(store_of(card).audit_log, tid, time.time(), FRESH) if _ID.match(tid) else None
    if found is None:
        raise bad(N_("there is no such tournament"), 404)
    return {"audit": found}


def board_state(store: TournamentStore, tid: str, t: Tournament, r: int, table: int, board: int
                ) -> dict[str, Any] | None:
    """A closed board at one table as a table's saved form (the room's replay reads it): dealt again
    from the round's secret and its moves played from the record (None: not closed, or no such board)."""
    text = record_of(store, tid, t, r, table, board)
    if text is None:
        return None
    games, _ = parse_records(text)
    game = games[0]
    rec = next(x for x in t.records if (x.round, x.table, x.board) == (r, table, board))
    names = [""] * t.rules.players
    for side, pair in enumerate((rec.ns, rec.ew)):
        members = t.entrants[pair - 1].name.split(" & ")  # a partnership is named for its members
        for member, seat in enumerate(t.rules.teams[side]):
            names[seat] = (members[member] if len(members) == len(t.rules.teams[side])
                           else t.entrants[pair - 1].name)[:40]
    played = Table(t.rules, [None] * t.rules.players, seed=int(game.headers.get("MatchSeed", "0")), names=names,
                   first_dealer=board_dealer(board, t.rules.players), event=game.headers.get("Event", ""),
                   date=t.date, fair=True, deal=False)
    try:
        played.pending = t.round_seeds[r - 1].deal(board, t.rules.players)
        played.next_hand()
        for seat, move, *_ in game.hands[0].moves:
            played.play(seat, move)
        return played.to_dict()
    finally:
        played.close()


async def closed_board(card: CardRoom, tid: str, r: int, table: int, board: int) -> Tournament:
    got = await read(card, tid)
    if got.state["tournament"] is None:
        raise bad(N_("this board is not over at every table yet"), 404)
    t = tournament_of(got.state)
    if not closed(t, r, board) or not any((x.round, x.table, x.board) == (r, table, board) for x in t.records):
        raise bad(N_("this board is not over at every table yet"), 404)
    return t


@routes.get("/tournaments/{tid}/replay/{r}/{table}/{board}", include_in_schema=False)
async def replay_page(tid: str, r: int, table: int, board: int) -> FileResponse:
    return FileResponse(STATIC / "replay.html")


@routes.get("/api/tournaments/{tid}/boards/{r}/{table}/{board}/record")
async def record(tid: str, r: int, table: int, board: int, card: TheCardRoom) -> PlainTextResponse:
    t = await closed_board(card, tid, r, table, board)
    text = await card.hub.db(record_of, store_of(card), tid, t, r, table, board) or ""
    return PlainTextResponse(text, headers={"Content-Disposition": f'inline; filename="{tid}-r{r}-t{table}-b{board}.cgn"'})


@routes.get("/api/tournaments/{tid}/boards/{r}/{table}/{board}/replay")
async def replay(tid: str, r: int, table: int, board: int, card: TheCardRoom, request: Request,
                 lang: str | None = None) -> JSONResponse:
    """The room's replay frames of a closed board (every hand shown: every table has played it)."""
    t = await closed_board(card, tid, r, table, board)
    state = await card.hub.db(board_state, store_of(card), tid, t, r, table, board)
    if state is None:  # pragma: no cover - closed_board checked it
        raise bad(N_("this board is not over at every table yet"), 404)
    row = TableRow(f"{tid}-{r}-{table}-{board}", 0.0, 0.0, "finished", {}, state, 0, [])
    said = choose(lang, request.headers.get("accept-language"))
    return JSONResponse(await card.hub.db(replay_frames, row, said))


@routes.post("/api/tournaments/{tid}/enter")
async def enter_route(tid: str, request: Request, card: TheCardRoom, accounts: TheAccounts) -> dict[str, Any]:
    body = await card.body(request)
    session = await signed_in(request, accounts)
    me = {"id": session.account.id, "name": session.account.name}
    members = [me]
    partner = body.get("partner")
    if partner not in (None, ""):
        if not isinstance(partner, str):
            raise bad(N_("name your partner"))
        other = await accounts.run_db(accounts.store.find, partner)
        if other is None:
            raise bad(N_("there is no player called {name}"), 404, name=partner[:40])
        if other.id == me["id"]:
            raise bad(N_("your partner is another player"))
        members.append({"id": other.id, "name": other.name})

    def act(state: dict[str, Any]) -> dict[str, Any]:
        if state["status"] == "running":
            t = tournament_of(state)
            return {"late": late_entry(state, t, me)}
        side = len(PRESETS[state["settings"]["preset"]].teams[0])
        if state["settings"]["entry"] == "individuals" and len(members) != 1:
            raise Refused(N_("this tournament pairs individuals by draw: enter alone"))
        if state["settings"]["entry"] == "pairs" and len(members) != side:
            raise Refused(N_("this tournament takes fixed partnerships: name your partner"))
        return {"entry": enter(state, members)}

    _, answer = await change(card, tid, act)
    result: dict[str, Any] = answer
    return result


@routes.post("/api/tournaments/{tid}/withdraw")
async def withdraw_route(tid: str, request: Request, card: TheCardRoom, accounts: TheAccounts) -> dict[str, Any]:
    await card.body(request)
    session = await signed_in(request, accounts)

    def act(state: dict[str, Any]) -> dict[str, Any]:
        if state["status"] == "registering":
            withdraw_entry(state, session.account.id)
            return {"withdrawn": True}
        if state["status"] != "running":
            raise Refused(N_("the tournament is over"), 409)
        pair = withdraw(state, tournament_of(state), session.account.id)
        return {"withdrawn": True, "pair": pair}

    _, answer = await change(card, tid, act)
    await card.hub.db(store_of(card).audit, tid, session.account.name, "withdraw", answer, time.time())
    result: dict[str, Any] = answer
    return result


@routes.post("/api/tournaments/{tid}/move")
async def move(tid: str, request: Request, card: TheCardRoom, accounts: TheAccounts) -> dict[str, Any]:
    body = await card.body(request)
    session = await signed_in(request, accounts)
    text = body.get("move")
    if not isinstance(text, str) or not 0 < len(text) <= 400:
        raise bad(N_("say the move"))

    store = store_of(card)
    for _ in range(MAX_TRIES):  # the document read as this server last read it, if still the newest
        found = await card.hub.db(current, store, tid) if _ID.match(tid) else None
        if found is None:
            raise bad(N_("there is no such tournament"), 404)
        got, t = found
        if got.status != "running" or got.state["paused"] or t is None:
            raise bad(N_("the tournament is paused or not running"), 409)
        try:
            done = await card.hub.db(play_move, store, got, t, session.account.id, body.get("seat"), text,
                                     time.time())
        except Refused as exc:
            raise refusal(exc) from None
        if done is not None:
            wrote, clock, table = done
            if clock is None:  # a bot to move, or the board over: the step plays on at this table
                next_step(card.hub, tid, wrote, time.time(), table=table)
            else:  # a person to move: the step that plays for them if their clock runs out
                next_step(card.hub, tid, got.seq, clock, f"clock{int(clock)}")
            return {"seq": wrote}
        await asyncio.sleep(0.01 * secrets.randbelow(10))
    raise bad(N_("the tournament is busy: try again"), 503)


@routes.post("/api/tournaments/{tid}/director/{action}")
async def direct(tid: str, action: str, request: Request, card: TheCardRoom, accounts: TheAccounts) -> dict[str, Any]:
    if action not in ("start", "pause", "resume", "bots", "adjust"):
        raise bad(N_("there is no such action"), 404)
    body = await card.body(request)
    session = await signed_in(request, accounts)
    detail: dict[str, Any] = {}

    def act(state: dict[str, Any]) -> None:
        director(state, session)
        if action == "start":
            t = start(state)
            detail.update({"partnerships": len(t.entrants), "tables": t.tables})
        elif action in ("pause", "resume"):
            if state["status"] != "running":
                raise Refused(N_("the tournament is not running"), 409)
            pause_clock(state, action == "pause", time.time())  # the turn clocks start again on resuming (below)
        elif action == "bots":
            count = whole(body, "count", 1, MAX_BOTS, 1)
            level = choice(body, "level", ("basic", "random"))
            side = len(PRESETS[state["settings"]["preset"]].teams[0])
            for _ in range(count):
                enter(state, [{"bot": level}] * side, f"{level} {state['next_entry']}")
            detail.update({"count": count, "level": level})
        else:
            if state["tournament"] is None:
                raise Refused(N_("the tournament has not started"), 409)
            pair = body.get("pair")
            points = body.get("points")
            reason = body.get("reason")
            entrants = len(tournament_of(state).entrants)
            if not is_int(pair) or not 1 <= pair <= entrants:
                raise Refused(N_("say which partnership: 1 to {n}"), n=entrants)
            if not isinstance(points, (int, float)) or isinstance(points, bool) or not -100 <= points <= 100:
                raise Refused(N_("an adjustment is a number of points from -100 to 100"))
            if not isinstance(reason, str) or not 0 < len(reason.strip()) <= 200:
                raise Refused(N_("give the adjustment's reason (1 to 200 characters)"))
            entry = {"pair": pair, "points": float(points), "reason": reason.strip(), "by": session.account.name}
            state["adjustments"].append(entry)
            detail.update(entry)

    got, _ = await change(card, tid, act)
    if action in ("pause", "resume"):
        await card.hub.db(store_of(card).stop_clocks, tid)
    await card.hub.db(store_of(card).audit, tid, session.account.name, action, detail, time.time())
    return {"done": action, "status": got.status, "paused": got.state["paused"], **detail}


#: seconds between a server's looks for a running tournament no step has written for a while
SWEEP_EVERY = 5.0
STALE = 10.0


async def resume_all(card: CardRoom) -> int:
    """At start-up: each running tournament's next step asked for (a restart goes on where it
    stopped), and the sweep started that asks again for any whose step was lost (a worker that
    died between writing a step and asking for the next)."""
    count = await sweep(card, stale=0.0)
    card.hub.spawn(sweep_forever(card))
    return count


async def sweep(card: CardRoom, stale: float = STALE) -> int:
    """Ask for the next step of every running tournament not written for ``stale`` seconds."""
    store = store_of(card)
    count = 0
    now = time.time()
    for tid in await card.hub.db(store.running):
        found = await card.hub.db(current, store, tid)
        if found is None or found[0].state["paused"]:
            continue
        if now - await card.hub.db(store.last_written, tid) >= stale:
            next_step(card.hub, tid, found[0].seq, now, f"sweep{int(now)}" if stale else f"start{int(now)}")
            count += 1
    return count


async def sweep_forever(card: CardRoom) -> None:
    while True:
        await asyncio.sleep(SWEEP_EVERY)
        try:
            await sweep(card)
        except Exception as exc:  # the database away: the next look tries again
            card.hub.warn(f"tournaments: {exc.__class__.__name__}")


__all__ = ["PRESETS_OK", "resume_all", "routes"]
