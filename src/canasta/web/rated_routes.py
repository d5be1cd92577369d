"""Rated play's routes (:mod:`canasta.web.rated`): making a rated table, a player leaving one,
a table's rated result, the leaderboards (``/leaderboard/POOL``) and a player's ratings with
their history plot (``/api/players/NAME/ratings``, shown on ``/u/NAME``).

``POST /api/rated/tables``, signed in (the session's CSRF token)::

    {"preset": "classic-4p", "seat": 0, "turn_seconds": 60, "pauses": 2, "title": "...",
     "seats": [{}, {"kind": "open"}, {"kind": "reserved", "name": "Bea"}, {"kind": "open"}]}

answers as ``POST /api/tables`` does (``table``, ``seat``, ``token``, ``invites``, ``link``) with
``rated``: the pool.  ``seats`` may be left out (every other seat open); ``pauses``: how many
pauses the match allows (0 to 5; :data:`canasta.web.pause.RATED_PAUSES` if left out)."""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, RedirectResponse

from canasta.i18n import N_
from canasta.play.table import seat_names
from canasta.web import account_seats
from canasta.web.account_session import TheAccounts
from canasta.web.guards import bad, client_address, is_int
from canasta.web.lobby import MAX_SEED, Lobby, clean_name, next_deal, text_field
from canasta.web.pages import STATIC
from canasta.web.pause import MAX_PAUSES, RATED_PAUSES
from canasta.web.profiles import account_named
from canasta.web.rated import (
    NO_BOTS,
    NO_OPTIONS,
    POOLS,
    RATED_PRESETS,
    SIGN_IN,
    TURN_RANGE,
    TURN_SECONDS,
    RatedPlay,
    rated_pool,
)
from canasta.web.service import TheCardRoom
from canasta.web.store import SeatRow, hash_token

routes = APIRouter()


def rated_of(request: Request) -> RatedPlay:
    found: RatedPlay = request.app.state.rated
    return found


def rated_seats(body: dict[str, Any], players: int, me: int, my_name: str, token: str) -> tuple[list[SeatRow],
                                                                                               dict[int, str]]:
    specs = body.get("seats")
    if specs is None:
        specs = [{"kind": "open"}] * players
    if not isinstance(specs, list) or len(specs) != players:
        raise bad(f"give {players} seats (open or reserved) for a rated table, or leave them out")
    names = seat_names(players)
    seats: list[SeatRow] = []
    invites: dict[int, str] = {}
    for i, spec in enumerate(specs):
        if not isinstance(spec, dict):
            raise bad(f"seat {i}: expected an object like {{\"kind\": \"open\"}}")
        kind = spec.get("kind", "open")
        if i == me:
            seats.append(SeatRow(i, "human", my_name, None, hash_token(token)))
        elif kind == "bot":
            raise bad(NO_BOTS)
        elif kind == "open":
            seats.append(SeatRow(i, "open", names[i]))
        elif kind == "reserved":
            key = secrets.token_urlsafe(12)
            invites[i] = key
            name = text_field(spec, "name", f"seat {i}: the name")
            seats.append(SeatRow(i, "reserved", clean_name(name, names[i]), None, None, hash_token(key)))
        else:
            raise bad(f"seat {i}: kind must be open or reserved")
    return seats, invites


@routes.post("/api/rated/tables")
async def create_rated(request: Request, card: TheCardRoom) -> dict[str, Any]:
    body = await card.body(request)
    account = await account_seats.player(request)
    if account is None:
        raise bad(SIGN_IN, 401)
    rules, pool = rated_pool(body.get("preset", "classic-4p"))
    if body.get("options") not in (None, {}):
        raise bad(NO_OPTIONS)
    fixed = card.settings.fixed_seeds  # a server for tests and demonstrations: a lower target, a fixed seed
    target = body.get("target")
    if target not in (None, ""):
        if not fixed:
            raise bad(NO_OPTIONS)
        if not is_int(target) or not 100 <= target <= 100000:
            raise bad(N_("the target score must be a whole number from {low} to {high}"), low=100, high=100000)
        rules = rules.with_options({"target": target})
    seed = body.get("seed")
    if seed is not None and (not fixed or not is_int(seed) or not 0 <= seed <= MAX_SEED):
        raise bad("a rated table's deals are dealt fairly: no seed")
    turn = body.get("turn_seconds", TURN_SECONDS)
    low, high = TURN_RANGE
    if not is_int(turn) or not (low <= turn <= high or (fixed and 1 <= turn < low)):
        raise bad(N_("a rated table's turn timer is a whole number of seconds from {low} to {high}"), low=low,
                  high=high)
    pauses = body.get("pauses", RATED_PAUSES)
    if not is_int(pauses) or not 0 <= pauses <= MAX_PAUSES:
        raise bad(N_("a rated match allows from {low} to {high} pauses"), low=0, high=MAX_PAUSES)
    n = rules.players
    me = body.get("seat", 0)
    if not is_int(me) or not 0 <= me < n:
        raise bad(f"your seat must be a whole number from 0 to {n - 1}")
    card.may_create(request)
    token = secrets.token_urlsafe(24)
    seats, invites = rated_seats(body, n, me, account.name, token)
    fair = seed is None
    if seed is None:
        seed = secrets.randbits(63)
    config: dict[str, Any] = {"title": clean_name(text_field(body, "title", "the table's name")), "host": account.name,
                              "preset": rules.name, "turn_seconds": turn, "rated": pool, "pauses": pauses,
                              "lister": card.store.vault.tag(client_address(request))}
    room = await Lobby(card.hub).open_table(rules, seats, seed, fair, config)
    card.hub.count_creation(client_address(request))
    made = {"table": room.id, "seat": me, "token": token, "next_deal": next_deal(room.table), "rated": pool,
            "invites": {str(i): f"/t/{room.id}?seat={i}&invite={k}" for i, k in invites.items()},
            "link": f"/t/{room.id}"}
    await account_seats.keep(request, account, made)
    return made


