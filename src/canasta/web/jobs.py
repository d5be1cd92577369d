"""What a table waits for, as jobs: a bot's move, a turn timer running out, the next
deal, a grace period ending, and the sweep that closes idle tables.

A room lists the jobs its state waits for (:meth:`canasta.web.room.Room.due_jobs`),
each with an id naming that state (``bot:TABLE:N``, ``turn:TABLE:H:T:S``,
``deal:TABLE:H:…``, ``grace:TABLE:SEAT:N``) and the time it is due; its host runs
them: one server on its own loop (:class:`canasta.web.hub.Hub`), a cluster in its
workers from a queue in Redis (:mod:`canasta.web.worker`).  A job reads the table as
it is (:meth:`JobHost.afresh`) and acts only if the state it was made for is still
there, and writes through the room's one write path, so a job run twice (a retry,
or a dead worker's job run again) changes a table at most once.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from canasta.bots import make_bot
from canasta.views.seat import SeatView
from canasta.web.botpool import decision_seed
from canasta.web.room import FALLBACK_BOT, Room, Settings
from canasta.web.store import Store
from canasta.web.tournaments import job_tournament

JOB_TRIES = 20  # a job that failed (the database or Redis away) runs again, up to this many times
BACKOFF = (0.25, 2.0)  # seconds before the first retry, and at most (doubling in between)


class JobHost(Protocol):
    """What a job needs of the process that runs it."""

    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> Store: ...

    @property
    def rooms(self) -> dict[str, Room]: ...

    async def afresh(self, table_id: str) -> Room | None: ...

    async def decide(self, level: str, view: SeatView, seed: int) -> str | None: ...

    async def live_seats(self, table_id: str) -> set[int]: ...

    async def flush(self) -> None: ...


def retry_delay(tries: int) -> float:
    """Seconds before try ``tries + 1`` of a job that failed ``tries`` times."""
    return float(min(BACKOFF[0] * 2 ** (tries - 1), BACKOFF[1]))


def decide_now(level: str, view: SeatView, seed: int) -> str:
    """A fresh bot of ``level``'s move in ``view`` (seeded: the same decision every time)."""
    bot = make_bot(level, seed=seed)
    try:
        return str(bot.choose(view))
    finally:
        bot.close()


async def job_bot(hub: JobHost, table_id: str, num: int) -> None:
    """The bot to move at event ``num`` plays (if the table is still there, as it was then: a chat
    line since changes nothing of the play)."""
    room = await hub.afresh(table_id)
    if room is not None and room.play_seq == num and room.needs_bot():
        t = room.table
        seat = t.to_move
        seed = decision_seed(t.seed, seat, t.hand_number, len(t.moves[-1]))
        text = await hub.decide(room.level(seat), t.view(seat), seed)
        async with room.writing():  # checked again as the table is when it is written
            if room.play_seq == num and room.needs_bot() and room.table.to_move == seat:
                if text is None or room.table.why_not(seat, text) is not None:  # not in time (never illegal)
                    text = decide_now(FALLBACK_BOT, room.table.view(seat), seed)
                await room.write("move", seat, text, None)  # lost to another writer: the table moved on
    if room is not None:
        room.schedule()
    await hub.flush()


async def job_turn(hub: JobHost, table_id: str, hand: int, turn: int, seat: int) -> None:
    """A person's turn timer ran out: a bot finishes the turn (a notice every seat reads)."""
    room = await hub.afresh(table_id)
    if room is None:
        return
    if room.timer_key == (hand, turn, seat) and room.deadline is not None and time.time() >= room.deadline - 0.05:
        await room.commit("auto_turn", seat)
    room.schedule()
    await hub.flush()


async def job_deal(hub: JobHost, table_id: str, hand: int) -> None:
    """The table deals by itself (the first hand once the seeds are in or the grace is over; a bot
    game's next hand after its pause)."""
    room = await hub.afresh(table_id)
    if room is None:
        return
    if room.deal_key is not None and room.deal_key[0] == hand and room.deal_at is not None \
            and time.time() >= room.deal_at - 0.05:
        await room.adeal()
    room.schedule()
    await hub.flush()


async def job_grace(hub: JobHost, table_id: str, seat: int, num: int) -> None:
    """A person away since event ``num`` did not come back in time: a bot plays the seat."""
    room = await hub.afresh(table_id)
    if room is None:
        return
    await room.take_over(seat, num)
    room.schedule()
    await hub.flush()


async def job_sweep(hub: JobHost, now: float | None = None) -> list[str]:
    """Close the tables nobody was connected to or played at for the idle time; their ids."""
    hours = hub.settings.idle_hours
    if hours <= 0:
        return []
    closed = []
    before = (time.time() if now is None else now) - hours * 3600
    for tid in await asyncio.to_thread(hub.store.idle_ids, before):
        room = await hub.afresh(tid)
        if room is not None and not room.conns and not await hub.live_seats(tid):
            await room.aabandon()
            closed.append(tid)
        hub.rooms.pop(tid, None)
    await hub.flush()
    return closed


#: the jobs by the name a room gives them (Room.due_jobs)
JOBS: dict[str, Any] = {"bot": job_bot, "turn": job_turn, "deal": job_deal, "grace": job_grace,
                        "tournament": job_tournament}  # a tournament's step (canasta.web.tournaments)


__all__ = ["BACKOFF", "JOBS", "JOB_TRIES", "JobHost", "decide_now", "job_sweep", "retry_delay"]
