"""Ratings for people: team-aware Bayesian ratings (``openskill``), one pool per rule family
and player count (``classic-4p``, ``italian-4p``, ``classic-2p`` ...).

A partnership game rates each member from the team's result: openskill's Weng–Lin models
(Plackett–Luce by default, Thurstone–Mosteller as a choice) add the members' skills into the
team's and share the update out by each member's uncertainty.  A partnership that keeps
playing together also gets a rating of its own (``A & B``), from the same results.

A rating is a mean ``mu`` and an uncertainty ``sigma``; the number shown is the cautious
``mu - 3 sigma`` (:attr:`Rating.shown`), beside ``sigma``.  A player is *provisional* until
:attr:`RatingSettings.provisional_games` rated games; the leaderboard lists the others first.
Every game appends a point to each player's history (the profile's plot).

A pool is written as JSON (:meth:`RatingPool.to_dict`; :class:`RatingBook` keeps every pool
of a club in one file, written whole or not at all)::

    book = RatingBook()
    pool = book.pool_for(RuleSet.preset("classic-4p"))
    pool.rate([["ann", "bob"], ["cy", "dee"]], scores=[2450, 1310])
    print(pool.leaderboard()[0].shown)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from canasta.engine.errors import CanastaError, read_text
from canasta.engine.files import write_text_atomic
from canasta.engine.rules import RuleSet

#: the rating models offered: openskill's Plackett–Luce (the default) and Thurstone–Mosteller (full pairing)
MODELS = ("plackett-luce", "thurstone-mosteller")
FORMAT = "canasta-ratings/1"
#: openskill's scale: a new player's mean and uncertainty
MU = 25.0
SIGMA = MU / 3


class RatingError(CanastaError):
    """A rating pool's input that cannot be rated (a player twice, a wrong number of results ...)."""


def pool_key(rules: RuleSet) -> str:
    """The pool a rule set's games are rated in: its family and player count (``classic-4p``);
    cut-throat games (three players, or no partnerships) are a pool of their own (``classic-3p``)."""
    return f"{rules.family}-{rules.players}p"


@dataclass(frozen=True)
class RatingSettings:
    """How a pool rates: the model, the games before a rating stops being provisional, and
    ``z``, the sigmas taken off the mean for the number shown."""

    model: str = "plackett-luce"
    provisional_games: int = 10
    z: float = 3.0

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise RatingError(f"unknown rating model {self.model!r}: choose {' or '.join(MODELS)}")
        if self.provisional_games < 0:
            raise RatingError("provisional games are a whole number from 0")
        if not self.z >= 0:
            raise RatingError("z is a number from 0")


@dataclass(frozen=True)
class HistoryPoint:
    """A player's rating after one of the pool's games (``game`` counts the pool's games)."""

    game: int
    mu: float
    sigma: float
    shown: float


@dataclass
class Rating:
    """One player's (or partnership's) rating in a pool."""

    name: str
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0
    history: list[HistoryPoint] = field(default_factory=list)
    z: float = 3.0
    provisional_games: int = 10

    @property
    def shown(self) -> float:
        """The number shown: ``mu - z sigma`` (the skill the pool is fairly sure of)."""
        return self.mu - self.z * self.sigma

    @property
    def provisional(self) -> bool:
        """Fewer rated games than the pool's setting."""
        return self.games < self.provisional_games


@dataclass(frozen=True)
class LeaderRow:
    """A leaderboard's line."""

    place: int
    name: str
    shown: float
    mu: float
    sigma: float
    games: int
    wins: int
    provisional: bool


def _model(name: str) -> Any:
    try:
        from openskill.models import PlackettLuce, ThurstoneMostellerFull
    except ImportError:
        raise RatingError("ratings need openskill: pip install -e '.[club]'") from None
    return PlackettLuce() if name == "plackett-luce" else ThurstoneMostellerFull()


