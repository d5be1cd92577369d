"""The card room as its routes see it: the hub (the live tables), its store and the
server's settings, kept on the application (``app.state.card_room``) and handed to a
route as a dependency (:data:`TheCardRoom`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from canasta.i18n import N_
from canasta.web.guards import bad, client_address, json_body
from canasta.web.hub import Hub
from canasta.web.room import Room, Settings
from canasta.web.store import Store


@dataclass(frozen=True)
class CardRoom:
    """What the routes share: the hub, its store, the settings and the origins allowed
    beside the server's own."""

    hub: Hub
    store: Store
    settings: Settings
    allowed_origins: frozenset[str]

    async def room(self, table_id: str) -> Room:
        """The live table, or the refusal a person reads (no such table: 404; closed: 410).  The
        database is read in a thread (:meth:`Hub.aget`): a hung database holds this request, not
        the server."""
        room = await self.hub.aget(table_id)
        if room is None:
            why = await self.hub.missing(table_id)
            raise bad(why, 404 if why == "no such table" else 410)
        return room

    async def body(self, request: Request) -> dict[str, Any]:
        """A POST's JSON object, from this server's pages (or no browser)."""
        return await json_body(request, self.allowed_origins)

    def may_create(self, request: Request) -> None:
        """Refuse a new table past the address's allowance (429, with Retry-After)."""
        wait = self.hub.creation_wait(client_address(request))
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise bad(N_("too many tables created from your address: at most {limit} a minute; try again in {seconds} s"),
                      429, {"Retry-After": str(seconds)}, limit=self.settings.tables_per_minute, seconds=seconds)


def card_room(conn: HTTPConnection) -> CardRoom:
    """The card room the application was built with (a request's or a websocket's)."""
    found: CardRoom = conn.app.state.card_room
    return found


#: a route's parameter: the card room it serves
TheCardRoom = Annotated[CardRoom, Depends(card_room)]
