"""The FastAPI application: lobby API, pages, the table websocket.

``create_app(db_url)`` builds it; ``canasta serve`` runs it on uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import html
import ipaddress
import json
import math
import re
import secrets
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import SQLAlchemyError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from canasta.errors import CanastaError
from canasta.i18n import N_, Translator, translator
from canasta.rules import PRESETS, RuleSet
from canasta.table import Table, seat_names
from canasta.web.hub import Hub
from canasta.web.language import catalog, choose, localize, say_error
from canasta.web.room import (
    BOT_LEVELS,
    DB_UNAVAILABLE,
    MAX_BOT_DELAY,
    MAX_MESSAGE,
    NOT_SAVED,
    Conn,
    Room,
    Settings,
    error,
)
from canasta.web.store import SeatRow, Store, TableRow, hash_token

if TYPE_CHECKING:
    from canasta.web.cluster_store import ClusterConfig

STATIC = Path(__file__).parent / "static"
MAX_NAME = 24
HELLO_TIMEOUT = 20.0
MAX_BODY = 16384
MAX_SEED = 2**63 - 1
DEFAULT_PORTS = {"http": 80, "https": 443}
HOST_CHARS = re.compile(r"^[A-Za-z0-9.:\[\]-]+$")


def clean_name(value: Any, default: str = "") -> str:
    if not isinstance(value, str):
        return default
    text = " ".join(value.split())[:MAX_NAME]
    return "".join(ch for ch in text if ch.isprintable()) or default


class Refusal(HTTPException):
    """A request refused: ``detail`` is said in the asker's language when the answer is
    sent (``?lang=``, else Accept-Language) from the English ``template`` and its ``fields``."""

    def __init__(self, template: str, status: int, headers: dict[str, str] | None, fields: dict[str, Any]) -> None:
        super().__init__(status_code=status, detail=template.format(**fields) if fields else template, headers=headers)
        self.template = template
        self.fields = fields

    def said(self, lang: str) -> str:
        if lang == "en":
            return str(self.detail)
        text = translator(lang).gettext(self.template)
        try:
            return text.format(**self.fields) if self.fields else text
        except (KeyError, IndexError, ValueError):  # a translation that lost a field
            return str(self.detail)


def bad(message: str, status: int = 400, headers: dict[str, str] | None = None, **fields: Any) -> HTTPException:
    """A refusal; what a person may read is marked ``N_(...)`` with ``{field}`` places."""
    return Refusal(message, status, headers, fields)


def is_int(value: Any) -> TypeGuard[int]:
    """A JSON whole number (``true`` is not 1, ``1.0`` is not 1)."""
    return type(value) is int


# ------------------------------------------------------------------ origins


def normalise_origin(value: str) -> str | None:
    """``scheme://host:port`` (port always written, host lower case), or None if ``value``
    is not an origin (``null``, a path, another scheme)."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.fragment or parts.username or parts.password:
        return None
    host = parts.hostname.lower()
    if ":" in host:  # IPv6
        host = f"[{host}]"
    return f"{scheme}://{host}:{port or DEFAULT_PORTS[scheme]}"


def own_origin(scope: Scope, headers: Mapping[str, str]) -> str | None:
    """The origin a page of this server has, as the request reached us: its scheme
    (``https``/``wss`` when uvicorn trusts the proxy's X-Forwarded-Proto) and Host."""
    scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme", "http"), scope.get("scheme", "http"))
    host = headers.get("host", "")
    if not host or not HOST_CHARS.match(host):
        return None
    return normalise_origin(f"{scheme}://{host}")


def origin_refusal(scope: Scope, headers: Mapping[str, str], allowed: Iterable[str]) -> str | None:
    """Why a request's ``Origin`` is refused, or None.  Browsers send ``Origin`` with
    every websocket and cross-site POST; a request without one (curl, scripts) is
    not from another site's page and is let through."""
    origin = headers.get("origin")
    if origin is None:
        return None
    mine = normalise_origin(origin)
    if mine is not None and (mine == own_origin(scope, headers) or mine in allowed):
        return None
    return (f"requests from pages of {origin[:100]!r} are not accepted here (only from this server's own "
            "pages; behind a proxy, start the server with --allow-origin)")