class RatingPool:
    """The ratings of one pool (``classic-4p`` ...): players and partnerships, their histories."""

    def __init__(self, key: str, settings: RatingSettings | None = None) -> None:
        self.key = key
        self.settings = settings or RatingSettings()
        self.players: dict[str, Rating] = {}
        self.partnerships: dict[str, Rating] = {}
        self.games = 0
        self._model = _model(self.settings.model)

    def rating(self, name: str) -> Rating:
        """``name``'s rating (a new player's if it has played no rated game here)."""
        return self.players.get(name) or self._new(name)

    def partnership(self, members: Sequence[str]) -> Rating:
        """The partnership's own rating (``A & B``, members in sorted order)."""
        key = partnership_name(members)
        return self.partnerships.get(key) or self._new(key)

    def rate(self, teams: Sequence[Sequence[str]], *, scores: Sequence[float] | None = None,
             ranks: Sequence[float] | None = None) -> list[list[Rating]]:
        """Rate one game: ``teams`` are the sides' players (one name each in a two-player game),
        with either their ``scores`` (higher is better) or their ``ranks`` (1 for the winner,
        equal for a draw).  Returns each team's new ratings; partnerships of two or more are
        rated too."""
        names = [str(n) for team in teams for n in team]
        if len(teams) < 2 or any(not team for team in teams):
            raise RatingError("a rated game has at least two sides, each with a player")
        if len(set(names)) != len(names):
            raise RatingError("a player appears twice in one rated game")
        if (scores is None) == (ranks is None):
            raise RatingError("give the sides' scores or their ranks, not both")
        given = list(scores if scores is not None else ranks)  # type: ignore[arg-type]
        if len(given) != len(teams):
            raise RatingError(f"{len(teams)} sides need {len(teams)} results, not {len(given)}")
        # ranks, lower is better (openskill takes either; ranks keep both models alike)
        order = [-float(s) for s in given] if scores is not None else [float(r) for r in given]
        best = min(order)
        self.games += 1
        new = self._update([[self.rating(n) for n in team] for team in teams], order, self.players, best)
        if all(len(team) > 1 for team in teams):
            self._update([[self.partnership(team)] for team in teams], order, self.partnerships, best)
        return new

    def _update(self, teams: list[list[Rating]], order: list[float], into: dict[str, Rating],
                best: float) -> list[list[Rating]]:
        model = self._model
        rated = model.rate([[model.rating(mu=r.mu, sigma=r.sigma) for r in team] for team in teams], ranks=order)
        out: list[list[Rating]] = []
        for team, new_team, rank in zip(teams, rated, order, strict=True):
            row = []
            for old, new in zip(team, new_team, strict=True):
                r = into.setdefault(old.name, old)
                r.mu, r.sigma = float(new.mu), float(new.sigma)
                r.games += 1
                r.wins += rank == best and order.count(best) == 1
                r.history.append(HistoryPoint(self.games, r.mu, r.sigma, r.shown))
                row.append(r)
            out.append(row)
        return out

    def predict_win(self, teams: Sequence[Sequence[str]]) -> list[float]:
        """Each side's chance of winning, by the model."""
        model = self._model
        chances = model.predict_win([[model.rating(mu=r.mu, sigma=r.sigma) for r in (self.rating(n) for n in team)]
                                     for team in teams])
        return [float(p) for p in chances]

    def leaderboard(self, *, partnerships: bool = False, provisional: bool = True) -> list[LeaderRow]:
        """The pool's table: established ratings by the number shown, then (with ``provisional``)
        the provisional ones."""
        pool = self.partnerships if partnerships else self.players
        rows = sorted(pool.values(), key=lambda r: (r.provisional, -r.shown, r.name))
        if not provisional:
            rows = [r for r in rows if not r.provisional]
        return [LeaderRow(i + 1, r.name, r.shown, r.mu, r.sigma, r.games, r.wins, r.provisional)
                for i, r in enumerate(rows)]

    def history(self, name: str) -> list[HistoryPoint]:
        """``name``'s rating after each of its games, oldest first."""
        return list(self.rating(name).history)

    def _new(self, name: str) -> Rating:
        return Rating(name, MU, SIGMA, z=self.settings.z, provisional_games=self.settings.provisional_games)

    # ------------------------------------------------------------------ files

    def to_dict(self) -> dict[str, Any]:
        def rows(pool: dict[str, Rating]) -> dict[str, Any]:
            return {n: {"mu": r.mu, "sigma": r.sigma, "games": r.games, "wins": r.wins,
                        "history": [[p.game, p.mu, p.sigma] for p in r.history]} for n, r in sorted(pool.items())}

        return {"key": self.key, "model": self.settings.model, "provisional_games": self.settings.provisional_games,
                "z": self.settings.z, "games": self.games, "players": rows(self.players),
                "partnerships": rows(self.partnerships)}

    @classmethod
    def from_dict(cls, data: Any) -> RatingPool:
        try:
            settings = RatingSettings(str(data["model"]), int(data["provisional_games"]), float(data["z"]))
            pool = cls(str(data["key"]), settings)
            pool.games = int(data["games"])
            for into, rows in ((pool.players, data["players"]), (pool.partnerships, data["partnerships"])):
                for name, row in rows.items():
                    r = pool._new(str(name))
                    r.mu, r.sigma, r.games, r.wins = float(row["mu"]), float(row["sigma"]), int(row["games"]), \
                        int(row["wins"])
                    r.history = [HistoryPoint(int(g), float(m), float(s), float(m) - settings.z * float(s))
                                 for g, m, s in row["history"]]
                    into[r.name] = r
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RatingError(f"not a rating pool: {type(exc).__name__}: {exc}") from None
        return pool


