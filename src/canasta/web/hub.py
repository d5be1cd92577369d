"""Every live table of one server process: the rooms, the store behind them, the
lobby's operations (making, finding, closing tables), the bot process pool, the
limits per client address, and the sweeper that closes idle tables."""

from __future__ import annotations

import asyncio
import secrets
import sys
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from canasta.table import Table
from canasta.web.botpool import BotPool, default_workers
from canasta.web.metrics import Metrics
from canasta.web.room import Notice, Room, Settings
from canasta.web.store import SeatRow, Store, TableRow, hash_token


class Hub:
    """Every live table, the store behind them, and the lobby's operations."""

    def __init__(self, store: Store, settings: Settings | None = None) -> None:
        self.store = store
        self.settings = settings or Settings()
        self.rooms: dict[str, Room] = {}
        self.listeners: list[Callable[[Room], None]] = []
        self.sockets: Counter[str] = Counter()  # open websockets by client address
        self.created: dict[str, deque[float]] = {}  # tables created in the last minute, by client address
        self._pool: BotPool | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self.metrics = Metrics()

    # ------------------------------------------------------------ the rooms

    def make_room(self, table_id: str, config: dict[str, Any], seats: list[SeatRow], table: Table, seq: int,
                  status: str) -> Room:
        """A live table just made in the lobby."""
        return Room(self, table_id, config, seats, table, seq, status)

    def after_create(self, room: Room) -> None:
        """A new table is stored and live: start what it waits for."""
        room.resume()

    def open_rooms(self) -> list[Room]:
        """The tables with an open seat, for the lobby's list."""
        return [r for r in self.rooms.values() if r.status == "open" and any(s.kind == "open" for s in r.seats)]

    async def astart(self) -> None:
        """At start-up, on the event loop."""
        self.start()

    async def ping(self) -> None:
        """Raise if the database does not answer (the readiness check)."""
        with self.store.engine.connect() as db:
            db.exec_driver_sql("SELECT 1")

    async def queue_depth(self) -> int:
        """Jobs waiting for a worker (a cluster's queue; 0 here)."""
        return 0

    # ------------------------------------------------------------ resources

    def bot_pool(self) -> BotPool | None:
        """The worker processes of the searching bots (None: they think in a thread)."""
        if self._pool is None:
            workers = self.settings.bot_workers
            if workers is None:
                workers = default_workers()
            if workers <= 0:
                return None
            self._pool = BotPool(workers, self.settings.bot_timeout)
        return self._pool

    def open_socket(self, address: str) -> bool:
        """Count a new websocket from ``address``; False (not counted) when it has too many."""
        limit = self.settings.sockets_per_address
        if limit and self.sockets[address] >= limit:
            return False
        self.sockets[address] += 1
        return True

    def close_socket(self, address: str) -> None:
        self.sockets[address] -= 1
        if self.sockets[address] <= 0:
            del self.sockets[address]

    def creation_wait(self, address: str, now: float | None = None) -> float:
        """Seconds ``address`` must wait before it may create another table (0: now)."""
        limit = self.settings.tables_per_minute
        times = self.created.get(address)
        if not limit or not times:
            return 0.0
        now = time.monotonic() if now is None else now
        while times and now - times[0] >= 60.0:
            times.popleft()
        return 60.0 - (now - times[0]) if len(times) >= limit else 0.0

    def count_creation(self, address: str, now: float | None = None) -> None:
        """``address`` created a table (refused requests are not counted)."""
        if self.settings.tables_per_minute:
            self.created.setdefault(address, deque()).append(time.monotonic() if now is None else now)

    def expire_idle(self, now: float | None = None) -> list[str]:
        """Close the tables idle for ``idle_hours``; forget finished tables nobody watches."""
        now = time.time() if now is None else now
        closed = []
        seconds = self.settings.idle_hours * 3600
        for room in list(self.rooms.values()):
            if room.status == "finished" and not room.conns:
                self.rooms.pop(room.id, None)
            elif seconds > 0 and room.idle(now, seconds):
                room.abandon()
                self.rooms.pop(room.id, None)
                closed.append(room.id)
        mono = time.monotonic()
        for address in [a for a, times in self.created.items() if not times or mono - times[-1] >= 60.0]:
            del self.created[address]
        return closed

    async def _sweep(self) -> None:
        every = min(60.0, max(1.0, self.settings.idle_hours * 360))  # a tenth of the idle time, at most a minute
        while True:
            await asyncio.sleep(every)
            try:
                self.expire_idle()
            except Exception as exc:  # a database hiccup: try again at the next sweep
                print(f"canasta: closing idle tables failed: {exc}", file=sys.stderr)

    def start(self) -> None:
        """At start-up, on the event loop: tables from the store, the idle sweeper, the bot workers."""
        self.load_all()
        self._sweeper = asyncio.create_task(self._sweep())
        if self.settings.bot_workers:  # chosen explicitly: start them now (else at the first decision)
            pool = self.bot_pool()
            if pool is not None:
                pool.start()

    def on_broadcast(self, room: Room) -> None:
        for f in self.listeners:
            f(room)

    def load_all(self) -> int:
        """Rebuild every unfinished table from the store (at start-up)."""
        for row in self.store.unfinished():
            self.rooms[row.id] = self._room_from_row(row)
        return len(self.rooms)

    def _room_from_row(self, row: TableRow) -> Room:
        table = Table.from_dict(row.state)
        # events go on from where they were: a client that saw seq N before a restart gets N+1
        status = "finished" if table.match_over and row.status != "abandoned" else row.status
        room = Room(self, row.id, row.config, row.seats, table, row.seq + 1, status, next_idx=row.next_idx,
                    last_active=row.updated)
        room.keep_notices([Notice.from_dict(n) for n in row.notices])
        room.resume()
        return room

    def get(self, table_id: str) -> Room | None:
        """A live or finished table (None: no such table, or it was closed as abandoned)."""
        room = self.rooms.get(table_id)
        if room is None:
            row = self.store.load(table_id)
            if row is None or row.status == "abandoned":
                return None
            room = self.rooms[table_id] = self._room_from_row(row)
        return room

    def missing(self, table_id: str) -> str:
        """Why there is no table ``table_id`` to show."""
        row = self.store.load(table_id)
        if row is not None and row.status == "abandoned":
            return (f"this table was closed: nobody was connected or played at it for "
                    f"{self.settings.idle_hours:g} hours")
        return "no such table"

    def authenticate(self, room: Room, token: Any) -> int | None:
        """The seat a token holds, or None."""
        if not isinstance(token, str) or not token or len(token) > 200:
            return None
        h = hash_token(token)
        for s in room.seats:
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
                return s.seat
        return None

    async def shutdown(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        for room in self.rooms.values():
            await room.shutdown()
        if self._pool is not None:
            st = self._pool.stats
            if st.decisions or st.timeouts or st.failures:
                print(f"canasta: bot pool: {st.decisions} decisions in time, {st.timeouts} timed out, "
                      f"{st.failures} failed (a basic bot moved instead)", file=sys.stderr, flush=True)
            self._pool.close()


