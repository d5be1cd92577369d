"""Playing one's own board on the tournament page by picking cards, as at a card table
(``static/tournament_play.js``): what each action would make of the cards picked, and whether the
rules allow it now.

* ``POST /api/tournaments/ID/check`` (signed in) ``{"selection": {"staged": [["8H", "8S"]],
  "cards": ["KH"]}}`` (the room's selection, :func:`canasta.web.conn.read_selection`): ``{"actions":
  [{"action": "meld", "move": "meld 8H 8S + KH ...", "text": "meld ...", "why": null or why not}]}``,
  each action's move from :func:`canasta.present.candidates`, its words from
  :func:`canasta.present.proposal` and the refusal from the engine, in the asker's language.

Only the asker's own seat at their own table is looked at, and only what that seat may know is
answered (the move made of its own cards, and whether it is legal): nothing of another hand.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from canasta.engine.errors import IllegalMoveError
from canasta.i18n import N_, translator
from canasta.present import Selection, candidates, proposal
from canasta.web.account_routes import signed_in
from canasta.web.account_session import TheAccounts
from canasta.web.conn import read_selection
from canasta.web.guards import bad
from canasta.web.language import choose
from canasta.web.service import TheCardRoom
from canasta.web.tournament_routes import read, refusal, store_of
from canasta.web.tournament_store import TournamentStore
from canasta.web.tournaments import Refused, live_table, seat_of, tournament_of

PAUSED = N_("the tournament is paused: play resumes when the director says so")


def actions_for(store: TournamentStore, tid: str, state: dict[str, Any], account_id: str, picked: Selection,
                lang: str) -> list[dict[str, Any]]:
    """Each action's move from ``picked`` at the account's own seat now, its words, and why the
    rules refuse it (None: allowed), in ``lang``."""
    if state["status"] != "running" or state.get("tournament") is None:
        raise Refused(N_("you have no seat in this round"), 403)
    t = tournament_of(state)
    found = seat_of(state, t, account_id)
    if found is None:
        raise Refused(N_("you have no seat in this round"), 403)
    s, seat = found
    r, board = t.played + 1, int(state["board"])
    if any(res.round == r and res.board == board and res.table == s.table for res in t.results):
        raise Refused(N_("your table has finished this board: the next is dealt when every table has"), 409)
    tr = translator(lang)
    table, _stand_ins, _live = live_table(state, t, r, s, board, store.live(tid, s.table))
    try:
        out = []
        for action, move in candidates(table.view(seat), picked).items():
            why: Any = tr.gettext(PAUSED) if state["paused"] else table.why_not(seat, move)
            if isinstance(why, IllegalMoveError):
                why = tr.refusal(why)
            elif why is not None and not isinstance(why, str):
                why = str(why)
            out.append({"action": action, "move": str(move), "text": proposal(move, table.rules, tr), "why": why})
        return out
    finally:
        table.close()


routes = APIRouter()


@routes.post("/api/tournaments/{tid}/check")
async def check(tid: str, request: Request, card: TheCardRoom, accounts: TheAccounts,
                lang: str | None = None) -> dict[str, Any]:
    body = await card.body(request)
    session = await signed_in(request, accounts)
    picked = read_selection(body.get("selection", {}))
    if isinstance(picked, str):
        raise bad(N_('say which cards you picked: {"selection": {"staged": [groups], "cards": [cards]}}, '
                     'each card in notation ("8H")'))
    said = choose(lang, request.headers.get("accept-language"))
    got = await read(card, tid)
    try:
        actions = await card.hub.db(actions_for, store_of(card), tid, got.state, session.account.id, picked, said)
    except Refused as exc:
        raise refusal(exc) from None
    return {"actions": actions}


__all__ = ["PAUSED", "actions_for", "routes"]
