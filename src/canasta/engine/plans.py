"""Plans: what a checked move will do, as a family's ``plan_*`` hook found it.

A plan is made by the family that checked the move (``plan_meld``,
``plan_take``) and carried out by the same family (``lay``, ``take``); the game
only hands it over, between the check and the undo snapshot.  Plans are
immutable values (named tuples: as cheap to build as the tuples they replace).
"""

from __future__ import annotations

from typing import NamedTuple

from canasta.engine.cards import Card

GroupPlan = tuple[int, tuple[Card, ...]]
"""One group of a meld move: (the key of the meld it goes on, the cards it lays from the hand)."""


class MeldPlan(NamedTuple):
    """A checked meld move: its groups, in the order they are laid."""

    groups: tuple[GroupPlan, ...]


class TakePlan(NamedTuple):
    """A checked take of the pile (pozzo): the top card's rank, the cards shown
    with it (its meld), and the further groups laid in the same move."""

    rank: int
    shown: tuple[Card, ...]
    groups: tuple[GroupPlan, ...]


Plan = MeldPlan | TakePlan | Card | None
"""What :meth:`Game.plan <canasta.engine.game.Game.plan>` returns: a meld or take plan,
the card of a discard, or None (a move with nothing to plan)."""

__all__ = ["GroupPlan", "MeldPlan", "Plan", "TakePlan"]
