"""A table's websocket (``/ws/{table_id}``): the address's allowance, the Origin check,
the hello that names a seat (or none, to watch), then every message to the room.

The messages themselves are the room's (:meth:`canasta.web.room.Room.handle`)."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from canasta.engine.game import family_of
from canasta.engine.rules import RuleSet
from canasta.present import family_words, hand_word, pile_word
from canasta.web.guards import client_address, is_int, origin_refusal
from canasta.web.language import choose, localize, say_error
from canasta.web.redact import said
from canasta.web.room import DB_UNAVAILABLE, MAX_MESSAGE, Conn, Room, error
from canasta.web.service import CardRoom, TheCardRoom
from canasta.web.social import BANNED_CODE

HELLO_TIMEOUT = 20.0

routes = APIRouter()


@routes.websocket("/ws/{table_id}")
async def table_socket(ws: WebSocket, table_id: str, card: TheCardRoom) -> None:
    if card.hub.cut_off:  # it cannot keep a seat's presence: the handshake is refused, a proxy tries the next server
        if "websocket.http.response" in ws.scope.get("extensions", {}):
            await ws.send_denial_response(JSONResponse({"detail": "this server lost its database or Redis: reconnect"},
                                                       status_code=503, headers={"Retry-After": "2"}))
        else:
            await ws.close(code=1013, reason="this server lost its database or Redis: reconnect")
        return
    address = client_address(ws)
    if not card.hub.open_socket(address):
        await ws.accept()
        await ws.send_text(json.dumps(error(
            "TOO_MANY_CONNECTIONS", f"too many connections from your address (at most "
            f"{card.settings.sockets_per_address}): close other tables' pages and reconnect")))
        await ws.close(code=4429)
        return
    try:
        await serve_socket(ws, table_id, card)
    finally:
        card.hub.close_socket(address)



def words_of(rules: RuleSet) -> dict[str, Any]:
    """What the table's family calls its things (:func:`canasta.present.family_words`), for
    the page: it words the table by these, never by the family's name."""
    words = family_words(rules)
    return {"pile": pile_word(rules), "hand": hand_word(rules), "canastas": list(words.canastas), "opened": words.opened,
            "minimum_shown": words.minimum_shown, "pile_fanned": words.pile_fanned, "wilds": words.wilds,
            "closes_canastas": family_of(rules).closes_canastas, "canasta_size": family_of(rules).canasta_size,
            "laid_out": words.laid_out}

async def serve_socket(ws: WebSocket, table_id: str, card: CardRoom) -> None:
    await ws.accept()
    refusal = origin_refusal(ws.scope, ws.headers, card.allowed_origins)
    if refusal is not None:  # another site's page opening a socket from a player's browser
        await ws.send_text(json.dumps(error("BAD_ORIGIN", refusal)))
        await ws.close(code=4403)
        return
    room = await open_room(ws, table_id, card)
    if room is None:
        return
    conn: Conn | None = None
    social = ws.app.state.social
    try:
        conn = await hello(ws, room, card)
        refused = await social.admit(ws, room, conn)  # whose socket (a banned account's seat is refused)
        if refused is not None:
            conn.send(refused)
            conn.drop(BANNED_CODE, "banned")
            await conn.close()
            conn = None
            return
        room.attach(conn)  # the new client gets its state (everyone does if a seat came back)
        while True:
            msg = parse(await receive(ws))
            if "error" in msg:
                if conn.limiter.take("bad") is None:  # a flood of garbage is not answered in full
                    conn.send(msg["error"])
                continue
            room.handle(conn, msg)
    except (WebSocketDisconnect, TimeoutError, RuntimeError):
        pass
    finally:
        if conn is not None:
            social.forget(conn)
            room.detach(conn)
            await conn.close()


