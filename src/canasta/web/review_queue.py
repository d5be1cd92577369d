"""The reviews of a cluster: one queue in Redis for every server, computed by the workers.

A server asked for a review (:mod:`canasta.web.reviews`) that is neither stored nor queued
admits it here: a script run atomically in Redis counts the reviews waiting or being computed
by client address and by table over the whole cluster, refuses one beyond its share, and
queues it with its arrival number; the server then enqueues an arq job (queue
``PREFIX:reviews``, function ``review``).  A job is a turn at computing, not a given review:
the worker that runs it claims the review that comes first in the fair order at that moment
(as :class:`canasta.web.reviews.Reviewer` orders one server's: round-robin between client
addresses, then the less-reviewed table, then the earliest), computes it in its review processes, stores it with the table
(:meth:`Store.save_review`), and only then takes it off the queue.  Every server reads its
place in the queue, its progress and, once stored, the review itself.

Redis keys (``P`` is the cluster's prefix; ``ID`` is ``TABLE:HAND:SEAT``):

* ``P:rv:job:ID``: a hash (client, table, total, done, state, arrived, worlds, work);
* ``P:rv:waiting``: the waiting IDs, scored by arrival; ``P:rv:running``: the IDs being
  computed, scored by the end of their lease (ms);
* ``P:rv:served``: reviews started per client (``c:ADDRESS``) and table (``t:TABLE``) since
  the queue was last empty; ``P:rv:arrivals``: the arrival counter.

A worker renews its lease while it computes (:data:`LEASE`); a review whose worker died goes
back to the queue at its old place once its lease ends (every script first puts such reviews
back, and its caller enqueues a job for each).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import secrets
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict
from typing import Any

from canasta.i18n import N_
from canasta.review import DecisionReview, Task
from canasta.web.guards import bad
from canasta.web.redact import said
from canasta.web.reviews import (
    BUSY,
    CLIENT_FULL,
    CLIENT_SHARE,
    MAX_WAITING,
    TABLE_FULL,
    TABLE_SHARE,
    Look,
    Queue,
    Reviewer,
    ReviewProcesses,
    hand_tasks,
)
from canasta.web.room import Settings
from canasta.web.store import Store
from canasta.web.tournament_reviews import BOARD_PREFIX, board_of_key

LEASE = 15.0  # seconds a worker's claim on a review lasts unless renewed (renewed every LEASE / 5)
FAILED_KEPT = 120  # seconds a failed review's note is kept (the page reads it once, then may ask again)
REVIEW_JOB_TIMEOUT = 3600.0  # an arq review job's time limit (a review within review_work takes far less)
REVIEW_UNAVAILABLE = N_("the reviews' queue does not answer right now: try again in a moment")

_COMMON = """
local P = ARGV[1]
local now = tonumber(ARGV[2])
local W, R, S = P .. ':rv:waiting', P .. ':rv:running', P .. ':rv:served'
local function job(id) return P .. ':rv:job:' .. id end
local function sweep()
  local dead = redis.call('ZRANGEBYSCORE', R, '-inf', now)
  for _, id in ipairs(dead) do
    redis.call('ZREM', R, id)
    local h = redis.call('HMGET', job(id), 'arrived', 'client', 'table')
    if h[1] then  -- back at its place, and not counted as served: it never was
      redis.call('ZADD', W, h[1], id)
      redis.call('HSET', job(id), 'state', 'waiting', 'done', 0)
      redis.call('HINCRBY', S, 'c:' .. h[2], -1)
      redis.call('HINCRBY', S, 't:' .. h[3], -1)
    end
  end
  if redis.call('ZCARD', W) == 0 and redis.call('ZCARD', R) == 0 then redis.call('DEL', S) end
  return dead
