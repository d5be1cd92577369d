"""Several ``canasta serve`` processes on one database, with Redis to fan out.

``canasta serve --db postgresql://… --redis redis://…`` runs as one of N equal
server processes; ``canasta serve --worker --db … --redis …`` as one of M workers.
Their rooms are the same as a single server's (:mod:`canasta.web.room`: every change
is the table's next event, written conditionally on the stored last number, and
applied only once stored); what this hub adds:

* **Fan-out** is Redis pub/sub: every accepted event is published on the table's
  channel (``PREFIX:t:TABLE``); each server applies it to its copy of the table
  and sends each of its own sockets that seat's view.  A deal's data (the next
  secret) is never published: servers read it from the database.  A server that
  sees a gap in the numbers, reconnects to Redis, or finds the database ahead
  (checked every few seconds) catches up from the database.  When two processes
  race on a table, the database refuses the second event, and the loser re-reads
  the table and answers from the truth.
* **Jobs** (bots, timers, deals, grace periods: :mod:`canasta.web.jobs`) run in
  the workers, fed by an arq queue in Redis; a job id is enqueued once, however
  many processes ask.
* **Presence** (which seats have a socket somewhere) is a Redis hash per table
  (``SERVER:SEAT`` → open sockets) beside a liveness key per server, renewed by a
  heartbeat; a change is an event, so every server shows the same seats connected.
  A killed server's seats drop out once its liveness key expires.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import secrets
import sys
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from canasta.engine.errors import CanastaError
from canasta.web.hub import READY_TIMEOUT, Hub, NotReady
from canasta.web.redact import redact, said
from canasta.web.room import Room, Settings
from canasta.web.store import Event, Store

OUTBOX = 10_000  # publications and jobs waiting for Redis, at most
#: heartbeats that renew every presence field after this server's liveness lapsed (more than
#: one: another server may drop the fields just after the first renewal, from a stale look)
RENEW_BEATS = 3
#: the reason a cut-off server closes its sockets with (websocket code 1012, "service restart":
#: the pages reconnect, through the proxy, to a server that is ready)
CUT_OFF = "this server lost its database or Redis: reconnect"
#: the channel's last part on which servers tell each other about accounts (canasta.web.social)
SOCIAL = "_social"
T = TypeVar("T")


@dataclass
class ClusterConfig:
    redis_url: str
    prefix: str = "canasta"  # every Redis key, channel, queue and job id starts with it
    server_id: str = field(default_factory=lambda: secrets.token_hex(6))
    heartbeat: float = 2.0  # seconds between a server's liveness refreshes and database checks
    alive_ttl: float = 6.0  # a server not heard of for this long is gone (its sockets with it)
    stall: float = 2.0  # a job due this long ago whose state still waits is enqueued again
    call_timeout: float = 3.0  # seconds a Redis call may take before it is given up (Redis treated as away)
    #: a server whose liveness has not been renewed for this long, with a renewal under way or
    #: failed, is cut off: it fails readiness and closes its sockets, before the others think it
    #: dead (alive_ttl) and long before a grace period runs out
    cut_off_after: float = 4.0

    @property
    def queue(self) -> str:
        return f"{self.prefix}:queue"

    def channel(self, table_id: str) -> str:
        return f"{self.prefix}:t:{table_id}"

    def presence_key(self, table_id: str) -> str:
        return f"{self.prefix}:presence:{table_id}"

    def alive_key(self, server_id: str) -> str:
        return f"{self.prefix}:alive:{server_id}"

    def redis_settings(self) -> Any:
        """arq's settings of :attr:`redis_url`, read as redis-py reads a URL (a percent-encoded
        password is decoded: arq's own ``from_dsn`` passes it on encoded, and Redis refuses it)."""
        from arq.connections import RedisSettings
        from redis.connection import parse_url

        got: dict[str, Any] = parse_url(self.redis_url)  # type: ignore[no-untyped-call]
        if "path" in got:
            return RedisSettings(unix_socket_path=got["path"], database=int(got.get("db", 0)),
                                 username=got.get("username"), password=got.get("password"))
        return RedisSettings(host=got.get("host", "localhost"), port=int(got.get("port", 6379)),
                             database=int(got.get("db", 0)), username=got.get("username"),
                             password=got.get("password"), ssl=self.redis_url.startswith("rediss://"))


