"""The bot interface: a bot sees a seat view, never the game, and returns a move.

A bot is deterministic given its seed.  To know its legal moves it rebuilds a
game from the view (:func:`world`): the unseen cards are dealt at random, which
cannot change the legal moves of the seat to move, since those depend only on
its own hand and the public table.

Your own bot is a subclass with a ``choose`` method; give the object (or the
class, which is called with a seed for each seat) to a
:class:`~canasta.play.table.Table` seat or to :func:`canasta.tools.arena.run_arena`, as
you would give a level name::

    class Greedy(Bot):
        name = "greedy"

        def choose(self, view: SeatView) -> Move:
            moves = legal_moves(view, self.rng)
            return max(moves, key=lambda m: (m.kind == MELD, len(str(m))))
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from canasta.engine import compiled_pickle
from canasta.engine.game import Game
from canasta.engine.moves import Move
from canasta.engine.native import mypyc_attr
from canasta.views.seat import SeatView, sample_world


@dataclass(frozen=True)
class Budget:
    """How long a searching bot may think: seconds and/or iterations per decision
    (the bot checks them itself: the expert, for one, stops short of ``seconds``)."""

    seconds: float | None = None
    iterations: int | None = None


@mypyc_attr(allow_interpreted_subclasses=True)
class Bot:
    """Base class: ``choose(view)`` returns a legal move for ``view.seat``.

    ``name`` labels the bot in records and reports; ``self.rng`` is its seeded
    random source.  Optional: ``close()`` releases what it holds, and a
    ``hand_over(totals)`` method, if it has one, hears each hand's scores."""

    #: the bot's label in records and arena reports
    name = "bot"

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        """A bot seeded with ``seed`` (the same seed, the same play), thinking within ``budget``."""
        self.seed = seed
        self.rng = random.Random(seed)
        self.budget = budget

    def choose(self, view: SeatView) -> Move:  # pragma: no cover - abstract
        """The move to play for ``view.seat`` (``view.to_move``), seeing only the view."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the bot holds (processes, files)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} seed={self.seed}>"


def world(view: SeatView, rng: random.Random) -> Game:
    """A full game consistent with the view (the unseen cards dealt at random)."""
    return sample_world(view, rng)


def legal_moves(view: SeatView, rng: random.Random) -> list[Move]:
    """The legal moves of the seat to move in ``view`` (one per choice that matters)."""
    return list(world(view, rng).generate())


#: a player where a bot is asked for: a spec string (:func:`canasta.bots.make_bot`:
#: ``"advanced"``, ``"cmd:..."``), a :class:`Bot` object, or a factory called with a
#: seed that returns one (a :class:`Bot` subclass itself)
BotLike = Bot | str | Callable[[int], Bot]


class RandomBot(Bot):
    """Uniform among the legal moves."""

    name = "random"

    def choose(self, view: SeatView) -> Move:
        g = world(view, self.rng)
        return g.random_move(self.rng)


compiled_pickle.register([__name__])  # compiled: this module's classes pickle and copy (canasta.engine.compiled_pickle)
