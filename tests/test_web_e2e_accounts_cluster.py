"""Accounts across a cluster in Chromium (issue 52): two servers on one PostgreSQL database with
Redis (as tests/test_cluster.py runs them).  Signed up through one server's lobby, the browser is
signed in on the other (the session lives in the database): its lobby says so and its quick game
seats the player under the account, played over that server's socket (the bots by a worker).  Signing out on the first
ends the session on the second at once, and the old cookie is worth nothing on either.

Skipped without PostgreSQL and Redis (unless ``CANASTA_SERVICES_REQUIRED=1``) or without
Chromium (unless ``CANASTA_E2E_REQUIRED=1``)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from chromium import page_errors, skip_unless_ready

skip_unless_ready()

from canasta.web.devserver import ServerProcess, WorkerProcess  # noqa: E402
from test_cluster import server_args, services  # noqa: E402, F401 - the fixture
from test_web_e2e_accounts import PASSWORD, WAIT_MS, sign  # noqa: E402

NAME = "Marta"


def me_with(server: ServerProcess, cookie: str) -> Any:
    """``GET /api/account/me`` with only the session cookie ``cookie`` (another client, not the browser)."""
    req = urllib.request.Request(server.url + "/api/account/me", headers={"Cookie": f"canasta_session={cookie}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_signed_in_on_one_server_signed_in_on_the_other_and_out_of_both_at_once(
        browser: Any, services: tuple[str, str], shots: Path) -> None:  # noqa: F811 - test_cluster's fixture
    db, prefix = services
    worker = WorkerProcess(db, server_args(prefix)).start()  # the bots' moves, for every server
    one = ServerProcess(db, args=server_args(prefix, "--bot-workers", "0"))
    try:
        one.start()
        other = ServerProcess(db, args=server_args(prefix, "--bot-workers", "0"))
        try:
            other.start()
            context = browser.new_context(viewport={"width": 1366, "height": 768})
            page = context.new_page()
            errors = page_errors(page)
            page.goto(f"{one.url}/?lang=en")
            page.wait_for_selector("body[data-ready=true]")
            sign(page, NAME, PASSWORD, "#btn-register")
            page.wait_for_selector(f'body[data-account="{NAME}"]')
            cookie = next(c["value"] for c in context.cookies() if c["name"] == "canasta_session")

            # the other server knows the session (a cookie is the host's, whatever the port)
            there = context.new_page()
            errors += page_errors(there)
            there.goto(f"{other.url}/?lang=en&seed=5")
            there.wait_for_selector("body[data-ready=true]")
            assert there.get_attribute("body", "data-account") == NAME
            there.click("#btn-quick")
            there.wait_for_url("**/t/*")
            there.wait_for_selector("#hand .card", timeout=WAIT_MS)
            table = there.url.rsplit("/", 1)[1]
            with urllib.request.urlopen(f"{other.url}/api/tables/{table}", timeout=10) as r:
                assert json.loads(r.read())["seats"][0]["name"] == NAME
            there.wait_for_selector("#btn-draw:enabled", timeout=WAIT_MS)  # the bots played up to the player
            before = int(there.get_attribute("body", "data-seq") or "-1")
            there.click("#btn-draw")
            there.wait_for_function(f"() => Number(document.body.dataset.seq) > {before}", timeout=WAIT_MS)
            there.screenshot(path=str(shots / "accounts-cluster-table.png"))

            # signed out on the first: over on the second at once, the old cookie worthless on both
            page.click("#btn-signout")
            page.wait_for_selector('body[data-account=""]')
            there.goto(f"{other.url}/?lang=en")
            there.wait_for_selector("body[data-ready=true]")
            assert there.get_attribute("body", "data-account") == ""
            assert there.is_visible("#btn-signin")
            assert me_with(other, cookie)["account"] is None
            assert me_with(one, cookie)["account"] is None
            assert not errors, errors
            context.close()
        finally:
            other.stop()
    finally:
        one.stop()
        worker.stop()
