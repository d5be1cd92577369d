"""A finished match's record (``/api/tables/{id}/record``) and replay frames
(``/api/tables/{id}/replay``): only once the match is over."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from canasta.engine.rules import RuleSet
from canasta.i18n import DEFAULT, N_, translator
from canasta.play.table import Table
from canasta.present import canasta_size, dealt, describe
from canasta.web.guards import bad
from canasta.web.language import choose
from canasta.web.service import CardRoom, TheCardRoom
from canasta.web.store import TableRow


def replay_frames(row: TableRow, lang: str = DEFAULT) -> dict[str, Any]:
    """Every position of a finished match, all hands shown (the match is over), each
    captioned in ``lang`` (:mod:`canasta.present`)."""
    saved = row.state
    tr = translator(lang)
    frames: list[dict[str, Any]] = []
    table: Table | None = None
    for table, seat, move in Table.replay(saved):
        view = table.spectator_view().to_dict(include_rules=False)
        text = (dealt(table.hand_number, tr) if move is None
                else describe(move, table.rules, table.names[seat], tr))
        frames.append({"hand": table.hand_number, "text": text, "seat": seat,
                       "move": None if move is None else str(move), "view": view,
                       "hands": [table.view(s).to_dict()["hand"] for s in range(table.rules.players)],
                       "totals": list(table.match.totals)})
    if table is not None:
        table.close()
    return {"table": row.id, "names": saved.get("names"), "rules": saved["rules"], "frames": frames,
            "canasta_size": canasta_size(RuleSet.from_dict(saved["rules"]))}


async def finished_row(card: CardRoom, table_id: str) -> TableRow:
    row = await card.hub.db(card.store.load, table_id)
    if row is None:
        raise bad(N_("no such table"), 404)
    if row.status == "abandoned":
        raise bad(await card.hub.missing(table_id), 410)
    if row.status != "finished":
        raise bad(N_("the match is not over: its record and replay are available when it ends"), 409)
    return row


routes = APIRouter()


@routes.get("/api/tables/{table_id}/record")
async def record(table_id: str, card: TheCardRoom) -> Response:
    row = await finished_row(card, table_id)
    table = Table.from_dict(row.state)
    text = table.record().to_text()
    table.close()
    return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="canasta-{row.id}.txt"'})


@routes.get("/api/tables/{table_id}/replay")
async def replay(table_id: str, card: TheCardRoom, request: Request, lang: str | None = None) -> JSONResponse:
    row = await finished_row(card, table_id)
    said = choose(lang, request.headers.get("accept-language"))
    return JSONResponse(await asyncio.to_thread(replay_frames, row, said))
