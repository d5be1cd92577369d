"""Modern American Canasta's special hands (SPEC C.13): fourteen cards laid at once by a player
whose side has not melded, which end the hand and score only their value.

A hand is read from its cards alone (by rank counts), never from how a move groups them:
:func:`recognise` names the special hand fourteen cards make under the rule set's options, or
None.  :func:`grouping` writes them as a move's groups (a group per rank, the wild cards in one)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from canasta.engine.cards import ACE, CARD_RANK, FOUR, JOKER, JOKER_RANK, NATURAL_RANKS, THREE, TWO, Card
from canasta.families.american.options import AmericanRules

#: a special hand's cards (C.13.1)
SIZE: Final = 14
#: what a Dream Hand is worth, and it wins the game (C.13.4, C.15.2)
DREAM: Final = 8500

#: the special hands that win the game at once (C.15.2), when the Dream Hands are played (M-O24)
WINS_THE_GAME: Final = frozenset({"dream_plus_4", "dream_plus_5"})

#: the special hands by name: their value under M-O22 = "cla11" (Garbage's under M-O23)
CLA_VALUES: Final[dict[str, int]] = {
    "pairs": 2500, "wild_pairs": 2000, "miami_pairs": 2500, "zip_code": 2500, "straight": 3000, "garbage": 3000,
    "blast_off": 3000, "triples": 3500, "quads": 3500, "dream_plus_4": DREAM, "dream_plus_5": DREAM,
}
#: M-O22 = "pagat4": Pagat's four (Garbage's value from M-O23)
PAGAT_VALUES: Final[dict[str, int]] = {"straight": 3000, "pairs": 2500, "wild_pairs": 2000, "garbage": 2000}
#: the hands' names as a score sheet shows them
TITLES: Final[dict[str, str]] = {
    "pairs": "Pairs", "wild_pairs": "Wild Pairs", "miami_pairs": "Miami Pairs", "zip_code": "Zip Code",
    "straight": "Straight", "garbage": "Garbage", "blast_off": "Blast Off", "triples": "Triples", "quads": "Quads",
    "dream_plus_4": "Dream Hand Plus 4", "dream_plus_5": "Dream Hand Plus 5",
}

# the make-ups as the sizes of the natural groups (sorted, largest first) and of the wild group (0: none)
_WITH_OPTIONAL_WILD: Final[tuple[tuple[str, tuple[int, ...]], ...]] = (("zip_code", (4, 3, 3, 2, 2)), ("blast_off", (5, 4, 3, 2)))
_FIXED: Final[tuple[tuple[str, tuple[int, ...], int], ...]] = (
    ("garbage", (4, 4, 3, 3), 0),
    ("triples", (3, 3, 3, 3), 2),
    ("quads", (4, 4, 4), 2),
    ("dream_plus_4", (5, 5), 4),
    ("dream_plus_5", (5, 4), 5),
)


def _shape(counts: Sequence[int]) -> tuple[tuple[int, ...], int, int, int]:
    """(natural group sizes, largest first; deuces; jokers; threes) of 14 cards as rank counts."""
    naturals = tuple(sorted((counts[r] for r in NATURAL_RANKS if counts[r]), reverse=True))
    return naturals, counts[TWO], counts[JOKER_RANK], counts[THREE]


def _fits(naturals: tuple[int, ...], sizes: tuple[int, ...], wilds: int, fill: bool) -> bool:
    """Whether natural groups of ``naturals`` cards (largest first) and ``wilds`` wild cards make
    groups of ``sizes`` (largest first), each of its own rank: the wild cards as one group of their
    own (or none, with no wild card), and under M-O33 = wild_fill also standing in natural groups
    that keep at least two natural cards (C.13.5)."""
    if not fill:
        return (wilds == 0 and naturals == sizes) or (
            wilds > 0 and tuple(sorted((*naturals, wilds), reverse=True)) == sizes)
    if any(n < 2 for n in naturals):
        return False
    if len(naturals) == len(sizes):
        return all(n <= s for n, s in zip(naturals, sizes, strict=True))
    if len(naturals) != len(sizes) - 1:
        return False
    for i in range(len(sizes)):  # the group the wild cards make of their own
        rest = sizes[:i] + sizes[i + 1:]
        if sizes[i] <= wilds and all(n <= s for n, s in zip(naturals, rest, strict=True)):
            return True
    return False


def _names(counts: Sequence[int], fill: bool = False) -> list[str]:
    """Every special hand (of CLA's list) the rank counts make (``fill``: M-O33 = wild_fill)."""
    naturals, deuces, jokers, threes = _shape(counts)
    wilds = deuces + jokers
    out: list[str] = []
    if threes:
        if (threes == 1 and deuces == 1 and jokers == 1
                and all(counts[r] == 1 for r in NATURAL_RANKS)):
            out.append("straight")
        return out
    pairs = naturals and all(n == 2 for n in naturals)
    if pairs and wilds == 0 and len(naturals) == 7:
        out.append("pairs")
    if pairs and len(naturals) == 6 and ((deuces, jokers) in ((2, 0), (0, 2))):
        out.append("wild_pairs")
    if pairs and len(naturals) == 5 and deuces == 2 and jokers == 2:
        out.append("miami_pairs")
    for name, sizes in _WITH_OPTIONAL_WILD:
        if _fits(naturals, sizes, wilds, fill):
            out.append(name)
    for name, sizes, wild in _FIXED:
        if naturals == sizes and wilds == wild:
            out.append(name)
    return out


def values(rules: AmericanRules) -> dict[str, int]:
    """The special hands the options allow, with their values (M-O22, M-O23, M-O24)."""
    if rules.special_hands == "none":
        return {}
    table = dict(PAGAT_VALUES if rules.special_hands == "pagat4" else CLA_VALUES)
    if "garbage" in table:
        table["garbage"] = rules.garbage_value
    if not rules.dream_hands:
        table.pop("dream_plus_4", None)
        table.pop("dream_plus_5", None)
    return table


def recognise(rules: AmericanRules, counts: Sequence[int]) -> tuple[str, int] | None:
    """The special hand (name, value) of 14 cards as rank counts, the most valuable where they
    make more than one, or None."""
    if sum(counts) != SIZE:
        return None
    if not counts[THREE]:  # every hand but the Straight holds each of its natural ranks twice or more
        for r in NATURAL_RANKS:
            if counts[r] == 1:
                return None
    table = values(rules)
    found = [(table[n], n) for n in _names(counts, rules.matching_wilds == "wild_fill") if n in table]
    if not found:
        return None
    value, name = max(found)
    return name, value


def rank_counts(cards: Sequence[Card]) -> list[int]:
    """Cards as counts by rank (0 the twos ... 13 the jokers)."""
    counts = [0] * (JOKER_RANK + 1)
    for c in cards:
        counts[CARD_RANK[c]] += 1
    return counts


def grouping(cards: Sequence[Card]) -> tuple[tuple[Card, ...], ...]:
    """A special hand's cards as a meld move's groups: one group per natural rank (aces first),
    the three alone, the wild cards together."""
    by_rank: dict[int, list[Card]] = {}
    wild: list[Card] = []
    for c in sorted(cards):
        r = CARD_RANK[c]
        if r in (TWO, JOKER_RANK):
            wild.append(c)
        else:
            by_rank.setdefault(r, []).append(c)
    groups = [tuple(by_rank[r]) for r in sorted(by_rank, key=lambda r: (r != ACE, -r if r >= FOUR else 99))]
    if wild:
        groups.append(tuple(sorted(wild, key=lambda c: c == JOKER)))
    return tuple(groups)
