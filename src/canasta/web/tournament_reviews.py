"""The review of a tournament's board (``/tournaments/ID/review/ROUND/TABLE/BOARD``): the room's
hand review (:mod:`canasta.web.reviews`) of one seat at one table's board, once every table has
finished that board.

A closed board's every hand may be seen by anyone (its replay shows them all), so any seat's
review may be asked for by anyone.  A board's review is kept and queued as a room table's is,
under the key ``T:ID:ROUND:TABLE:BOARD`` (:data:`BOARD_PREFIX`; a room table's id has no colon); a cluster's
worker builds the board again from that key (:func:`board_of_key`), as the replay does, from the
round's secret and the board's record.

* ``POST /api/tournaments/ID/boards/R/T/B/review`` ``{"seat": S}``: as ``/api/tables/ID/review``
  (its place in the queue, its progress, then the review); the hand is the board's only one.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse

from canasta.i18n import N_
from canasta.web.guards import bad, is_int
from canasta.web.language import choose
from canasta.web.pages import STATIC
from canasta.web.reviews import serve
from canasta.web.service import TheCardRoom
from canasta.web.store import Store
from canasta.web.tournament_routes import board_state, closed_board, store_of
from canasta.web.tournaments import closed, store_for, tournament_of

#: a review's key names a room table by its id, a tournament's board by this prefix
BOARD_PREFIX = "T:"
_KEY = re.compile(r"^T:([A-Za-z0-9]{1,24}):(\d{1,3}):(\d{1,4}):(\d{1,3})$")


def board_key(tid: str, r: int, table: int, board: int) -> str:
    """The review key's table part for a board at one table."""
    return f"{BOARD_PREFIX}{tid}:{r}:{table}:{board}"


def board_of_key(store: Store, key: str) -> dict[str, Any] | None:
    """The board a review key names, as a table's saved form (None: no such board, or not over
    at every table)."""
    found = _KEY.match(key)
    if found is None:
        return None
    tid, r, table, board = found.group(1), int(found.group(2)), int(found.group(3)), int(found.group(4))
    tstore = store_for(store.engine, store.vault)
    got = tstore.load(tid)
    if got is None or got.state.get("tournament") is None:
        return None
    t = tournament_of(got.state)
    if not closed(t, r, board):
        return None
    return board_state(tstore, tid, t, r, table, board)


routes = APIRouter()


@routes.get("/tournaments/{tid}/review/{r}/{table}/{board}", include_in_schema=False)
async def review_page(tid: str, r: int, table: int, board: int) -> FileResponse:
    return FileResponse(STATIC / "review.html")


@routes.post("/api/tournaments/{tid}/boards/{r}/{table}/{board}/review")
async def review(tid: str, r: int, table: int, board: int, request: Request, card: TheCardRoom,
                 lang: str | None = None) -> JSONResponse:
    """One seat's review of a closed board (``{"seat": S}``); anyone may ask for any seat."""
    body = await card.body(request)
    said = choose(lang, request.headers.get("accept-language"))
    t = await closed_board(card, tid, r, table, board)
    players = t.rules.players
    seat = body.get("seat", 0)
    if not is_int(seat) or not 0 <= seat < players:
        raise bad(N_("say which seat to review: a seat number from 0 to {last}"), last=players - 1)
    hand = body.get("hand", 1)
    if hand != 1:
        raise bad(N_("a board is one hand: ask for hand 1"))
    state = await card.hub.db(board_state, store_of(card), tid, t, r, table, board)
    if state is None:  # pragma: no cover - closed_board checked it
        raise bad(N_("this board is not over at every table yet"), 404)
    return await serve(card, request, board_key(tid, r, table, board), state, 1, seat, list(range(players)), said)


__all__ = ["BOARD_PREFIX", "board_key", "board_of_key", "routes"]
