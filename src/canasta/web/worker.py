"""A cluster's worker: bots, turn timers, grace periods, deals, idle tables, and reviews.

    canasta serve --worker --db postgresql://… --redis redis://…     (as many as you like)

Jobs (:mod:`canasta.web.jobs`, the same a single server runs on its own loop) come
from an arq queue in Redis (``PREFIX:queue``), enqueued by the servers and by the
workers themselves after each event.  A job re-reads its table from the database
and acts only if the state it was made for is still there; it writes by inserting
the next event number, so a retried job (its worker died) or a job run twice
changes a table at most once.
A worker that dies mid-job leaves the job in the queue: another worker runs it
when the dead one's lock on it expires (``--job-timeout`` + 1 s).

Reviews of hands come from a queue of their own (``PREFIX:reviews``, :mod:`canasta.web.review_queue`):
each job is a turn at computing the review first in the cluster's fair order, in this
worker's review processes (``--review-workers``, as many reviews at once).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from canasta.web.cluster_hub import ClusterConfig, ClusterHub
from canasta.web.jobs import BACKOFF, JOB_TRIES, JOBS, job_sweep, retry_delay
from canasta.web.redact import said
from canasta.web.review_queue import REVIEW_JOB_TIMEOUT, ReviewWork
from canasta.web.room import Settings
from canasta.web.store import Store

if TYPE_CHECKING:
    from arq.typing import WorkerCoroutine

POLL = 0.2  # seconds between a worker's looks at the queue (each look checks every job due)


def retried(job: Callable[..., Awaitable[Any]]) -> WorkerCoroutine:
    """``job`` (:mod:`canasta.web.jobs`) as an arq function, run again with backoff when it
    fails: a job states what it waits for and checks it before acting, so running it again
    is safe; the servers' heartbeat enqueues a job again if every try failed."""
    from arq.worker import Retry

    async def run(ctx: dict[str, Any], *args: Any) -> None:
        try:
            await job(ctx["hub"], *args)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            tries = int(ctx.get("job_try") or 1)
            delay = retry_delay(tries)
            print(f"canasta: job {ctx.get('job_id')} failed (try {tries}): {said(exc)}; again in {delay:g} s",
                  file=sys.stderr, flush=True)
            raise Retry(defer=delay) from None

    run.__name__ = run.__qualname__ = job.__name__
    return cast("WorkerCoroutine", run)


async def run_worker(db_url: str, settings: Settings, cluster: ClusterConfig, job_timeout: float = 5.0,
                     concurrency: int = 500) -> None:
    from arq import cron, func
    from arq.worker import Worker

    store = Store(db_url)
    hub = ClusterHub(store, settings, cluster, serving=False)
    await hub.connect()
    p = cluster.prefix
    reviews = ReviewWork(store, settings, hub.redis, p)

    async def startup(ctx: dict[str, Any]) -> None:
        ctx["hub"] = hub

    async def review(ctx: dict[str, Any]) -> None:
        """A turn at computing a review: the first in the cluster's fair order (canasta.web.review_queue)."""
        await reviews.turn()

    functions = [func(retried(job), name=name, timeout=job_timeout, max_tries=JOB_TRIES)
                 for name, job in sorted(JOBS.items())]
    crons = [cron(retried(job_sweep), name=f"{p}:sweep", second={0}, timeout=60, unique=True,
                  run_at_startup=False)]

    def table_worker() -> Worker:
        # a job's result is not kept (keep_result=0): a job id that failed every try may be
        # enqueued again at once; while queued or running, an id is still taken once
        worker = Worker(functions=functions, cron_jobs=crons, queue_name=cluster.queue,
                        redis_settings=cluster.redis_settings(), on_startup=startup,
                        poll_delay=POLL, max_jobs=concurrency, keep_result=0, job_timeout=job_timeout,
                        health_check_key=f"{p}:worker-health", health_check_interval=10,
                        handle_signals=False, max_tries=JOB_TRIES)
        # a dead worker's job is run again once its lock expires: soon after the job's own time limit
        worker.in_progress_timeout_s = job_timeout + 1.0
        return worker

    def review_worker() -> Worker:
        # reviews have a queue of their own: long jobs, as many at once as this worker has review
        # processes (a dead worker's review is put back in the queue by its lease, not by arq)
        return Worker(functions=[func(review, name="review", timeout=REVIEW_JOB_TIMEOUT, max_tries=3)],
                      queue_name=f"{p}:reviews", redis_settings=cluster.redis_settings(),
                      poll_delay=POLL, max_jobs=max(1, settings.review_workers), keep_result=0,
                      job_timeout=REVIEW_JOB_TIMEOUT, health_check_key=f"{p}:review-worker-health",
                      health_check_interval=10, handle_signals=False, max_tries=3)

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    waiting = asyncio.create_task(stop.wait())
    try:
        both = [asyncio.create_task(_supervise(table_worker, stop, waiting)),
                asyncio.create_task(_supervise(review_worker, stop, waiting))]
        print(f"canasta: worker ready (queue {cluster.queue}, reviews {p}:reviews)", flush=True)
        await asyncio.gather(*both)
    finally:
        waiting.cancel()
        reviews.close()
        await hub.shutdown()
        store.close()


async def _supervise(make: Callable[[], Any], stop: asyncio.Event, waiting: asyncio.Task[Any]) -> None:
    """Run the arq worker ``make`` makes until ``stop``; when Redis goes away (or it stops),
    connect again, with backoff, rather than exit."""
    pause = BACKOFF[0]
    while not stop.is_set():
        began = time.monotonic()
        try:
            worker = make()
            queue = worker.queue_name
            main = asyncio.create_task(worker.async_run())
            await asyncio.wait({main, waiting}, return_when=asyncio.FIRST_COMPLETED)
            if not main.done():
                main.cancel()
            with contextlib.suppress(BaseException):
                await main
            with contextlib.suppress(Exception):
                await worker.close()
            problem: BaseException | None = main.exception() if not main.cancelled() else None
        except Exception as exc:  # whatever went wrong, the worker connects again rather than exit
            queue, problem = "?", exc
        if stop.is_set():
            break
        if time.monotonic() - began > 30:
            pause = BACKOFF[0]  # it ran a while: a new outage starts with a short wait
        print(f"canasta: worker lost its queue {queue} ({said(problem) if problem else problem}); "
              f"connecting again in {pause:g} s", file=sys.stderr, flush=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(waiting), pause)
        pause = min(pause * 2, BACKOFF[1] * 2)


def main_worker(db_url: str, settings: Settings, cluster: ClusterConfig, job_timeout: float) -> int:
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_worker(db_url, settings, cluster, job_timeout))
    print("canasta: worker stopped", file=sys.stderr, flush=True)
    return 0


__all__ = ["main_worker", "run_worker"]
