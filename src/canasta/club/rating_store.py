"""Ratings in a database (SQLAlchemy Core): what the card room's rated tables will write to.

Three tables beside the room's own (``docs/tournaments.md``): ``rating_pools`` (a pool's settings
and its count of games), ``ratings`` (each player's and partnership's rating in a pool) and
``rating_history`` (a point per player per game).  A game is rated in one transaction that reads
only the players of that game, rates them (:class:`~canasta.club.ratings.RatingPool`), and writes
their new ratings and history points; on PostgreSQL the pool's row is locked meanwhile, so two
servers rating games of one pool count them in turn::

    store = RatingStore(create_engine("sqlite:///club.db"))
    store.rate("classic-4p", [["ann", "bob"], ["cy", "dee"]], scores=[2450, 1310])
    store.leaderboard("classic-4p")[0].name
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Row,
    String,
    Table,
    Text,
    select,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.expression import Executable

from canasta.club.ratings import (
    HistoryPoint,
    LeaderRow,
    Rating,
    RatingError,
    RatingPool,
    RatingSettings,
    partnership_name,
)

meta = MetaData()

pools_t = Table(
    "rating_pools", meta,
    Column("key", String(40), primary_key=True),
    Column("model", String(40), nullable=False),
    Column("provisional_games", Integer, nullable=False),
    Column("z", Float, nullable=False),
    Column("games", Integer, nullable=False),
)

ratings_t = Table(
    "ratings", meta,
    Column("pool", String(40), nullable=False),
    Column("kind", String(12), nullable=False),  # player | partnership
    Column("name", String(200), nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    PrimaryKeyConstraint("pool", "kind", "name"),
)

history_t = Table(
    "rating_history", meta,
    Column("pool", String(40), nullable=False),
    Column("kind", String(12), nullable=False),
    Column("name", String(200), nullable=False),
    Column("game", Integer, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    PrimaryKeyConstraint("pool", "kind", "name", "game"),
)

#: the games rated, by their key (a card room's table id): a game is rated once, whoever sees its end
games_t = Table(
    "rated_games", meta,
    Column("game", String(64), primary_key=True),
    Column("pool", String(40), nullable=False),
    Column("result", Text, nullable=False),  # what was rated (JSON, the caller's)
    Column("at", Float, nullable=False),
)

PLAYER, PARTNERSHIP = "player", "partnership"


class RatingStore:
    """The ratings of every pool in a database (made if missing)."""

    def __init__(self, engine: Engine, settings: RatingSettings | None = None) -> None:
        self.engine = engine
        self.settings = settings or RatingSettings()
        meta.create_all(engine)

    def rate(self, key: str, teams: Sequence[Sequence[str]], *, scores: Sequence[float] | None = None,
             ranks: Sequence[float] | None = None) -> list[list[Rating]]:
        """Rate one game of pool ``key`` (as :meth:`RatingPool.rate`) in one transaction."""
        with self.engine.begin() as conn:
            return self._rate(conn, key, teams, scores, ranks)

    def rate_game(self, key: str, game: str, result: str, at: float, teams: Sequence[Sequence[str]], *,
                  scores: Sequence[float] | None = None,
                  ranks: Sequence[float] | None = None) -> list[list[Rating]] | None:
        """Rate game ``game`` of pool ``key`` unless it was rated already (None then): its row in
        ``rated_games`` (with ``result``, the caller's JSON) is written in the same transaction as
        the ratings, so two servers that both see the game end rate it once."""
        try:
            with self.engine.begin() as conn:
                self._pool(conn, key, lock=True)  # locked first: one pool's games are rated in turn
                if conn.execute(select(games_t.c.game).where(games_t.c.game == game)).first() is not None:
                    return None
                conn.execute(games_t.insert().values(game=game, pool=key, result=result, at=at))
                return self._rate(conn, key, teams, scores, ranks)
        except IntegrityError:  # the other server's row came first (SQLite: no row lock)
            return None

    def void_game(self, key: str, game: str, result: str, at: float) -> bool:
        """Keep game ``game`` of pool ``key`` as settled without rating anyone (a void game);
        False if it was settled already."""
        try:
            with self.engine.begin() as conn:
                if conn.execute(select(games_t.c.game).where(games_t.c.game == game)).first() is not None:
                    return False
                conn.execute(games_t.insert().values(game=game, pool=key, result=result, at=at))
                return True
        except IntegrityError:
            return False

    def rated(self, game: str) -> tuple[str, str] | None:
        """The pool and result of a rated game, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(games_t.c.pool, games_t.c.result).where(games_t.c.game == game)).first()
        return None if row is None else (str(row.pool), str(row.result))

    def _rate(self, conn: Connection, key: str, teams: Sequence[Sequence[str]], scores: Sequence[float] | None,
              ranks: Sequence[float] | None) -> list[list[Rating]]:
        pool = self._pool(conn, key, lock=True)
        names = [str(n) for team in teams for n in team]
        self._load(conn, pool, PLAYER, names)
        if all(len(team) > 1 for team in teams):
            self._load(conn, pool, PARTNERSHIP, [partnership_name(team) for team in teams])
        new = pool.rate(teams, scores=scores, ranks=ranks)
        conn.execute(pools_t.update().where(pools_t.c.key == key).values(games=pool.games))
        for kind, ratings in ((PLAYER, pool.players), (PARTNERSHIP, pool.partnerships)):
            for r in ratings.values():
                if not r.history or r.history[-1].game != pool.games:
                    continue  # not in this game
                row = {"mu": r.mu, "sigma": r.sigma, "games": r.games, "wins": r.wins}
                done = conn.execute(ratings_t.update().where(
                    (ratings_t.c.pool == key) & (ratings_t.c.kind == kind) & (ratings_t.c.name == r.name))
                    .values(**row)).rowcount
                if not done:
                    conn.execute(ratings_t.insert().values(pool=key, kind=kind, name=r.name, **row))
                conn.execute(history_t.insert().values(pool=key, kind=kind, name=r.name, game=pool.games,
                                                       mu=r.mu, sigma=r.sigma))
        return new

    def pool(self, key: str, *, history: bool = False) -> RatingPool:
        """The whole pool ``key`` (every rating; with ``history``, every point too)."""
        with self.engine.connect() as conn:
            pool = self._pool(conn, key)
            for kind, into in ((PLAYER, pool.players), (PARTNERSHIP, pool.partnerships)):
                for row in conn.execute(select(ratings_t).where((ratings_t.c.pool == key) & (ratings_t.c.kind == kind))):
                    into[row.name] = self._rating(pool, row)
            if history:
                for row in conn.execute(select(history_t).where(history_t.c.pool == key)
                                        .order_by(history_t.c.game)):
                    into = pool.players if row.kind == PLAYER else pool.partnerships
                    into[row.name].history.append(HistoryPoint(row.game, row.mu, row.sigma,
                                                               row.mu - pool.settings.z * row.sigma))
            return pool

    def leaderboard(self, key: str, *, partnerships: bool = False, provisional: bool = True) -> list[LeaderRow]:
        """Pool ``key``'s leaderboard (:meth:`RatingPool.leaderboard`)."""
        return self.pool(key).leaderboard(partnerships=partnerships, provisional=provisional)

    def history(self, key: str, name: str) -> list[HistoryPoint]:
        """``name``'s rating after each of its games in pool ``key``, oldest first."""
        z = self.settings.z
        with self.engine.connect() as conn:
            rows = conn.execute(select(history_t).where(
                (history_t.c.pool == key) & (history_t.c.kind == PLAYER) & (history_t.c.name == name))
                .order_by(history_t.c.game)).all()
        return [HistoryPoint(r.game, r.mu, r.sigma, r.mu - z * r.sigma) for r in rows]

    # ---------------------------------------------------------------- helpers

    def _pool(self, conn: Connection, key: str, lock: bool = False) -> RatingPool:
        query = select(pools_t).where(pools_t.c.key == key)
        if lock:
            query = query.with_for_update()
        row = conn.execute(query).first()
        if row is None:
            if not lock:
                return RatingPool(key, self.settings)
            s = self.settings
            values = {"key": key, "model": s.model, "provisional_games": s.provisional_games, "z": s.z, "games": 0}
            conn.execute(_insert_new(conn, values))  # two servers may make it at once: one row stays
            row = conn.execute(query).first()
            if row is None:  # pragma: no cover
                raise RatingError(f"the pool {key!r} could not be made")
        pool = RatingPool(key, RatingSettings(row.model, row.provisional_games, row.z))
        pool.games = row.games
        return pool

    def _load(self, conn: Connection, pool: RatingPool, kind: str, names: list[str]) -> None:
        into = pool.players if kind == PLAYER else pool.partnerships
        rows = conn.execute(select(ratings_t).where((ratings_t.c.pool == pool.key) & (ratings_t.c.kind == kind)
                                                    & ratings_t.c.name.in_(names)))
        for row in rows:
            into[row.name] = self._rating(pool, row)

    @staticmethod
    def _rating(pool: RatingPool, row: Row[Any]) -> Rating:
        return Rating(str(row.name), float(row.mu), float(row.sigma), int(row.games), int(row.wins),
                      z=pool.settings.z, provisional_games=pool.settings.provisional_games)


def _insert_new(conn: Connection, values: dict[str, Any]) -> Executable:
    """A pool's row inserted unless it is there already (PostgreSQL and SQLite's ON CONFLICT)."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(pools_t).values(**values).on_conflict_do_nothing(index_elements=["key"])
    if conn.dialect.name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(pools_t).values(**values).on_conflict_do_nothing(index_elements=["key"])
    return pools_t.insert().values(**values)


__all__ = ["RatingStore", "games_t", "history_t", "meta", "pools_t", "ratings_t"]
