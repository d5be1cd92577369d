"""The load benchmark's signed-in mode (``python -m canasta.web.load --signed-in``) really signs
every scripted person in: its tables are made and joined by accounts, whose seats the room keeps.
A few tables for a few seconds: the figures themselves are the benchmark's, not this test's."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("websockets")

from canasta.web import load
from canasta.web.account_store import AccountStore
from canasta.web.store import Store


def test_signed_in_load_signs_every_person_in_and_their_seats_are_the_accounts(tmp_path: Path) -> None:
    db = str(tmp_path / "load.db")
    args = load.main_parser().parse_args(["--tables", "2", "--duration", "1", "--warmup", "0", "--ramp", "0",
                                          "--pace", "0.05", "0.1", "--signed-in", "--db", db, "--seed", "7"])
    result = asyncio.run(load.run(args))
    assert result["errors"] == 0, result["error_samples"]
    assert result["sign_ins"] == 8
    assert result["healthz_probes_during_sign_ins"] >= 1
    store = Store(db)
    accounts = AccountStore(store.engine)
    names = load.person_names(args)
    assert len(set(names)) == 8
    held = []
    for name in names:
        account = accounts.find(name)
        assert account is not None, name
        held.extend(accounts.seats_of(account.id))
    # every scripted seat was taken signed in: two tables of four seats, each kept as its account's
    assert len(held) == 8 and {seat for _, seat in held} == {0, 1, 2, 3}
    assert len({table for table, _ in held}) == 2
    store.engine.dispose()


def test_signed_in_with_a_running_server_needs_its_database() -> None:
    args = load.main_parser().parse_args(["--url", "http://127.0.0.1:9", "--signed-in"])
    with pytest.raises(SystemExit, match="needs --db"):
        asyncio.run(load.run(args))
