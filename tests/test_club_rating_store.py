"""Ratings in a database (issue 53): the same numbers as the pool in memory, histories and
leaderboards read back, a pool's settings kept; on PostgreSQL, two servers rating games of one
pool at once count every game once (skipped without PostgreSQL at 127.0.0.1:5432, database test)."""

from __future__ import annotations

import os
import random
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from canasta.club.rating_store import RatingStore
from canasta.club.ratings import RatingPool, RatingSettings

PG_ADMIN = os.environ.get("CANASTA_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
PLAYERS = [f"p{i}" for i in range(12)]


def _games(n: int, seed: int) -> list[tuple[list[list[str]], list[int]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a, b, c, d = rng.sample(PLAYERS, 4)
        out.append(([[a, b], [c, d]], [rng.randrange(-500, 4000), rng.randrange(-500, 4000)]))
    return out


def test_the_store_rates_as_the_pool_does(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'club.db'}")
    store = RatingStore(engine, RatingSettings(provisional_games=3))
    memory = RatingPool("classic-4p", RatingSettings(provisional_games=3))
    for teams, scores in _games(30, seed=1):
        stored = store.rate("classic-4p", teams, scores=scores)
        expected = memory.rate(teams, scores=scores)
        assert [[(r.name, r.mu, r.sigma) for r in team] for team in stored] == \
            [[(r.name, r.mu, r.sigma) for r in team] for team in expected]
    store.rate("classic-2p", [["p0"], ["p1"]], ranks=[2, 1])
    engine.dispose()
    again = RatingStore(create_engine(f"sqlite:///{tmp_path / 'club.db'}"))  # another server, later
    back = again.pool("classic-4p", history=True)
    assert back.games == 30 and back.settings.provisional_games == 3
    for name in PLAYERS:
        mine, theirs = back.rating(name), memory.rating(name)
        assert (mine.mu, mine.sigma, mine.games, mine.wins) == (theirs.mu, theirs.sigma, theirs.games, theirs.wins)
        assert [(p.game, p.mu, p.sigma) for p in again.history("classic-4p", name)] == \
            [(p.game, p.mu, p.sigma) for p in memory.history(name)]
    assert again.leaderboard("classic-4p") == memory.leaderboard()
    assert again.leaderboard("classic-4p", partnerships=True) == memory.leaderboard(partnerships=True)
    assert again.pool("classic-2p").rating("p1").mu > again.pool("classic-2p").rating("p0").mu
    assert again.pool("italian-4p").games == 0 and again.leaderboard("italian-4p") == []


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
    name = f"canasta_test_ratings_{uuid.uuid4().hex[:10]}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def _unavailable(reason: str) -> None:
    if os.environ.get("CANASTA_SERVICES_REQUIRED") == "1":
        pytest.fail(f"CANASTA_SERVICES_REQUIRED=1 but {reason}")
    pytest.skip(reason)


def test_two_servers_rate_one_pool_at_once_on_postgresql(postgres: str) -> None:
    stores = [RatingStore(create_engine(postgres)), RatingStore(create_engine(postgres))]
    games = [_games(20, seed=2), _games(20, seed=3)]
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def serve(store: RatingStore, mine: list[tuple[list[list[str]], list[int]]]) -> None:
        try:
            start.wait(timeout=30)
            for teams, scores in mine:
                store.rate("classic-4p", teams, scores=scores)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=serve, args=(s, g)) for s, g in zip(stores, games, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    pool = stores[0].pool("classic-4p", history=True)
    assert pool.games == 40
    played = {name: 0 for name in PLAYERS}
    for teams, _ in games[0] + games[1]:
        for name in teams[0] + teams[1]:
            played[name] += 1
    for name, n in played.items():
        rating = pool.rating(name)
        assert rating.games == n
        points = [p.game for p in rating.history]
        assert points == sorted(set(points)) and len(points) == n  # each game counted once, in turn
        assert (rating.mu, rating.sigma) == (rating.history[-1].mu, rating.history[-1].sigma)
    numbers = sorted(p.game for name in PLAYERS for p in pool.rating(name).history)
    assert sorted(set(numbers)) == list(range(1, 41))
    for s in stores:
        s.engine.dispose()
