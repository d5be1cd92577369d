"""The cluster's review queue in Redis (issue #55, item 2): the fair order, the shares counted
over every server, the lease that puts a dead worker's review back in the queue, the arq jobs.

Against the machine's Redis (127.0.0.1:6379, or ``CANASTA_TEST_REDIS``), each test with its own
key prefix; skipped when Redis is not there (failed where ``CANASTA_SERVICES_REQUIRED=1``).
The servers here are :class:`ClusterReviewer` objects in this process sharing that Redis, as
two server processes would; tests/test_cluster_review.py runs real servers and a worker."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from conftest import need

need("arq")
need("fastapi")

from canasta.web.guards import Refusal  # noqa: E402
from canasta.web.review_queue import ClusterReviewer, Scripts, key_of, review_id  # noqa: E402
from canasta.web.reviews import CLIENT_SHARE, TABLE_SHARE, Reviewer  # noqa: E402
from canasta.web.room import Settings  # noqa: E402

REDIS_URL = os.environ.get("CANASTA_TEST_REDIS", "redis://127.0.0.1:6379/0")
Key = tuple[str, int, int]


class Server:
    """What a ClusterReviewer needs of its hub: the cluster's Redis and prefix."""

    def __init__(self, redis: Any, prefix: str) -> None:
        self.redis = redis
        self.cluster = type("Cluster", (), {"prefix": prefix})()

    async def within(self, work: Awaitable[Any]) -> Any:
        return await asyncio.wait_for(work, 3)


async def connected() -> tuple[Any, str]:
    from arq.connections import create_pool

    from canasta.web.cluster_hub import ClusterConfig

    try:
        redis = await create_pool(ClusterConfig(REDIS_URL).redis_settings(), retry=0)
        await redis.ping()
    except Exception as exc:
        if os.environ.get("CANASTA_SERVICES_REQUIRED") == "1":
            pytest.fail(f"CANASTA_SERVICES_REQUIRED=1 but no Redis at {REDIS_URL}: {exc}")
        pytest.skip(f"no Redis at {REDIS_URL}: {exc}")
    return redis, f"canasta-test-{uuid.uuid4().hex[:12]}"


def run(scenario: Callable[[Any, str], Awaitable[None]]) -> None:
    async def main() -> None:
        redis, prefix = await connected()
        try:
            await scenario(redis, prefix)
        finally:
            keys = [k async for k in redis.scan_iter(match=f"{prefix}:*", count=1000)]
            keys += [k async for k in redis.scan_iter(match=f"arq:*:{prefix}:*", count=1000)]
            if keys:
                await redis.delete(*keys)
            await redis.aclose()

    asyncio.run(main())


def tasks(n: int) -> list[Any]:
    return [object()] * n  # the queue counts a review's decisions; it never reads them


async def positions(server: ClusterReviewer, keys: list[Key]) -> list[int]:
    out = []
    for key in keys:
        look = await server.look(key)
        assert look is not None, key
        out.append(look.position)
    return out


async def queued_turns(redis: Any, prefix: str) -> int:
    return int(await redis.zcard(f"{prefix}:reviews"))


def test_two_servers_share_one_fair_queue_and_its_shares() -> None:
    async def scenario(redis: Any, prefix: str) -> None:
        one, two = (ClusterReviewer(Server(redis, prefix), Settings(review_worlds=4)) for _ in range(2))
        hog = [("t1", 1, 0), ("t1", 2, 0), ("t2", 1, 0)]
        # the client "hog" asks for its whole share, on both servers; nothing is computed yet
        for key, server in zip(hog, (one, two, one), strict=True):
            look = await server.admit(key, tasks(5), "hog")
            assert look.state == "waiting" and look.total == 5
        assert await positions(two, hog) == [1, 2, 3]
        assert await queued_turns(redis, prefix) == 3  # a turn (an arq job) for each
        with pytest.raises(Refusal) as refused:  # the share is the cluster's, not a server's
            await two.admit(("t3", 1, 0), tasks(5), "hog")
        assert refused.value.status_code == 429 and "share of reviews" in str(refused.value.detail)
        assert refused.value.said("it").startswith("hai già la tua quota di analisi")
        # another client: its one review goes before the hog's second and third
        other = ("t4", 1, 0)
        assert (await one.admit(other, tasks(3), "other")).position == 2
        assert await positions(one, [hog[0], other, hog[1], hog[2]]) == [1, 2, 3, 4]
        # a worker's turn takes the first in that order, then the next
        scripts = Scripts(redis, prefix)
        far = 2**62
        assert key_of((await scripts.run("claim", far))[0].decode()) == hog[0]
        assert await positions(two, [hog[0], other, hog[1], hog[2]]) == [0, 1, 2, 3]
        assert key_of((await scripts.run("claim", far))[0].decode()) == other
        # asked again while it waits or runs: the same review, not a second one
        assert (await two.admit(hog[1], tasks(5), "hog")).position == 1
        # a table's share: TABLE_SHARE reviews of one table waiting or running, whoever asks
        for n in range(TABLE_SHARE - 2):  # the hog's two at t1 are in it
            await (one, two)[n % 2].admit(("t1", 10 + n, 0), tasks(1), f"c{n}")
        with pytest.raises(Refusal) as full:
            await one.admit(("t1", 99, 0), tasks(1), "late")
        assert full.value.status_code == 429 and "this table already has its share" in str(full.value.detail)
        # done: off the queue; the shares count it no more
        assert (await scripts.run("finish", review_id(hog[0]), "done", 60))[0] == 1
        assert await one.look(hog[0]) is None
        await two.admit(("t3", 1, 0), tasks(5), "hog")  # the hog has room for one more now

    run(scenario)
    assert CLIENT_SHARE == 3


