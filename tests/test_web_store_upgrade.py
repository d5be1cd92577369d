"""A card-room database written before events (each move a row of ``canasta_moves``)
is brought over when a server opens it: every table plays on where it was, under the
same event numbers, and nothing of it is lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy import create_engine, inspect, text

from canasta.bots import make_bot
from canasta.play.table import Table
from canasta.web.store import Event, Store

OLD_SCHEMA = (
    "CREATE TABLE canasta_tables (id VARCHAR(32) PRIMARY KEY, created FLOAT NOT NULL, updated FLOAT NOT NULL, "
    "status VARCHAR(16) NOT NULL, config TEXT NOT NULL, header TEXT NOT NULL, hands INTEGER NOT NULL, "
    "seq INTEGER NOT NULL)",
    "CREATE TABLE canasta_moves (table_id VARCHAR(32), idx INTEGER, hand INTEGER NOT NULL, "
    "line VARCHAR(400) NOT NULL, PRIMARY KEY (table_id, idx))",
    "CREATE TABLE canasta_seats (table_id VARCHAR(32), seat INTEGER, kind VARCHAR(16) NOT NULL, "
    "name VARCHAR(64) NOT NULL, level VARCHAR(16), token_hash VARCHAR(64), invite_hash VARCHAR(64), "
    "PRIMARY KEY (table_id, seat))",
    "CREATE TABLE canasta_notices (table_id VARCHAR(32), id INTEGER, kind VARCHAR(16) NOT NULL, "
    "seat INTEGER NOT NULL, hand INTEGER NOT NULL, after INTEGER NOT NULL, PRIMARY KEY (table_id, id))",
)


def played(seed: int, moves: int) -> Table:
    """A table of basic bots, dealt and ``moves`` moves into its first hand."""
    table = Table("classic-4p", ["basic"] * 4, seed)
    bot = make_bot("basic", seed=seed)
    for _ in range(moves):
        seat = table.to_move
        table.play(seat, bot.choose(table.view(seat)))
    return table


def write_old(path: Path, table: Table, seq: int) -> None:
    """``table`` stored as the card room stored tables before events."""
    engine = create_engine(f"sqlite:///{path}")
    state = table.to_dict()
    header = {k: v for k, v in state.items() if k != "hands"}
    with engine.begin() as db:
        for statement in OLD_SCHEMA:
            db.execute(text(statement))
        db.execute(text("INSERT INTO canasta_tables VALUES ('old1', 1.0, 2.0, 'playing', :config, :header, :hands, "
                        ":seq)"), {"config": json.dumps({"title": "Before", "bot_delay": 0.5}),
                                   "header": json.dumps(header), "hands": len(state["hands"]), "seq": seq})
        idx = 0
        for h, hand in enumerate(state["hands"], start=1):
            for line in hand:
                db.execute(text("INSERT INTO canasta_moves VALUES ('old1', :idx, :hand, :line)"),
                           {"idx": idx, "hand": h, "line": line})
                idx += 1
        for seat in range(4):
            db.execute(text("INSERT INTO canasta_seats VALUES ('old1', :seat, 'bot', :name, 'basic', NULL, NULL)"),
                       {"seat": seat, "name": table.names[seat]})
        db.execute(text("INSERT INTO canasta_notices VALUES ('old1', 1, 'timeout', 2, 1, 5)"))
    engine.dispose()


def test_an_old_database_is_brought_over_to_events(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    table = played(seed=11, moves=23)
    write_old(path, table, seq=57)
    store = Store(str(path))
    try:
        assert not inspect(store.engine).has_table("canasta_moves")  # folded into the headers
        row = store.load("old1")
        assert row is not None and row.seq == 57 and row.status == "playing"
        assert row.state == table.to_dict()  # every move, as played
        assert row.config == {"title": "Before", "bot_delay": 0.5}
        assert [s.name for s in row.seats] == table.names
        base = store.load_base("old1")
        assert base is not None and base[0].notices == [{"id": 1, "kind": "timeout", "seat": 2, "hand": 1,
                                                          "after": 5}]
        # play goes on under the next number, and only that one
        seat = table.to_move
        move = make_bot("basic", seed=3).choose(table.view(seat))
        store.append("old1", Event(58, "move", seat, str(move), None, 3.0), "playing", 1)
        table.play(seat, move)
        again = store.load("old1")
        assert again is not None and again.seq == 58 and again.state == table.to_dict()
    finally:
        store.close()
    reopened = Store(str(path))  # opening it again changes nothing
    try:
        final = reopened.load("old1")
        assert final is not None and final.seq == 58 and final.state == table.to_dict()
    finally:
        reopened.close()
