"""Cards, ranks and their notation.

A card is a plain ``int`` (python-chess style): ``rank * 4 + suit`` for the
thirteen ranks and :data:`JOKER` (52) for a joker.  Suits barely matter in
Canasta, so the engine counts cards by *rank* almost everywhere; the suit is
kept so that every card can be shown and recorded exactly.

Notation: rank ``A K Q J 10 9 8 7 6 5 4 3 2`` followed by suit ``S H D C``,
and ``JK`` for a joker, e.g. ``AS 10H 3D JK``.  Several packs are allowed, so
the same string may appear more than once in a list of cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from canasta.engine.exceptions import NotationError, PositionError

Card = int
Rank = int

# Rank indices.  Natural ranks are FOUR..ACE; TWO and JOKER are wild.
TWO: Final = 0
THREE: Final = 1
FOUR: Final = 2
FIVE: Final = 3
SIX: Final = 4
SEVEN: Final = 5
EIGHT: Final = 6
NINE: Final = 7
TEN: Final = 8
JACK: Final = 9
QUEEN: Final = 10
KING: Final = 11
ACE: Final = 12
JOKER_RANK: Final = 13
NUM_RANKS: Final = 14

SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3

JOKER: Final = 52
NUM_CARDS: Final = 53  # distinct card codes

RANK_NAMES: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK")
SUIT_NAMES: Final = "SHDC"
SUIT_WORDS: Final = ("spades", "hearts", "diamonds", "clubs")
RANK_WORDS: Final = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace", "joker",
)
RANK_PLURALS: Final = (
    "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
    "jacks", "queens", "kings", "aces", "jokers",
)

NATURAL_RANKS: Final = tuple(range(FOUR, ACE + 1))

THREE_OF_SPADES: Final = THREE * 4 + SPADES
THREE_OF_HEARTS: Final = THREE * 4 + HEARTS
THREE_OF_DIAMONDS: Final = THREE * 4 + DIAMONDS
THREE_OF_CLUBS: Final = THREE * 4 + CLUBS
RED_THREES: Final = (THREE_OF_HEARTS, THREE_OF_DIAMONDS)
BLACK_THREES: Final = (THREE_OF_SPADES, THREE_OF_CLUBS)

#: rank of each card code
CARD_RANK: Final[tuple[int, ...]] = tuple([c // 4 for c in range(52)] + [JOKER_RANK])

#: card value (spec A.2 / B.2); red threes have no card value
_RANK_VALUE = (20, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20, 50)
CARD_VALUE: Final[tuple[int, ...]] = tuple(
    0 if c in RED_THREES else _RANK_VALUE[CARD_RANK[c]] for c in range(NUM_CARDS)
)
RANK_VALUE: Final[tuple[int, ...]] = _RANK_VALUE
DEUCE_VALUE: Final = 20  #: a deuce's card value (A.2)
JOKER_VALUE: Final = 50  #: a joker's card value (A.2)
BLACK_THREE_VALUE: Final = 5  #: a black three's card value (A.2; Italian I-O16 may change it)

IS_WILD: Final[tuple[bool, ...]] = tuple(
    CARD_RANK[c] in (TWO, JOKER_RANK) for c in range(NUM_CARDS)
)
IS_RED_THREE: Final[tuple[bool, ...]] = tuple(c in RED_THREES for c in range(NUM_CARDS))
IS_BLACK_THREE: Final[tuple[bool, ...]] = tuple(c in BLACK_THREES for c in range(NUM_CARDS))
IS_NATURAL: Final[tuple[bool, ...]] = tuple(
    FOUR <= CARD_RANK[c] <= ACE for c in range(NUM_CARDS)
)

#: the card codes of each rank (joker: one code)
RANK_CARDS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(range(r * 4, r * 4 + 4)) if r < JOKER_RANK else (JOKER,) for r in range(NUM_RANKS)
)


def card_str(card: Card) -> str:
    """``card_str(48) == 'AS'``."""
    if card == JOKER:
        return "JK"
    if not 0 <= card < 52:
        raise NotationError(f"{card!r} is not a card code (0-52)")
    return RANK_NAMES[card >> 2] + SUIT_NAMES[card & 3]


def card_name(card: Card) -> str:
    """Words for a card, e.g. ``'ace of spades'``."""
    if card == JOKER:
        return "joker"
    return f"{RANK_WORDS[card >> 2]} of {SUIT_WORDS[card & 3]}"


_RANK_LOOKUP = {name: i for i, name in enumerate(RANK_NAMES[:13])}
_RANK_LOOKUP["T"] = TEN
_RANK_LOOKUP["1"] = ACE  # nobody writes this, but it is unambiguous


def parse_card(text: str) -> Card:
    """Parse one card such as ``'10H'``, ``'as'`` or ``'JK'``."""
    s = text.strip().upper()
    if s in ("JK", "JOKER", "*"):
        return JOKER
    if len(s) < 2 or s[-1] not in SUIT_NAMES or s[:-1] not in _RANK_LOOKUP or s[:-1] == "1":
        raise NotationError(
            f"{text!r} is not a card: expected a rank (A K Q J 10 9 8 7 6 5 4 3 2) "
            "followed by a suit (S H D C), or JK for a joker, e.g. 'AS', '10H', 'JK'"
        )
    return _RANK_LOOKUP[s[:-1]] * 4 + SUIT_NAMES.index(s[-1])


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``'AS 10H 3D JK'`` (or a list of card strings) into card codes."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(p) for p in parts]


def cards_str(cards: Iterable[Card]) -> str:
    return " ".join(card_str(c) for c in cards)


def parse_rank(text: str) -> Rank:
    """Parse a rank such as ``'8'``, ``'K'``, ``'10'``, ``'JK'`` or ``'2'``."""
    s = text.strip().upper()
    if s in ("JK", "JOKER"):
        return JOKER_RANK
    if s in _RANK_LOOKUP and s != "1":
        return _RANK_LOOKUP[s]
    raise NotationError(
        f"{text!r} is not a rank: expected one of A K Q J 10 9 8 7 6 5 4 3 2 JK"
    )


def rank_str(rank: Rank) -> str:
    return RANK_NAMES[rank]


def sort_key(card: Card) -> tuple[int, int]:
    """Display order: jokers and twos first, then ace down to three."""
    r = CARD_RANK[card]
    order = {JOKER_RANK: 0, TWO: 1}.get(r, 2 + (ACE - r))
    return (order, card & 3)


def counts_of(cards: Iterable[Card]) -> list[int]:
    """Card counts indexed by card code."""
    counts = [0] * NUM_CARDS
    for c in cards:
        counts[c] += 1
    return counts


def cards_of(counts: Sequence[int]) -> list[Card]:
    """Expand counts into a sorted list of cards."""
    out: list[Card] = []
    for c, n in enumerate(counts):
        if n:
            out.extend([c] * n)
    return out


def make_deck(packs: int, jokers_per_pack: int = 2) -> list[Card]:
    """``packs`` standard packs with their jokers, in a fixed order."""
    return [c for _ in range(packs) for c in range(52)] + [JOKER] * (packs * jokers_per_pack)


def read_cards(value: object, what: str) -> list[Card]:
    """A list of card strings (``["AS", "10H"]``) as card codes, for positions and views;
    :class:`~canasta.engine.exceptions.PositionError` naming ``what`` otherwise."""
    if not isinstance(value, list):
        raise PositionError(f"{what} must be a list of cards such as [\"AS\", \"10H\"]")
    out = []
    for v in value:
        if not isinstance(v, str):
            raise PositionError(f"{what}: {v!r} is not a card string")
        try:
            out.append(parse_card(v))
        except NotationError as exc:
            raise PositionError(f"{what}: {exc}") from None
    return out
