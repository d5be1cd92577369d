"""The Italian part of a hand's state (Part B), owned by the family.

:class:`ItalianState` is the game's ``part`` (``HandState.part``) in an Italian
hand: the canastas closed and set aside (B.7.2), the pozzo's face-down cards
(I-O30), the cut's wild cards (B.3.2), whether this turn's opening was clean
(B.9.2) and how an unopened side drew (I-O31).  Shared code never names these;
the family's rules reach them with :func:`part_of`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from canasta.engine.cards import CARD_RANK, IS_WILD, Card, card_str, read_cards
from canasta.engine.exceptions import PositionError
from canasta.engine.melds import WILD_MELD, Meld
from canasta.engine.state import (
    ANSWER_PHASE,
    FINAL_PHASE,
    MELD_PHASE,
    DrawMode,
    StateField,
    StatePart,
    read_meld,
)
from canasta.families.italian.melds import CANASTA
from canasta.families.italian.options import italian_rules

if TYPE_CHECKING:
    from canasta.engine.game import Game
    from canasta.engine.state import HandState


def _closed_view(g: object, v: list[list[Meld]]) -> tuple[tuple[tuple[Card, ...], ...], ...]:
    return tuple(tuple(tuple(m.cards) for m in side) for side in v)


def _closed_json(g: object, v: list[list[Meld]]) -> list[list[dict[str, object]]]:
    return [[{"cards": [card_str(c) for c in m.cards], "owner": m.owner, "turn": m.turn} for m in side]
            for side in v]


def _number(g: object, v: int) -> int:
    return int(v)


def _card_strs(g: object, v: list[Card]) -> list[str]:
    return [card_str(c) for c in v]


# -- reading a position's fields back (canasta.views.position), each checked

def _read_closed(g: Game, value: Any) -> list[list[Meld]]:
    sides = len(g.melds)
    if not isinstance(value, list) or len(value) != sides:
        raise PositionError(f"closed must list the closed canastas of each of the {sides} sides")
    out: list[list[Meld]] = []
    for side, entries in enumerate(value):
        if not isinstance(entries, list):
            raise PositionError(f"closed[{side}] must be a list of closed canastas")
        melds = [read_meld(g, entry, f"closed[{side}][{i}]") for i, entry in enumerate(entries)]
        for i, m in enumerate(melds):
            if m.size != CANASTA:
                raise PositionError(f"closed[{side}][{i}]: a closed canasta has exactly seven cards")
        out.append(melds)
    return out


def _read_hidden(g: Game, value: Any) -> list[int]:
    if (not isinstance(value, list) or len(value) != 2 or not all(type(x) is int for x in value)
            or not 0 <= value[0] <= value[1] <= max(len(g.pile) - 1, 0)):
        raise PositionError("pozzo_hidden must be [first, end] indices of face-down cards below the pile's top")
    return list(value)


def _read_clean_turn(g: Game, value: Any) -> bool:
    if type(value) is not bool:
        raise PositionError(f"clean_turn must be true or false, not {value!r}")
    return value


def _derive_clean_turn(g: Game) -> bool:
    """B.9.2: the player to move has opened this turn, at a minimum that requires a clean
    opening; then no wild card may be laid for the rest of the turn."""
    if g.phase not in (MELD_PHASE, ANSWER_PHASE, FINAL_PHASE):
        return False
    side = g.side_of[g.turn]
    laid = list(g.melds[side].values()) + part_of(g).closed[side]
    if not laid or not all(m.owner == g.turn and m.turn == g.turn_no for m in laid):
        return False
    return italian_rules(g.rules).opening_must_be_clean(g.minimum(g.turn))


def _read_draw_mode(g: Game, value: Any) -> int:
    if type(value) is not int or value not in (0, 1, 2):
        raise PositionError("draw_mode must be 0, 1 (opening announced) or 2 (drew two before opening)")
    return value


def _read_cut_cards(g: Game, value: Any) -> list[Card]:
    return read_cards(value, "cut_cards")


def _unview_closed(g: Game, value: tuple[tuple[tuple[Card, ...], ...], ...]) -> list[list[Meld]]:
    out: list[list[Meld]] = []
    for side_closed in value:
        melds = []
        for cards in side_closed:
            m = Meld(-1)
            for c in cards:
                m.add(c)
            ranks = {CARD_RANK[c] for c in cards if not IS_WILD[c]}
            m.rank = ranks.pop() if ranks else WILD_MELD
            melds.append(m)
        out.append(melds)
    return out


class ItalianState(StatePart):
    """The fields of an Italian hand that Classic does not have."""

    __slots__ = ("closed", "hidden", "clean_turn", "opening_draw", "cut_cards")

    #: each field once: its name in positions and views, who sees it, how it is copied,
    #: and its codecs where it is not a plain value or list
    FIELDS: ClassVar[tuple[StateField, ...]] = (
        StateField("closed", "closed", "public", "meld_lists", view=_closed_view, write=_closed_json,
                   read=_read_closed, unview=_unview_closed, cards=True, placed=True),
        StateField("hidden", "pozzo_hidden", "public", "list", read=_read_hidden),
        StateField("clean_turn", "clean_turn", "public", "value", read=_read_clean_turn, derive=_derive_clean_turn),
        StateField("opening_draw", "draw_mode", "public", "value", view=_number, write=_number,  # a DrawMode
                   read=_read_draw_mode),
        StateField("cut_cards", "cut_cards", "public", "list", write=_card_strs, read=_read_cut_cards, cards=True),
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

    def set_aside(self, side: int) -> list[Meld]:
        return self.closed[side]

    def canastas_set_aside(self, side: int) -> int:
        return len(self.closed[side])

    def face_down(self) -> tuple[int, int]:
        return (self.hidden[0], self.hidden[1])

    def shown_at_deal(self) -> list[Card]:
        return self.cut_cards

    def turn_marks(self) -> tuple[bool, int]:
        return (self.clean_turn, self.opening_draw)

    def drop_pile_bottom(self, count: int, left: int) -> None:
        lo, hi = max(0, self.hidden[0] - count), max(0, self.hidden[1] - count)
        self.hidden = [lo, hi] if hi > lo and hi <= left - 1 else [0, 0]

    def key(self, card_class: Callable[[Card], int]) -> tuple[object, ...]:
        def meld(m: Meld) -> tuple[object, ...]:
            return (m.rank, tuple(sorted(card_class(c) for c in m.cards)), m.concealed, m.owner, m.turn)

        return (tuple(tuple(sorted(meld(m) for m in side)) for side in self.closed), tuple(self.hidden),
                self.clean_turn, tuple(sorted(card_class(c) for c in self.cut_cards)), self.opening_draw)


def part_of(g: HandState) -> ItalianState:
    """The Italian part of an Italian hand's state."""
    return g.part  # type: ignore[return-value]
