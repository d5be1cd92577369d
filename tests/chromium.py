"""What the tests in a real browser share: Debian's Chromium, driven by Playwright.

A test module calls :func:`skip_unless_ready` before it imports Playwright: without
Chromium, Playwright, FastAPI or websockets the module is skipped, unless
``CANASTA_E2E_REQUIRED=1`` (CI), which makes its tests fail instead.  It imports the
``browser`` fixture (one Chromium per module) and ``shots`` (where screenshots go:
``CANASTA_E2E_SHOTS`` if set, else the test's temporary directory) from here."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
REQUIRED = os.environ.get("CANASTA_E2E_REQUIRED") == "1"


def missing() -> str | None:
    """What the browser tests lack here, or None."""
    try:
        import fastapi  # noqa: F401
        import playwright.sync_api  # noqa: F401
        import websockets  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed"
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


def skip_unless_ready() -> None:
    """Skip the calling module when something is missing, unless the tests are required."""
    reason = missing()
    if reason and not REQUIRED:
        pytest.skip(reason, allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    reason = missing()
    if reason:
        pytest.fail(f"the end-to-end test is required here but {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    where = Path(os.environ.get("CANASTA_E2E_SHOTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


def page_errors(page: Any) -> list[str]:
    """The list the page's uncaught script errors are added to from now on (a test asserts
    it stays empty)."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def open_table(page: Any, url: str, body: dict[str, Any], timeout_ms: float = 60_000) -> str:
    """A table made through the card room's API (``POST /api/tables`` with ``body``), opened by
    its creator in ``page`` once the hand is shown; its id."""
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready=true]")
    table: str = page.evaluate("""async (body) => {
      const r = await fetch('/api/tables', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const d = await r.json();
      if (!r.ok) throw new Error(JSON.stringify(d));
      localStorage.setItem('canasta:' + d.table, JSON.stringify({ token: d.token, seat: d.seat }));
      return d.table;
    }""", body)
    page.goto(f"{url}/t/{table}")
    page.wait_for_selector("#hand .card", timeout=timeout_ms)
    return table


def sign_in(page: Any, url: str, name: str, password: str = "correct horse battery") -> None:
    """Sign ``name`` in from the room's front page, through the page's own account module: its
    CSRF token is the one the page's own first look at the account set (two looks at once
    would each set another cookie, and a token read from one need not be the cookie's)."""
    page.goto(url + "/")
    log_in(page, name, password)


def log_in(page: Any, name: str, password: str = "correct horse battery") -> None:
    """Sign ``name`` in from the room page ``page`` already shows, through its own account module
    (the CSRF token its own look at the account set: see :func:`sign_in`)."""
    page.evaluate("""async ([name, password]) => {
        const { post } = await import('/static/account.js');
        const r = await post('/api/account/login', { name, password });
        if (!r.ok) throw new Error(await r.text());
    }""", [name, password])


def fits(page: Any, width: int) -> None:
    """Nothing on ``page`` runs off the side of a ``width``-pixel window."""
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"the page is {scroll} px wide in a {width} px window"
