"""Passwords and keys as an operator's card room must keep them: no log line, error answer or
process argument shows a database or Redis password (passwords holding ``/ # ? @ %``, given
in the URL or as ``?password=``), none shows the database's address to a player or a load
balancer, the URLs can come from the environment or a file, and a server whose keys do not
open the stored deal secrets says so and is not ready."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import need
from instances import Postgres, free_port, postgres_binaries, redis_binary

need("fastapi")
need("cryptography")
httpx = need("httpx2")

from fastapi.testclient import TestClient  # noqa: E402

from canasta.web.app import create_app  # noqa: E402
from canasta.web.devserver import ServerProcess  # noqa: E402
from canasta.web.redact import redact, redact_text, said  # noqa: E402
from canasta.web.room import Settings  # noqa: E402
from canasta.web.store import Store, TableRow  # noqa: E402
from canasta.web.vault import ENV, new_key  # noqa: E402

#: passwords holding every character that broke the redaction: / # ? @ and %
DB_PASSWORD = "d/b#p?w@x%y"
REDIS_PASSWORD = "r/e#d?i@s%x"


def pieces(password: str) -> list[str]:
    """Forms in which a password could leak: as it is, percent-encoded, and its parts around
    the characters a parser may cut it at."""
    out = {password, quote(password, safe=""), password.replace("@", "%40")}
    for sep in "/#?@%":
        out.update(p for p in password.split(sep) if len(p) >= 3)
    return sorted(out)


def leaks(text: str, *passwords: str) -> list[str]:
    return [p for pw in passwords for p in pieces(pw) if p in text]


@pytest.mark.parametrize("url", [
    "postgresql://canasta:d/b#p?w%40x%y@db.internal:5432/canasta",  # as SQLAlchemy reads it: up to the @
    f"postgresql://canasta:{quote(DB_PASSWORD, safe='')}@db.internal:5432/canasta",
    f"postgresql://canasta@db.internal:5432/canasta?password={quote(DB_PASSWORD, safe='')}&sslmode=require",
    "postgresql://canasta@db.internal:5432/canasta?sslmode=require&password=d/b#p?w%40x%y",
    f"redis://:{quote(REDIS_PASSWORD, safe='')}@redis.internal:6379/0",
    "redis://:r/e#d?i%40s%x@redis.internal:6379/0",
    f"redis://default:{quote(REDIS_PASSWORD, safe='')}@redis.internal:6379/0",
    "host=db.internal user=canasta password=d/b#p?w@x%y dbname=canasta",
])
def test_a_password_of_any_characters_is_redacted(url: str) -> None:
    shown = redact(url)
    assert not leaks(shown, DB_PASSWORD, REDIS_PASSWORD), shown
    assert "***" in shown and ("internal" in shown or "redis" in shown), shown  # the rest still says where
    assert not leaks(redact_text(f"cannot reach it at {url}: refused"), DB_PASSWORD, REDIS_PASSWORD)


def test_an_exception_is_said_with_its_type_when_its_message_is_empty() -> None:
    assert said(TimeoutError()) == "TimeoutError"
    assert said(OSError("at redis://:pw@h:1/0 refused")) == "OSError: at redis://:***@h:1/0 refused"


def test_a_server_whose_keys_do_not_open_the_stored_secrets_says_so_and_is_not_ready(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The state a rolling key rotation makes when a server is given the new key alone."""
    db = f"sqlite:///{tmp_path / 'keys.db'}"
    old, new = new_key(), new_key()
    monkeypatch.setenv(ENV, old)
    store = Store(db)
    state = {"fair": {"deals": [{"hand": 1, "secret": "ab" * 32, "client_seeds": ["", ""]}], "pending": None},
             "hands": [[]]}
    store.create(TableRow("done1", 0.0, 0.0, "finished", {}, state, 0, []))  # not loaded at start
    store.close()
    monkeypatch.setenv(ENV, new)
    app = create_app(db, settings=Settings(bot_workers=0))
    with TestClient(app) as client:
        r = client.get("/readyz")
        assert r.status_code == 503 and "keys" in r.json()["reason"], r.text
        assert "keys" in capsys.readouterr().err
    app.state.hub.store.close()
    monkeypatch.setenv(ENV, f"{new},{old}")  # both keys: ready
    app = create_app(db, settings=Settings(bot_workers=0))
    with TestClient(app) as client:
        assert client.get("/readyz").status_code == 200
    app.state.hub.store.close()