@routes.get("/api/rated/tables/{table_id}")
async def rated_table(table_id: str, request: Request, card: TheCardRoom) -> dict[str, Any]:
    """A table's rating: its pool (null: not rated) and, once settled, its result."""
    room = await card.room(table_id)
    pool = room.config.get("rated")
    result = await card.hub.db(rated_of(request).result, table_id) if pool else None
    return {"table": table_id, "rated": pool, "result": result}


@routes.post("/api/rated/tables/{table_id}/leave")
async def leave(table_id: str, request: Request, card: TheCardRoom) -> dict[str, Any]:
    """``{"token": "..."}``: a player leaves a rated match before its end: a loss for their side,
    rated now (the table plays on, unrated)."""
    room, body = await card.room(table_id), await card.body(request)
    if not room.config.get("rated"):
        raise bad(N_("this table is not rated"), 409)
    seat = card.hub.authenticate(room, body.get("token"))
    if seat is None:
        raise bad(N_("only a player of this table can leave it"), 403)
    if room.status != "playing" or not room.table.dealt:
        raise bad(N_("the rated match has not begun: nothing is rated"), 409)
    rated = rated_of(request)
    if await card.hub.db(rated.result, table_id) is not None:
        raise bad(N_("this rated match is settled already"), 409)
    outcome = await rated.settle(table_id, leaver=seat)
    return {"table": table_id, "result": await card.hub.db(rated.result, table_id),
            "left": outcome is not None and outcome.leaver == seat}


def pool_named(pool: str) -> str:
    if pool not in POOLS:
        raise bad(N_("no rating pool is named {pool}: the pools are {pools}"), 404, pool=pool[:40],
                  pools=", ".join(POOLS))
    return pool


@routes.get("/leaderboard", include_in_schema=False)
async def leaderboards() -> RedirectResponse:
    return RedirectResponse("/leaderboard/classic-4p")


@routes.get("/leaderboard/{pool}", include_in_schema=False)
async def leaderboard_page(pool: str) -> FileResponse:
    return FileResponse(STATIC / "leaderboard.html")


@routes.get("/api/leaderboard/{pool}")
async def leaderboard(pool: str, request: Request, card: TheCardRoom) -> dict[str, Any]:
    """A pool's leaderboard: established ratings by the number shown, then the provisional ones."""
    rated = rated_of(request)
    rows = await card.hub.db(rated.leaderboard, pool_named(pool))
    return {"pool": pool, "pools": list(POOLS), "presets": list(RATED_PRESETS),
            "provisional_games": rated.ratings.settings.provisional_games, "rows": rows}


@routes.get("/api/players/{name}/ratings")
async def player_ratings(name: str, request: Request, card: TheCardRoom, accounts: TheAccounts) -> dict[str, Any]:
    """A player's rating in each pool, with the history plot (an SVG drawn here)."""
    account = await account_named(card, accounts, name)
    pools = await card.hub.db(rated_of(request).of_player, account)
    for p in pools:
        p["plot"] = history_svg([float(h[1]) for h in p["history"]])
    return {"name": account.name, "pools": pools}


def history_svg(shown: list[float], width: int = 600, height: int = 200) -> str:
    """The rating after each game as a line (an inline SVG; numbers only, no text of anyone's)."""
    pad_l, pad_r, pad_t, pad_b = 52, 12, 12, 26
    w, h = width - pad_l - pad_r, height - pad_t - pad_b
    values = shown or [0.0]
    low, high = min(values), max(values)
    if high - low < 1:
        low, high = low - 0.5, high + 0.5
    n = len(values)

    def xy(i: int, v: float) -> tuple[float, float]:
        x = pad_l + (w * i / (n - 1) if n > 1 else w / 2)
        return round(x, 1), round(pad_t + h * (high - v) / (high - low), 1)

    points = " ".join(f"{x},{y}" for x, y in (xy(i, v) for i, v in enumerate(values)))
    dots = "".join(f'<circle cx="{x}" cy="{y}" r="4"/>' for x, y in (xy(i, v) for i, v in enumerate(values)))
    return (f'<svg class="rating-plot" viewBox="0 0 {width} {height}" role="img" xmlns="http://www.w3.org/2000/svg">'
            f'<line class="axis" x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{pad_t + h}"/>'
            f'<line class="axis" x1="{pad_l}" y1="{pad_t + h}" x2="{pad_l + w}" y2="{pad_t + h}"/>'
            f'<text x="{pad_l - 6}" y="{pad_t + 6}" text-anchor="end">{high:.1f}</text>'
            f'<text x="{pad_l - 6}" y="{pad_t + h}" text-anchor="end">{low:.1f}</text>'
            f'<text x="{pad_l}" y="{height - 6}">1</text>'
            f'<text x="{pad_l + w}" y="{height - 6}" text-anchor="end">{n}</text>'
            f'<polyline points="{points}"/><g class="dots">{dots}</g></svg>')


__all__ = ["history_svg", "rated_of", "routes"]
