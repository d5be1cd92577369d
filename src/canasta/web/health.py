"""What a supervisor or a load balancer asks: ``/healthz`` (the process answers),
``/readyz`` (its database and Redis answer) and ``/metrics`` (Prometheus text)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, PlainTextResponse

from canasta.web.hub import NotReady
from canasta.web.redact import said
from canasta.web.service import TheCardRoom

routes = APIRouter(include_in_schema=False)


@routes.get("/healthz")
async def healthz() -> dict[str, Any]:
    """Liveness: the process answers."""
    return {"status": "ok"}


@routes.get("/readyz")
async def readyz(card: TheCardRoom) -> JSONResponse:
    """Readiness: the database (and, in a cluster, Redis) answer."""
    try:
        await card.hub.ping()
    except NotReady as exc:  # a short reason of the server's own: no address, no password
        return JSONResponse({"status": "unavailable", "reason": str(exc)}, status_code=503)
    except Exception as exc:
        card.hub.warn(f"readiness: {said(exc)}")
        return JSONResponse({"status": "unavailable", "reason": "error"}, status_code=503)
    return JSONResponse({"status": "ready"})


@routes.get("/metrics")
async def metrics(card: TheCardRoom) -> PlainTextResponse:
    """Prometheus text format: tables, sockets, moves, latency, the job queue."""
    hub = card.hub
    statuses = Counter(r.status for r in hub.rooms.values())
    try:
        depth: float = await hub.queue_depth()
    except Exception:
        depth = float("nan")
    gauges = {
        "canasta_tables": ("live tables held by this process, by status",
                           {f'{{status="{k}"}}': float(statuses.get(k, 0)) for k in ("open", "playing", "finished")}),
        "canasta_sockets": ("open websockets on this process", {"": float(sum(hub.sockets.values()))}),
        "canasta_queue_depth": ("jobs (bots, timers) waiting in the queue, deferred ones included",
                                {"": depth}),
    }
    return PlainTextResponse(hub.metrics.render(gauges), media_type="text/plain; version=0.0.4")
