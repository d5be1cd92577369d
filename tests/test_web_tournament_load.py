"""The tournament round's load benchmark (``python -m canasta.web.tournament_load``) really plays:
its people sign in, enter as partnerships, and play their own seats' moves through the room's
tournament API, and what it reports is what happened.  Two tables for a few seconds on one server:
the figures themselves are the benchmark's (docs/deploy.md), not this test's."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from canasta.web import tournament_load
from canasta.web.account_store import AccountStore
from canasta.web.store import Store
from canasta.web.tournament_store import TournamentStore


def test_a_small_round_is_played_by_its_people_and_reported(tmp_path: Path) -> None:
    db = str(tmp_path / "tload.db")
    record = tmp_path / "runs.jsonl"
    argv = ["--tables", "2", "--boards", "1", "--duration", "3", "--warmup", "1", "--pace", "0.02", "0.05",
            "--poll", "0.2", "--db", db, "--seed", "5", "--record", str(record)]
    assert tournament_load.main(argv) == 0
    line = json.loads(record.read_text().splitlines()[-1])
    assert line["command"].startswith("python -m canasta.web.tournament_load --tables 2")
    assert line["errors"] == 0, line["error_samples"]
    assert line["players"] == 8 and line["partnerships"] == 4
    assert line["moves"] > 0 and line["move_p50_ms"] is not None
    assert line["move_p50_ms"] <= line["move_p95_ms"] <= line["move_p99_ms"] <= line["move_max_ms"]
    assert line["reads"] > 0 and line["server_cpu_ms_per_move"] is not None
    assert line["document_bytes"] > 0 and len(line["machine_load_avg"]) == 3
    store = Store(db)
    try:
        director, players = tournament_load.names_of(5, 8)
        accounts = AccountStore(store.engine)
        assert all(accounts.find(n) is not None for n in [director, *players])
        tournaments = TournamentStore(store.engine, store.vault)
        (listed,) = tournaments.listing()
        got = tournaments.load(listed["id"])
        assert got is not None and got.status == "running"
        # every seat of the round is one of the benchmark's people, each partnership two of them
        seated = [o["name"] for seats in got.state["seats"].values() for o in seats if o is not None]
        assert sorted(seated) == sorted(players)
        # the moves counted were played at the tables: the moves the tables hold at least as many
        held = sum(head.moves for head in tournaments.heads(got.id))  # the boards being played: a row each
        done = len(got.state["tournament"]["records"])
        assert held + done > 0 and (done > 0 or held >= line["moves"])
    finally:
        store.engine.dispose()


def test_a_cluster_needs_its_database_and_redis() -> None:
    args = tournament_load.main_parser().parse_args(["--servers", "2"])
    with pytest.raises(SystemExit, match="--db"):
        asyncio.run(tournament_load.run(args))


def test_the_calls_are_timed_on_a_started_round() -> None:
    got = tournament_load.calls(2, seed=3, repeat=1)
    assert got["tables"] == 2
    for key in ("read_ms", "public_ms", "own_seat_ms", "move_ms", "step_ms"):
        assert got[key] > 0, key
    # the round's secret is sealed in the document, each board's deal in its table's own row
    assert got["sealed_values"] >= 1 and got["document_bytes"] > 0
    assert got["live_rows"] == 2 and got["live_sealed_values"] >= 2