def unavailable(reason: str) -> None:
    if os.environ.get("CANASTA_SERVICES_REQUIRED") == "1":
        pytest.fail(f"CANASTA_SERVICES_REQUIRED=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture
def services() -> Iterator[tuple[Postgres, int]]:
    """A PostgreSQL of the test's own (trust: any password is taken) and a Redis that asks for
    :data:`REDIS_PASSWORD`."""
    try:
        import arq  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        unavailable(f"the cluster-web extra is not installed ({exc.name} is missing)")
    binary = redis_binary()
    if postgres_binaries() is None or binary is None:
        unavailable("PostgreSQL's initdb/pg_ctl or redis-server are not installed")
        return
    folder = Path(tempfile.mkdtemp(prefix="canasta-secrets-"))
    folder.chmod(0o755)
    (folder / "pg").mkdir()
    port = free_port()
    redis = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                              "--requirepass", REDIS_PASSWORD, "--dir", str(folder)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pg = None
    try:
        pg = Postgres(folder / "pg").start()
        yield pg, port
    finally:
        redis.kill()
        redis.wait()
        if pg is not None:
            pg.close()
        shutil.rmtree(folder, ignore_errors=True)


def test_no_password_in_arguments_logs_or_answers(services: tuple[Postgres, int], tmp_path: Path) -> None:
    pg, redis_port = services
    db_url = f"postgresql://postgres:{DB_PASSWORD.replace('@', '%40')}@127.0.0.1:{pg.port}/postgres"
    redis_url = f"redis://:{quote(REDIS_PASSWORD, safe='')}@127.0.0.1:{redis_port}/0"
    env = {**os.environ, ENV: new_key(), "CANASTA_REDIS": redis_url}
    args = ["--redis-prefix", "secrets", "--tables-per-minute", "0"]
    # the URLs in the environment: nothing of them in the process's arguments
    server = ServerProcess(db_url, args=args, env=env, db_in_env=True).start()
    logs: list[str] = []
    try:
        assert server.proc is not None
        argv = Path(f"/proc/{server.proc.pid}/cmdline").read_bytes().decode(errors="replace")
        assert not leaks(argv, DB_PASSWORD, REDIS_PASSWORD), argv
        assert httpx.get(f"{server.url}/readyz", timeout=5).status_code == 200
        made = httpx.post(f"{server.url}/api/tables", json={"preset": "classic-4p", "name": "Ann", "seat": 0,
                                                          "seats": [{}, *[{"kind": "bot", "level": "basic"}] * 3]})
        assert made.status_code == 200, made.text
        pg.stop()  # the database away: what a player and a load balancer are told
        answers = [httpx.get(f"{server.url}/readyz", timeout=10), httpx.get(f"{server.url}/api/tables", timeout=10),
                   httpx.post(f"{server.url}/api/tables", timeout=10, json={
                       "preset": "classic-4p", "name": "Bo", "seat": 0,
                       "seats": [{}, *[{"kind": "bot", "level": "basic"}] * 3]})]
        assert [a.status_code for a in answers] == [503, 503, 503], [a.text for a in answers]
        for a in answers:
            assert "127.0.0.1" not in a.text and str(pg.port) not in a.text and not leaks(a.text, DB_PASSWORD), a.text
        pg.start()
    finally:
        server.stop()
        logs.append(server.stderr_text())
    # from a file, and in the arguments (warned about), and as ?password=
    url_file = tmp_path / "db-url"
    url_file.write_text(db_url + "\n")
    url_file.chmod(0o600)
    query_url = f"postgresql://postgres@127.0.0.1:{pg.port}/postgres?password={quote(DB_PASSWORD, safe='')}"
    for how in (["--db-file", str(url_file), "--redis", redis_url], ["--db", query_url, "--redis", redis_url]):
        code = "import sys; from canasta.cli import main; sys.exit(main(sys.argv[1:]))"
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-c", code, "serve", "--port", str(port), *how, *args],
                                env={**env, "CANASTA_REDIS": ""}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            else:
                raise AssertionError("the server did not get ready")
        finally:
            proc.terminate()
            out, _ = proc.communicate(timeout=20)
        logs.append(out.decode(errors="replace"))
    assert "give the URL in $CANASTA_DB" in logs[-1]  # a password on the command line is warned about
    # a wrong Redis password, and Redis gone while a server runs: the errors say so without it
    wrong = subprocess.run([sys.executable, "-c", code, "serve", "--port", str(free_port()), "--db-file",
                            str(url_file), "--redis", redis_url.replace("%2F", "%2G"), *args],
                           env={**env, "CANASTA_REDIS": ""}, capture_output=True, text=True, timeout=60)
    assert wrong.returncode != 0 and "Redis" in wrong.stderr + wrong.stdout
    logs.append(wrong.stdout + wrong.stderr)
    text = "\n".join(logs)
    assert "***" in text  # the URLs were printed, redacted
    assert not leaks(text, DB_PASSWORD, REDIS_PASSWORD), leaks(text, DB_PASSWORD, REDIS_PASSWORD)
