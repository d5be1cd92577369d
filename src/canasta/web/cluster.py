"""Several ``canasta serve`` processes on one database, with Redis to fan out.

``canasta serve --db postgresql://… --redis redis://…`` runs as one of N equal
server processes; ``canasta serve --worker --db … --redis …`` as one of M workers.

* **The record** is PostgreSQL: a table's header (rules, seeds, the first hand's
  fair-deal secret) is written when it is made; every change after that is one
  row of ``canasta_events``, append-only, keyed by (table, event number).  A
  process accepts a change only by inserting the next number (optimistic
  concurrency): when two processes race on a table, the database refuses the
  second insert, and the loser re-reads the table and answers from the truth.
  Changes that hold secrets (a deal draws the next hand's secret) carry them in
  the event row, so the fair-deal state is written by the same single insert.
* **Fan-out** is Redis pub/sub: every accepted event is published on the table's
  channel (``PREFIX:t:TABLE``); each server applies it to its copy of the table
  and sends each of its own sockets that seat's view.  A deal's data (the next
  secret) is never published: servers read it from the database.  A server that
  sees a gap in the numbers, reconnects to Redis, or finds the database ahead
  (checked every few seconds) catches up from PostgreSQL.
* **Bots, timers and stand-ins** run in workers fed by an arq queue in Redis.
  After each event the writer enqueues what the new state waits for, each job
  with an id naming the state it belongs to (``bot:TABLE:N``, ``turn:TABLE:H:T:S``,
  ``deal:TABLE:H:…``, ``grace:TABLE:SEAT:N``), deferred to when it is due; a job id
  is enqueued once, however many processes ask.  A job re-reads the table and
  acts only if the state it was made for is still there, and writes through the
  same single insert, so a job run twice (a dead worker's job is retried) still
  changes the table at most once.
* **Presence** (which seats have a socket somewhere) is a Redis hash per table
  (``SERVER:SEAT`` → open sockets) beside a liveness key per server; a change is
  an event, so every server shows the same seats connected.  A killed server's
  seats drop out once its liveness key expires.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from canasta.errors import CanastaError, IllegalMoveError
from canasta.fairdeal import FairDeal, check_client_seed
from canasta.moves import Move
from canasta.table import TableError
from canasta.web.cluster_store import (
    DB_TIMEOUT,
    ClusterConfig,
    ClusterStore,
    Conflict,
    Event,
    NotSaved,
    apply_to_table,
)
from canasta.web.language import refused, say_error
from canasta.web.room import BUSY, NO_NEXT_DEAL, NOT_SAVED, NOTHING_TO_UNDO, Conn, Room, RoomHost, error
from canasta.web.store import SeatRow

ROOM_STATE = ("table", "seats", "config", "status", "seq", "takeover", "auto_turn", "present", "gone",
              "deadline", "timer_key", "deal_at", "deal_key", "last_active", "last_event_at", "notices",
              "notice_count")
RETRIES = 3  # a change lost to another writer is re-checked against the truth and tried again


class ClusterHost(RoomHost, Protocol):
    """What a cluster's room needs of its process (:class:`canasta.web.cluster_hub.ClusterHub`)."""

    @property
    def store(self) -> ClusterStore: ...

    @property
    def cluster(self) -> ClusterConfig: ...

    def load_room(self, table_id: str) -> ClusterRoom | None: ...

    def publish(self, table_id: str, ev: Event) -> None: ...

    def enqueue(self, fn: str, job_id: str, args: tuple[Any, ...], when: float) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None: ...

    def warn(self, text: str) -> None: ...

    async def count_socket(self, table_id: str, seat: int, delta: int) -> None: ...

    async def live_seats(self, table_id: str) -> set[int]: ...


