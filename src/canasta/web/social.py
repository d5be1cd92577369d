"""Friends and civility as the card room serves them: the sockets of each account on this
server, what a player's socket may receive (a muted player's chat is left out of it), a ban's
end of every socket of the account, invitations pushed to a player's sockets, and which
followed players are online and where.

:class:`Social` is kept on the application (``app.state.social``).  A table's socket passes
:meth:`Social.admit` after its hello (:mod:`canasta.web.sockets`): it is the account's whose
seat it holds, else the signed-in browser's (the session cookie the handshake carried); a seat
of a banned account is refused.  What one server does to its sockets it tells the others of a
cluster on the Redis channel the tables already use (:meth:`canasta.web.hub.Hub.announce`); and
every :attr:`Social.sweep_every` seconds each server also asks the database which of its
sockets' accounts are banned, so a ban made elsewhere (``canasta accounts ban``, a server that
lost Redis for a moment) closes them too."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable
from typing import Any

from fastapi import WebSocket
from sqlalchemy import select

from canasta.engine.errors import CanastaError
from canasta.i18n import N_
from canasta.web.account_session import SESSION_COOKIE
from canasta.web.account_store import FOREVER, accounts_t
from canasta.web.accounts import Accounts
from canasta.web.conn import Conn
from canasta.web.hub import Hub
from canasta.web.language import say_error
from canasta.web.redact import said
from canasta.web.room import Room
from canasta.web.social_store import ONLINE_SECONDS, SocialStore
from canasta.web.store import tables_t

BANNED = N_("this account is banned: its seats and sessions are closed")
BANNED_CODE = 4403  # the websocket close code of a banned account's socket
MAX_TABLES = 10  # live tables of one followed player looked at for their presence
SWEEP_ENV = "CANASTA_BAN_SWEEP"  # seconds between two sweeps for banned accounts' sockets (default 2)


def sweep_seconds(value: str | None = None) -> float:
    """The seconds between sweeps: ``value`` (default ``$CANASTA_BAN_SWEEP``, else 2)."""
    value = os.environ.get(SWEEP_ENV) if value is None else value
    if value is None or not value.strip():
        return 2.0
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0.1 <= seconds <= 3600:
        raise CanastaError(f"{SWEEP_ENV}={value}: a number of seconds from 0.1 to 3600")
    return seconds


def banned_ids(store: SocialStore, ids: list[str], now: float) -> list[str]:
    """Which of the accounts ``ids`` are banned now."""
    if not ids:
        return []
    with store.engine.connect() as db:
        return [r[0] for r in db.execute(select(accounts_t.c.id).where(
            accounts_t.c.id.in_(ids), accounts_t.c.banned_until > now)).all()]


def live_seats(store: SocialStore, seats: list[tuple[str, int]]) -> list[tuple[str, int, dict[str, Any]]]:
    """Of ``seats`` (table, seat), those at tables still in play, with the table's config."""
    by_table = dict(seats)
    if not by_table:
        return []
    with store.engine.connect() as db:
        rows = db.execute(select(tables_t.c.id, tables_t.c.config).where(
            tables_t.c.id.in_(list(by_table)), tables_t.c.status.in_(("open", "playing")))
            .order_by(tables_t.c.updated.desc()).limit(MAX_TABLES)).all()
    return [(r.id, by_table[r.id], json.loads(r.config)) for r in rows]