def test_the_cluster_orders_as_one_server_does() -> None:
    """The same arrivals and starts give the same positions in Redis as in one server's memory."""
    arrivals: list[tuple[Key, str]] = [
        (("a", 1, 0), "x"), (("a", 2, 0), "x"), (("b", 1, 0), "x"), (("c", 1, 0), "y"),
        (("a", 3, 0), "z"), (("c", 2, 0), "y"), (("d", 1, 0), "w")]

    def memory() -> list[list[int]]:
        async def go() -> list[list[int]]:
            reviewer = Reviewer(None, Settings(review_workers=1))  # type: ignore[arg-type]
            gate = asyncio.Event()

            async def blocked(task: Any) -> None:
                await gate.wait()

            reviewer.processes.evaluate = blocked  # type: ignore[method-assign]
            seen = []
            for key, client in arrivals:
                reviewer.start(key, tasks(1), client)
                seen.append([reviewer.position(k) for k, _c in arrivals if k in reviewer.jobs])
            gate.set()
            await reviewer.close()
            return seen

        return asyncio.run(go())

    expected = memory()

    async def scenario(redis: Any, prefix: str) -> None:
        server = ClusterReviewer(Server(redis, prefix), Settings())
        scripts = Scripts(redis, prefix)
        seen = []
        for i, (key, client) in enumerate(arrivals):
            await server.admit(key, tasks(1), client)
            if i == 0:  # one review process: the first starts at once, as on one server
                await scripts.run("claim", 2**62)
            seen.append(await positions(server, [k for k, _c in arrivals[:i + 1]]))
        assert seen == expected

    run(scenario)


def test_a_dead_workers_review_goes_back_to_its_place_with_a_new_turn() -> None:
    async def scenario(redis: Any, prefix: str) -> None:
        server = ClusterReviewer(Server(redis, prefix), Settings())
        scripts = Scripts(redis, prefix)
        first, second = ("t", 1, 0), ("t", 1, 1)
        await server.admit(first, tasks(4), "x")
        await server.admit(second, tasks(4), "y")
        turns = await queued_turns(redis, prefix)
        claimed, *_ = await scripts.run("claim", 1)  # a lease that ended long ago: its worker died
        assert key_of(claimed.decode()) == first
        look = await server.look(first)  # any look puts it back, at its place, and enqueues a turn
        assert look is not None and look.state == "waiting" and look.position == 1 and look.done == 0
        assert await queued_turns(redis, prefix) == turns + 1
        assert (await scripts.run("renew", review_id(first), 2**62, 2))[0] == 0  # its worker lost the lease
        assert (await server.look(second)).position == 2  # type: ignore[union-attr]
        # a failed review is said once, then may be asked again
        claimed, *_ = await scripts.run("claim", 2**62)
        await scripts.run("finish", claimed.decode(), "failed", 60)
        assert (await server.look(first)).state == "failed"  # type: ignore[union-attr]
        await server.forget(first)
        assert await server.look(first) is None

    run(scenario)


def test_a_refusal_when_redis_is_away() -> None:
    async def scenario(redis: Any, prefix: str) -> None:
        hub = Server(redis, prefix)
        server = ClusterReviewer(hub, Settings())
        hub.redis = None  # not connected (yet)
        with pytest.raises(Refusal) as refused:
            await server.look(("t", 1, 0))
        assert refused.value.status_code == 503 and "does not answer right now" in str(refused.value.detail)

    run(scenario)


def test_a_waiting_review_whose_job_was_lost_gets_a_new_one() -> None:
    async def scenario(redis: Any, prefix: str) -> None:
        server = ClusterReviewer(Server(redis, prefix), Settings())
        await server.admit(("t", 1, 0), tasks(4), "x")
        assert await queued_turns(redis, prefix) == 1
        await redis.delete(f"{prefix}:reviews")  # its job lost (Redis failed over, say)
        assert (await server.look(("t", 1, 0))).state == "waiting"  # type: ignore[union-attr]
        assert await queued_turns(redis, prefix) == 1  # a new turn

    run(scenario)


def test_a_full_queue_refuses_for_a_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    from canasta.web import review_queue

    monkeypatch.setattr(review_queue, "MAX_WAITING", 2)

    async def scenario(redis: Any, prefix: str) -> None:
        one, two = (ClusterReviewer(Server(redis, prefix), Settings()) for _ in range(2))
        await one.admit(("a", 1, 0), tasks(1), "x")
        await two.admit(("b", 1, 0), tasks(1), "y")
        with pytest.raises(Refusal) as busy:
            await one.admit(("c", 1, 0), tasks(1), "z")
        assert busy.value.status_code == 429 and busy.value.headers == {"Retry-After": "5"}
        assert str(busy.value.detail) == "the server is reviewing other hands: try again in a moment"
        assert await one.look(("c", 1, 0)) is None  # refused: nothing queued

    run(scenario)
