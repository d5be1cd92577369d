"""Every live table of one server process: the rooms, the store behind them, the
lobby's operations (making, finding, closing tables), the jobs the tables wait for
(run on this process's loop), the bot process pool, the limits per client address,
and the sweeper that closes idle tables.  :class:`canasta.web.cluster_hub.ClusterHub`
is the same hub for one of several servers: it publishes events and queues jobs in
Redis instead."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import secrets
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from canasta.play.table import Table
from canasta.views.seat import SeatView
from canasta.web.botpool import BotPool, default_workers
from canasta.web.jobs import JOB_TRIES, JOBS, decide_now, job_sweep, retry_delay
from canasta.web.metrics import Metrics
from canasta.web.redact import said
from canasta.web.room import LIVE, QUICK_BOTS, Notice, Room, Settings
from canasta.web.store import DB_TIMEOUT, Event, NeverRan, SeatRow, Store, hash_token

HEARTBEAT = 2.0  # seconds between the checks that heal what a failed write left behind
STALL = 2.0  # a job due this long ago whose state still waits is enqueued again
#: threads that call the database, at most (fewer than the store's connections: a thread never
#: waits for a connection).  A hung database holds at most these; every other call waits in
#: their queue and is given up at its timeout, and the event loop never waits for it.
DB_THREADS = 8
READY_TIMEOUT = 1.0  # seconds a readiness check waits for the database (and Redis)
SHUTDOWN_WAIT = 2.0  # seconds a stopping server lets what its rooms started finish before cancelling it
KEYS_EVERY = 10.0  # seconds between the readiness checks of the deal-secret keys
T = TypeVar("T")


class NotReady(Exception):
    """The readiness check's answer when this process should get no new players: a short
    reason, with no address or password in it (it is the body of ``/readyz``)."""


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
        self.tasks: list[asyncio.Task[None]] = []
        self.background: set[asyncio.Task[Any]] = set()
        self.pending_jobs: dict[str, float] = {}  # job id -> when it is due, waiting or running here (each id once)
        self.local_sockets: dict[tuple[str, int], int] = {}  # (table, seat) -> sockets on this server
        self.metrics = Metrics()
        self.db_threads = concurrent.futures.ThreadPoolExecutor(DB_THREADS, thread_name_prefix="canasta-db")
        self.db_running = 0  # database calls under way in those threads
        self.ping_out: concurrent.futures.Future[None] | None = None  # the last readiness ping
        self.keys_problem: str | None = None  # the deal-secret keys do not open a stored secret (Store.check_keys)
        self.keys_checked = 0.0  # when (monotonic) they were last checked
        self.cut_off = False  # a cluster server cut off from Redis: it takes no sockets (ClusterHub)
        #: what another server said about accounts (canasta.web.social.Social.on_announced)
        self.social: Callable[[dict[str, Any]], None] | None = None

    # ------------------------------------------------------------ the rooms

    def make_room(self, table_id: str, config: dict[str, Any], seats: list[SeatRow], table: Table, seq: int,
                  status: str) -> Room:
        """A live table just made (or read back, before its events are applied)."""
        room = Room(self, table_id, config, seats, table, seq, status, last_event_at=time.time())
        room.derive_timers(room.last_event_at)
        room.gone = {s.seat: (seq, room.last_event_at) for s in seats if s.kind == "human"}
        room.play_seq = seq
        return room

    def after_create(self, room: Room) -> None:
        """A new table is stored and live: start what it waits for."""
        room.schedule()

    def load_room(self, table_id: str) -> Room | None:
        """The table as its stored events made it (None: no such table)."""
        got = self.store.load_base(table_id)
        if got is None:
            return None
        row, events = got
        base_status = "playing" if all(s.kind in ("human", "bot") for s in row.seats) else "open"
        # the seats as made (a join event seats a person again)
        room = self.make_room(row.id, row.config, row.seats, Table.from_dict(row.state), row.seq, base_status)
        room.last_event_at = room.last_active = row.created
        room.derive_timers(row.created)
        room.gone = {s.seat: (row.seq, row.created) for s in row.seats if s.kind == "human"}
        room.keep_notices([Notice.from_dict(n) for n in row.notices])
        for ev in events:
            room.apply_event(ev)
        if row.status == "abandoned":
            room.status = "abandoned"
        return room

    def get(self, table_id: str) -> Room | None:
        """A live or finished table (None: no such table, or it was closed as abandoned)."""
        room = self.rooms.get(table_id)
        if room is None:
            room = self.load_room(table_id)
            if room is None:
                return None
            self.rooms[table_id] = room
            room.schedule()
        if room.status == "abandoned":
            self.rooms.pop(table_id, None)
            return None
        return room

    async def aget(self, table_id: str) -> Room | None:
        """:meth:`get` for a request: a table not held here is read in a database thread, so a
        hung database holds the request (until :data:`DB_TIMEOUT`), never the event loop."""
        room = self.rooms.get(table_id)
        if room is None:
            loaded = await self.db(self.load_room, table_id)
            if loaded is None:
                return None
            room = self.rooms.get(table_id)
            if room is None:
                room = self.rooms[table_id] = loaded
                self.adopted(room)
            else:
                loaded.table.close()
        else:
            self.held(room)
        if room.status == "abandoned":
            self.rooms.pop(table_id, None)
            return None
        return room

    def adopted(self, room: Room) -> None:
        """A table just read for a request is kept here: its timers and bots start."""
        room.schedule()

    def held(self, room: Room) -> None:
        """A request for a table already kept here (a single server's copy is the table itself)."""

    async def db(self, fn: Callable[..., T], *args: Any, timeout: float = DB_TIMEOUT) -> T:
        """``fn(*args)``, a call to the database, in one of the hub's :data:`DB_THREADS` threads,
        given up after ``timeout``: TimeoutError, or :class:`NeverRan` if it was still waiting
        for a thread (it then never runs)."""
        started = False

        def counted() -> T:
            nonlocal started
            started = True
            self.db_running += 1
            try:
                return fn(*args)
            finally:
                self.db_running -= 1

        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(loop.run_in_executor(self.db_threads, counted), timeout)
        except TimeoutError:
            if not started:
                raise NeverRan(f"no database thread was free for {timeout:g} s (the database hangs)") from None
            raise

    async def afresh(self, table_id: str) -> Room | None:
        """The table as it is now, for a job (read from the database in a thread if not live here)."""
        room = self.rooms.get(table_id)
        if room is None:
            loaded = await self.db(self.load_room, table_id)
            if loaded is None:
                return None
            room = self.rooms.setdefault(table_id, loaded)
        if room.status == "abandoned":
            self.rooms.pop(table_id, None)
            return None
        return room

    async def open_rooms(self) -> list[Room]:
        """The tables with an open seat, for the lobby's list."""
        return [r for r in self.rooms.values() if r.status == "open" and any(s.kind == "open" for s in r.seats)]

    async def missing(self, table_id: str) -> str:
        """Why there is no table ``table_id`` to show."""
        if await self.db(self.store.status, table_id) == "abandoned":  # not the whole table: its status
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

    def on_broadcast(self, room: Room) -> None:
        for f in self.listeners:
            f(room)

    # ------------------------------------------- events, jobs and presence

    def publish(self, table_id: str, ev: Event) -> None:
        """An event written here: no other process holds this table."""

    def announce(self, msg: dict[str, Any]) -> None:
        """Tell the other servers something about accounts (a ban, a mute): no other server here."""

    def enqueue(self, fn: str, job_id: str, args: tuple[Any, ...], when: float) -> None:
        """Run job ``fn`` (:data:`canasta.web.jobs.JOBS`) at ``when`` on this loop, once per id;
        a job that fails (the database away) runs again with backoff."""
        if job_id in self.pending_jobs:
            return
        self.pending_jobs[job_id] = when
        self.spawn(self._run_job(fn, job_id, args, when))

    async def _run_job(self, fn: str, job_id: str, args: tuple[Any, ...], when: float) -> None:
        try:
            delay = when - time.time()
            for tries in range(1, JOB_TRIES + 1):
                if delay > 0:
                    await asyncio.sleep(delay)
                try:
                    await JOBS[fn](self, *args)
                    return
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    delay = retry_delay(tries)
                    self.warn(f"job {job_id} failed (try {tries}): {said(exc)}; again in {delay:g} s")
        finally:
            self.pending_jobs.pop(job_id, None)

    async def flush(self) -> None:
        """Nothing waits to be sent elsewhere."""

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def warn(self, text: str) -> None:
        """One line on stderr (the service's log)."""
        print(f"canasta: {text}", file=sys.stderr, flush=True)

    async def count_socket(self, table_id: str, seat: int, delta: int) -> None:
        key = (table_id, seat)
        n = self.local_sockets.get(key, 0) + delta
        if n > 0:
            self.local_sockets[key] = n
        else:
            self.local_sockets.pop(key, None)

    async def live_seats(self, table_id: str) -> set[int]:
        """The seats of a table with a socket here."""
        return {seat for (tid, seat), n in self.local_sockets.items() if tid == table_id and n > 0}

    async def decide(self, level: str, view: SeatView, seed: int) -> str | None:
        """A bot's move: a quick level on the loop, a searching one in the bot pool (None if it
        did not answer in time) or, without a pool, in a thread."""
        if level in QUICK_BOTS:
            return decide_now(level, view, seed)
        pool = self.bot_pool()
        if pool is not None:
            return await pool.choose(view.to_dict(), level, seed)
        return await asyncio.to_thread(decide_now, level, view, seed)

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

    def forget_addresses(self) -> None:
        mono = time.monotonic()
        for address in [a for a, times in self.created.items() if not times or mono - times[-1] >= 60.0]:
            del self.created[address]

    async def expire_idle(self, now: float | None = None) -> list[str]:
        """Close the tables idle for ``idle_hours`` (their ids); forget finished tables nobody watches."""
        for room in list(self.rooms.values()):
            if room.status == "finished" and not room.conns:
                self.rooms.pop(room.id, None)
        closed = await job_sweep(self, now)
        self.forget_addresses()
        return closed

    # ----------------------------------------------------------- start/stop

    async def astart(self) -> None:
        """At start-up, on the event loop: tables from the store, the jobs they wait for,
        the idle sweeper, the heartbeat, the bot workers."""
        self.load_all()
        await self.check_keys()
        for room in self.rooms.values():
            room.schedule(again=True)
            self.spawn(room.sync_presence())  # nobody is connected yet: those shown here are away
        self._sweeper = asyncio.create_task(self._sweep())
        self.tasks.append(asyncio.create_task(self._heartbeat()))
        if self.settings.bot_workers:  # chosen explicitly: start them now (else at the first decision)
            pool = self.bot_pool()
            if pool is not None:
                pool.start()

    def load_all(self) -> int:
        """Read every unfinished table from the store (at start-up)."""
        for tid in self.store.ids_with_status(LIVE, None):
            room = self.load_room(tid)
            if room is not None:
                self.rooms[tid] = room
        return len(self.rooms)

    async def _sweep(self) -> None:
        every = min(60.0, max(1.0, self.settings.idle_hours * 360))  # a tenth of the idle time, at most a minute
        while True:
            await asyncio.sleep(every)
            try:
                await self.expire_idle()
            except Exception as exc:  # a database hiccup: try again at the next sweep
                self.warn(f"closing idle tables failed: {said(exc)}")

    async def _heartbeat(self) -> None:
        """A presence change that could not be written is written again; a job that failed
        every try is enqueued again."""
        while True:
            await asyncio.sleep(HEARTBEAT)
            now = time.time()
            for room in list(self.rooms.values()):
                try:
                    if room.conns and room.presence_lags():
                        async with room.presence_lock:
                            await room.sync_presence()
                    room.heal(now, STALL)
                except Exception as exc:
                    self.warn(f"table {room.id}: {said(exc)}")

    async def check_keys(self, timeout: float = DB_TIMEOUT) -> None:
        """Do this process's keys open the stored deal secrets (:meth:`Store.check_keys`)?  Said
        once in the log when they stop (or start again) to; readiness fails while they do not.
        A database that does not answer leaves the last finding as it was."""
        self.keys_checked = time.monotonic()
        try:
            problem = await self.db(self.store.check_keys, timeout=timeout)
        except Exception:
            return
        if problem != self.keys_problem:
            self.warn(f"the deal-secret keys do not open the stored secrets ({problem}); this server is not "
                      "ready: give it every key in use (docs/deploy.md, Secrets)" if problem is not None
                      else "the deal-secret keys open the stored secrets again")
        self.keys_problem = problem

    async def ping(self) -> None:
        """The readiness check: :class:`NotReady` (with a short reason) unless the database answers
        within :data:`READY_TIMEOUT` and the keys open the stored deal secrets.  Fails at once
        while an earlier check, or every database thread, still waits for a hung database."""
        out = self.ping_out
        if out is not None and not out.done():
            raise NotReady("database: an earlier check has had no answer yet")
        if self.db_running >= DB_THREADS:
            raise NotReady("database: every database thread is waiting for it")
        self.ping_out = out = self.db_threads.submit(self.store.ping)
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(out)), READY_TIMEOUT)
        except TimeoutError:
            raise NotReady("database: no answer") from None
        except Exception as exc:
            self.warn(f"readiness: the database: {said(exc)}")
            raise NotReady("database: unavailable") from None
        if time.monotonic() - self.keys_checked >= KEYS_EVERY:
            await self.check_keys(READY_TIMEOUT)
        if self.keys_problem is not None:
            raise NotReady("the deal-secret keys do not open the stored secrets")

    async def queue_depth(self) -> int:
        """Jobs due and not yet done (a bot's move waiting for the pool, a job being tried again)."""
        now = time.time()
        return sum(1 for when in self.pending_jobs.values() if when <= now)

    async def shutdown(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        for task in [*self.tasks, *self.background]:
            task.cancel()
        for room in self.rooms.values():
            await room.shutdown()
        if self._pool is not None:
            st = self._pool.stats
            if st.decisions or st.timeouts or st.failures:
                print(f"canasta: bot pool: {st.decisions} decisions in time, {st.timeouts} timed out, "
                      f"{st.failures} failed (a basic bot moved instead)", file=sys.stderr, flush=True)
            self._pool.close()
        # what the rooms' closing started (a socket's last words, a presence written) may finish for
        # a moment; a job that would wait longer (a grace period, a turn timer, an idle table's
        # closing) is cancelled: nothing runs on after the server has stopped
        started = [task for task in self.background if not task.done()]
        if started:
            await asyncio.wait(started, timeout=SHUTDOWN_WAIT)
        for task in list(self.background):
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*list(self.background), return_exceptions=True)
        self.db_threads.shutdown(wait=False, cancel_futures=True)


__all__ = ["DB_THREADS", "READY_TIMEOUT", "Hub", "NotReady"]
