"""Moves and their text notation.

=========================  ===================================================
``draw``                   draw from the stock (two cards where the rules say so)
``take``                   take the pile by adding its top card to your meld
``take 8H 8S``             take the pile, melding its top card with 8H 8S
``take 8H 8S + KH KS 2C``  ... and lay further melds first (initial meld, A.7.4)
``meld 8H 8S 2C``          lay a meld, or add to your side's meld of that rank
``meld 8:2C + QH QS QD``   several groups; ``8:`` says which meld wild cards join
``discard 9C``             discard (your last card: going out)
``ask``                    ask your partner "may I go out?"
``yes`` / ``no``           answer your partner
``end``                    end the hand where the rules let you (A.13)
``open``                   Italian, I-O31: announce an opening and draw one card
=========================  ===================================================

A :class:`Move` is a small hashable value; ``Move.parse(str(m)) == m``.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from canasta.engine.cards import (
    RANK_NAMES,
    Card,
    Rank,
    card_str,
    parse_card,
    parse_rank,
)
from canasta.engine.errors import NotationError


class MoveKind(IntEnum):
    """What a move does (an int at run time: as fast as before)."""

    DRAW = 0
    TAKE = 1
    MELD = 2
    DISCARD = 3
    ASK = 4
    YES = 5
    NO = 6
    END = 7
    OPEN = 8


# the members as module constants (a global is read faster than an enum attribute)
DRAW: Final = MoveKind.DRAW
TAKE: Final = MoveKind.TAKE
MELD: Final = MoveKind.MELD
DISCARD: Final = MoveKind.DISCARD
ASK: Final = MoveKind.ASK
YES: Final = MoveKind.YES
NO: Final = MoveKind.NO
END: Final = MoveKind.END
OPEN: Final = MoveKind.OPEN

KIND_NAMES: Final = ("draw", "take", "meld", "discard", "ask", "yes", "no", "end", "open")
_KIND_LOOKUP: Final = {n: MoveKind(i) for i, n in enumerate(KIND_NAMES)}

Group = tuple[int, ...]
"""Card codes of one meld group.  A negative first element ``-(rank + 1)``
names the meld the group goes on (needed only when it holds no natural card)."""


def group_target(group: Group) -> Rank | None:
    return -group[0] - 1 if group and group[0] < 0 else None


def group_cards(group: Group) -> Group:
    return group[1:] if group and group[0] < 0 else group


def make_group(cards: tuple[Card, ...] | list[Card], target: Rank | None = None) -> Group:
    return ((-(target + 1),) if target is not None else ()) + tuple(cards)


class Move:
    """A move: a kind and its card groups (see the module table for notation)."""

    __slots__ = ("kind", "groups", "_hash")

    def __init__(self, kind: MoveKind, groups: tuple[Group, ...] = ()) -> None:
        self.kind = kind
        self.groups = groups
        self._hash = -1

    # -- constructors ---------------------------------------------------------

    @staticmethod
    def draw() -> Move:
        return _DRAW

    @staticmethod
    def take(cards: tuple[Card, ...] | list[Card] = (), *extra: Group) -> Move:
        return Move(TAKE, (tuple(cards),) + tuple(extra))

    @staticmethod
    def meld(*groups: Group) -> Move:
        return Move(MELD, tuple(groups))

    @staticmethod
    def discard(card: Card) -> Move:
        return Move(DISCARD, ((card,),))

    @staticmethod
    def ask() -> Move:
        return _ASK

    @staticmethod
    def answer(yes: bool) -> Move:
        return _YES if yes else _NO

    @staticmethod
    def end() -> Move:
        return _END

    @staticmethod
    def open() -> Move:
        """Italian, I-O31: announce an opening and draw one card."""
        return Move(OPEN)

    # -- value semantics --------------------------------------------------------

    def _key(self) -> tuple[int, tuple[Group, ...]]:
        if self.kind in (TAKE, MELD):
            # the order of cards inside a group, and of the extra groups, does not matter
            gs = [tuple(sorted(group_cards(g))) + ((g[0],) if g and g[0] < 0 else ()) for g in self.groups]
            head = gs[:1] if self.kind == TAKE else []
            rest = gs[1:] if self.kind == TAKE else gs
            return (self.kind, tuple(head + sorted(rest)))
        return (self.kind, self.groups)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self._key() == other._key()

    def __hash__(self) -> int:
        if self._hash == -1:
            self._hash = hash(self._key())
        return self._hash

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    def __str__(self) -> str:
        name = KIND_NAMES[self.kind]
        if self.kind == DISCARD:
            return f"discard {card_str(self.groups[0][0])}"
        if self.kind in (TAKE, MELD):
            parts = [_group_str(g) for g in self.groups]
            if self.kind == TAKE:
                head = parts[0]
                text = f"take {head}".rstrip()
                if len(parts) > 1:
                    text += " + " + " + ".join(parts[1:])
                return text
            return "meld " + " + ".join(parts)
        return name

    # -- parsing ----------------------------------------------------------------

    @staticmethod
    def parse(text: object) -> Move:
        """Read a move in notation; raises :class:`NotationError` with what was expected."""
        if not isinstance(text, str):
            raise NotationError(f"a move must be text, not {type(text).__name__}")
        s = text.strip()
        if not s:
            raise NotationError("empty move: expected draw, take, meld, discard, ask, yes, no or end")
        word, _, rest = s.partition(" ")
        kind = _KIND_LOOKUP.get(word.lower())
        if kind is None:
            raise NotationError(
                f"unknown move {word!r}: expected draw, take, meld, discard, ask, yes, no, end or open"
            )
        rest = rest.strip()
        if kind == DISCARD:
            cards = rest.split()
            if len(cards) != 1:
                raise NotationError("discard takes exactly one card, e.g. 'discard 9C'")
            return Move(DISCARD, ((parse_card(cards[0]),),))
        if kind in (TAKE, MELD):
            raw = [g.strip() for g in rest.split("+")] if rest else []
            if kind == MELD and (not raw or any(not g for g in raw)):
                raise NotationError("meld needs cards, e.g. 'meld 8H 8S 2C' or 'meld 8:2C + KH KS KD'")
            if kind == TAKE:
                if not raw:
                    raw = [""]
                if any(not g for g in raw[1:]):
                    raise NotationError("empty group after '+' in take, e.g. 'take 8H 8S + KH KS KD'")
            return Move(kind, tuple(_parse_group(g) for g in raw))
        if rest:
            raise NotationError(f"'{KIND_NAMES[kind]}' takes no cards")
        return Move(kind)


def _group_str(g: Group) -> str:
    target = group_target(g)
    cards = " ".join(card_str(c) for c in group_cards(g))
    if target is not None:
        return f"{RANK_NAMES[target]}:{cards}"
    return cards


def _parse_group(text: str) -> Group:
    target: Rank | None = None
    if ":" in text:
        head, _, text = text.partition(":")
        target = parse_rank(head)
    cards = tuple(parse_card(t) for t in text.split())
    if target is not None and not cards:
        raise NotationError("a group with a target rank needs cards, e.g. '8:2C'")
    return make_group(cards, target)


_DRAW: Final = Move(DRAW)
_ASK: Final = Move(ASK)
_YES: Final = Move(YES)
_NO: Final = Move(NO)
_END: Final = Move(END)