async def open_room(ws: WebSocket, table_id: str, card: CardRoom) -> Room | None:
    """The live table, or None after telling the socket why not (and closing it)."""
    try:
        room = await card.hub.aget(table_id)  # the database read in a thread (Hub.aget)
        why = "" if room is not None else await card.hub.missing(table_id)
    except Exception as exc:  # the database is away: the page tries again
        print(f"canasta: table {table_id} could not be read: {said(exc)}", file=sys.stderr, flush=True)
        await ws.send_text(json.dumps(localize(say_error("DB_UNAVAILABLE", DB_UNAVAILABLE),
                                                     choose(None, ws.headers.get("accept-language")))))
        await ws.close(code=1013)
        return None
    if room is None:
        await ws.send_text(json.dumps(error("NO_TABLE" if why == "no such table" else "TABLE_CLOSED", why)))
        await ws.close(code=4404 if why == "no such table" else 4410)
    return room


async def hello(ws: WebSocket, room: Room, card: CardRoom) -> Conn:
    """Wait for ``hello`` (with the seat token, or none to watch), answer ``welcome`` and
    take a client seed sent with it; anything else first is answered and waited past."""
    while True:
        msg = parse(await asyncio.wait_for(receive(ws), HELLO_TIMEOUT))
        if "error" in msg:
            await ws.send_text(json.dumps(msg["error"]))
            continue
        if msg.get("type") != "hello":
            await ws.send_text(json.dumps(error("NO_HELLO", "say hello first: {\"type\": \"hello\", "
                                                "\"token\": YOUR SEAT TOKEN} (no token to watch)")))
            continue
        if not (msg.get("seq") is None or is_int(msg["seq"])) or \
                not (msg.get("token") is None or isinstance(msg["token"], str)):
            await ws.send_text(json.dumps(error("BAD_MESSAGE", "hello's \"token\" is text and its "
                                                "\"seq\" a whole number (both may be left out)")))
            continue
        token = msg.get("token")
        seat = -1
        if token is not None:
            found = card.hub.authenticate(room, token)
            if found is None:
                await ws.send_text(json.dumps(error("BAD_TOKEN", "this token holds no seat at this table; "
                                                    "say hello without a token to watch")))
                continue
            seat = found
        conn = Conn(ws, seat, choose(msg.get("lang"), ws.headers.get("accept-language")),
                    card.settings.message_rates)
        conn.start()
        conn.send({"type": "welcome", "table": room.id, "seat": seat, "rules": room.table.rules.to_dict(),
                   "words": words_of(room.table.rules),
                   "title": room.config.get("title"), "host": room.config.get("host"), "seq": room.seq,
                   "resync": is_int(msg.get("seq")) and msg["seq"] != room.seq})
        if seat >= 0 and msg.get("client_seed") is not None:
            seed_with_hello(conn, room, msg)
        return conn


def seed_with_hello(conn: Conn, room: Room, msg: dict[str, Any]) -> None:
    """A client seed sent in ``hello`` counts for the next deal only beside the commitment
    it answers (the one the player was shown)."""
    if room.table.pending is None or room.table.match_over:
        return
    if msg.get("commitment") != room.table.next_commitment():
        conn.send(error("SEED_BEFORE_COMMITMENT", "a client seed goes with the commitment it "
                        "answers: send \"commitment\" (the next deal's, from the table's creation "
                        "answer or a state's next_deal) beside \"client_seed\", or send the seed "
                        "after the state that shows it", ref="seed"))
        return
    refused = room.seed_refusal(msg["client_seed"])
    if refused is not None:
        conn.send(refused)
        return
    room.act(conn, room.aseed(conn.seat, msg["client_seed"]))


async def receive(ws: WebSocket) -> str | None:
    """The next text message; None for a binary one."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    return text if isinstance(text, str) else None


def parse(raw: str | None) -> dict[str, Any]:
    """A client message, or {"error": ...} saying what is wrong with it."""
    if raw is None:
        return {"error": error("BAD_JSON", "binary messages are not understood: send JSON text")}
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
        return {"error": error("TOO_LARGE", f"message too large: at most {MAX_MESSAGE} bytes")}
    try:
        msg = json.loads(raw)
    except ValueError as exc:
        return {"error": error("BAD_JSON", f"the message is not JSON: {exc}")}
    except RecursionError:
        return {"error": error("BAD_JSON", "the message is not JSON this server reads: nested too deeply")}
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        return {"error": error("BAD_MESSAGE", "a message is a JSON object with a \"type\"")}
    return msg