class ClusterHub(Hub):
    """The hub of one process of a cluster: its rooms are copies of the tables in the
    database, kept current by the events published in Redis."""

    def __init__(self, store: Store, settings: Settings | None, cluster: ClusterConfig,
                 serving: bool = True) -> None:
        super().__init__(store, settings)
        self.cluster = cluster
        self.serving = serving  # a server (sockets, pub/sub); False: a worker
        self.redis: Any = None  # an ArqRedis (redis.asyncio.Redis with enqueue_job); its stubs are loose
        # bounded: with Redis away, what does not fit is dropped (other servers catch up from the
        # database; the heartbeat enqueues overdue jobs again)
        self.outbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue(maxsize=OUTBOX)
        self.dropped = 0
        self.alive_before: set[str] = set()
        self.renew_beats = 0  # heartbeats left that renew every presence field of this server
        self.redis_lost = False
        self.own_marker = json.dumps({"from": cluster.server_id})[:-1].encode()
        self.alive_at = time.monotonic()  # the last renewal of this server's liveness key
        self.renewing_since: float | None = None  # a renewal under way (or failed) since then
        self.cut_off = False  # sockets closed, readiness failing, until the liveness is renewed

    # ------------------------------------------------------------ start/stop

    async def connect(self) -> None:
        from arq.connections import create_pool

        try:
            self.redis = await create_pool(self.cluster.redis_settings(),
                                           default_queue_name=self.cluster.queue, retry=3)
        except Exception as exc:
            raise CanastaError(f"cannot reach Redis at {redact(self.cluster.redis_url)}: {said(exc)}") from None
        self.tasks.append(asyncio.create_task(self._drain()))
        if self.serving:
            await self.redis.set(self.cluster.alive_key(self.cluster.server_id), b"1",
                                 px=int(self.cluster.alive_ttl * 1000))
            self.alive_at = time.monotonic()
            self.tasks.append(asyncio.create_task(self._listen()))
            self.tasks.append(asyncio.create_task(self._heartbeat()))
            self.tasks.append(asyncio.create_task(self._watch()))

    async def astart(self) -> None:
        await self.connect()
        self._sweeper = asyncio.create_task(self._sweep())
        if self.serving:
            await self.check_keys()

    async def expire_idle(self, now: float | None = None) -> list[str]:
        """Forget copies of tables nobody here is connected to (the workers close idle tables)."""
        for room in list(self.rooms.values()):
            if not room.conns:
                self.rooms.pop(room.id, None)
                room.table.close()
        self.forget_addresses()
        return []

    async def shutdown(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        for room in self.rooms.values():
            for c in list(room.conns):
                await c.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.flush(), 2)
        if self.redis is not None and self.serving:
            with contextlib.suppress(Exception):  # our sockets are gone: others see it at once
                async with self.redis.pipeline(transaction=False) as pipe:
                    for (tid, seat) in self.local_sockets:
                        pipe.hdel(self.cluster.presence_key(tid), f"{self.cluster.server_id}:{seat}")
                    pipe.delete(self.cluster.alive_key(self.cluster.server_id))
                    await pipe.execute()
        for task in [*self.tasks, *self.background]:
            task.cancel()
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await self.redis.aclose()
        for room in self.rooms.values():
            room.table.close()
        self.db_threads.shutdown(wait=False, cancel_futures=True)

    async def within(self, work: Coroutine[Any, Any, T]) -> T:
        """``work`` (a call to Redis or the database), given up after the cluster's call timeout:
        a hung service must not hold the process (TimeoutError, handled as the service away)."""
        return await asyncio.wait_for(work, self.cluster.call_timeout)

    # ------------------------------------------------------------------ rooms

    def get(self, table_id: str) -> Room | None:
        room = self.rooms.get(table_id)
        if room is not None:
            room.catch_up()
        else:
            room = self.load_room(table_id)
            if room is None:
                return None
            self.rooms[table_id] = room
        if room.status == "abandoned":
            self.rooms.pop(table_id, None)
            return None
        return room

    def adopted(self, room: Room) -> None:
        """A table read for a request: the cluster's jobs run its timers and bots, nothing to start."""

    def held(self, room: Room) -> None:
        """A copy held here is caught up in a task (the database read in a thread; the page gets the
        events it missed when they are read): the event loop never waits for the database."""
        room.want_catch_up()

    def load_all(self) -> int:
        return 0

    async def open_rooms(self) -> list[Room]:
        out = []
        for tid in await self.db(self.store.ids_with_status, "open"):
            room = await self.aget(tid)
            if room is not None:
                out.append(room)
        return out

    def bot_pool(self) -> None:
        return None  # the workers play the bots, each decision in a thread

    async def afresh(self, table_id: str) -> Room | None:
        """The table as it is now, for a job: read in a thread, or caught up from the database."""
        room = self.rooms.get(table_id)
        if room is None:
            if len(self.rooms) > 5000:  # a worker keeps the tables it played lately
                self.rooms.clear()
            return await super().afresh(table_id)
        if not room.write_lock.locked():
            events = await self.db(self.store.events_after, table_id, room.seq, timeout=self.cluster.call_timeout)
            if not room.write_lock.locked():
                room.apply_all(events)
        if room.status == "abandoned":
            self.rooms.pop(table_id, None)
            return None
        return room

    # ------------------------------------------------------------------ Redis

    def publish(self, table_id: str, ev: Event) -> None:
        self._post(("publish", self.cluster.channel(table_id), ev.message(self.cluster.server_id)))

    def announce(self, msg: dict[str, Any]) -> None:
        """On the tables' channels' pattern, as the table ``_social`` (no table has that id)."""
        self._post(("publish", self.cluster.channel(SOCIAL), json.dumps({"from": self.cluster.server_id, **msg})))

    def enqueue(self, fn: str, job_id: str, args: tuple[Any, ...], when: float) -> None:
        self._post(("job", fn, f"{self.cluster.prefix}:{job_id}", args, when))

    def _post(self, item: tuple[Any, ...]) -> None:
        try:
            self.outbox.put_nowait(item)
        except asyncio.QueueFull:
            self.dropped += 1
            self.redis_lost = True

    async def flush(self) -> None:
        await self.outbox.join()

    async def _drain(self) -> None:
        """Publications and jobs, in the order they were made; the publications waiting
        together go to Redis in one round trip."""
        while True:
            batch = [await self.outbox.get()]
            while len(batch) < 200 and not self.outbox.empty():
                batch.append(self.outbox.get_nowait())
            try:
                assert self.redis is not None
                i = 0
                while i < len(batch):
                    if batch[i][0] == "publish":
                        async with self.redis.pipeline(transaction=False) as pipe:
                            while i < len(batch) and batch[i][0] == "publish":
                                pipe.publish(batch[i][1], batch[i][2])
                                i += 1
                            await self.within(pipe.execute())
                    else:
                        _, fn, job_id, args, when = batch[i]
                        at = datetime.datetime.fromtimestamp(max(when, time.time()), tz=datetime.UTC)
                        await self.within(self.redis.enqueue_job(fn, *args, _job_id=job_id, _defer_until=at))
                        i += 1
            except Exception as exc:  # Redis away: the heartbeat heals what this loses
                self.redis_lost = True
                print(f"canasta: redis: {said(exc)}", file=sys.stderr, flush=True)
            finally:
                for _ in batch:
                    self.outbox.task_done()

    async def _listen(self) -> None:
        """Every table's channel; a reconnect is followed by a catch-up from the database."""
        assert self.redis is not None
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.psubscribe(f"{self.cluster.prefix}:t:*")
                if self.redis_lost:
                    self.redis_lost = False
                    await self.resync_all()
                while True:
                    msg = await pubsub.get_message(timeout=1.0)
                    if msg is None or msg.get("type") != "pmessage":
                        continue
                    self.on_message(msg["channel"], msg["data"])
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                raise
            except Exception as exc:
                self.redis_lost = True
                print(f"canasta: redis subscription lost ({said(exc)}); reconnecting", file=sys.stderr, flush=True)
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                await asyncio.sleep(0.5)

    def on_message(self, channel: bytes | str, data: bytes | str) -> None:
        if isinstance(data, bytes) and data.startswith(self.own_marker):
            return  # our own event: applied when it was written
        name = channel.decode() if isinstance(channel, bytes) else channel
        if name.rsplit(":", 1)[-1] == SOCIAL:
            if self.social is not None:
                with contextlib.suppress(Exception):  # a bad message must not stop the listener
                    self.social(json.loads(data))
            return
        room = self.rooms.get(name.rsplit(":", 1)[-1])
        if room is None:
            return
        try:
            msg = json.loads(data)
            room.on_published(msg)
        except Exception as exc:  # a bad message must not stop the listener
            print(f"canasta: event on {name}: {said(exc)}", file=sys.stderr, flush=True)

    async def resync_all(self) -> None:
        """After losing Redis: our sockets into the presence hash again, every copy caught up."""
        assert self.redis is not None
        async with self.redis.pipeline(transaction=False) as pipe:
            for (tid, seat), n in self.local_sockets.items():
                pipe.hset(self.cluster.presence_key(tid), f"{self.cluster.server_id}:{seat}", n)
            await pipe.execute()
        for room in list(self.rooms.values()):
            room.want_catch_up()

    async def count_socket(self, table_id: str, seat: int, delta: int) -> None:
        assert self.redis is not None
        key = (table_id, seat)
        n = self.local_sockets.get(key, 0) + delta
        field_name = f"{self.cluster.server_id}:{seat}"
        if n > 0:
            self.local_sockets[key] = n
            await self.within(self.redis.hset(self.cluster.presence_key(table_id), field_name, n))
        else:
            self.local_sockets.pop(key, None)
            await self.within(self.redis.hdel(self.cluster.presence_key(table_id), field_name))

    async def alive_servers(self) -> set[str]:
        assert self.redis is not None
        prefix = self.cluster.alive_key("")
        found = set()
        async for key in self.redis.scan_iter(match=prefix + "*", count=500):
            found.add((key.decode() if isinstance(key, bytes) else str(key))[len(prefix):])
        return found

    async def live_seats(self, table_id: str) -> set[int]:
        """The seats of a table with a socket on a live server."""
        assert self.redis is not None
        fields = await self.within(self.redis.hgetall(self.cluster.presence_key(table_id)))
        if not fields:
            return set()
        by_server: dict[str, set[int]] = {}
        for f, count in fields.items():
            sid, _, seat = (f.decode() if isinstance(f, bytes) else str(f)).rpartition(":")
            if int(count) > 0:
                by_server.setdefault(sid, set()).add(int(seat))
        servers = sorted(by_server)
        alive = await self.within(self.redis.mget([self.cluster.alive_key(s) for s in servers]))
        seats: set[int] = set()
        dead: list[str] = []
        for sid, flag in zip(servers, alive, strict=True):
            if flag is not None:
                seats |= by_server[sid]
            else:
                dead.extend(f"{sid}:{seat}" for seat in by_server[sid])
        if dead:  # a killed server's sockets
            await self.within(self.redis.hdel(self.cluster.presence_key(table_id), *dead))
        return seats

    async def _heartbeat(self) -> None:
        """Liveness; the database checked for events this server missed; presence
        refreshed when a server died; jobs a dead writer never enqueued."""
        assert self.redis is not None
        failing = 0  # heartbeats failed in a row
        said_at = 0.0  # when the last failure was written to the log
        while True:
            # after a failure, tried again sooner: the liveness is renewed soon after Redis is back
            await asyncio.sleep(self.cluster.heartbeat if not failing else min(self.cluster.heartbeat, 0.5))
            step = "renewing this server's liveness in Redis"
            try:
                self.renewing_since = self.renewing_since or time.monotonic()
                was = await self.within(self.redis.set(self.cluster.alive_key(self.cluster.server_id), b"1",
                                                       px=int(self.cluster.alive_ttl * 1000), get=True))
                self.alive_at, self.renewing_since = time.monotonic(), None
                if self.cut_off:
                    self.cut_off = False
                    self.warn("cluster heartbeat: Redis answers again; this server takes sockets again")
                if was is None:  # our liveness had lapsed (this process was paused, or Redis lost it)
                    self.renew_beats = RENEW_BEATS
                step = "reading the live servers from Redis"
                alive = await self.within(self.alive_servers())
                died = bool(self.alive_before - alive)
                self.alive_before = alive
                local = [r for r in self.rooms.values() if r.conns]
                if self.local_sockets and (self.renew_beats > 0 or any(r.presence_lags() for r in local)):
                    # presence is renewed, not set once: a field another server dropped while this
                    # one's liveness had lapsed, or that Redis lost, comes back (renewed only then:
                    # one HSET per socket every heartbeat costs a busy server a tenth of a
                    # millisecond per move)
                    self.renew_beats = max(0, self.renew_beats - 1)
                    step = "renewing this server's sockets in Redis"
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for (tid, seat), n in self.local_sockets.items():
                            pipe.hset(self.cluster.presence_key(tid), f"{self.cluster.server_id}:{seat}", n)
                        await self.within(pipe.execute())
                step = "reading the tables' last events from the database"
                heads = await self.db(self.store.heads, [r.id for r in local], timeout=self.cluster.call_timeout)
                step = "catching up and writing presence"
                now = time.time()
                for room in local:
                    if heads.get(room.id, room.seq) > room.seq:
                        room.want_catch_up()
                    if died or room.presence_lags():
                        async with room.presence_lock:
                            await room.sync_presence()
                    room.heal(now, self.cluster.stall)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.redis_lost = True
                failing += 1
                if failing == 1 or time.monotonic() - said_at >= 10:  # a line every 10 s while it lasts
                    said_at = time.monotonic()
                    print(f"canasta: cluster heartbeat failed {step} ({failing} in a row): {said(exc)}",
                          file=sys.stderr, flush=True)
            else:
                if failing:
                    print(f"canasta: cluster heartbeat: back after {failing} failures", file=sys.stderr, flush=True)
                failing = 0

    async def _watch(self) -> None:
        """Notice being cut off from Redis: once this server's liveness has gone
        :attr:`ClusterConfig.cut_off_after` seconds without a renewal while one is tried, the
        other servers are about to count its sockets as gone (and start their grace periods).
        It then fails readiness and closes its sockets with :data:`CUT_OFF`, so the pages
        reconnect through a server that can keep their seats; new sockets are refused until
        its liveness is renewed.  (A process that was paused has no renewal under way: it
        renews at its next heartbeat and keeps its sockets.)"""
        while True:
            await asyncio.sleep(0.25)
            since = self.renewing_since
            now = time.monotonic()
            if self.cut_off or since is None or now - since < 0.5 or now - self.alive_at < self.cluster.cut_off_after:
                continue
            self.cut_off = True
            n = sum(len(r.conns) for r in self.rooms.values())
            self.warn(f"cluster heartbeat: no renewal of this server's liveness for {now - self.alive_at:.1f} s: "
                      f"cut off from Redis; readiness fails and its {n} sockets are closed so their pages "
                      "reconnect through another server")
            self.close_sockets(CUT_OFF)

    def close_sockets(self, reason: str) -> None:
        """Close every socket of this server with ``reason`` (code 1012: the page reconnects)."""
        for room in list(self.rooms.values()):
            for c in list(room.conns):
                c.drop(1012, reason)

    async def queue_depth(self) -> int:
        if self.redis is None:
            return 0
        return int(await self.within(self.redis.zcard(self.cluster.queue)))

    async def ping(self) -> None:
        if self.cut_off:
            raise NotReady("cut off from Redis: its sockets were closed")
        if self.redis is None:
            raise NotReady("not connected to Redis yet")
        try:
            await asyncio.wait_for(self.redis.ping(), READY_TIMEOUT)
        except Exception as exc:
            self.warn(f"readiness: Redis: {said(exc)}")
            raise NotReady("redis: no answer") from None
        await super().ping()


__all__ = ["ClusterConfig", "ClusterHub"]
