"""The Italian part of a hand's state (Part B), owned by the family.

:class:`ItalianState` is the game's ``part`` (``HandState.part``) in an Italian
hand: the canastas closed and set aside (B.7.2), the pozzo's face-down cards
(I-O30), the cut's wild cards (B.3.2), whether this turn's opening was clean
(B.9.2) and how an unopened side drew (I-O31).  Shared code never names these;
the family's rules reach them with :func:`part_of`."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from canasta.cards import Card, card_str
from canasta.melds import Meld
from canasta.state import DrawMode, StateField, StatePart

if TYPE_CHECKING:
    from canasta.state import HandState


def _closed_view(g: object, v: list[list[Meld]]) -> tuple[tuple[tuple[Card, ...], ...], ...]:
    return tuple(tuple(tuple(m.cards) for m in side) for side in v)


def _closed_json(g: object, v: list[list[Meld]]) -> list[list[dict[str, object]]]:
    return [[{"cards": [card_str(c) for c in m.cards], "owner": m.owner, "turn": m.turn} for m in side]
            for side in v]


def _number(g: object, v: int) -> int:
    return int(v)


def _card_strs(g: object, v: list[Card]) -> list[str]:
    return [card_str(c) for c in v]


class ItalianState(StatePart):
    """The fields of an Italian hand that Classic does not have."""

    __slots__ = ("closed", "hidden", "clean_turn", "opening_draw", "cut_cards")

    #: each field once: its name in positions and views, who sees it, how it is copied,
    #: and its codecs where it is not a plain value or list
    FIELDS: ClassVar[tuple[StateField, ...]] = (
        StateField("closed", "closed", "public", "meld_lists", view=_closed_view, write=_closed_json),
        StateField("hidden", "pozzo_hidden", "public", "list"),
        StateField("clean_turn", "clean_turn", "public", "value"),
        StateField("opening_draw", "draw_mode", "public", "value", view=_number, write=_number),  # a DrawMode
        StateField("cut_cards", "cut_cards", "public", "list", write=_card_strs),
    )

    def __init__(self, sides: int, copy_of: ItalianState | None = None) -> None:
        if copy_of is not None:
            s = copy_of
            self.closed: list[list[Meld]] = [[m.copy() for m in x] for x in s.closed]
            self.hidden: list[int] = s.hidden[:]
            self.clean_turn: bool = s.clean_turn
            self.opening_draw: int = s.opening_draw
            self.cut_cards: list[Card] = s.cut_cards[:]
            return
        self.closed = [[] for _ in range(sides)]  #: per side: canastas set aside (B.7.2)
        self.hidden = [0, 0]  #: pile[lo:hi] are the pozzo's face-down cards (I-O30)
        self.clean_turn = False  #: a clean opening was made this turn (B.9.2)
        self.opening_draw = DrawMode.NORMAL  #: a :class:`DrawMode` (I-O31)
        self.cut_cards = []  #: wild cards the cutter took (B.3.2)

    def copy(self) -> ItalianState:
        return ItalianState(0, copy_of=self)

    def begin_turn(self) -> None:
        self.clean_turn = False
        self.opening_draw = DrawMode.NORMAL

    def canastas_set_aside(self, side: int) -> int:
        return len(self.closed[side])


def part_of(g: HandState) -> ItalianState:
    """The Italian part of an Italian hand's state."""
    return g.part  # type: ignore[return-value]