@dataclass
class ClusterRoom(Room):
    """A live table of a cluster: its state is the events in the database, applied in order."""

    present: set[int] = field(default_factory=set)  # seats with a socket on some live server
    gone: dict[int, tuple[int, float]] = field(default_factory=dict)  # seat -> (event, time) it was last seen
    deal_key: tuple[int, bool] | None = None  # (hand, now?) of the deal this table waits for
    last_event_at: float = 0.0
    jobs_sent: set[str] = field(default_factory=set)
    presence_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    write_lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one write of this table at a time here
    presence_stale: bool = False  # a presence change could not be written yet (the heartbeat tries again)
    behind: bool = False  # events were published while a write was under way
    catching: bool = False  # a task is reading missed events
    asking: Conn | None = None  # the connection whose message is being handled

    @property
    def chub(self) -> ClusterHost:
        """The hub as the cluster's (a cluster room is made only by a ClusterHub)."""
        return cast("ClusterHost", self.hub)

    # ------------------------------------------------------------ the state

    def connected(self, seat: int) -> bool:
        return seat in self.present

    def any_human_connected(self) -> bool:
        return bool(self.present)

    def apply_event(self, ev: Event) -> None:
        """Apply one event (the next number) to this copy of the table."""
        if ev.num != self.seq + 1:
            raise CanastaError(f"event {ev.num} does not follow {self.seq}")
        apply_to_table(self.table, ev)
        k, data = ev.kind, ev.data or {}
        if k == "join":
            s = self.seats[ev.seat]
            s.kind, s.name, s.token_hash, s.invite_hash = "human", ev.line, data.get("token_hash"), None
        elif k == "pace":
            self.config["bot_delay"] = float(data["seconds"])
        elif k == "presence":
            self.present = {int(x) for x in data["present"]}
            self.takeover = {int(x) for x in data["takeover"]}
            for s in self.seats:
                if s.seat in self.present:
                    self.gone.pop(s.seat, None)
                elif s.kind == "human" and s.seat not in self.gone:
                    self.gone[s.seat] = (ev.num, ev.at)
        elif k == "auto_turn":
            self.auto_turn = ev.seat
            self.note_timeout(ev.seat, ev.num)  # every process says it, and a reload from the events too
        elif k == "abandon":
            self.status = "abandoned"
        elif k == "rematch":
            self.config.setdefault("rematch", ev.line)  # the first one written stands
        self.seq = ev.num
        self.last_event_at = ev.at
        self.last_active = ev.at
        if self.status != "abandoned":
            self.status = "finished" if self.table.match_over else ("playing" if self.filled() else "open")
        t = self.table
        if self.auto_turn is not None and (not t.dealt or t.hand_over or t.to_move != self.auto_turn):
            self.auto_turn = None
        self._derive_timers(ev.at)

    def _derive_timers(self, at: float) -> None:
        """The turn timer's deadline and the next deal's time, from the event that started them
        (so every process shows the same)."""
        seconds = float(self.config.get("turn_seconds") or 0)
        t = self.table
        if seconds <= 0 or not t.dealt or t.hand_over or self.status != "playing" or self.bot_plays(t.to_move):
            key = None
        else:
            key = (t.hand_number, t.turn_number, t.to_move)
        if key != self.timer_key:
            self.timer_key = key
            self.deadline = None if key is None else at + seconds
        delay = self._deal_delay()
        dkey = None if delay is None else (t.hand_number, delay == 0.0)
        if dkey != self.deal_key:
            self.deal_key = dkey
            self.deal_at = None if delay is None else at + delay

    async def commit(self, kind: str, seat: int = -1, line: str = "", data: dict[str, Any] | None = None,
                     checked: bool = False) -> bool:
        """Apply a change and write it as the next event.  False: another process wrote
        first; the room has been re-read from the database (answer from it)."""
        async with self.writing():
            return await self._write(kind, seat, line, data, checked)

    async def _write(self, kind: str, seat: int, line: str, data: dict[str, Any] | None,
                     checked: bool = False) -> bool:
        """:meth:`commit` with the write lock held.  The event is checked and completed
        against this copy first (:meth:`prepare`, which changes nothing), written, and only
        once the database holds it applied here: what a seat is shown is always a prefix of
        the stored game.  The database write runs in a thread, so the loop serves other
        tables while it waits for the commit to be durable.  :class:`NotSaved` if the
        database did not take it (this copy is then as it was).  ``checked``: a move the
        caller has just found legal here (with the write lock held), not checked again."""
        ev = Event(self.seq + 1, kind, seat, line, data, time.time())
        self.prepare(ev, checked)  # refuses an illegal move before anything is written
        joined = self.seats[seat] if kind == "join" else None
        if joined is not None:
            joined = SeatRow(joined.seat, "human", ev.line, joined.level, (data or {}).get("token_hash"))
        hands = len(self.table.moves) + (kind == "deal")
        try:
            # a hung database must not hold the table: given up after DB_TIMEOUT.  If the write
            # commits after all, the next write here finds the number taken and reads the truth
            await asyncio.wait_for(asyncio.to_thread(self.chub.store.append, self.id, ev, self.status, hands,
                                                     joined), DB_TIMEOUT)
        except Conflict:
            self.chub.metrics.conflicts += 1
            with contextlib.suppress(Exception):  # the database away again: what it held when last read stands
                await self.areload()
            self.broadcast()  # the truth, which the other writer's publication will not bring (it is read)
            return False
        except Exception as exc:
            self.chub.metrics.failed_writes += 1
            raise NotSaved(f"event {ev.num} of table {self.id} was not saved: {exc}") from None
        was = self.status
        try:
            self.apply_event(ev)
        except CanastaError:  # never: prepare checked it; the database is the truth
            await self.areload()
        if self.status != was:  # the lobby's list and the history read it from the header row
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self.chub.store.note_status, self.id, self.status, self.seq)
        self.chub.metrics.events[kind] += 1
        self.chub.publish(self.id, ev)
        self.broadcast()
        self.schedule()
        return True

    def prepare(self, ev: Event, checked: bool = False) -> None:
        """Check that ``ev`` applies to this copy and complete it as the database must hold
        it (the move as the engine writes it; a deal's next secret), changing nothing here.
        Raises the engine's refusal if it does not apply (a move ``checked`` just now is not
        checked twice)."""
        t = self.table
        if ev.kind == "move":
            why = None if checked else t.why_not(ev.seat, ev.line)
            if why is not None:
                raise why
            ev.line = str(Move.parse(ev.line))
        elif ev.kind == "undo":
            if not t.undoable(ev.seat):
                raise TableError(NOTHING_TO_UNDO)
        elif ev.kind == "deal":
            if t.match_over or (t.dealt and not t.hand_over):
                raise TableError("there is no hand to deal now")
            if t.fair and ev.data is None:  # the next hand's secret is drawn now and goes into the event
                assert t.pending is not None
                ev.data = {"pending": FairDeal.new(t.pending.hand_number + 1, t.rules.players).to_dict()}
        elif ev.kind == "seed":
            if t.pending is None or t.match_over:
                raise TableError(NO_NEXT_DEAL)
            check_client_seed(ev.line)

    async def areload(self) -> None:
        """:meth:`reload` with the database read (and the replay) in a thread."""
        self._take(await asyncio.to_thread(self.chub.load_room, self.id))

    def reload(self) -> None:
        """Read the table again from the database (after losing a race, or a gap)."""
        self._take(self.chub.load_room(self.id))

    def _take(self, fresh: ClusterRoom | None) -> None:
        if fresh is None:
            return
        old = self.table
        for name in ROOM_STATE:
            setattr(self, name, getattr(fresh, name))
        self.jobs_sent = set()
        old.close()

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """The table's write lock; events published while it was held are read after it."""
        async with self.write_lock:
            yield
        if self.behind:
            self.want_catch_up()

    def want_catch_up(self) -> None:
        """Read the missed events in a task (the database read in a thread; one task per table)."""
        if self.catching:
            self.behind = True
            return
        self.catching = True
        self.chub.spawn(self._catch_up_task())

    async def _catch_up_task(self) -> None:
        changed = False
        try:
            async with self.write_lock:
                self.behind = False
                events = await asyncio.to_thread(self.chub.store.events_after, self.id, self.seq)
                changed = self.apply_all(events)
        finally:
            self.catching = False
        if changed:
            self.chub.metrics.caught_up += 1
            self.broadcast()
        if self.behind:
            self.want_catch_up()

    def apply_all(self, events: list[Event]) -> bool:
        """Apply the events this copy has not seen; on a failure, reload from the database.
        Whether anything changed."""
        changed = False
        for ev in events:
            if ev.num <= self.seq:
                continue
            try:
                self.apply_event(ev)
            except CanastaError:
                self.reload()
                return True
            changed = True
        return changed

    def catch_up(self) -> bool:
        """Apply the events this copy missed; True if there were any.  While this process
        writes an event of the table, they are read when the write is done."""
        if self.write_lock.locked():
            self.behind = True
            return False
        events = self.chub.store.events_after(self.id, self.seq)
        if not events:
            return False
        self.chub.metrics.caught_up += 1
        for ev in events:
            try:
                self.apply_event(ev)
            except CanastaError:
                self.reload()
                break
        return True

    def on_published(self, msg: dict[str, Any]) -> None:
        """An event another process wrote, as published on the table's channel."""
        num = int(msg["num"])
        if num <= self.seq and not self.write_lock.locked():
            return  # ours, or already read
        if self.write_lock.locked() or self.catching:  # a write or a read is under way: read after it
            self.behind = True
            return
        ev = Event.from_message(msg)
        if ev is not None and num == self.seq + 1:
            try:
                self.apply_event(ev)
            except CanastaError:
                self.want_catch_up()
                return
            self.broadcast()
        else:  # a gap, or a deal (its secret is read from the database only)
            self.want_catch_up()

    # ------------------------------------------------------------- the jobs

    def due_jobs(self) -> list[tuple[str, str, tuple[Any, ...], float]]:
        """(function, job id, arguments, when) of what this state waits for."""
        jobs: list[tuple[str, str, tuple[Any, ...], float]] = []
        tid = self.id
        if self.needs_bot():
            jobs.append(("bot", f"bot:{tid}:{self.seq}", (tid, self.seq), self.last_event_at + self.bot_delay))
        if self.timer_key is not None and self.deadline is not None:
            h, turn, seat = self.timer_key
            jobs.append(("turn", f"turn:{tid}:{h}:{turn}:{seat}", (tid, h, turn, seat), self.deadline))
        if self.deal_key is not None and self.deal_at is not None:
            hand, now = self.deal_key
            jobs.append(("deal", f"deal:{tid}:{hand}:{'now' if now else 'later'}", (tid, hand), self.deal_at))
        if self.status == "playing":
            grace = self.hub.settings.grace
            for seat, (num, at) in sorted(self.gone.items()):
                if seat not in self.takeover and self.seats[seat].kind == "human":
                    jobs.append(("grace", f"grace:{tid}:{seat}:{num}", (tid, seat, num), at + grace))
        return jobs

    def schedule(self, again: bool = False) -> None:
        """Enqueue the jobs this state waits for (each job id once)."""
        jobs = self.due_jobs()
        if again:
            self.jobs_sent = set()
        for fn, job_id, args, when in jobs:
            if job_id not in self.jobs_sent:
                self.chub.enqueue(fn, job_id, args, when)
        self.jobs_sent = {j[1] for j in jobs}

    def heal(self, now: float) -> None:
        """Enqueue again what should have happened by now and has not (its writer died
        between writing the event and enqueueing the job)."""
        stall = self.chub.cluster.stall
        if any(when < now - stall for _, _, _, when in self.due_jobs()):
            self.schedule(again=True)

    # ------------------------------------------- no local bots or timers

    def kick(self) -> None:
        pass  # bots play in the workers

    def _arm_timer(self) -> None:
        pass

    def _arm_deal(self) -> None:
        pass

    def resume(self) -> None:
        pass

    def _stop(self) -> None:
        self.table.close()

    # ----------------------------------------------------- client requests
    # Room.handle checks a message and calls these; here each one becomes a task that
    # takes the table's write lock, checks again against the table as it is then, and
    # writes.  An error goes to the connection that asked.

    def handle(self, conn: Conn, msg: dict[str, Any]) -> None:
        self.asking = conn
        try:
            super().handle(conn, msg)
        finally:
            self.asking = None

    def _answer(self, conn: Conn | None, message: dict[str, Any] | None) -> None:
        if conn is not None and message is not None:
            message.setdefault("seq", self.seq)
            conn.send(message)

    def play_move(self, seat: int, move_text: Any) -> dict[str, Any] | None:
        if not isinstance(move_text, str) or not move_text.strip():
            return self.refusal(seat, move_text)
        conn = self.asking
        self.chub.spawn(self._answered(conn, self.amove(seat, move_text)))
        return None

    async def _answered(self, conn: Conn | None, work: Coroutine[Any, Any, dict[str, Any] | None]) -> None:
        self._answer(conn, await work)

    async def amove(self, seat: int, move_text: str) -> dict[str, Any] | None:
        started = time.perf_counter()
        for _ in range(RETRIES):
            async with self.writing():
                err = self.refusal(seat, move_text)
                if err is not None:
                    return err | {"ref": "move", "move": move_text}
                try:
                    done = await self._write("move", seat, move_text, None, checked=True)  # refusal() above
                except NotSaved:
                    return say_error("NOT_SAVED", NOT_SAVED, ref="move", move=move_text)
                except CanastaError as exc:
                    return refused(exc, ref="move") if isinstance(exc, IllegalMoveError) else error("ILLEGAL", str(exc), ref="move")
            if done:
                self.chub.metrics.move_latency.observe(time.perf_counter() - started)
                return None
        return say_error("REFUSED", BUSY, ref="move")

    def undo_move(self, seat: int) -> dict[str, Any] | None:
        self.chub.spawn(self._answered(self.asking, self.aundo(seat)))
        return None

    async def aundo(self, seat: int) -> dict[str, Any] | None:
        for _ in range(RETRIES):
            async with self.writing():
                if self.status != "playing" or not self.table.undoable(seat):
                    break
                try:
                    if await self._write("undo", seat, "", None):
                        return None
                except NotSaved:
                    return say_error("NOT_SAVED", NOT_SAVED, ref="undo")
        return say_error("NOTHING_TO_UNDO", NOTHING_TO_UNDO, ref="undo")

    def deal(self) -> bool:
        self.chub.spawn(self._answered(None, self._dealt()))
        return True

    async def _dealt(self) -> None:
        with contextlib.suppress(NotSaved):  # the deal's job, or the next "next_hand", tries again
            await self.adeal()

    async def adeal(self) -> bool:
        for _ in range(RETRIES):
            async with self.writing():
                if not self.may_deal():
                    return False
                if await self._write("deal", -1, "", None):
                    return True
        return False

    def set_seed(self, seat: int, value: Any) -> dict[str, Any] | None:
        refused = self.seed_refusal(value)
        if refused is not None:
            return refused
        self.chub.spawn(self._answered(self.asking, self.aseed(seat, value)))
        return None

    async def aseed(self, seat: int, seed: str) -> dict[str, Any] | None:
        for _ in range(RETRIES):
            async with self.writing():
                if self.table.pending is None or self.table.match_over:
                    return say_error("MATCH_OVER", NO_NEXT_DEAL, ref="seed")
                try:
                    if await self._write("seed", seat, seed, None):
                        return None
                except NotSaved:
                    return say_error("NOT_SAVED", NOT_SAVED, ref="seed")
        return say_error("REFUSED", BUSY, ref="seed")

    def set_pace(self, seconds: float) -> None:
        self.chub.spawn(self._answered(self.asking, self.apace(seconds)))

    async def apace(self, seconds: float) -> dict[str, Any] | None:
        for _ in range(RETRIES):
            try:
                if await self.commit("pace", data={"seconds": seconds}):
                    break
            except NotSaved:
                return say_error("NOT_SAVED", NOT_SAVED, ref="pace")
        return None

    def take_seat(self, seat: int, name: str, token_hash: str) -> str | None:
        raise CanastaError("a cluster seats people with atake_seat")

    async def atake_seat(self, seat: int, name: str, token_hash: str) -> str | None:
        for _ in range(RETRIES):
            async with self.writing():
                if self.seats[seat].kind not in ("open", "reserved"):
                    return "this seat is taken"
                try:
                    if await self._write("join", seat, name, {"token_hash": token_hash}):
                        return None
                except NotSaved:
                    return NOT_SAVED
        return "the table is busy: try again"

    async def arematch(self, table_id: str) -> str:
        for _ in range(RETRIES):
            async with self.writing():
                made = self.config.get("rematch")
                if isinstance(made, str):
                    return made
                if await self._write("rematch", -1, table_id, None):
                    return table_id
        raise NotSaved(f"the rematch of table {self.id} was not saved: the table is busy")

    async def aabandon(self) -> None:
        for _ in range(RETRIES):
            async with self.writing():
                if self.status not in ("open", "playing") or await self._write("abandon", -1, "", None):
                    return

    # -------------------------------------------------------------- presence

    def attach(self, conn: Conn) -> None:
        self.conns.append(conn)
        self.last_active = time.time()
        self.send_state(conn)
        if conn.seat >= 0:
            self.chub.spawn(self.count_socket(conn.seat, +1))

    def detach(self, conn: Conn) -> None:
        if conn in self.conns:
            self.conns.remove(conn)
        self.last_active = time.time()
        if conn.seat >= 0:
            self.chub.spawn(self.count_socket(conn.seat, -1))
        if self.status == "finished" and not self.conns:
            self.hub.rooms.pop(self.id, None)

    async def count_socket(self, seat: int, delta: int) -> None:
        async with self.presence_lock:
            try:
                await self.chub.count_socket(self.id, seat, delta)
                await self.sync_presence()
            except Exception as exc:  # Redis or the database away: the heartbeat writes it when they are back
                self.presence_stale = True
                self.chub.warn(f"presence of table {self.id}: {exc}")

    def presence_lags(self) -> bool:
        """Does the table show one of this server's connected seats away (its presence was
        lost with Redis, or while this process was paused), or did a presence write fail?"""
        mine = {c.seat for c in self.conns if c.seat >= 0}
        return self.presence_stale or bool(mine - self.present) or bool(mine & self.takeover)

    async def sync_presence(self) -> None:
        """Write a presence event if the seats connected anywhere are not those the table shows.
        Redis is read with the write lock held, so what is written is never older than the
        table it is written on (a race with another server's presence event is lost at the
        database, and re-read)."""
        for _ in range(RETRIES):
            async with self.writing():
                live = await self.chub.live_seats(self.id)
                if (live == self.present and not (self.takeover & live)) or self.status not in ("open", "playing"):
                    self.presence_stale = False
                    return
                try:
                    done = await self._write("presence", -1, "", {"present": sorted(live),
                                                                  "takeover": sorted(self.takeover - live)})
                except NotSaved:
                    self.presence_stale = True
                    return
                if done:
                    self.presence_stale = False
                    return

    async def take_over(self, seat: int, num: int) -> None:
        """The grace period of ``seat`` (away since event ``num``) is over: a bot plays it
        until the person is back."""
        for _ in range(RETRIES):
            async with self.writing():
                seen = self.gone.get(seat)
                if self.status != "playing" or seen is None or seen[0] != num or seat in self.takeover:
                    return
                live = await self.chub.live_seats(self.id)
                if seat in live:
                    return  # back: the server it is on writes the presence event
                if await self._write("presence", -1, "", {"present": sorted(live),
                                                          "takeover": sorted((self.takeover - live) | {seat})}):
                    return


__all__ = ["ROOM_STATE", "ClusterRoom"]
