"""The accounts' tables (issue 52): an older card-room database opens and gains them, an
accounts table of an earlier version gains its new columns, and on PostgreSQL two servers
can never write one name, or two look-alike names, at once.  ``canasta accounts``, the
operator's command: every action, every bad input refused in one line, nothing changed."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import need

need("sqlalchemy")
need("argon2")

from sqlalchemy import create_engine, inspect, text  # noqa: E402

from canasta.cli import main  # noqa: E402
from canasta.web.account_store import AccountStore, Taken  # noqa: E402
from canasta.web.accounts import hasher  # noqa: E402
from canasta.web.store import Store  # noqa: E402
from test_web_store_upgrade import played, write_old  # noqa: E402

PG_ADMIN = os.environ.get("CANASTA_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def test_an_old_card_room_database_gains_the_accounts(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    table = played(seed=5, moves=9)
    write_old(path, table, seq=20)
    store = Store(str(path))
    try:
        accounts = AccountStore(store.engine)
        names = set(inspect(store.engine).get_table_names())
        assert {"canasta_accounts", "canasta_sessions", "canasta_signin_attempts",
                "canasta_account_seats"} <= names
        row = store.load("old1")
        assert row is not None and row.state == table.to_dict()  # the old games play on
        made = accounts.create("Ann", "hash", "it", 1.0)
        assert accounts.find("ANN") == made
        assert AccountStore(store.engine).upgrade() == []  # opened again: nothing to do
    finally:
        store.close()


def test_an_accounts_table_of_an_earlier_version_gains_its_columns(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as db:  # the first version: no language, no bans
        db.execute(text("CREATE TABLE canasta_accounts (id VARCHAR(32) PRIMARY KEY, name VARCHAR(64) NOT NULL, "
                        "name_key VARCHAR(128) NOT NULL UNIQUE, skeleton VARCHAR(128) NOT NULL UNIQUE, "
                        "password VARCHAR(256), role VARCHAR(16) NOT NULL, created FLOAT NOT NULL)"))
        db.execute(text("INSERT INTO canasta_accounts VALUES ('a1', 'Ann', 'ann', 'ann', 'h', 'moderator', 5.0)"))
    engine.dispose()
    store = Store(str(path))
    try:
        accounts = AccountStore(store.engine)
        ann = accounts.find("ann")
        assert ann is not None and (ann.name, ann.role, ann.lang, ann.banned_until) == ("Ann", "moderator", "en", None)
        accounts.ban(ann.id, 10.0, "spam")
        assert accounts.get(ann.id) is not None
    finally:
        store.close()


# ------------------------------------------------------------------ PostgreSQL


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    """A fresh database of its own in the machine's PostgreSQL (dropped after)."""
    try:
        import psycopg
    except ImportError:
        _unavailable("psycopg is not installed: pip install -e '.[dev]'")
        raise
    try:
        admin = psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=3)
    except Exception as exc:
        _unavailable(f"no PostgreSQL at {PG_ADMIN}: {exc}")
        raise
    from canasta.web.vault import ENV, new_key

    had_key = os.environ.get(ENV)
    os.environ[ENV] = had_key or new_key()  # deal secrets on PostgreSQL are sealed under a key of the environment
    name = f"canasta_test_accounts_{uuid.uuid4().hex[:10]}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}"
    finally:
        if had_key is None:
            os.environ.pop(ENV, None)
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def _unavailable(reason: str) -> None:
    if os.environ.get("CANASTA_SERVICES_REQUIRED") == "1":
        pytest.fail(f"CANASTA_SERVICES_REQUIRED=1 but {reason}")
    pytest.skip(reason)


