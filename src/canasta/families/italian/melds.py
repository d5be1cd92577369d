"""Italian melds (Part B): the limits on wild cards (B.6.2, I-O1, I-O2), melds of wild
cards only (B.8) and what a closed canasta is worth (B.7)."""

from __future__ import annotations

from typing import Final

from canasta.engine.cards import ACE
from canasta.engine.melds import WILD_MELD, Meld
from canasta.engine.rules import RuleSet
from canasta.families.italian.options import ItalianRules, italian_rules

#: Italian's canasta: seven cards, closed and set aside once complete (B.7.1, B.7.2); the
#: family declares it (``Italian.canasta_size``) and its own code reads it here
CANASTA: Final = 7


def it_wild_count(house: ItalianRules, deuces: int, jokers: int) -> int:
    """Wild cards as the limits count them (I-O2: a joker may count as two)."""
    return deuces + (2 * jokers if house.joker_counts_double else jokers)


def it_limit_error(house: ItalianRules, naturals: int, wilds: int) -> str | None:
    """B.6.2 / I-O1 for a meld with this many natural and (counted) wild cards:
    None, or the key of its refusal."""
    if naturals < 2:
        return "NEEDS_TWO_NATURALS.italian"
    mode = house.it_wild_limit
    if mode == "max3":
        if wilds > 3:
            return "TOO_MANY_WILDS.italian"
    elif mode == "fewer_than_naturals":
        if wilds >= naturals:
            return "TOO_MANY_WILDS.fewer_than_naturals"
    elif wilds > (1 if naturals == 2 else 2):
        if naturals == 2:
            return "TOO_MANY_WILDS.one_with_two"
        return "TOO_MANY_WILDS.two"
    return None


def wild_meld_kind(house: ItalianRules, deuces: int, jokers: int) -> str | None:
    """How a meld of wild cards only reads (B.8.0): ``'deuce'`` (deuces natural,
    jokers wild), ``'joker'`` (jokers natural, deuces wild), or None if neither."""
    as_deuces = it_limit_error(house, deuces, jokers * (2 if house.joker_counts_double else 1)) is None
    as_jokers = it_limit_error(house, jokers, deuces) is None
    if as_deuces and (deuces >= jokers or not as_jokers):
        return "deuce"
    if as_jokers:
        return "joker"
    return None


def it_group_error(house: ItalianRules, naturals: int, deuces: int, jokers: int, wild_meld: bool) -> str | None:
    """A whole Italian meld after a move: None, or the key of its refusal (``house``: the
    rule set's Italian options, read once by the caller)."""
    size = naturals + deuces + jokers
    if size > CANASTA:
        return "MELD_OVER_SEVEN"
    if size < 3:
        return "MELD_TOO_SMALL.italian"
    if wild_meld:
        if wild_meld_kind(house, deuces, jokers) is None:
            return "BAD_WILD_MELD"
        return None
    return it_limit_error(house, naturals, it_wild_count(house, deuces, jokers))


def wild_meld_is_clean(deuces: int, jokers: int) -> bool:
    """B.8.7: a deuce meld without jokers, or a joker meld with at most one deuce."""
    return jokers == 0 or (jokers >= 2 and deuces <= 1)


def it_canasta(rules: RuleSet, meld: Meld) -> tuple[str, str | None, int]:
    """A closed Italian canasta: (kind, counts as 'clean'/'dirty'/None, bonus).
    Kinds: clean, dirty, clean_aces, dirty_aces, pinellata, dirty_deuces,
    toro_seduto, dirty_jokers (B.7, B.8)."""
    house = italian_rules(rules)
    d, j = meld.deuces, meld.jokers
    if meld.rank == WILD_MELD:
        if j == 0:
            kind, clean, bonus = "pinellata", "clean", 3000
        elif wild_meld_kind(house, d, j) == "deuce":
            kind, clean, bonus = "dirty_deuces", "dirty", 2000
        elif d <= 1:
            kind, clean, bonus = "toro_seduto", "clean", 5000
        else:
            kind, clean, bonus = "dirty_jokers", "dirty", house.dirty_jokers_bonus
        return kind, (clean if house.wild_canastas_count else None), bonus
    pure = d + j == 0
    if meld.rank == ACE:
        ace = 1000 if pure else 500
        if house.aces_bonus == "additive":
            ace += 500 if pure else 300
        return ("clean_aces" if pure else "dirty_aces"), ("clean" if pure else "dirty"), ace
    return ("clean", "clean", 500) if pure else ("dirty", "dirty", 300)
