"""Melds and canastas: what a meld is, whether it is legal, what it scores."""

from __future__ import annotations

from collections.abc import Iterable

from canasta.engine.cards import (
    CARD_RANK,
    CARD_VALUE,
    IS_BLACK_THREE,
    IS_NATURAL,
    JOKER_RANK,
    THREE,
    TWO,
    Card,
    Rank,
    cards_str,
)
from canasta.engine.rules import RuleSet

#: the cards a meld needs to be a canasta in Classic and Italian Canasta (A.6.1, B.7.1); a
#: family declares its own (``RuleFamily.canasta_size``, from this), and a meld carries it
CANASTA_SIZE = 7


class Meld:
    """One meld of a side: a rank, its cards, and how it was laid.

    ``naturals``/``deuces``/``jokers`` are counts kept in step with ``cards``.
    ``concealed`` is fixed when the meld is laid (A.6.7).  ``full`` is the size at which it is
    a canasta: its family's (``game.canasta_size``).
    """

    __slots__ = ("rank", "cards", "naturals", "deuces", "jokers", "points", "concealed", "owner", "turn", "full")

    def __init__(self, rank: Rank, owner: int = -1, turn: int = -1, concealed: bool = False,
                 full: int = CANASTA_SIZE) -> None:
        self.rank = rank
        self.cards: list[Card] = []
        self.naturals = 0
        self.deuces = 0
        self.jokers = 0
        self.points = 0
        self.concealed = concealed
        self.owner = owner  # seat that started it
        self.turn = turn  # turn number in which it was started
        self.full = full

    def add(self, card: Card) -> None:
        self.cards.append(card)
        r = CARD_RANK[card]
        if r == TWO:
            self.deuces += 1
        elif r == JOKER_RANK:
            self.jokers += 1
        else:
            self.naturals += 1
        self.points += CARD_VALUE[card]

    @property
    def wilds(self) -> int:
        return self.deuces + self.jokers

    @property
    def size(self) -> int:
        return self.naturals + self.deuces + self.jokers

    @property
    def is_canasta(self) -> bool:
        return self.naturals + self.deuces + self.jokers >= self.full

    @property
    def is_natural(self) -> bool:
        return self.deuces + self.jokers == 0

    def copy(self) -> Meld:
        m = Meld(self.rank, self.owner, self.turn, self.concealed, self.full)
        m.cards = self.cards[:]
        m.naturals = self.naturals
        m.deuces = self.deuces
        m.jokers = self.jokers
        m.points = self.points
        return m

    def __repr__(self) -> str:
        flag = " concealed" if self.concealed else ""
        return f"<Meld {cards_str(self.cards)}{flag}>"


def wild_limit(rules: RuleSet, naturals: int) -> int:
    """Most wild cards a meld with this many natural cards may hold (A.5.3, A.5.4)."""
    if rules.wild_ratio == "max3_only":
        return 3
    return 3 if naturals >= 3 else naturals


def check_meld_shape(rules: RuleSet, naturals: int, wilds: int) -> str | None:
    """``None`` if a (new or grown) meld of this composition is legal, else
    the key of its refusal (:data:`canasta.engine.errors.REFUSAL_FORMS`)."""
    if naturals < 2:
        return "NEEDS_TWO_NATURALS"
    if naturals + wilds < 3:
        return "MELD_TOO_SMALL"
    if wilds > 3:
        return "TOO_MANY_WILDS"
    if rules.wild_ratio != "max3_only" and wilds > naturals:
        return "WILDS_EXCEED_NATURALS"
    return None


def canasta_bonus(rules: RuleSet, meld: Meld) -> int:
    """Bonus of a canasta (A.6.2, A.6.7); 0 for a meld that is not one."""
    if meld.rank == THREE or not meld.is_canasta:
        return 0
    bonus = 500 if meld.is_natural else 300
    if meld.concealed and rules.concealed_canasta_bonus:
        bonus += 100
    return bonus


def meld_from_cards(cards: Iterable[Card], concealed: bool = False, full: int = CANASTA_SIZE) -> Meld:
    """A meld of these cards (its rank their natural cards', -1 when none or mixed), a canasta
    from ``full`` cards on."""
    cards = list(cards)
    ranks = {CARD_RANK[c] for c in cards if IS_NATURAL[c] or IS_BLACK_THREE[c]}
    rank = ranks.pop() if len(ranks) == 1 else -1
    m = Meld(rank, concealed=concealed, full=full)
    for c in cards:
        m.add(c)
    return m


#: the key of a side's open meld of wild cards only, where a family has them (Italian, B.8);
#: the family's own rules for such melds live in its package (canasta.families.italian.melds)
WILD_MELD = 14
