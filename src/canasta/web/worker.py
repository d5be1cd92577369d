"""A cluster's worker: bots, turn timers, grace periods, deals and idle tables.

    canasta serve --worker --db postgresql://… --redis redis://…     (as many as you like)

Jobs come from an arq queue in Redis (``PREFIX:queue``), enqueued by the servers
and by the workers themselves after each event (:mod:`canasta.web.cluster`).  A
job re-reads its table from the database and acts only if the state it was
made for is still there; it writes by inserting the next event number, so a
retried job (its worker died) or a job run twice changes a table at most once.
A worker that dies mid-job leaves the job in the queue: another worker runs it
when the dead one's lock on it expires (``--job-timeout`` + 1 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from typing import Any

from canasta.errors import CanastaError
from canasta.web.cluster import (
    ClusterConfig,
    ClusterHub,
    ClusterStore,
    job_bot,
    job_deal,
    job_grace,
    job_sweep,
    job_turn,
)
from canasta.web.room import Settings

POLL = 0.2  # seconds between a worker's looks at the queue (each look checks every job due)


async def run_worker(db_url: str, settings: Settings, cluster: ClusterConfig, job_timeout: float = 5.0,
                     concurrency: int = 500) -> None:
    from arq import cron, func
    from arq.connections import RedisSettings
    from arq.worker import Worker

    store = ClusterStore(db_url)
    hub = ClusterHub(store, settings, cluster, serving=False)
    await hub.connect()
    p = cluster.prefix

    async def startup(ctx: dict[str, Any]) -> None:
        ctx["hub"] = hub

    functions = [func(job_bot, name="bot", timeout=job_timeout, max_tries=5),
                 func(job_deal, name="deal", timeout=job_timeout, max_tries=5),
                 func(job_grace, name="grace", timeout=job_timeout, max_tries=5),
                 func(job_turn, name="turn", timeout=job_timeout, max_tries=5)]
    crons = [cron(job_sweep, name=f"{p}:sweep", second={0}, timeout=60, unique=True,
                  run_at_startup=False)]
    worker = Worker(functions=functions, cron_jobs=crons, queue_name=cluster.queue,
                    redis_settings=RedisSettings.from_dsn(cluster.redis_url), on_startup=startup,
                    poll_delay=POLL, max_jobs=concurrency, keep_result=60, job_timeout=job_timeout,
                    health_check_key=f"{p}:worker-health", health_check_interval=10,
                    handle_signals=False, max_tries=5)
    # a dead worker's job is run again once its lock expires: soon after the job's own time limit
    worker.in_progress_timeout_s = job_timeout + 1.0
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"canasta: worker ready (queue {cluster.queue})", flush=True)
    main = asyncio.create_task(worker.async_run())
    waiting = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({main, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if main.done() and main.exception() is not None:
            raise CanastaError(f"the worker stopped: {main.exception()}")
    finally:
        main.cancel()
        waiting.cancel()
        await worker.close()
        await hub.shutdown()
        store.close()


def main_worker(db_url: str, settings: Settings, cluster: ClusterConfig, job_timeout: float) -> int:
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_worker(db_url, settings, cluster, job_timeout))
    print("canasta: worker stopped", file=sys.stderr, flush=True)
    return 0


__all__ = ["main_worker", "run_worker"]
