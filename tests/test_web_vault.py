"""Deal secrets at rest: what the database holds of a fair table's secrets is encrypted
with a key that is not in it (CANASTA_SECRET_KEYS, or a SQLite database's own key file);
keys rotate; a wrong or missing key is a clear refusal."""

from __future__ import annotations

import contextlib
import sqlite3
import stat
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("cryptography")

from fastapi.testclient import TestClient

from canasta.engine.errors import CanastaError
from canasta.web.app import create_app
from canasta.web.room import Settings
from canasta.web.store import Event, Store, TableRow
from canasta.web.vault import ENV, new_key, vault_for


def raw(db: Path) -> str:
    """Every text the SQLite file's tables hold, as one string."""
    with sqlite3.connect(db) as conn:
        rows = [*conn.execute("SELECT header FROM canasta_tables")]
        with contextlib.suppress(sqlite3.OperationalError):  # a single server's database has no events table
            rows += [*conn.execute("SELECT data FROM canasta_events WHERE data IS NOT NULL")]
    return "\n".join(str(r[0]) for r in rows)


def test_a_fair_tables_secrets_are_not_in_the_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    db = tmp_path / "room.db"
    app = create_app(str(db), settings=Settings(bot_delay=0))
    with TestClient(app) as client:
        made = client.post("/api/quick", json={"name": "Ann"}).json()
        table = app.state.hub.rooms[made["table"]].table
        pending = table.pending
        assert pending is not None
        secret = pending.secret.hex()
        app.state.hub.store.close()
    stored = raw(db)
    assert secret not in stored and "fernet:" in stored
    key_file = Path(str(db) + ".key")
    assert key_file.exists() and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    again = Store(str(db))  # a restart: the same key file opens it
    row = again.load(made["table"])
    again.close()
    assert row is not None and row.state["fair"]["pending"]["secret"] == secret


def test_a_clusters_deal_events_are_sealed_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, new_key())
    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    secret = "ab" * 32
    store.create(TableRow("t1", 0.0, 0.0, "playing", {}, {"fair": {"deals": [], "pending":
                                                                  {"hand": 1, "secret": secret, "client_seeds": [""]}}},
                          0, []))
    store.append("t1", Event(1, "deal", -1, "", {"pending": {"hand": 2, "secret": "cd" * 32, "client_seeds": [""]}},
                             1.0), "playing", 1)
    assert secret not in raw(tmp_path / "c.db") and "cd" * 32 not in raw(tmp_path / "c.db")
    got = store.load_base("t1")
    assert got is not None
    row, events = got
    assert row.state["fair"]["pending"]["secret"] == secret
    assert events[0].data == {"pending": {"hand": 2, "secret": "cd" * 32, "client_seeds": [""]}}
    store.close()


def test_keys_rotate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = new_key(), new_key()
    url = f"sqlite:///{tmp_path / 'r.db'}"
    state = {"fair": {"deals": [{"hand": 1, "secret": "11" * 32, "client_seeds": ["", ""]}], "pending": None}}
    monkeypatch.setenv(ENV, old)
    store = Store(url)
    store.create(TableRow("t1", 0.0, 0.0, "playing", {}, {**state, "hands": [[]]}, 0, []))
    store.close()
    monkeypatch.setenv(ENV, f"{new},{old}")  # the new key first: it writes, both read
    store = Store(url)
    assert store.load_base("t1") is not None
    assert store.reseal() == 1
    store.close()
    monkeypatch.setenv(ENV, new)  # the old key dropped: every row opens with the new one
    store = Store(url)
    got = store.load_base("t1")
    assert got is not None and got[0].state["fair"]["deals"][0]["secret"] == "11" * 32
    store.close()
    monkeypatch.setenv(ENV, old)  # a key that never wrote them: said, not a traceback
    store = Store(url)
    with pytest.raises(CanastaError, match=ENV):
        store.load_base("t1")
    store.close()


def test_a_missing_or_malformed_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(CanastaError, match="set CANASTA_SECRET_KEYS"):
        vault_for("postgresql+psycopg://canasta@db.example/canasta")
    monkeypatch.setenv(ENV, "not-a-key")
    with pytest.raises(CanastaError, match="new-secret-key"):
        vault_for("sqlite:///x.db")


def test_a_tournaments_secrets_rotate_with_the_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tournament's round secrets and its boards in play are sealed like the tables' deals, and
    ``--reencrypt-secrets`` moves them to the first key too (else dropping the old key would lose
    every tournament under way)."""
    from canasta.web.tournament_store import Live, TournamentStore

    old, new = new_key(), new_key()
    url = f"sqlite:///{tmp_path / 'r.db'}"
    state = {"name": "Club night", "director": {"id": "a1", "name": "Dora"}, "status": "running",
             "secrets": [{"secret": "22" * 32}]}
    monkeypatch.setenv(ENV, old)
    store = Store(url)
    ts = TournamentStore(store.engine, store.vault)
    ts.create("t1", state, 0.0)
    live = Live(1, 1, 1, -1, 0, None, None, 0.0, {"table": {"fair": {"deals": [{"secret": "33" * 32}]}}})
    assert ts.save_live("t1", live, 0.0)
    store.close()
    monkeypatch.setenv(ENV, f"{new},{old}")  # the new key first: it writes, both read
    store = Store(url)
    assert TournamentStore(store.engine, store.vault).reseal() == 2  # the document and the live row
    assert TournamentStore(store.engine, store.vault).reseal() == 0  # under the first key already
    store.close()
    monkeypatch.setenv(ENV, new)  # the old key dropped: both open with the new one
    store = Store(url)
    ts = TournamentStore(store.engine, store.vault)
    got, row = ts.load("t1"), ts.live("t1", 1)
    assert got is not None and got.state["secrets"][0]["secret"] == "22" * 32
    assert row is not None and row.data is not None and row.data["table"]["fair"]["deals"][0]["secret"] == "33" * 32
    store.close()