class Social:
    """The sockets of each account here, and what follows from mutes, bans and invitations."""

    def __init__(self, store: SocialStore, accounts: Accounts, hub: Hub, sweep_every: float | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.accounts = accounts
        self.hub = hub
        self.sweep_every = sweep_seconds() if sweep_every is None else sweep_every
        self.clock = clock
        self.sockets: dict[str, dict[Conn, Room]] = {}  # account id -> its sockets here and their tables
        self.task: asyncio.Task[None] | None = None
        hub.social = self.on_announced

    def start(self) -> None:
        self.task = asyncio.create_task(self._sweep())

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task

    # --------------------------------------------------------------- sockets

    async def admit(self, ws: WebSocket, room: Room, conn: Conn) -> dict[str, Any] | None:
        """Whose socket ``conn`` is (its seat's account, else the browser's session), kept here;
        or the error that refuses it (a seat of a banned account).  With the database away the
        socket plays on as nobody's (no mutes applied, no ban checked until it connects again)."""
        try:
            return await self._admit(ws, room, conn)
        except Exception as exc:
            self.hub.warn(f"table {room.id}: whose socket this is could not be read: {said(exc)}")
            return None

    async def _admit(self, ws: WebSocket, room: Room, conn: Conn) -> dict[str, Any] | None:
        run = self.accounts.run_db
        account_id: str | None = None
        if conn.seat >= 0:
            owners: dict[int, str] = await run(self.accounts.store.owners, room.id)
            account_id = owners.get(conn.seat)
            if account_id is not None and await run(banned_ids, self.store, [account_id], self.clock()):
                return say_error("BANNED", BANNED)
        if account_id is None:
            session = await self.accounts.session(ws.cookies.get(SESSION_COOKIE))
            account_id = session.account.id if session is not None else None
        if account_id is None:
            return None
        conn.account = account_id
        conn.muted = await run(self.store.muted_ids, account_id)
        self.sockets.setdefault(account_id, {})[conn] = room
        return None

    def forget(self, conn: Conn) -> None:
        """A socket closed."""
        if conn.account is None:
            return
        mine = self.sockets.get(conn.account)
        if mine is not None:
            mine.pop(conn, None)
            if not mine:
                del self.sockets[conn.account]

    def end(self, account_id: str) -> int:
        """Close every socket of a banned account here (each told why first); how many."""
        mine = self.sockets.pop(account_id, {})
        for conn in mine:
            conn.send(say_error("BANNED", BANNED))
            conn.drop(BANNED_CODE, "banned")
        return len(mine)

    async def remute(self, account_id: str) -> None:
        """The account's mutes changed: its sockets here get their state again without the chat
        of whom it mutes now (and with the chat of whom it no longer mutes)."""
        mine = self.sockets.get(account_id)
        if not mine:
            return
        muted = await self.accounts.run_db(self.store.muted_ids, account_id)
        for conn, room in list(mine.items()):
            conn.muted = muted
            if conn in room.conns:
                room.send_state(conn)

    def push(self, account_id: str, message: dict[str, Any]) -> None:
        """Send ``message`` to every socket of the account here."""
        for conn in list(self.sockets.get(account_id, {})):
            conn.send(message)

    # ---------------------------------------------------- the cluster's servers

    async def banned(self, account_id: str) -> None:
        """A ban made on this server: its sockets here end now, and every other server's."""
        self.end(account_id)
        self.hub.announce({"social": "ban", "account": account_id})

    async def muted_changed(self, account_id: str) -> None:
        await self.remute(account_id)
        self.hub.announce({"social": "mute", "account": account_id})

    def invite(self, account_id: str, message: dict[str, Any]) -> None:
        self.push(account_id, message)
        self.hub.announce({"social": "push", "account": account_id, "message": message})

    def on_announced(self, msg: dict[str, Any]) -> None:
        """What another server of the cluster said (a bad message is left alone)."""
        account = msg.get("account")
        if not isinstance(account, str):
            return
        kind = msg.get("social")
        if kind == "ban":
            self.end(account)
        elif kind == "mute":
            self.hub.spawn(self.remute(account))
        elif kind == "push" and isinstance(msg.get("message"), dict):
            self.push(account, msg["message"])

    async def _sweep(self) -> None:
        """Every :attr:`sweep_every` seconds: the sockets of accounts banned meanwhile, closed."""
        while True:
            await asyncio.sleep(self.sweep_every)
            with contextlib.suppress(Exception):  # the database away: the next sweep
                await self.sweep()

    async def sweep(self) -> int:
        ids = list(self.sockets)
        if not ids:
            return 0
        found: list[str] = await self.accounts.run_db(banned_ids, self.store, ids, self.clock())
        return sum(self.end(a) for a in found)

    # -------------------------------------------------------------- presence

    async def whereabouts(self, followed: list[tuple[str, str]]) -> list[dict[str, Any]]:
        """For each followed (id, name): online or not, and the tables where they sit with a
        socket open (a table's presence is the same on every server: it is the table's events)."""
        run = self.accounts.run_db
        now = self.clock()
        seen = await run(self.store.last_seen, [i for i, _ in followed])
        out = []
        for account_id, name in followed:
            seats = await run(self.accounts.store.seats_of, account_id)
            tables = []
            for table_id, seat, config in await run(live_seats, self.store, seats):
                room = await self.hub.aget(table_id)
                if room is not None and room.connected(seat):
                    tables.append({"table": table_id, "seat": seat, "title": config.get("title"),
                                   "host": config.get("host"), "link": f"/t/{table_id}"})
            online = bool(tables) or now - seen.get(account_id, 0.0) <= ONLINE_SECONDS or account_id in self.sockets
            out.append({"name": name, "online": online, "tables": tables})
        return out


def ban_until(days: Any, now: float) -> float | None:
    """The end of a ban of ``days`` (``days`` None: for good, :data:`FOREVER`); None for a bad number."""
    if days is None:
        return FOREVER
    if isinstance(days, bool) or not isinstance(days, (int, float)) or not 0 < days <= 36500:
        return None
    return now + float(days) * 86400


__all__ = ["BANNED", "BANNED_CODE", "Social", "ban_until", "banned_ids"]