# ---------------------------------------------------------- security headers

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'{ws}; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
           (b"x-frame-options", b"DENY")]


class SecurityHeaders:
    """Every HTTP response (pages, static files, API) gets a Content-Security-Policy
    that allows no inline script, no framing, no MIME sniffing and no referrer.
    ``'unsafe-inline'`` is allowed for styles only (a page has style attributes)."""

    def __init__(self, app: ASGIApp, docs_paths: Iterable[str] = ()) -> None:
        self.app = app
        self.docs_paths = set(docs_paths)  # the API docs load their script from a CDN

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = list(HEADERS)
        if scope.get("path") not in self.docs_paths:
            host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
            ws = f" ws://{host} wss://{host}" if host and HOST_CHARS.match(host) else ""
            extra.append((b"content-security-policy", CSP.format(ws=ws).encode()))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []), *((k, v) for k, v in extra if k not in present)]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def host_allowed(host: str, allowed: Iterable[str]) -> bool:
    """Is ``host`` (a Host header: a name or an address, maybe with a port) one of
    ``allowed``?  An entry is a name or address, ``*.example.org`` (any name under it),
    ``*ip`` (any address given as numbers: a server on every interface) or ``*`` (any)."""
    name = host.strip().lower()
    if name.startswith("["):  # [::1]:8000
        name = name[1:].split("]", 1)[0]
    elif name.count(":") == 1:
        name = name.split(":", 1)[0]
    name = name.rstrip(".")
    for entry in allowed:
        entry = entry.lower()
        if entry == "*" or entry == name:
            return True
        if entry.startswith("*.") and name.endswith(entry[1:]):
            return True
        if entry == "*ip":
            with contextlib.suppress(ValueError):
                ipaddress.ip_address(name)
                return True
    return False


