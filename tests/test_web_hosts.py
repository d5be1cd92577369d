"""What the card room answers before any table: the names it answers to (a page of
another site pointing its own name at this address is refused: DNS rebinding), the
icon, HEAD, and URLs logged without their password."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from canasta.web.app import create_app
from canasta.web.guards import host_allowed
from canasta.web.redact import redact
from canasta.web.room import Settings


@pytest.mark.parametrize(("host", "allowed", "ok"), [
    ("127.0.0.1:8000", ("localhost", "127.0.0.1"), True),
    ("localhost", ("localhost",), True),
    ("LOCALHOST.:80", ("localhost",), True),
    ("[::1]:8000", ("::1",), True),
    ("evil.example", ("localhost", "127.0.0.1"), False),
    ("evil.example:8000", ("localhost", "*ip"), False),
    ("10.1.2.3:8000", ("localhost", "*ip"), True),
    ("cards.example.org", ("*.example.org",), True),
    ("example.org.evil", ("*.example.org",), False),
    ("", ("localhost",), False),
    ("anything", ("*",), True),
])
def test_host_names_the_server_answers_to(host: str, allowed: tuple[str, ...], ok: bool) -> None:
    assert host_allowed(host, allowed) is ok


def test_another_sites_name_is_refused_for_pages_api_and_sockets(tmp_path: Path) -> None:
    app = create_app(str(tmp_path / "h.db"), settings=Settings(allowed_hosts=("localhost", "127.0.0.1")))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert client.get("/").status_code == 200
        evil = {"host": "evil.example", "origin": "http://evil.example"}
        r = client.get("/", headers=evil)
        assert r.status_code == 400 and "--allowed-host" in r.text
        made = client.post("/api/quick", json={"name": "Ann"}, headers=evil)
        assert made.status_code == 400
        assert client.get("/api/tables").json()["tables"] == []  # nothing was made
        with pytest.raises(WebSocketDisconnect) as closed, \
                client.websocket_connect("/ws/xyz", headers={"host": "evil.example"}) as ws:
            ws.receive_text()
        assert closed.value.code == 4400
        app.state.hub.store.close()


def test_icon_and_head(tmp_path: Path) -> None:
    app = create_app(str(tmp_path / "i.db"))
    with TestClient(app) as client:
        icon = client.get("/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
        assert b"<svg" in icon.content
        head = client.head("/")
        assert head.status_code == 200 and head.content == b""
        assert 'rel="icon"' in client.get("/").text
        app.state.hub.store.close()


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://canasta:s3cret@db.example:5432/canasta", "postgresql://canasta:***@db.example:5432/canasta"),
    ("redis://:hunter2@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
    ("postgresql://canasta@db.example/canasta", "postgresql://canasta@db.example/canasta"),
    ("/var/lib/canasta/canasta.db", "/var/lib/canasta/canasta.db"),
])
def test_urls_are_logged_without_their_password(url: str, shown: str) -> None:
    assert redact(url) == shown
    assert "s3cret" not in redact(url) and "hunter2" not in redact(url)


def test_the_first_log_line_holds_no_password(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    import uvicorn

    from canasta.engine.errors import CanastaError
    from canasta.web.commands import configure_serve, run_serve
    from canasta.web.devserver import free_port

    parser = argparse.ArgumentParser()
    configure_serve(parser)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    url = "postgresql://canasta:s3cret@127.0.0.1:1/canasta"  # nothing listens on port 1
    with pytest.raises(CanastaError) as refused:
        run_serve(parser.parse_args(["--db", url, "--port", str(free_port())]))
    assert "s3cret" not in str(refused.value) and "***" in str(refused.value)
    assert "s3cret" not in capsys.readouterr().out
