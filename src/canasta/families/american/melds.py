"""Modern American Canasta's melds (SPEC C.5, C.6): what a meld may hold, dead ranks, and what
a canasta is worth.

A side's melds are keyed by rank as in every family, its meld of wild cards by ``WILD_MELD``
(C.5.7).  The checks here are pure functions of a side's melds and the turn: the family's plans
(:mod:`.rules`) and its generation (:mod:`.movegen`) ask them, and the refusal keys they return
are the family's own (:mod:`.refusals`) or shared ones."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from canasta.engine.cards import (
    ACE,
    CARD_RANK,
    CARD_VALUE,
    JOKER,
    RED_THREES,
    SEVEN,
    THREE,
    TWO,
    Card,
)
from canasta.engine.melds import WILD_MELD, Meld

#: a meld's most cards, and a canasta's size (C.5.2, C.6.1)
CANASTA: Final = 7
#: the most wild cards a mixed meld holds (C.5.4)
MAX_WILDS: Final = 2
#: natural cards a meld holds before a wild card may join it once the side has melded (C.5.5)
FIVE: Final = 5
#: card values (C.2): as Part A's, a three (which a hand holds only in the rare cases of C.3) 5
CARD_VALUES: Final[tuple[int, ...]] = tuple(5 if c in RED_THREES else CARD_VALUE[c] for c in range(len(CARD_VALUE)))


def is_dead(melds: Sequence[Mapping[int, Meld]], rank: int) -> bool:
    """C.5.8: a canasta of ``rank`` is finished on the table, by either side."""
    for side in melds:
        m = side.get(rank)
        if m is not None and m.size >= CANASTA:
            return True
    return False


def dead_mask(melds: Sequence[Mapping[int, Meld]]) -> list[bool]:
    """:func:`is_dead` of every meld key at once, indexed by key (the meld of wild cards' never set)."""
    dead = [False] * (WILD_MELD + 1)
    for side in melds:
        for r, m in side.items():
            if r != WILD_MELD and m.size >= CANASTA:
                dead[r] = True
    return dead


def dead_ranks(melds: Sequence[Mapping[int, Meld]]) -> list[int]:
    """The dead natural ranks, in rank order (C.5.8)."""
    return sorted({r for side in melds for r, m in side.items() if r != WILD_MELD and m.size >= CANASTA})


def wild_meld_open(side_melds: Mapping[int, Meld]) -> bool:
    """C.5.7: the side has an unfinished meld of wild cards."""
    m = side_melds.get(WILD_MELD)
    return m is not None and m.size < CANASTA


def eighth_error(m: Meld, wilds: int) -> str | None:
    """M-O9 = true: why cards (``wilds`` of them wild) may not go on the side's finished canasta
    ``m`` when its player goes out (C.5.2: natural cards of its rank, or a wild card on a mixed
    canasta of a rank that takes wild cards, C.5.4 still counting), or None."""
    if m.rank == WILD_MELD:
        return "MELD_OVER_SEVEN.american"
    if wilds:
        if m.wilds == 0 or m.rank in (ACE, SEVEN):
            return "EIGHTH_WILD_ON_NATURAL"
        if m.wilds + wilds > MAX_WILDS:
            return "TOO_MANY_WILDS.american"
    return None


def group_error(side_melds: Mapping[int, Meld], all_melds: Sequence[Mapping[int, Meld]], key: int,
                naturals: int, wilds: int, opening_turn: bool, rule_of_five: bool,
                beyond: bool = False) -> str | None:
    """Why laying ``naturals`` natural cards and ``wilds`` wild cards on the side's meld ``key``
    (a natural rank or ``WILD_MELD``; a new meld if the side has none) is refused, or None.
    ``opening_turn``: the side makes its initial meld in this turn (C.5.5, C.5.6, C.7.4);
    ``beyond``: cards may go on a finished canasta of the side (M-O9, checked by the caller to be
    the move before going out)."""
    m = side_melds.get(key)
    if beyond and m is not None and m.size >= CANASTA:
        return eighth_error(m, wilds)
    have_n = m.naturals if m is not None else 0
    have_w = m.wilds if m is not None else 0
    size = have_n + have_w + naturals + wilds
    if key == WILD_MELD:
        if naturals:
            return "MIXED_RANKS.american_wild"
        if size > CANASTA:
            return "MELD_OVER_SEVEN.american"
        if m is None and size < 3:
            return "MELD_TOO_SMALL.american"
        return None
    if key == THREE:
        return "THREES_NEVER_MELDED.american"
    if is_dead(all_melds, key):
        return "RANK_DEAD"
    if size > CANASTA:
        return "MELD_OVER_SEVEN.american"
    if m is None:
        if naturals < 2:
            return "NEEDS_TWO_NATURALS.american"
        if size < 3:
            return "MELD_TOO_SMALL.american"
    if wilds:
        if key == SEVEN:
            return "SEVENS_NO_WILD"
        if key == ACE and not opening_turn:
            return "ACES_NO_WILD"
        if have_w + wilds > MAX_WILDS:
            return "TOO_MANY_WILDS.american"
        if rule_of_five and not opening_turn and have_n + naturals < FIVE:
            return "RULE_OF_FIVE"
        if opening_turn and size >= CANASTA:
            return "OPENING_MIXED_CANASTA"
        if m is not None and m.wilds == 0 and m.naturals >= CANASTA:
            return "MELD_OVER_SEVEN.american"
    return None


def shape_error(meld: Meld, beyond: bool = False) -> str | None:
    """A meld on the table with an impossible make-up (the invariants' check), or None
    (``beyond``: M-O9 = true, a canasta may hold more than seven cards)."""
    if meld.rank == WILD_MELD:
        return None if meld.naturals == 0 and 3 <= meld.size <= CANASTA else "MIXED_RANKS.american_wild"
    if meld.size > CANASTA and not beyond:
        return "MELD_OVER_SEVEN.american"
    if meld.naturals < 2 or meld.size < 3:
        return "NEEDS_TWO_NATURALS.american"
    if meld.wilds > MAX_WILDS:
        return "TOO_MANY_WILDS.american"
    if meld.wilds and meld.rank == SEVEN:
        return "SEVENS_NO_WILD"
    return None


def canasta_kind(meld: Meld) -> str | None:
    """A finished canasta's kind, as the score sheet names it: "natural", "mixed", "aces",
    "sevens", "wild" (or None for a meld that is not a canasta)."""
    if meld.size < CANASTA:
        return None
    if meld.rank == WILD_MELD:
        return "wild"
    if meld.wilds:
        return "mixed"
    if meld.rank == ACE:
        return "aces"
    if meld.rank == SEVEN:
        return "sevens"
    return "natural"


def canasta_bonus(meld: Meld) -> int:
    """C.6.2: a finished canasta's bonus (0 for a meld that is not one)."""
    kind = canasta_kind(meld)
    if kind is None:
        return 0
    if kind == "wild":
        if meld.deuces == CANASTA:
            return 3000
        if meld.jokers == 4:
            return 2500
        return 2000
    return {"natural": 500, "mixed": 300, "aces": 2500, "sevens": 2500}[kind]


def unfinished_penalty(meld: Meld, four_jokers: int) -> int:
    """C.14.1 (b): what an unfinished meld of natural aces, of sevens or of wild cards costs
    (``four_jokers``: M-O26), as a positive number; 0 for any other meld."""
    if meld.size >= CANASTA:
        return 0
    if meld.rank == WILD_MELD:
        return four_jokers if meld.jokers == 4 else 2000
    if meld.rank in (ACE, SEVEN) and meld.wilds == 0:
        return 2500
    return 0


def blocks_going_out(meld: Meld) -> bool:
    """C.11.1: an unfinished meld of natural aces, of sevens or of wild cards."""
    return unfinished_penalty(meld, 2000) > 0


def meld_key(card: Card) -> int:
    """The meld a lone card goes on: its rank, or the meld of wild cards."""
    return WILD_MELD if card == JOKER or CARD_RANK[card] == TWO else CARD_RANK[card]