class HostCheck:
    """Refuse requests and websockets whose Host header names another server (a page of
    another site that points its own name at this address: DNS rebinding)."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        self.allowed = tuple(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
            if not host_allowed(host, self.allowed):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 4400})
                    return
                text = (f"this card room does not answer to the name {host[:80]!r}: ask for it by its own "
                        "address (its operator adds names with canasta serve --allowed-host NAME)")
                await PlainTextResponse(text, status_code=400)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def presets_info(lang: str = "en") -> list[dict[str, Any]]:
    """Every preset and its house rules; ``label``, ``topic`` and ``choice_names`` in ``lang``."""
    tr = translator(lang)
    out = []
    for name, rules in sorted(PRESETS.items()):
        out.append({
            "name": name, "label": tr.preset(name), "players": rules.players, "family": rules.family,
            "target": rules.target,
            "options": [{"id": o.id, "topic": tr.option(o.id), "choices": list(o.choices),
                         "choice_names": [tr.choice(c) for c in o.choices], "value": getattr(rules, o.field),
                         "rule": o.rule} for o in rules.options],
        })
    return out


def build_rules(preset: Any, options: Any, target: Any) -> RuleSet:
    """The rule set the lobby form describes: a preset, house rules among the preset's
    options (each value one of the option's choices, of the same type), a target."""
    if not isinstance(preset, str):
        raise bad("choose a rules preset")
    try:
        rules = RuleSet.preset(preset)
        changes: dict[str, Any] = {}
        if options is not None:
            if not isinstance(options, dict):
                raise bad("house rules must be an object of option id: value")
            known = {o.id: o for o in rules.options}
            for key, value in options.items():
                opt = known.get(key)
                if opt is None:
                    raise bad(f"unknown house rule {key[:40]!r} for {rules.name}: the options are "
                              f"{', '.join(known)} (the target score has its own field)")
                if not any(type(value) is type(c) and value == c for c in opt.choices):
                    raise bad(f"house rule {opt.id} ({opt.topic}) must be one of "
                              f"{', '.join(json.dumps(c) for c in opt.choices)}")
                changes[key] = value
        if target not in (None, ""):
            if not is_int(target) or not 100 <= target <= 100000:
                raise bad(N_("the target score must be a whole number from {low} to {high}"), low=100, high=100000)
            changes["target"] = target
        return rules.with_options(changes) if changes else rules
    except CanastaError as exc:
        raise bad(str(exc)) from None


def text_field(body: Mapping[str, Any], key: str, what: str) -> Any:
    """``body[key]`` if it is text or absent/null; refused otherwise."""
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise bad(f"{what} must be text")
    return value


class Lobby:
    """Creating and joining tables (the HTTP side of the hub)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        rules = build_rules(body.get("preset", "classic-4p"), body.get("options"), body.get("target"))
        n = rules.players
        specs = body.get("seats")
        if not isinstance(specs, list) or len(specs) != n:
            raise bad(f"give {n} seats (open, bot or reserved) for {rules.name}")
        me = body.get("seat", 0)
        if not is_int(me) or not 0 <= me < n:
            raise bad(f"your seat must be a whole number from 0 to {n - 1}")
        my_name = clean_name(text_field(body, "name", "your name"))
        if not my_name:
            raise bad(N_("pick a name"))
        default_names = seat_names(n)
        seats: list[SeatRow] = []
        invites: dict[int, str] = {}
        token = secrets.token_urlsafe(24)
        for i, spec in enumerate(specs):
            if not isinstance(spec, dict):
                raise bad(f"seat {i}: expected an object like {{\"kind\": \"bot\", \"level\": \"basic\"}}")
            kind = spec.get("kind", "open")
            if not isinstance(kind, str):
                raise bad(f"seat {i}: kind must be open, bot or reserved")
            level = spec.get("level", "basic") if kind == "bot" else None
            name = text_field(spec, "name", f"seat {i}: the name")
            if i == me:
                seats.append(SeatRow(i, "human", my_name, None, hash_token(token)))
            elif kind == "bot":
                if not isinstance(level, str) or level not in BOT_LEVELS:
                    raise bad(f"seat {i}: bot level must be one of {', '.join(BOT_LEVELS)}")
                seats.append(SeatRow(i, "bot", default_names[i], level))
            elif kind == "open":
                seats.append(SeatRow(i, "open", default_names[i]))
            elif kind == "reserved":
                key = secrets.token_urlsafe(12)
                invites[i] = key
                seats.append(SeatRow(i, "reserved", clean_name(name, default_names[i]), None, None, hash_token(key)))
            else:
                raise bad(f"seat {i}: kind must be open, bot or reserved")
        turn_seconds = body.get("turn_seconds")
        if turn_seconds is None:
            turn_seconds = 0
        if not is_int(turn_seconds) or not (turn_seconds == 0 or 10 <= turn_seconds <= 600):
            raise bad("the turn timer is off (0) or a whole number of seconds from 10 to 600")
        seed = body.get("seed")
        if seed is not None and (not is_int(seed) or not 0 <= seed <= MAX_SEED):
            raise bad("the seed is a whole number from 0 to 2**63 - 1")
        bot_delay = body.get("bot_delay")
        if bot_delay is not None and (not isinstance(bot_delay, (int, float)) or isinstance(bot_delay, bool)
                                      or not 0 <= bot_delay <= MAX_BOT_DELAY):
            raise bad(f"the bots' pace (bot_delay) is a number of seconds from 0 to {MAX_BOT_DELAY:g}")
        title = text_field(body, "title", "the table's name")
        # Every deal is provably fair (docs/fair-deals.md): a secret per hand, committed
        # before the players' client seeds arrive.  A fixed seed only where the server
        # allows it (tests, demonstrations).
        fair = not (self.hub.settings.fixed_seeds and seed is not None)
        if fair or seed is None:
            seed = secrets.randbits(63)  # chooses the first dealer and the bots' own randomness, not the deal
        table = Table(rules, [s.level if s.kind == "bot" else None for s in seats], seed,
                      names=[s.name for s in seats], event="canasta serve", fair=fair, deal=not fair)
        table_id = secrets.token_urlsafe(8).replace("-", "x").replace("_", "y")
        config = {"title": clean_name(title, f"{my_name}'s table"), "preset": rules.name,
                  "turn_seconds": turn_seconds}
        if bot_delay is not None:
            config["bot_delay"] = float(bot_delay)
        status = "playing" if all(s.kind in ("human", "bot") for s in seats) else "open"
        now = time.time()
        self.hub.store.create(TableRow(table_id, now, now, status, config, table.to_dict(), 0, seats))
        room = self.hub.rooms[table_id] = self.hub.make_room(table_id, config, seats, table, 0, status)
        self.hub.after_create(room)
        return {"table": table_id, "seat": me, "token": token, "next_deal": next_deal(table),
                "invites": {str(i): f"/t/{table_id}?seat={i}&invite={k}" for i, k in invites.items()},
                "link": f"/t/{table_id}"}

    async def join(self, room: Room, body: dict[str, Any]) -> dict[str, Any]:
        seat = body.get("seat")
        name = clean_name(text_field(body, "name", "your name"))
        if not name:
            raise bad(N_("pick a name"))
        if not is_int(seat) or not 0 <= seat < room.players:
            raise bad(f"choose a seat: a whole number from 0 to {room.players - 1}")
        invite = text_field(body, "invite", "the invite")
        if room.status not in ("open", "playing"):
            raise bad(N_("the match is over"), 409)
        s = room.seats[seat]
        if s.kind == "reserved":
            if not isinstance(invite, str) or s.invite_hash is None or \
                    not secrets.compare_digest(hash_token(invite), s.invite_hash):
                raise bad(N_("this seat is reserved: use the invite link you were sent"), 403)
        elif s.kind != "open":
            raise bad(N_("this seat is taken"), 409)
        token = secrets.token_urlsafe(24)
        refused = await room.atake_seat(seat, name, hash_token(token))
        if refused is not None:
            raise bad(refused, 503 if refused == NOT_SAVED else 409)
        return {"table": room.id, "seat": seat, "token": token, "next_deal": next_deal(room.table)}

    def info(self, room: Room) -> dict[str, Any]:
        return {"table": room.id, "title": room.config.get("title"), "preset": room.table.rules.name,
                "status": room.status, "target": room.table.rules.target,
                "seats": [{"seat": s.seat, "name": room.table.names[s.seat], "kind": s.kind, "level": s.level,
                           "connected": room.connected(s.seat)} for s in room.seats]}


def next_deal(table: Table) -> dict[str, Any] | None:
    """The next hand's number and the server's commitment to it (a fair table), so that a
    player sees it before sending the client seed that goes into that deal."""
    shown = table.next_commitment()
    return None if shown is None else {"hand": table.hand_number + 1, "commitment": shown}


def replay_frames(row: TableRow) -> dict[str, Any]:
    """Every position of a finished match, all hands shown (the match is over)."""
    saved = row.state
    frames: list[dict[str, Any]] = []
    table: Table | None = None
    for table, seat, move in Table.replay(saved):
        view = table.spectator_view().to_dict(include_rules=False)
        text = f"Hand {table.hand_number} dealt" if move is None else table.describe(seat, move)
        frames.append({"hand": table.hand_number, "text": text, "seat": seat,
                       "move": None if move is None else str(move), "view": view,
                       "hands": [table.view(s).to_dict()["hand"] for s in range(table.rules.players)],
                       "totals": list(table.match.totals)})
    if table is not None:
        table.close()
    return {"table": row.id, "names": saved.get("names"), "rules": saved["rules"], "frames": frames}


def rules_page(rules: RuleSet, title: str, tr: Translator) -> str:
    """A table's rules as a page, in ``tr``'s language: the preset, the initial-meld
    minimums and every option with its value, default, spec section and sources.
    (Texts are looked up outside the f-strings, where the catalog's extractor finds them.)"""
    e = html.escape
    default, house = tr.gettext("default"), tr.gettext("house rule (default {value})")
    rows = []
    for o in rules.options:
        value = getattr(rules, o.field)
        mark = default if value == o.choices[0] else house.format(value=tr.choice(o.choices[0]))
        rows.append(f"<tr><td>{e(o.id)}</td><td>{e(tr.option(o.id))}</td><td><b>{e(tr.choice(value))}</b> "
                    f"({e(mark)})</td><td>{e(o.rule)}</td><td>{e(tr.sources(o.sources))}</td></tr>")
    below, above = tr.gettext("below 0"), tr.gettext("from {score}")
    mins = []
    for lo, need in rules.minimum_table:
        score = below if lo <= -10**8 else above.format(score=tr.number(lo))
        points = tr.nplural("{n} point", "{n} points", need)
        mins.append(f"<li>{e(score)}: {e(points)}</li>")
    facts = ", ".join((
        tr.nplural("{n} player", "{n} players", rules.players), tr.nplural("{n} pack", "{n} packs", rules.packs),
        tr.nplural("{n} card each", "{n} cards each", rules.hand_size),
        tr.nplural("draw {n} card", "draw {n} cards", rules.draw_count),
        tr.gettext("target {score}").format(score=tr.number(rules.target)),
        tr.nplural("{n} canasta to go out", "{n} canastas to go out", rules.canastas_to_go_out)))
    head = "".join(f"<th>{e(h)}</th>" for h in (tr.gettext("Option"), tr.gettext("Topic"), tr.gettext("Value"),
                                                  tr.gettext("Rule"), tr.gettext("Sources")))
    page_title = tr.gettext("Rules: {title}").format(title=title)
    heading = tr.gettext("Rules of this table")
    minimums = tr.gettext("Initial meld minimums (by your side's score)")
    options = tr.gettext("Options")
    spec = tr.gettext("Rule numbers refer to the Canasta specification shipped with the engine.")
    return f"""<!doctype html><html lang="{e(tr.lang)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{e(page_title)}</title>
<link rel="stylesheet" href="/static/style.css"></head><body class="page">
<h1>{e(heading)}</h1>
<p><b>{e(tr.preset(rules.name))}</b> ({e(rules.name)}, {e(tr.family(rules.family))}): {e(facts)}.</p>
<h2>{e(minimums)}</h2><ul>{"".join(mins)}</ul>
<h2>{e(options)}</h2><table class="rules"><tr>{head}</tr>{"".join(rows)}</table>
<p>{e(spec)}</p></body></html>"""


async def freeze_survivors(every: float = 5.0) -> None:
    """Move the objects that survived so far out of the collector's sight.

    Live tables hold many long-lived objects (a game keeps its move stack); a full
    collection over hundreds of tables stalls every table for half a second.  The
    engine makes almost no reference cycles (measured: well under one object per
    move), so freezing survivors costs nearly nothing and keeps collections short."""
    while True:
        await asyncio.sleep(every)
        gc.freeze()


def client_address(conn: Request | WebSocket) -> str:
    return conn.client.host if conn.client is not None else "unknown"


def create_app(db_url: str = "canasta.db", *, settings: Settings | None = None,
               cluster: ClusterConfig | None = None) -> FastAPI:
    """The card room on ``db_url``; with ``cluster``, one of several servers on one
    database and one Redis (:mod:`canasta.web.cluster`)."""
    store: Store
    hub: Hub
    if cluster is None:
        store = Store(db_url)
        hub = Hub(store, settings)
    else:
        from canasta.web.cluster_hub import ClusterHub
        from canasta.web.cluster_store import ClusterStore

        store = ClusterStore(db_url)
        hub = ClusterHub(store, settings, cluster)
    lobby = Lobby(hub)
    cfg = hub.settings
    allowed = {o for o in (normalise_origin(a) for a in cfg.allow_origins) if o is not None}

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await hub.astart()
        freezer = asyncio.create_task(freeze_survivors())
        yield
        freezer.cancel()
        await hub.shutdown()
        store.close()

    docs = cfg.api_docs  # off by default: the API is the lobby's, not a public one
    app = FastAPI(title="canasta", lifespan=lifespan, docs_url="/docs" if docs else None,
                  redoc_url="/redoc" if docs else None, openapi_url="/openapi.json" if docs else None)
    app.add_middleware(SecurityHeaders, docs_paths=("/docs", "/redoc") if docs else ())
    if cfg.allowed_hosts:
        app.add_middleware(HostCheck, allowed=cfg.allowed_hosts)
    app.state.hub = hub
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(Refusal)
    async def refused(request: Request, exc: Refusal) -> JSONResponse:
        lang = choose(request.query_params.get("lang"), request.headers.get("accept-language"))
        return JSONResponse({"detail": exc.said(lang)}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(SQLAlchemyError)
    async def database_away(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        print(f"canasta: {request.method} {request.url.path}: the database: {exc}", file=sys.stderr, flush=True)
        lang = choose(request.query_params.get("lang"), request.headers.get("accept-language"))
        said = translator(lang).gettext(DB_UNAVAILABLE)
        return JSONResponse({"detail": said}, status_code=503, headers={"Retry-After": "2"})

    def room_or_404(table_id: str) -> Room:
        room = hub.get(table_id)
        if room is None:
            why = hub.missing(table_id)
            raise bad(why, 404 if why == "no such table" else 410)
        return room

    async def body_of(request: Request) -> dict[str, Any]:
        """A JSON POST body: from this server's pages (or no browser), typed as JSON."""
        refusal = origin_refusal(request.scope, request.headers, allowed)
        if refusal is not None:
            raise bad(refusal, 403)
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise bad("send the request body as JSON, with the header Content-Type: application/json", 415)
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise bad(f"request too large: at most {MAX_BODY} bytes", 413)
        try:
            data = json.loads(raw or b"{}")
        except (ValueError, RecursionError):
            raise bad("the request body is not JSON") from None
        if not isinstance(data, dict):
            raise bad("the request body must be a JSON object")
        return data

    def may_create(request: Request) -> None:
        wait = hub.creation_wait(client_address(request))
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise bad(N_("too many tables created from your address: at most {limit} a minute; try again in {seconds} s"),
                      429, {"Retry-After": str(seconds)}, limit=cfg.tables_per_minute, seconds=seconds)

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> FileResponse:
        room_or_404(table_id)
        return FileResponse(STATIC / "table.html")

    @app.get("/replay/{table_id}", include_in_schema=False)
    async def replay_page(table_id: str) -> FileResponse:
        return FileResponse(STATIC / "replay.html")

    @app.get("/t/{table_id}/rules", response_class=HTMLResponse)
    async def table_rules(table_id: str, request: Request, lang: str | None = None) -> str:
        room = room_or_404(table_id)
        tr = translator(choose(lang, request.headers.get("accept-language")))
        return rules_page(room.table.rules, str(room.config.get("title", table_id)), tr)

    @app.get("/i18n/catalog.json", include_in_schema=False)
    async def language_catalog(request: Request, lang: str | None = None) -> dict[str, Any]:
        """The page texts in the language asked for (else the browser's own, else English)."""
        return catalog(choose(lang, request.headers.get("accept-language")))

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, Any]:
        """Liveness: the process answers."""
        return {"status": "ok"}

    @app.get("/readyz", include_in_schema=False)
    async def readyz() -> JSONResponse:
        """Readiness: the database (and, in a cluster, Redis) answer."""
        try:
            await hub.ping()
        except Exception as exc:
            return JSONResponse({"status": "unavailable", "reason": str(exc)[:200]}, status_code=503)
        return JSONResponse({"status": "ready"})

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> PlainTextResponse:
        """Prometheus text format: tables, sockets, moves, latency, the job queue."""
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

    @app.get("/api/presets")
    async def presets(request: Request, lang: str | None = None) -> dict[str, Any]:
        return {"presets": presets_info(choose(lang, request.headers.get("accept-language"))),
                "bot_levels": list(BOT_LEVELS)}

    @app.post("/api/tables")
    async def create(request: Request) -> dict[str, Any]:
        body = await body_of(request)
        may_create(request)
        made = lobby.create(body)
        hub.count_creation(client_address(request))
        return made

    @app.post("/api/quick")
    async def quick(request: Request) -> dict[str, Any]:
        body = await body_of(request)
        level = body.get("level", "basic")
        if not isinstance(level, str) or level not in BOT_LEVELS:
            raise bad(f"the bots' level must be one of {', '.join(BOT_LEVELS)}")
        preset = body.get("preset", "classic-4p")
        may_create(request)
        n = PRESETS[preset].players if isinstance(preset, str) and preset in PRESETS else 4
        made = lobby.create({"preset": preset, "name": body.get("name"), "seat": 0, "target": body.get("target"),
                             "seats": [{"kind": "bot", "level": level}] * n, "seed": body.get("seed"),
                             "bot_delay": body.get("bot_delay"), "title": "Quick play"})
        hub.count_creation(client_address(request))
        return made

    @app.get("/api/tables")
    async def open_tables() -> dict[str, Any]:
        return {"tables": [lobby.info(r) for r in hub.open_rooms() if any(s.kind == "open" for s in r.seats)]}

    @app.get("/api/tables/{table_id}")
    async def table_info(table_id: str) -> dict[str, Any]:
        return lobby.info(room_or_404(table_id))

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        return await lobby.join(room_or_404(table_id), await body_of(request))

    @app.get("/api/history")
    async def history() -> dict[str, Any]:
        out = []
        for row in store.finished():
            st = row.state
            out.append({"table": row.id, "title": row.config.get("title"), "preset": row.config.get("preset"),
                        "names": st.get("names"), "hands": len(st.get("hands", [])), "finished": row.updated})
        return {"tables": out}

    def finished_row(table_id: str) -> TableRow:
        row = store.load(table_id)
        if row is None:
            raise bad(N_("no such table"), 404)
        if row.status == "abandoned":
            raise bad(hub.missing(table_id), 410)
        if row.status != "finished":
            raise bad(N_("the match is not over: its record and replay are available when it ends"), 409)
        return row

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str) -> Response:
        row = finished_row(table_id)
        table = Table.from_dict(row.state)
        text = table.record().to_text()
        table.close()
        return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="canasta-{row.id}.txt"'})

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str) -> JSONResponse:
        row = finished_row(table_id)
        return JSONResponse(await asyncio.to_thread(replay_frames, row))

    @app.websocket("/ws/{table_id}")
    async def ws_table(ws: WebSocket, table_id: str) -> None:
        address = client_address(ws)
        if not hub.open_socket(address):
            await ws.accept()
            await ws.send_text(json.dumps(error(
                "TOO_MANY_CONNECTIONS", f"too many connections from your address (at most "
                f"{cfg.sockets_per_address}): close other tables' pages and reconnect")))
            await ws.close(code=4429)
            return
        try:
            await serve_socket(ws, table_id)
        finally:
            hub.close_socket(address)

    async def serve_socket(ws: WebSocket, table_id: str) -> None:
        await ws.accept()
        refusal = origin_refusal(ws.scope, ws.headers, allowed)
        if refusal is not None:  # another site's page opening a socket from a player's browser
            await ws.send_text(json.dumps(error("BAD_ORIGIN", refusal)))
            await ws.close(code=4403)
            return
        try:
            room = hub.get(table_id)
        except Exception as exc:  # the database is away: the page tries again
            print(f"canasta: table {table_id} could not be read: {exc}", file=sys.stderr, flush=True)
            await ws.send_text(json.dumps(localize(say_error("DB_UNAVAILABLE", DB_UNAVAILABLE),
                                                         choose(None, ws.headers.get("accept-language")))))
            await ws.close(code=1013)
            return
        if room is None:
            why = hub.missing(table_id)
            await ws.send_text(json.dumps(error("NO_TABLE" if why == "no such table" else "TABLE_CLOSED", why)))
            await ws.close(code=4404 if why == "no such table" else 4410)
            return
        conn: Conn | None = None
        try:
            # the first message must be hello (with the seat token, or none to watch)
            while conn is None:
                msg = parse(await asyncio.wait_for(receive(ws), HELLO_TIMEOUT))
                if "error" in msg:
                    await ws.send_text(json.dumps(msg["error"]))
                    continue
                if msg.get("type") != "hello":
                    await ws.send_text(json.dumps(error("NO_HELLO", "say hello first: {\"type\": \"hello\", "
                                                        "\"token\": YOUR SEAT TOKEN} (no token to watch)")))
                    continue
                if not (msg.get("seq") is None or is_int(msg["seq"])) or \
                        not (msg.get("token") is None or isinstance(msg["token"], str)):
                    await ws.send_text(json.dumps(error("BAD_MESSAGE", "hello's \"token\" is text and its "
                                                        "\"seq\" a whole number (both may be left out)")))
                    continue
                token = msg.get("token")
                seat = -1
                if token is not None:
                    found = hub.authenticate(room, token)
                    if found is None:
                        await ws.send_text(json.dumps(error("BAD_TOKEN", "this token holds no seat at this table; "
                                                            "say hello without a token to watch")))
                        continue
                    seat = found
                conn = Conn(ws, seat, choose(msg.get("lang"), ws.headers.get("accept-language")), cfg.message_rates)
                conn.start()
                conn.send({"type": "welcome", "table": room.id, "seat": seat, "rules": room.table.rules.to_dict(),
                           "title": room.config.get("title"), "seq": room.seq,
                           "resync": is_int(msg.get("seq")) and msg["seq"] != room.seq})
                if seat >= 0 and msg.get("client_seed") is not None and room.table.pending is not None \
                        and not room.table.match_over:  # a seed for the next deal, for the commitment it saw
                    shown = room.table.next_commitment()
                    if msg.get("commitment") != shown:
                        conn.send(error("SEED_BEFORE_COMMITMENT", "a client seed goes with the commitment it "
                                        "answers: send \"commitment\" (the next deal's, from the table's creation "
                                        "answer or a state's next_deal) beside \"client_seed\", or send the seed "
                                        "after the state that shows it", ref="seed"))
                    else:
                        refused = room.set_seed(seat, msg["client_seed"])
                        if refused is not None:
                            conn.send(refused)
                room.attach(conn)  # the new client gets its state (everyone does if a seat came back)
            while True:
                msg = parse(await receive(ws))
                if "error" in msg:
                    if conn.limiter.take("bad") is None:  # a flood of garbage is not answered in full
                        conn.send(msg["error"])
                    continue
                room.handle(conn, msg)
        except (WebSocketDisconnect, TimeoutError, RuntimeError):
            pass
        finally:
            if conn is not None:
                room.detach(conn)
                await conn.close()

    return app


async def receive(ws: WebSocket) -> str | None:
    """The next text message; None for a binary one."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    return text if isinstance(text, str) else None


def parse(raw: str | None) -> dict[str, Any]:
    """A client message, or {"error": ...} saying what is wrong with it."""
    if raw is None:
        return {"error": error("BAD_JSON", "binary messages are not understood: send JSON text")}
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
        return {"error": error("TOO_LARGE", f"message too large: at most {MAX_MESSAGE} bytes")}
    try:
        msg = json.loads(raw)
    except ValueError as exc:
        return {"error": error("BAD_JSON", f"the message is not JSON: {exc}")}
    except RecursionError:
        return {"error": error("BAD_JSON", "the message is not JSON this server reads: nested too deeply")}
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        return {"error": error("BAD_MESSAGE", "a message is a JSON object with a \"type\"")}
    return msg


__all__ = ["create_app"]
