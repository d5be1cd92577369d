"""A game rated once by its key (issue 53: the card room's rated tables use the table id): the
same game seen ending by two servers at once, on SQLite and on PostgreSQL, moves the ratings
once; a void game is kept under its key and rates nobody."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from conftest import need

need("openskill")
need("sqlalchemy")

from sqlalchemy import create_engine  # noqa: E402

from canasta.club.rating_store import RatingStore  # noqa: E402
from test_club_rating_store import postgres  # noqa: E402, F401  (the fixture)

TEAMS = [["ann", "bob"], ["cy", "dee"]]


def race(stores: list[RatingStore], games: int) -> list[int]:
    """Every store tries to rate every game at once; how many each rated."""
    start = threading.Barrier(len(stores))
    done = [0] * len(stores)
    errors: list[BaseException] = []

    def serve(i: int) -> None:
        try:
            start.wait(timeout=30)
            for g in range(games):
                rated = stores[i].rate_game("classic-4p", f"table{g}", json.dumps({"g": g}), float(g), TEAMS,
                                            scores=[100 + g, 50])
                done[i] += rated is not None
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=serve, args=(i,)) for i in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    return done


def check(store: RatingStore, games: int) -> None:
    pool = store.pool("classic-4p", history=True)
    assert pool.games == games
    for name in ("ann", "bob", "cy", "dee"):
        rating = pool.rating(name)
        assert rating.games == games and [p.game for p in rating.history] == list(range(1, games + 1))
    assert pool.rating("ann").wins == games and pool.rating("cy").wins == 0


def test_a_game_is_rated_once_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    stores = [RatingStore(create_engine(url, connect_args={"timeout": 30})) for _ in range(2)]
    done = race(stores, 10)
    assert sum(done) == 10
    check(stores[0], 10)
    assert stores[1].rated("table3") == ("classic-4p", json.dumps({"g": 3}))
    assert stores[1].void_game("classic-4p", "table3", "{}", 0.0) is False  # settled already
    assert stores[1].void_game("classic-4p", "gone", "{}", 0.0) is True
    assert stores[0].rated("gone") == ("classic-4p", "{}") and stores[0].pool("classic-4p").games == 10


def test_a_game_is_rated_once_on_postgresql(postgres: str) -> None:  # noqa: F811
    stores = [RatingStore(create_engine(postgres)) for _ in range(3)]
    done = race(stores, 15)
    assert sum(done) == 15
    check(stores[0], 15)
    for s in stores:
        s.engine.dispose()