end
local function order()
  local ids = redis.call('ZRANGE', W, 0, -1, 'WITHSCORES')
  local seen, ranked = {}, {}
  for i = 1, #ids, 2 do
    local id, arrived = ids[i], tonumber(ids[i + 1])
    local c = 'c:' .. (redis.call('HGET', job(id), 'client') or '')
    local t = 't:' .. (redis.call('HGET', job(id), 'table') or '')
    local nc = seen[c] or tonumber(redis.call('HGET', S, c) or '0')
    local nt = seen[t] or tonumber(redis.call('HGET', S, t) or '0')
    ranked[#ranked + 1] = {nc, nt, arrived, id}
    seen[c] = nc + 1
    seen[t] = nt + 1
  end
  table.sort(ranked, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    if a[2] ~= b[2] then return a[2] < b[2] end
    return a[3] < b[3]
  end)
  local out = {}
  for i, r in ipairs(ranked) do out[i] = r[4] end
  return out
end
local function position(id)
  for i, other in ipairs(order()) do
    if other == id then return i end
  end
  return 0
end
local function with_dead(head, dead)
  for _, id in ipairs(dead) do head[#head + 1] = id end
  return head
end
"""

#: ARGV: prefix, now, id, client, table, total, client share, table share, most waiting, worlds, work
#: -> {verdict, n, position, dead...}: verdict queued | exists | client | table | busy
ADMIT = _COMMON + """
local dead = sweep()
local id, client, tbl = ARGV[3], ARGV[4], ARGV[5]
local state = redis.call('HGET', job(id), 'state')
if state and state ~= 'failed' then
  return with_dead({'exists', 0, position(id)}, dead)
end
local mine, theirs = 0, 0
for _, set in ipairs({W, R}) do
  for _, other in ipairs(redis.call('ZRANGE', set, 0, -1)) do
    if redis.call('HGET', job(other), 'client') == client then mine = mine + 1 end
    if redis.call('HGET', job(other), 'table') == tbl then theirs = theirs + 1 end
  end
end
if mine >= tonumber(ARGV[7]) then return with_dead({'client', mine, 0}, dead) end
if theirs >= tonumber(ARGV[8]) then return with_dead({'table', theirs, 0}, dead) end
if redis.call('ZCARD', W) >= tonumber(ARGV[9]) then return with_dead({'busy', 0, 0}, dead) end
local arrived = redis.call('INCR', P .. ':rv:arrivals')
redis.call('DEL', job(id))
redis.call('HSET', job(id), 'client', client, 'table', tbl, 'total', ARGV[6], 'done', 0, 'state', 'waiting',
           'arrived', arrived, 'worlds', ARGV[10], 'work', ARGV[11])
redis.call('ZADD', W, arrived, id)
return with_dead({'queued', arrived, position(id)}, dead)
"""

#: ARGV: prefix, now, id -> {state, done, total, position, dead...} (state '' when unknown)
LOOK = _COMMON + """
local dead = sweep()
local id = ARGV[3]
local h = redis.call('HMGET', job(id), 'state', 'done', 'total')
if not h[1] then return with_dead({'', 0, 0, 0}, dead) end
local pos = 0
if h[1] == 'waiting' then pos = position(id) end
return with_dead({h[1], tonumber(h[2]), tonumber(h[3]), pos}, dead)
"""

#: ARGV: prefix, now, lease end -> {id or '', worlds, work, dead...}: the first review in the fair order, now running
CLAIM = _COMMON + """
local dead = sweep()
local first = order()[1]
if not first then return with_dead({'', 0, 0}, dead) end
redis.call('ZREM', W, first)
redis.call('ZADD', R, tonumber(ARGV[3]), first)
redis.call('HSET', job(first), 'state', 'running', 'done', 0)
local h = redis.call('HMGET', job(first), 'client', 'table', 'worlds', 'work')
redis.call('HINCRBY', S, 'c:' .. h[1], 1)
redis.call('HINCRBY', S, 't:' .. h[2], 1)
return with_dead({first, tonumber(h[3]), tonumber(h[4])}, dead)
"""

#: ARGV: prefix, now, id, lease end, done -> {1}, or {0, dead...} when the lease had ended (it is back in the queue)
RENEW = _COMMON + """
local id = ARGV[3]
local lease = redis.call('ZSCORE', R, id)
if not lease or tonumber(lease) < now then  -- ended: it goes back to the queue, another worker takes it
  return with_dead({0}, sweep())
end
redis.call('ZADD', R, tonumber(ARGV[4]), id)
redis.call('HSET', job(id), 'done', tonumber(ARGV[5]))
return {1}
"""

#: ARGV: prefix, now, id, outcome (done | failed | again), seconds a failure is kept -> 1 if it held the lease
FINISH = _COMMON + """
local id = ARGV[3]
local held = redis.call('ZREM', R, id)
if held == 1 then
  if ARGV[4] == 'failed' then
    redis.call('HSET', job(id), 'state', 'failed')
    redis.call('EXPIRE', job(id), tonumber(ARGV[5]))
  elseif ARGV[4] == 'again' then  -- its worker stops: back at its place, not counted as served
    local h = redis.call('HMGET', job(id), 'arrived', 'client', 'table')
    redis.call('ZADD', W, h[1], id)
    redis.call('HSET', job(id), 'state', 'waiting', 'done', 0)
    redis.call('HINCRBY', S, 'c:' .. h[2], -1)
    redis.call('HINCRBY', S, 't:' .. h[3], -1)
  else
    redis.call('DEL', job(id))
  end
end
sweep()
return held
"""

#: ARGV: prefix, now, id -> 1 if it was waiting (and is no longer: its job could not be enqueued)
WITHDRAW = _COMMON + """
local removed = redis.call('ZREM', W, ARGV[3])
if removed == 1 then redis.call('DEL', job(ARGV[3])) end
sweep()
return removed
"""

#: ARGV: prefix, now, id -> 1 if a failed review's note was removed
FORGET = _COMMON + """
if redis.call('HGET', job(ARGV[3]), 'state') == 'failed' then return redis.call('DEL', job(ARGV[3])) end
return 0
"""


def state_of(store: Store, review_table: str) -> dict[str, Any] | None:
    """The saved table a review's key names, which a worker computes the review from: a room
    table, or a tournament's board (:mod:`canasta.web.tournament_reviews`); None: no such table,
    or a board not over at every table."""
    if review_table.startswith(BOARD_PREFIX):
        return board_of_key(store, review_table)
    row = store.load(review_table)
    return None if row is None else row.state


def review_id(key: tuple[str, int, int]) -> str:
    table_id, hand, seat = key
    return f"{table_id}:{hand}:{seat}"


def key_of(review: str) -> tuple[str, int, int]:
    table_id, hand, seat = review.rsplit(":", 2)
    return table_id, int(hand), int(seat)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Scripts:
    """The queue's scripts on one Redis connection (an ArqRedis), and the arq jobs that go with it."""

    def __init__(self, redis: Any, prefix: str) -> None:
        self.redis = redis
        self.prefix = prefix
        self.scripts = {name: redis.register_script(text) for name, text in
                        (("admit", ADMIT), ("look", LOOK), ("claim", CLAIM), ("renew", RENEW),
                         ("finish", FINISH), ("forget", FORGET), ("withdraw", WITHDRAW))}

    @property
    def queue(self) -> str:
        return f"{self.prefix}:reviews"

    async def run(self, name: str, *args: Any) -> list[Any]:
        got = await self.scripts[name](args=[self.prefix, int(time.time() * 1000), *args])
        return list(got) if isinstance(got, list) else [got]

    async def turns(self, ids: list[Any]) -> None:
        """An arq job for each review put back in the queue (its worker died)."""
        for review in ids:
            await self.turn(_text(review))

    async def turn(self, review: str) -> None:
        """One turn at computing a review: a worker runs it on the first review in the fair order."""
        at = datetime.datetime.now(tz=datetime.UTC)
        await self.redis.enqueue_job("review", _job_id=f"{self.prefix}:review:{review}:{secrets.token_hex(4)}",
                                     _queue_name=self.queue, _defer_until=at)


class ClusterReviewer:
    """A server's view of the cluster's review queue (:class:`canasta.web.reviews.Queue`)."""

    def __init__(self, hub: Any, settings: Settings) -> None:
        self.hub = hub  # a ClusterHub: its Redis connection is made when the server starts
        self.settings = settings
        self._scripts: Scripts | None = None

    def scripts(self) -> Scripts:
        if self._scripts is None or self._scripts.redis is not self.hub.redis:
            if self.hub.redis is None:
                raise bad(REVIEW_UNAVAILABLE, 503, {"Retry-After": "2"})
            self._scripts = Scripts(self.hub.redis, self.hub.cluster.prefix)
        return self._scripts

    async def _run(self, name: str, *args: Any) -> list[Any]:
        s = self.scripts()
        try:
            got: list[Any] = await self.hub.within(s.run(name, *args))
        except Exception as exc:
            print(f"canasta: reviews: redis: {said(exc)}", file=sys.stderr, flush=True)
            raise bad(REVIEW_UNAVAILABLE, 503, {"Retry-After": "2"}) from None
        return got

    async def _heal(self, dead: list[Any]) -> None:
        if dead:
            with contextlib.suppress(Exception):  # not now: the next look puts them back again
                await self.hub.within(self.scripts().turns(dead))

    async def look(self, key: tuple[str, int, int]) -> Look | None:
        state, done, total, position, *dead = await self._run("look", review_id(key))
        await self._heal(dead)
        state = _text(state)
        if not state:
            return None
        if state == "waiting":
            await self._no_turn_left(review_id(key))
        return Look(state, int(done), int(total), int(position))

    async def _no_turn_left(self, review: str) -> None:
        """A review waits but no job is queued or running (its job was lost, say Redis failed
        over between the two): a new turn, so that it is not left waiting for ever."""
        with contextlib.suppress(Exception):  # not now: the next look tries again
            s = self.scripts()
            if not int(await self.hub.within(self.hub.redis.zcard(s.queue))):
                await self.hub.within(s.turn(review))

    async def admit(self, key: tuple[str, int, int], tasks: list[Task], client: str) -> Look:
        review = review_id(key)
        verdict, n, position, *dead = await self._run(
            "admit", review, client, key[0], len(tasks), CLIENT_SHARE, TABLE_SHARE, MAX_WAITING,
            self.settings.review_worlds, self.settings.review_work)
        await self._heal(dead)
        verdict = _text(verdict)
        if verdict == "client":
            raise bad(CLIENT_FULL, 429, {"Retry-After": "5"}, n=int(n))
        if verdict == "table":
            raise bad(TABLE_FULL, 429, {"Retry-After": "5"}, n=int(n))
        if verdict == "busy":
            raise bad(BUSY, 429, {"Retry-After": "5"})
        if verdict == "queued":
            try:
                await self.hub.within(self.scripts().turn(review))
            except Exception as exc:  # no job to compute it: taken off the queue again, and said so
                print(f"canasta: reviews: enqueue: {said(exc)}", file=sys.stderr, flush=True)
                with contextlib.suppress(Exception):
                    await self._run("withdraw", review)
                raise bad(REVIEW_UNAVAILABLE, 503, {"Retry-After": "2"}) from None
        look = await self.look(key)
        return look if look is not None else Look("waiting", 0, len(tasks), int(position))

    async def forget(self, key: tuple[str, int, int]) -> None:
        await self._run("forget", review_id(key))

    async def close(self) -> None:
        return None


class ReviewWork:
    """A worker's side: claims the first review in the fair order, computes it in this worker's
    review processes (``Settings.review_workers``; 0: a thread), stores it, and takes it off."""

    def __init__(self, store: Store, settings: Settings, redis: Any, prefix: str) -> None:
        self.store = store
        self.settings = settings
        self.scripts = Scripts(redis, prefix)
        self.processes = ReviewProcesses(settings.review_workers)

    def lease_end(self) -> int:
        return int((time.time() + LEASE) * 1000)

    async def turn(self) -> str | None:
        """One turn (an arq job): the review computed, or None when none was waiting."""
        review, worlds, work, *dead = await self.scripts.run("claim", self.lease_end())
        await self.scripts.turns(dead)
        review = _text(review)
        if not review:
            return None
        key = key_of(review)
        done = 0
        lost = asyncio.Event()

        async def renew() -> None:
            while True:
                await asyncio.sleep(LEASE / 5)
                try:
                    held, *dead = await self.scripts.run("renew", review, self.lease_end(), done)
                    await self.scripts.turns(dead)
                except Exception as exc:  # Redis away for a moment: the lease may still hold
                    print(f"canasta: review {review}: renewing its lease: {said(exc)}", file=sys.stderr, flush=True)
                    continue
                if not int(held):
                    lost.set()
                    return

        renewing = asyncio.create_task(renew())
        outcome = "failed"
        try:
            state = await asyncio.to_thread(state_of, self.store, key[0])
            if state is None:
                raise LookupError(f"no table {key[0]}")
            tasks, _over = await asyncio.to_thread(hand_tasks, state, key[1], key[2], int(worlds), int(work))
            results: list[DecisionReview | None] = []
            for task in tasks:
                if lost.is_set():  # another worker has it now (this one was thought dead)
                    return None
                results.append(await self.processes.evaluate(task))
                done += 1
            data = {"decisions": [asdict(d) for d in results if d is not None]}
            await asyncio.to_thread(self.store.save_review, key[0], key[1], key[2], int(worlds), data)
            outcome = "done"
            return review
        except asyncio.CancelledError:
            outcome = "again"  # the worker stops: another takes it at once
            raise
        except Exception as exc:
            print(f"canasta: review {review} failed: {said(exc)}", file=sys.stderr, flush=True)
            if isinstance(exc, BrokenProcessPool):  # a review process died: a new pool for the next one
                self.processes.close()
            return None
        finally:
            renewing.cancel()
            if not lost.is_set():
                with contextlib.suppress(Exception):
                    await asyncio.shield(self.scripts.run("finish", review, outcome, FAILED_KEPT))
                if outcome == "again":
                    with contextlib.suppress(Exception):
                        await asyncio.shield(self.scripts.turn(review))

    def close(self) -> None:
        self.processes.close()


def make_reviewer(store: Store, settings: Settings, hub: Any) -> Queue:
    """The review queue of a server: this process's (:class:`canasta.web.reviews.Reviewer`), or
    the cluster's when ``hub`` is a cluster's (:class:`canasta.web.cluster_hub.ClusterHub`)."""
    if getattr(hub, "cluster", None) is None:
        return Reviewer(store, settings)
    return ClusterReviewer(hub, settings)


__all__ = ["LEASE", "REVIEW_JOB_TIMEOUT", "ClusterReviewer", "ReviewWork", "Scripts", "key_of", "make_reviewer", "review_id",
           "state_of"]
