"""A live table's changes: every change is written as the table's next event before it is
applied (:meth:`RoomWrites.write`), events written by another process are read in order
(:meth:`RoomWrites.on_published`), and each client request (a move, an undo, a deal, a seed,
the pace, a seat, a rematch) takes the write lock, checks against the table as it is then and
writes; the presence of the seats and the room's lifetime are written the same way."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from canasta.engine.errors import CanastaError, IllegalMoveError
from canasta.engine.fairdeal import FairDeal, check_client_seed
from canasta.engine.moves import Move
from canasta.i18n import N_
from canasta.play.table import TURN_REFUSALS, TableError
from canasta.web.conn import Conn, error
from canasta.web.language import refused, say_error
from canasta.web.pause import PAUSED
from canasta.web.redact import said
from canasta.web.room_state import (
    BUSY,
    FIRST_DEAL_WAITS,
    LIVE,
    NO_NEXT_DEAL,
    NOT_SAVED,
    NOTHING_TO_UNDO,
    RETRIES,
    ROOM_STATE,
    UNKNOWN,
    RoomState,
)
from canasta.web.store import (
    Conflict,
    Event,
    NeverRan,
    NotSaved,
    SeatRow,
    Unreached,
)

PACE_SETTLE = 0.3  # seconds a table waits for more pace changes before it writes the last one


class RoomWrites(RoomState):
    """The writes of a live table (:class:`canasta.web.room.Room` adds the messages)."""

    # ------------------------------------------------------------ the writes

    async def commit(self, kind: str, seat: int = -1, line: str = "", data: dict[str, Any] | None = None,
                     checked: bool = False) -> bool:
        """Write a change as the next event, then apply it.  False: another writer took the
        number first; the room has been read again from the database (answer from it)."""
        async with self.writing():
            return await self.write(kind, seat, line, data, checked)

    async def write(self, kind: str, seat: int, line: str, data: dict[str, Any] | None,
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
        status = "abandoned" if kind == "abandon" else self.status
        try:
            # a hung database must not hold the table: given up after DB_TIMEOUT, in a bounded
            # pool of threads (Hub.db).  If the write commits after all, the next write here
            # finds the number taken and reads the truth; meanwhile the table is read again
            # until its outcome is known (_settle)
            await self.hub.db(self.hub.store.append, self.id, ev, status, hands, joined)
        except Conflict:
            self.hub.metrics.conflicts += 1
            with contextlib.suppress(Exception):  # the database away again: what it held when last read stands
                await self.areload()
            self.broadcast()  # the truth, which the other writer's publication will not bring (it is read)
            return False
        except (Unreached, NeverRan) as exc:  # nothing of it reached the database
            self.hub.metrics.failed_writes += 1
            raise NotSaved(f"event {ev.num} of table {self.id} was not saved: {said(exc)}") from None
        except Exception as exc:  # sent, and no answer: it may be committed, now or later
            self.hub.metrics.failed_writes += 1
            if not self.unsure:
                self.unsure = True
                self.hub.spawn(self._settle())
            raise NotSaved(f"event {ev.num} of table {self.id}: outcome unknown ({said(exc)})", unknown=True) \
                from None
        was = self.status
        try:
            self.apply_event(ev)
        except CanastaError:  # never: prepare checked it; the database is the truth
            await self.areload()
        if self.status != was:  # the lobby's list and the history read it from the header row
            with contextlib.suppress(Exception):
                await self.hub.db(self.hub.store.note_status, self.id, self.status, self.seq)
        self.hub.metrics.events[kind] += 1
        self.hub.publish(self.id, ev)
        self.broadcast()
        self.schedule()
        return True

    def prepare(self, ev: Event, checked: bool = False) -> None:
        """Check that ``ev`` applies to this copy and complete it as the database must hold
        it (the move as the engine writes it; a deal's next secret), changing nothing here.
        Raises the engine's refusal if it does not apply (a move ``checked`` just now is not
        checked twice)."""
        t = self.table
        if self.paused and ev.kind in ("move", "undo", "deal", "auto_turn"):
            raise TableError(PAUSED[1])
        if ev.kind == "pause":
            refused_now = self.pause_refusal(ev.seat, ev.line)
            if refused_now is not None:
                raise TableError(refused_now["message"])
        elif ev.kind == "move":
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
        """:meth:`reload` with the database read (and the replay) in a database thread."""
        self._take(await self.hub.db(self.hub.load_room, self.id))

    async def _settle(self, every: float = 1.0, tries: int = 120) -> None:
        """After a write whose outcome is unknown: read the table's events until the database
        answers, so that what it holds (the write, if it committed) is shown."""
        try:
            for _ in range(tries):
                await asyncio.sleep(every)
                try:
                    async with self.write_lock:
                        events = await self.hub.db(self.hub.store.events_after, self.id, self.seq)
                        changed = self.apply_all(events)
                except Exception:  # still no answer
                    continue
                if changed:
                    self.broadcast()
                    self.schedule()
                return
        finally:
            self.unsure = False

    def reload(self) -> None:
        """Read the table again from the database (after losing a race, or a gap)."""
        self._take(self.hub.load_room(self.id))

    def _take(self, fresh: RoomState | None) -> None:
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

    # ------------------------------------------ events written elsewhere

    def want_catch_up(self) -> None:
        """Read the missed events in a task (the database read in a thread; one task per table)."""
        if self.catching:
            self.behind = True
            return
        self.catching = True
        self.hub.spawn(self._catch_up_task())

    async def _catch_up_task(self) -> None:
        changed = False
        try:
            async with self.write_lock:
                self.behind = False
                events = await self.hub.db(self.hub.store.events_after, self.id, self.seq)
                changed = self.apply_all(events)
        finally:
            self.catching = False
        if changed:
            self.hub.metrics.caught_up += 1
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
        events = self.hub.store.events_after(self.id, self.seq)
        if not events:
            return False
        self.hub.metrics.caught_up += 1
        self.apply_all(events)
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

    # ----------------------------------------------------- client requests
    # Each request takes the table's write lock, checks against the table as it is then,
    # and writes; the answer (None: done, or the error message) goes to who asked.

    async def answer(self, conn: Conn | None, work: Coroutine[Any, Any, dict[str, Any] | None]) -> None:
        message = await work
        if conn is not None and message is not None:
            message.setdefault("seq", self.seq)
            conn.send(message)

    def refusal(self, seat: int, move_text: Any) -> dict[str, Any] | None:
        """Why ``seat`` may not play this move now, as an error message, or None."""
        if not isinstance(move_text, str) or not move_text.strip():
            return error("BAD_MESSAGE", "a move message needs \"move\": the move in notation, e.g. \"draw\"")
        if self.status == "open":
            return say_error("WAITING", N_("the table is waiting for players to take the open seats"))
        if not self.table.dealt:
            return say_error("WAITING", FIRST_DEAL_WAITS)
        if self.status == "finished":
            return say_error("MATCH_OVER", N_("the match is over"))
        if self.paused:
            return say_error(*PAUSED)
        t = self.table
        turn = t.turn_refusal(seat)
        if turn is not None:  # the table's own refusal, said from its code (canasta.play.table.TURN_REFUSALS)
            return say_error(turn.code, TURN_REFUSALS[turn.code], turn.fields)
        if self.bot_plays(seat):
            return say_error("BOT_PLAYING", N_("a bot is playing this seat's turn"))
        why = t.why_not(seat, move_text)
        if why is None:
            return None
        if isinstance(why, IllegalMoveError):
            return refused(why)
        return error("BAD_MOVE", str(why))

    def stored_move(self, key: str | None, seat: int, again: bool) -> dict[str, Any] | None:
        """The answer to a move sent with ``key`` that the table holds (None: it holds none)."""
        found = None if key is None else self.keys.get(key)
        if found is None or found[1] != seat:
            return None
        return {"type": "moved", "key": key, "num": found[0], "move": found[2], "again": again}

    async def amove(self, seat: int, move_text: Any, key: str | None = None) -> dict[str, Any] | None:
        """A seat's proposed move: played (None, or with a ``key`` the ``moved`` answer), or the
        error message saying why not.  A move whose ``key`` the table already holds is not
        played again: the answer is the stored one (a retry after an unknown outcome).  After
        a lost race the table is read again, so a retry whose first try did commit finds it."""
        started = time.perf_counter()
        for _ in range(RETRIES):
            async with self.writing():
                stored = self.stored_move(key, seat, again=True)
                if stored is not None:
                    return stored
                err = self.refusal(seat, move_text)
                if err is not None:
                    return err | {"ref": "move", "move": move_text if isinstance(move_text, str) else None}
                try:  # refusal() above checked it
                    done = await self.write("move", seat, move_text, None if key is None else {"key": key},
                                            checked=True)
                except NotSaved as exc:
                    if exc.unknown:
                        return say_error("UNKNOWN", UNKNOWN, ref="move", move=move_text, key=key)
                    return say_error("NOT_SAVED", NOT_SAVED, ref="move", move=move_text)
                except CanastaError as exc:
                    return refused(exc, ref="move") if isinstance(exc, IllegalMoveError) else error("ILLEGAL", str(exc), ref="move")
            if done:
                self.hub.metrics.move_latency.observe(time.perf_counter() - started)
                return self.stored_move(key, seat, again=False)
        return say_error("REFUSED", BUSY, ref="move")

    async def apause(self, seat: int, does: str) -> dict[str, Any] | None:
        """``seat`` asks for a pause, agrees to one, declines it or resumes play
        (:mod:`canasta.web.pause`): written as the table's next event, or why not."""
        for _ in range(RETRIES):
            async with self.writing():
                refused_now = self.pause_refusal(seat, does)
                if refused_now is not None:
                    return refused_now
                try:
                    if await self.write("pause", seat, does, None):
                        return None
                except NotSaved:
                    return say_error("NOT_SAVED", NOT_SAVED, ref="pause")
        return say_error("REFUSED", BUSY, ref="pause")

    async def aundo(self, seat: int) -> dict[str, Any] | None:
        """Take back ``seat``'s last meld of this turn."""
        for _ in range(RETRIES):
            async with self.writing():
                if self.status != "playing" or not self.table.undoable(seat):
                    break
                try:
                    if await self.write("undo", seat, "", None):
                        return None
                except NotSaved:
                    return say_error("NOT_SAVED", NOT_SAVED, ref="undo")
        return say_error("NOTHING_TO_UNDO", NOTHING_TO_UNDO, ref="undo")

    async def adeal(self) -> bool:
        """Deal the next hand (or the first) if the table may; True if it did.  :class:`NotSaved`
        if the database did not take it."""
        for _ in range(RETRIES):
            async with self.writing():
                if not self.may_deal():
                    return False
                if await self.write("deal", -1, "", None):
                    return True
        return False

    async def _next_hand(self) -> dict[str, Any] | None:
        try:
            await self.adeal()
        except NotSaved:
            return say_error("NOT_SAVED", NOT_SAVED, ref="next_hand")
        return None

    def seed_refusal(self, value: Any) -> dict[str, Any] | None:
        """Why a client seed for the next deal is refused (an error message), or None."""
        t = self.table
        if t.pending is None:
            return say_error("REFUSED", N_("this table's deals come from a fixed seed: it takes no client seeds"), ref="seed")
        if t.match_over:
            return say_error("MATCH_OVER", NO_NEXT_DEAL, ref="seed")
        try:
            check_client_seed(value)
        except CanastaError as exc:
            return error("BAD_SEED", str(exc), ref="seed")
        return None

    async def aseed(self, seat: int, seed: str) -> dict[str, Any] | None:
        """A seated person's client seed for the next deal (checked by :meth:`seed_refusal`)."""
        for _ in range(RETRIES):
            async with self.writing():
                if self.table.pending is None or self.table.match_over:
                    return say_error("MATCH_OVER", NO_NEXT_DEAL, ref="seed")
                try:
                    if await self.write("seed", seat, seed, None):
                        return None
                except NotSaved:
                    return say_error("NOT_SAVED", NOT_SAVED, ref="seed")
                except CanastaError as exc:
                    return error("BAD_SEED", str(exc), ref="seed")
        return say_error("REFUSED", BUSY, ref="seed")

    async def _seeded(self, conn: Conn, seed: str) -> dict[str, Any] | None:
        refused_now = await self.aseed(conn.seat, seed)
        if refused_now is not None:
            return refused_now
        conn.send({"type": "seed", "hand": self.table.hand_number + 1, "seed": seed, "seq": self.seq})
        self.send_state(conn)  # after the answer too: the page reads the seed it sent in it ("my_seed")
        return None

    def want_pace(self, seconds: float, conn: Conn | None = None) -> None:
        """A player asked for a pace: the last one asked within :data:`PACE_SETTLE` is written,
        as one event (a slider dragged, or a flood of pace messages, is not an event each)."""
        self.pace_wanted = seconds
        if self.pace_task is None:
            self.pace_task = asyncio.create_task(self._settle_pace(conn))

    async def _settle_pace(self, conn: Conn | None) -> None:
        try:
            await asyncio.sleep(PACE_SETTLE)
        finally:
            self.pace_task = None
        wanted = self.pace_wanted
        if wanted is not None and wanted != self.bot_delay:
            await self.answer(conn, self.apace(wanted))

    async def apace(self, seconds: float) -> dict[str, Any] | None:
        """The bots' pause between moves at this table (checked by the caller)."""
        for _ in range(RETRIES):
            try:
                if await self.commit("pace", data={"seconds": seconds}):
                    break
            except NotSaved:
                return say_error("NOT_SAVED", NOT_SAVED, ref="pace")
        return None

    async def atake_seat(self, seat: int, name: str, token_hash: str) -> str | None:
        """A person sits down at an open (or their reserved) seat; None, or why not."""
        for _ in range(RETRIES):
            async with self.writing():
                if self.seats[seat].kind not in ("open", "reserved"):
                    return "this seat is taken"
                try:
                    if await self.write("join", seat, name, {"token_hash": token_hash}):
                        return None
                except NotSaved:
                    return NOT_SAVED
        return "the table is busy: try again"

    async def arematch(self, table_id: str) -> str:
        """Point this finished match at its rematch ``table_id``, unless one is there already
        (the first one made stands); the rematch's id.  :class:`NotSaved` if the database did
        not take it (nothing changed)."""
        for _ in range(RETRIES):
            async with self.writing():
                made = self.config.get("rematch")
                if isinstance(made, str):
                    return made
                if await self.write("rematch", -1, table_id, None):
                    return table_id
        raise NotSaved(f"the rematch of table {self.id} was not saved: the table is busy")

    async def aabandon(self) -> None:
        """Close an idle table: it stays in the store (status ``abandoned``), is no longer
        listed, loaded or played."""
        for _ in range(RETRIES):
            async with self.writing():
                if self.status not in LIVE or await self.write("abandon", -1, "", None):
                    break
        self.hub.rooms.pop(self.id, None)
        self._stop()

    # -------------------------------------------------------------- presence

    def attach(self, conn: Conn) -> None:
        """A client said hello: it gets the state.  A seat's socket counts towards its presence
        first (a change of who is here is an event, written by :meth:`sync_presence`), so the
        first state a returning player sees already shows them back."""
        self.conns.append(conn)
        self.last_active = time.time()
        if conn.seat < 0:
            self.send_state(conn)
        else:
            self.hub.spawn(self._arrive(conn))

    async def _arrive(self, conn: Conn) -> None:
        try:
            with contextlib.suppress(Exception):  # the database away: the order this server holds, if any
                found = await self.hub.db(self.hub.store.load_order, self.id, conn.seat)
                if found is not None:  # written here, or by another server of a cluster
                    self.orders[conn.seat] = found
            await self.count_socket(conn.seat, +1)
        finally:
            if conn in self.conns and conn.last_sent_seq != self.seq:  # no event sent it the state
                self.send_state(conn)

    def detach(self, conn: Conn) -> None:
        if conn in self.conns:
            self.conns.remove(conn)
        self.last_active = time.time()
        if conn.seat >= 0:
            self.hub.spawn(self.count_socket(conn.seat, -1))
        if self.status == "finished" and not self.conns:
            self.hub.rooms.pop(self.id, None)  # it lives on in the store (history, replay)

    async def count_socket(self, seat: int, delta: int) -> None:
        async with self.presence_lock:
            try:
                await self.hub.count_socket(self.id, seat, delta)
                await self.sync_presence()
            except Exception as exc:  # Redis or the database away: the heartbeat writes it when they are back
                self.presence_stale = True
                self.hub.warn(f"presence of table {self.id}: {said(exc)}")

    def presence_lags(self) -> bool:
        """Does the table show one of this server's connected seats away (its presence was
        lost with Redis, or while this process was paused), or did a presence write fail?"""
        mine = {c.seat for c in self.conns if c.seat >= 0}
        return self.presence_stale or bool(mine - self.present) or bool(mine & self.takeover)

    async def sync_presence(self) -> None:
        """Write a presence event if the seats connected anywhere are not those the table shows.
        They are read with the write lock held, so what is written is never older than the
        table it is written on (a race with another server's presence event is lost at the
        database, and re-read)."""
        for _ in range(RETRIES):
            async with self.writing():
                live = await self.hub.live_seats(self.id)
                if (live == self.present and not (self.takeover & live)) or self.status not in LIVE:
                    self.presence_stale = False
                    return
                try:
                    done = await self.write("presence", -1, "", {"present": sorted(live),
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
                if self.status != "playing" or seen is None or seen[0] != num or seat in self.takeover \
                        or self.paused:
                    return
                live = await self.hub.live_seats(self.id)
                if seat in live:
                    return  # back: the server it is on writes the presence event
                if await self.write("presence", -1, "", {"present": sorted(live),
                                                          "takeover": sorted((self.takeover - live) | {seat})}):
                    return

    # ------------------------------------------------------------- lifetime

    def _stop(self) -> None:
        if self.pace_task is not None:
            self.pace_task.cancel()
        self.table.close()

    async def shutdown(self) -> None:
        for c in list(self.conns):
            await c.close()
        self._stop()