def partnership_name(members: Sequence[str]) -> str:
    """A partnership's name: its members in sorted order, joined by `` & ``."""
    return " & ".join(sorted(str(m) for m in members))


class RatingBook:
    """Every pool of a club, kept in one JSON file (``canasta-ratings/1``)."""

    def __init__(self, settings: RatingSettings | None = None) -> None:
        self.settings = settings or RatingSettings()
        self.pools: dict[str, RatingPool] = {}

    def pool(self, key: str) -> RatingPool:
        """The pool named ``key`` (made empty when new)."""
        if key not in self.pools:
            self.pools[key] = RatingPool(key, self.settings)
        return self.pools[key]

    def pool_for(self, rules: RuleSet) -> RatingPool:
        """The pool ``rules``' games are rated in (:func:`pool_key`)."""
        return self.pool(pool_key(rules))

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "pools": [p.to_dict() for _, p in sorted(self.pools.items())]}

    @classmethod
    def from_dict(cls, data: Any) -> RatingBook:
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("pools"), list):
            raise RatingError(f"not a ratings file (expected format {FORMAT})")
        book = cls()
        for raw in data["pools"]:
            pool = RatingPool.from_dict(raw)
            book.pools[pool.key] = pool
        return book

    def save(self, path: str | Path) -> None:
        """Write every pool to ``path`` (whole or not at all)."""
        write_text_atomic(path, json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> RatingBook:
        text = read_text(path, "ratings file", RatingError)
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError as exc:
            raise RatingError(f"{str(path)!r} is not a ratings file: line {exc.lineno}: {exc.msg}") from None


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation of two equally long sequences (ties broken by position)."""
    def ranks(values: Sequence[float]) -> list[int]:
        out = [0] * len(values)
        for rank, i in enumerate(sorted(range(len(values)), key=lambda i: values[i])):
            out[i] = rank
        return out

    n = len(xs)
    if n != len(ys) or n < 2:
        raise RatingError("a rank correlation needs two sequences of the same length, at least 2")
    d2 = sum((a - b) ** 2 for a, b in zip(ranks(xs), ranks(ys), strict=True))
    return 1 - 6 * d2 / (n * (n * n - 1))


def simulate_pool(players: int = 200, games: int = 4000, seed: int = 1, model: str = "plackett-luce",
                  noise: float = 2.0) -> tuple[RatingPool, list[float]]:
    """A pool of ``players`` with hidden strengths (normal, mean 0, deviation 1) playing ``games``
    partnership games of four drawn at random: a side's performance is its two strengths plus a
    normal luck of deviation ``noise``, and the better performance wins.  Returns the pool and
    the hidden strengths (player ``str(i)`` has ``strengths[i]``), so the ratings can be compared
    with them (:func:`spearman`)."""
    import random

    rng = random.Random(seed)
    strengths = [rng.gauss(0, 1) for _ in range(players)]
    pool = RatingPool("simulated-4p", RatingSettings(model))
    for _ in range(games):
        a, b, c, d = rng.sample(range(players), 4)
        perf = [strengths[a] + strengths[b] + rng.gauss(0, noise), strengths[c] + strengths[d] + rng.gauss(0, noise)]
        pool.rate([[str(a), str(b)], [str(c), str(d)]], scores=perf)
    return pool, strengths


__all__ = ["FORMAT", "MODELS", "MU", "SIGMA", "HistoryPoint", "LeaderRow", "Rating", "RatingBook", "RatingError",
           "RatingPool", "RatingSettings", "partnership_name", "pool_key", "simulate_pool", "spearman"]
