"""``/metrics`` is not public (issue #55, item 7): without a token only this machine reads it (a
loopback client that came through no proxy); with ``CANASTA_METRICS_TOKEN`` a bearer of the token,
from anywhere, and nobody else."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from canasta.web.app import create_app
from canasta.web.room import Settings


def client_at(tmp_path: Path, address: str, token: str | None = None) -> TestClient:
    app = create_app(str(tmp_path / "m.db"), settings=Settings(bot_workers=0, metrics_token=token))
    return TestClient(app, client=(address, 50000))


@pytest.mark.parametrize(("address", "headers", "status"), [
    ("127.0.0.1", {}, 200), ("::1", {}, 200),
    ("127.0.0.1", {"x-forwarded-for": "203.0.113.5"}, 403),  # through a proxy on this machine: someone else
    ("203.0.113.5", {}, 403), ("10.1.2.3", {}, 403),
])
def test_without_a_token_only_this_machine_reads_the_metrics(tmp_path: Path, address: str, headers: dict[str, str],
                                                              status: int) -> None:
    with client_at(tmp_path, address) as client:
        r = client.get("/metrics", headers=headers)
        assert r.status_code == status, r.text
        if status == 200:
            assert "canasta_sockets" in r.text
        else:
            assert "CANASTA_METRICS_TOKEN" in r.json()["detail"] and "canasta_" not in r.text
        assert client.get("/healthz").status_code == 200  # health and readiness stay open to a load balancer


def test_with_a_token_a_bearer_reads_the_metrics_from_anywhere(tmp_path: Path) -> None:
    with client_at(tmp_path, "203.0.113.5", token="s3cret-token") as client:
        assert client.get("/metrics", headers={"authorization": "Bearer s3cret-token"}).status_code == 200
        for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": "s3cret-token"}):
            r = client.get("/metrics", headers=headers)
            assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer" and "canasta_" not in r.text
    with client_at(tmp_path, "127.0.0.1", token="s3cret-token") as client:  # this machine needs it too
        assert client.get("/metrics").status_code == 401


def test_the_serve_command_takes_the_token_from_its_environment(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    from typing import Any

    import uvicorn

    import canasta.web.app as app_module
    import canasta.web.commands as commands

    seen: list[Settings] = []

    def made(*args: Any, settings: Settings, **kwargs: Any) -> object:
        seen.append(settings)
        return object()

    monkeypatch.setattr(app_module, "create_app", made)
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    monkeypatch.setattr(commands, "check_port", lambda *a: None)
    parser = argparse.ArgumentParser()
    commands.configure_serve(parser)
    db = str(tmp_path / "serve.db")
    for env, token in ((None, None), ("from-env", "from-env")):
        if env is None:
            monkeypatch.delenv("CANASTA_METRICS_TOKEN", raising=False)
        else:
            monkeypatch.setenv("CANASTA_METRICS_TOKEN", env)
        assert commands.run_serve(parser.parse_args(["--db", db, "--bot-workers", "0"])) == 0
        assert seen[-1].metrics_token == token
