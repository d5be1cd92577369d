"""What a supervisor or a load balancer asks: ``/healthz`` (the process answers),
``/readyz`` (its database and Redis answer) and ``/metrics`` (Prometheus text).

``/metrics`` is not public: with a token (``CANASTA_METRICS_TOKEN`` in the server's environment,
:attr:`Settings.metrics_token`) it answers a scraper that sends ``Authorization: Bearer TOKEN``
and nobody else (401); without one, only a client on this machine (a loopback address) that came
through no proxy (no ``X-Forwarded-For``): anyone else is refused (403) with the reason."""

from __future__ import annotations

import ipaddress
import secrets
from collections import Counter
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from canasta.web.guards import client_address
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


METRICS_TOKEN = "CANASTA_METRICS_TOKEN"  # the environment variable that holds the scrapers' token


def metrics_refusal(request: Request, token: str | None) -> JSONResponse | None:
    """Why this request may not read the metrics (an answer to send), or None."""
    if token:
        given = request.headers.get("authorization", "")
        if secrets.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return None
        return JSONResponse({"detail": "the metrics need the scrapers' token: Authorization: Bearer TOKEN"},
                            status_code=401, headers={"WWW-Authenticate": "Bearer"})
    host = client_address(request)
    try:
        local = ipaddress.ip_address(host).is_loopback
    except ValueError:
        local = False
    if local and "x-forwarded-for" not in request.headers:
        return None
    return JSONResponse({"detail": f"the metrics are served to this machine only; to scrape them from elsewhere, "
                                   f"start the server with {METRICS_TOKEN} set and send it as a bearer token "
                                   "(docs/deploy.md)"}, status_code=403)


@routes.get("/metrics", response_model=None)
async def metrics(request: Request, card: TheCardRoom) -> PlainTextResponse | JSONResponse:
    """Prometheus text format: tables, sockets, moves, latency, the job queue (to whom
    :func:`metrics_refusal` lets in)."""
    refused = metrics_refusal(request, card.settings.metrics_token)
    if refused is not None:
        return refused
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