def test_on_postgresql_two_servers_never_write_look_alike_names(postgres: str) -> None:
    stores = [Store(postgres), Store(postgres)]  # two servers on one database
    try:
        accounts = [AccountStore(s.engine) for s in stores]
        results: list[object] = []
        barrier = threading.Barrier(6)

        def make(i: int) -> None:
            name = ("Ann_1", "annl", "ANN_1")[i % 3]
            barrier.wait()
            try:
                results.append(accounts[i % 2].create(name, "h", "en", 1.0))
            except Taken as exc:
                results.append(exc)

        threads = [threading.Thread(target=make, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        made = [r for r in results if not isinstance(r, Taken)]
        assert len(made) == 1 and len(results) == 6
        assert len(accounts[0].everyone()) == 1
        token, _csrf = accounts[0].open_session(made[0].id, 2.0, 100.0)  # type: ignore[attr-defined]
        seen = accounts[1].session(token, 3.0)  # the other server knows the session
        assert seen is not None and seen.account.name in ("Ann_1", "annl", "ANN_1")
        assert accounts[1].end_session(token)
        assert accounts[0].session(token, 4.0) is None  # and a sign-out on one ends it on the other
    finally:
        for s in stores:
            s.close()


# -------------------------------------------------------------------- the command


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, db: Path, *argv: str,
        stdin: str = "") -> tuple[int, str, str]:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    try:
        code = main(["accounts", "--db", str(db), *argv])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_the_operator_command(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "room.db"
    pw = "a good long password\n"
    assert run(capsys, monkeypatch, db, "create", "Ann", "--password-stdin", stdin=pw)[:2] == \
        (0, "canasta: account Ann made (player)\n")
    assert run(capsys, monkeypatch, db, "create", "Maria", "--role", "moderator", "--password-stdin", stdin=pw)[0] == 0
    code, out, _err = run(capsys, monkeypatch, db, "list", "--json")
    assert code == 0 and [line.split('"')[3] for line in out.splitlines()] == ["Ann", "Maria"]
    assert run(capsys, monkeypatch, db, "role", "ann", "admin")[:2] == (0, "canasta: Ann is now admin\n")
    code, out, _err = run(capsys, monkeypatch, db, "ban", "Ann", "--days", "7", "--reason", "spam")
    assert code == 0 and out.startswith("canasta: Ann is banned until ")
    assert "banned until" in run(capsys, monkeypatch, db, "list")[1]
    assert run(capsys, monkeypatch, db, "unban", "Ann")[:2] == (0, "canasta: Ann is no longer banned\n")
    assert run(capsys, monkeypatch, db, "password", "Ann", "--password-stdin", stdin="another long one\n")[0] == 0
    store = Store(str(db))
    try:
        ann = AccountStore(store.engine).find("Ann")
        assert ann is not None and ann.role == "admin" and ann.password is not None
        assert hasher().verify(ann.password, "another long one")
    finally:
        store.close()
    code, out, _err = run(capsys, monkeypatch, db, "delete", "Ann", "--yes")
    assert code == 0 and out.startswith("canasta: Ann deleted; the seats of their 0 games are deleted-")
    assert run(capsys, monkeypatch, db, "list")[1].splitlines()[-1] == "canasta: 1 account"


@pytest.mark.parametrize(("argv", "stdin", "says"), [
    (["create", "<b>bold", "--password-stdin"], "long enough pw\n", "a name may hold only letters"),
    (["create", "Аnn", "--password-stdin"], "long enough pw\n", "may not mix alphabets"),
    (["create", "Ann_1", "--password-stdin"], "long enough pw\n", "looks too much like"),
    (["create", "ann", "--password-stdin"], "long enough pw\n", "is taken"),
    (["create", "Bob", "--password-stdin"], "short\n", "at least 8 characters"),
    (["create", "Bob", "--password-stdin"], "", "standard input is empty"),
    (["create", "Bob"], "", "--password-stdin"),
    (["create", "Bob", "--language", "xx", "--password-stdin"], "long enough pw\n", "--language xx"),
    (["role", "Nobody", "admin"], "", "no account is named 'Nobody'"),
    (["role", "Ann", "god"], "", "invalid choice"),
    (["ban", "Ann", "--days", "0"], "", "--days 0"),
    (["ban", "Ann", "--days", "nan"], "", "--days nan"),
    (["ban", "Ann", "--days", "x"], "", "invalid float value"),
    (["unban", "Ann"], "", "Ann is not banned"),
    (["delete", "Ann"], "", "say --yes"),
    (["password", "Ann", "--password-stdin"], "ann\n", "at least 8"),
    ([], "", "required"),
])
def test_the_command_refuses_bad_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch, argv: list[str], stdin: str,
                                                   says: str) -> None:
    db = tmp_path / "room.db"
    assert run(capsys, monkeypatch, db, "create", "annl", "--password-stdin", stdin="the first one\n")[0] == 0
    assert run(capsys, monkeypatch, db, "create", "Ann", "--password-stdin", stdin="the first one\n")[0] == 0
    before = run(capsys, monkeypatch, db, "list", "--json")[1]
    code, out, err = run(capsys, monkeypatch, db, *argv, stdin=stdin)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert says in err and "Traceback" not in err
    assert run(capsys, monkeypatch, db, "list", "--json")[1] == before
