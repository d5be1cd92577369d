"""What every request and websocket passes before the card room reads it: the Host
check, the Origin check, the security headers, a JSON body's checks, and a refusal said
in the asker's language."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard
from urllib.parse import urlsplit

from fastapi import HTTPException, Request, WebSocket
from fastapi.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from canasta.i18n import translator

DEFAULT_PORTS = {"http": 80, "https": 443}
HOST_CHARS = re.compile(r"^[A-Za-z0-9.:\[\]-]+$")
MAX_BODY = 16384


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


def client_address(conn: Request | WebSocket) -> str:
    return conn.client.host if conn.client is not None else "unknown"


async def json_body(request: Request, allowed: Iterable[str]) -> dict[str, Any]:
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
