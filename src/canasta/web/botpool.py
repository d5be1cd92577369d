"""Bot decisions in worker processes, so a thinking bot never stalls other tables.

The searching levels (``advanced``, ``expert``) spend from a few milliseconds to
over a second of pure Python on a decision.  In a thread of the server process
that time holds the GIL, and every other table waits; in a worker process it
does not.  :class:`BotPool` runs such decisions in a small
:class:`~concurrent.futures.ProcessPoolExecutor` (``spawn`` context: no copy of
the server's sockets, database connections or event loop in the workers).

* The worker gets what the seat may know (``SeatView.to_dict()``, the same view
  a person's browser gets, rules included), the bot's level and a seed; it
  builds the bot, lets it choose, and returns the move as text.  The room checks
  the move with the engine before playing it.
* Bots of the named levels keep no state between decisions besides their random
  generator (no ``hand_over`` hook, nothing learned), so a bot is built for each
  decision, seeded from the table's seed, the seat, the hand and the move number
  (:func:`decision_seed`): a decision depends only on the position, never on
  which worker took it or whether the server restarted since (a bot cached per
  (table, seat) in a worker would depend on both).
* Every decision has a time budget (``timeout``, waiting for a free worker
  included).  When the pool does not answer in time, or a worker died, the
  caller gets ``None`` and plays a quick bot's move instead; a broken pool is
  replaced at the next decision.  A decision that overran keeps its worker until
  it ends (the levels' own budgets bound it: the expert thinks ~1 s), and no
  decision waits in the executor's queue: a decision is handed to the executor
  only when a worker is free, so stale work never piles up.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from canasta.bots import LEVELS


def default_workers() -> int:
    """One worker per core but one (the event loop keeps a core), at least one."""
    return max(1, (os.cpu_count() or 1) - 1)


def decision_seed(table_seed: int, seat: int, hand: int, move_number: int) -> int:
    """The seed of one bot decision: a pure function of where it is taken."""
    digest = hashlib.sha256(f"canasta-serve-bot:{table_seed}:{seat}:{hand}:{move_number}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _watch_parent(parent: int, every: float = 1.0) -> None:
    """Exit when the server process is gone (killed without a chance to stop its
    workers): a worker holds its own queue open, so it would wait for ever."""
    while True:
        time.sleep(every)
        if os.getppid() != parent:
            os._exit(0)


def _start_worker() -> None:
    """Worker start-up (importing this module imported the engine and the bots)."""
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True, name="parent-watch").start()


def _warm() -> None:
    """Submitted once per worker at start: nothing to do but be called."""


def decide(view: dict[str, Any], level: str, seed: int) -> str:
    """In a worker: the move the bot of ``level`` picks in ``view``, as text."""
    from canasta.bots import make_bot
    from canasta.views.seat import SeatView

    if level.partition(":")[0] not in LEVELS:  # never a cmd: bot (a command line on the server)
        raise ValueError(f"not a bot level: {level!r}")
    bot = make_bot(level, seed=seed)
    try:
        return str(bot.choose(SeatView.from_dict(view)))
    finally:
        bot.close()


def _retrieve(f: asyncio.Future[str]) -> None:
    if not f.cancelled():
        f.exception()


@dataclass
class PoolStats:
    decisions: int = 0  # answered by a worker in time
    timeouts: int = 0  # no free worker, or no answer, within the budget
    failures: int = 0  # a worker died or raised


class BotPool:
    """``await pool.choose(view, level, seed)``: the move text, or None (play a quick bot)."""

    def __init__(self, workers: int, timeout: float) -> None:
        if workers < 1:
            raise ValueError("a bot pool needs at least one worker")
        self.workers = workers
        self.timeout = timeout
        self.stats = PoolStats()
        self._executor: ProcessPoolExecutor | None = None
        self._free: asyncio.Semaphore | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_start_worker)
        return self._executor

    def _broken(self, executor: ProcessPoolExecutor) -> None:
        if self._executor is executor:  # the next decision starts a fresh pool
            self._executor = None
            executor.shutdown(wait=False, cancel_futures=True)

    def start(self) -> None:
        """Start the workers now (they take a moment to import the engine)."""
        pool = self._pool()
        for _ in range(self.workers):
            pool.submit(_warm)

    async def choose(self, view: dict[str, Any], level: str, seed: int) -> str | None:
        return await self.run(decide, view, level, seed)

    async def run(self, fn: Any, *args: Any) -> str | None:
        """``fn(*args)`` in a worker within the time budget; None if not in time or it failed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        if self._free is None:
            self._free = asyncio.Semaphore(self.workers)
        free = self._free
        try:
            await asyncio.wait_for(free.acquire(), max(0.0, self.timeout))
        except TimeoutError:
            self.stats.timeouts += 1
            return None
        executor = self._pool()
        try:
            fut: Future[str] = executor.submit(fn, *args)
        except (BrokenProcessPool, RuntimeError):
            free.release()
            self.stats.failures += 1
            self._broken(executor)
            return None

        def release(_f: Future[str]) -> None:  # the worker is free again (runs in the executor's thread)
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                loop.call_soon_threadsafe(free.release)

        fut.add_done_callback(release)
        answer = asyncio.wrap_future(fut)
        answer.add_done_callback(_retrieve)  # a late failure is not "never retrieved"
        try:
            result = await asyncio.wait_for(asyncio.shield(answer), max(0.0, deadline - loop.time()))
        except TimeoutError:
            self.stats.timeouts += 1
            return None
        except BrokenProcessPool:
            self.stats.failures += 1
            self._broken(executor)
            return None
        except Exception:  # the bot raised: its seat gets the quick bot's move
            self.stats.failures += 1
            return None
        self.stats.decisions += 1
        return result if isinstance(result, str) else None

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


__all__ = ["BotPool", "PoolStats", "decide", "decision_seed", "default_workers"]
