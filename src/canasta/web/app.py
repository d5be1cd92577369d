"""The FastAPI application: the card room's routes put together.

``create_app(db_url)`` builds it; ``canasta serve`` runs it on uvicorn.  The routes
live by what they serve: :mod:`~canasta.web.lobby` (creating and joining tables),
:mod:`~canasta.web.sockets` (a table's websocket), :mod:`~canasta.web.records`
(finished matches), :mod:`~canasta.web.pages` and :mod:`~canasta.web.health`; what
every request passes first is :mod:`~canasta.web.guards`; what they share is
:class:`~canasta.web.service.CardRoom`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import SQLAlchemyError

from canasta.i18n import translator
from canasta.web import (
    account_routes,
    health,
    lobby,
    moderation,
    pages,
    passkey_routes,
    profiles,
    ranked,
    rated_routes,
    records,
    review_queue,
    reviews,
    social_routes,
    sockets,
    tournament_play,
    tournament_reviews,
    tournament_routes,
)
from canasta.web.account_store import AccountStore
from canasta.web.accounts import Accounts
from canasta.web.guards import HostCheck, Refusal, SecurityHeaders, normalise_origin
from canasta.web.hub import Hub
from canasta.web.language import choose
from canasta.web.passkey_auth import Passkeys
from canasta.web.passkeys import PasskeyStore
from canasta.web.rated import RatedPlay
from canasta.web.redact import said
from canasta.web.room import DB_UNAVAILABLE, Settings
from canasta.web.service import CardRoom
from canasta.web.social import Social
from canasta.web.social_store import SocialStore
from canasta.web.store import Store

if TYPE_CHECKING:
    from canasta.web.cluster_hub import ClusterConfig


async def freeze_survivors(every: float = 5.0) -> None:
    """Move the objects that survived so far out of the collector's sight.

    Live tables hold many long-lived objects (a game keeps its move stack); a full
    collection over hundreds of tables stalls every table for half a second.  The
    engine makes almost no reference cycles (measured: well under one object per
    move), so freezing survivors costs nearly nothing and keeps collections short."""
    while True:
        await asyncio.sleep(every)
        gc.freeze()


def create_app(db_url: str = "canasta.db", *, settings: Settings | None = None,
               cluster: ClusterConfig | None = None) -> FastAPI:
    """The card room on ``db_url``; with ``cluster``, one of several servers on one
    database and one Redis (:mod:`canasta.web.cluster_hub`)."""
    store = Store(db_url)
    hub: Hub
    if cluster is None:
        hub = Hub(store, settings)
    else:
        from canasta.web.cluster_hub import ClusterHub

        hub = ClusterHub(store, settings, cluster)
    cfg = hub.settings
    reviewer = review_queue.make_reviewer(store, cfg, hub)
    accounts = Accounts(AccountStore(store.engine), store.vault, hub.db)
    social = Social(SocialStore(store.engine), accounts, hub)  # friends, mutes, blocks, bans' sockets
    rated = RatedPlay(hub, store, accounts.store)  # rated tables' results in the ratings (canasta.web.rated)
    allowed = frozenset(o for o in (normalise_origin(a) for a in cfg.allow_origins) if o is not None)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await hub.astart()
        freezer = asyncio.create_task(freeze_survivors())
        social.start()
        rated.start()
        await tournament_routes.resume_all(app.state.card_room)  # tournaments go on after a restart
        yield
        freezer.cancel()
        await rated.close()
        await social.close()
        await reviewer.close()
        accounts.close()
        await hub.shutdown()
        store.close()

    docs = cfg.api_docs  # off by default: the API is the lobby's, not a public one
    app = FastAPI(title="canasta", lifespan=lifespan, docs_url="/docs" if docs else None,
                  redoc_url="/redoc" if docs else None, openapi_url="/openapi.json" if docs else None)
    app.add_middleware(SecurityHeaders, docs_paths=("/docs", "/redoc") if docs else ())
    if cfg.allowed_hosts:
        app.add_middleware(HostCheck, allowed=cfg.allowed_hosts)
    app.state.hub = hub
    app.state.reviewer = reviewer
    app.state.accounts = accounts
    app.state.social = social
    app.state.rated = rated
    app.state.ranked = ranked.RankedQueue(store.engine)  # the ranked queue (canasta.web.ranked)
    app.state.passkeys = Passkeys(PasskeyStore(store.engine), accounts)
    app.state.card_room = CardRoom(hub, store, cfg, allowed)
    app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    app.add_exception_handler(Refusal, refused)  # type: ignore[arg-type]
    app.add_exception_handler(SQLAlchemyError, database_away)
    app.add_exception_handler(TimeoutError, database_away)  # a database call given up (Hub.db)
    for part in (pages, health, lobby, records, reviews, sockets, account_routes, passkey_routes, profiles,
                 social_routes, moderation, rated_routes, ranked, tournament_routes, tournament_reviews,
                 tournament_play):
        app.include_router(part.routes)
    return app


async def refused(request: Request, exc: Refusal) -> JSONResponse:
    """A refusal, said in the asker's language."""
    lang = choose(request.query_params.get("lang"), request.headers.get("accept-language"))
    return JSONResponse({"detail": exc.said(lang)}, status_code=exc.status_code, headers=exc.headers)


async def database_away(request: Request, exc: Exception) -> JSONResponse:
    """The database did not answer: 503, try again (nothing was changed); the log line says why,
    without a password; the answer says nothing of the database's address."""
    print(f"canasta: {request.method} {request.url.path}: the database: {said(exc)}", file=sys.stderr, flush=True)
    lang = choose(request.query_params.get("lang"), request.headers.get("accept-language"))
    text = translator(lang).gettext(DB_UNAVAILABLE)
    return JSONResponse({"detail": text}, status_code=503, headers={"Retry-After": "2"})


__all__ = ["create_app"]
