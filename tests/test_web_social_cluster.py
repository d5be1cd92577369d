"""A ban across a cluster (issue 52): two servers on one PostgreSQL database with Redis (as
tests/test_cluster.py runs them).  A player sits at a table through one server; a moderator bans
them through the other: the player's sessions are gone at once and their open socket, on the
first server, is told and closed, through the cluster's Redis channel (the servers' own sweep
for banned accounts is set to ten minutes here, so it is not what closes it).

Skipped without PostgreSQL and Redis (unless ``CANASTA_SERVICES_REQUIRED=1``)."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any

from conftest import need

need("fastapi")
need("argon2")
websockets_sync = need("websockets.sync.client")

from websockets.exceptions import ConnectionClosed  # noqa: E402

from canasta.web.account_store import AccountStore  # noqa: E402
from canasta.web.devserver import ServerProcess  # noqa: E402
from canasta.web.store import Store  # noqa: E402
from test_cluster import server_args, services  # noqa: E402, F401 - the fixture


def call(server: ServerProcess, path: str, session: tuple[str, str], body: dict[str, Any] | None = None) -> Any:
    """A request of a signed-in browser (its cookie and CSRF token); (status, JSON)."""
    token, csrf = session
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.url + path, data=data, method="GET" if body is None else "POST",
                                 headers={"Cookie": f"canasta_session={token}", "X-CSRF-Token": csrf,
                                          "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_ban_on_one_server_closes_the_players_socket_on_the_other(services: tuple[str, str]) -> None:  # noqa: F811
    db, prefix = services
    store = Store(db)
    try:
        accounts = AccountStore(store.engine)
        ids = {n: accounts.create(n, None, "en", time.time(), r).id
               for n, r in (("Ann", "player"), ("Bob", "player"), ("Mod", "moderator"))}
        sessions = {n: accounts.open_session(i, time.time(), 3600.0) for n, i in ids.items()}
    finally:
        store.close()
    env = {**os.environ, "CANASTA_BAN_SWEEP": "600"}
    one = ServerProcess(db, args=server_args(prefix, "--bot-workers", "0"), env=env)
    other = ServerProcess(db, args=server_args(prefix, "--bot-workers", "0"), env=env)
    try:
        one.start()
        other.start()
        status, made = call(one, "/api/tables", sessions["Ann"], {"preset": "classic-2p", "seats": [
            {}, {"kind": "open"}]})
        assert status == 200, made
        status, joined = call(other, f"/api/tables/{made['table']}/join", sessions["Bob"], {"seat": 1})
        assert status == 200, joined
        with websockets_sync.connect(f"{one.ws_url}/ws/{made['table']}", open_timeout=10,
                                     additional_headers={"Cookie": f"canasta_session={sessions['Bob'][0]}"}) as ws:
            ws.send(json.dumps({"type": "hello", "token": joined["token"]}))
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
            # the socket is admitted (the account known) before the state is sent
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
            status, done = call(other, "/api/moderation/ban", sessions["Mod"], {"name": "Bob", "reason": "cheating"})
            assert status == 200, done
            banned_at = time.monotonic()
            told = []
            try:
                while True:
                    told.append(json.loads(ws.recv(timeout=10)))
            except ConnectionClosed as exc:
                closed = exc.rcvd
            assert time.monotonic() - banned_at < 10
            assert closed is not None and closed.code == 4403
            assert any(m.get("code") == "BANNED" for m in told), told
        # the sessions are gone on both servers; the audit log says who did it
        for server in (one, other):
            assert call(server, "/api/account/me", sessions["Bob"])[1]["account"] is None
        status, audit = call(one, "/api/moderation/audit", sessions["Mod"])
        assert status == 200 and [(a["moderator"], a["action"], a["target"]) for a in audit["audit"]] == [
            ("Mod", "ban", "Bob")]
    finally:
        other.stop()
        one.stop()
