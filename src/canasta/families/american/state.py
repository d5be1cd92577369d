"""The Modern American part of a hand's state (Part C), owned by the family.

:class:`AmericanState` is the game's ``part`` (``HandState.part``) in an American hand: the turn
in which each side made its initial meld (the opening turn's own limits, C.5.5, C.5.6, C.7.4, and
the talon, C.8.1), the talon each side received, the talon a player holds and has not yet played
from (M-O31), the talons set aside at the deal (M-O14) and a special hand once laid (C.13).  Shared code never names these; the
family's rules reach them with :func:`part_of`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from canasta.engine.cards import Card, card_str, read_cards
from canasta.engine.exceptions import PositionError
from canasta.engine.state import StateField, StatePart

if TYPE_CHECKING:
    from canasta.engine.game import Game
    from canasta.engine.state import HandState


def _card_strs(g: object, v: list[Card]) -> list[str]:
    return [card_str(c) for c in v]


def _rows_json(g: object, v: list[list[Card]]) -> list[list[str]]:
    return [[card_str(c) for c in row] for row in v]


def _rows_view(g: object, v: list[list[Card]]) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(row) for row in v)


def _read_ints(name: str, count: Callable[[Game], int], low: int) -> Callable[[Game, Any], list[int]]:
    def read(g: Game, value: Any) -> list[int]:
        n = count(g)
        if not isinstance(value, list) or len(value) != n or not all(type(x) is int and x >= low for x in value):
            raise PositionError(f"{name} must list {n} whole numbers (from {low})")
        return list(value)
    return read


def _read_rows(g: Game, value: Any) -> list[list[Card]]:
    sides = len(g.melds)
    if not isinstance(value, list) or len(value) != sides:
        raise PositionError(f"talon_cards must list the unplayed talon cards of each of the {sides} sides")
    return [read_cards(row, f"talon_cards[{s}]") for s, row in enumerate(value)]


def _read_packets(g: Game, value: Any) -> list[list[Card]]:
    if not isinstance(value, list) or len(value) != 2:
        raise PositionError("talon_packets must list the two talons set aside at the deal (4 and 3 cards, "
                            "or fewer once given: empty lists)")
    return [read_cards(row, f"talon_packets[{i}]") for i, row in enumerate(value)]


def _read_seats(g: Game, value: Any) -> list[int]:
    sides = len(g.melds)
    if (not isinstance(value, list) or len(value) != sides
            or not all(type(x) is int and -1 <= x < g.players for x in value)):
        raise PositionError(f"talon_seats must give, for each of the {sides} sides, the seat that holds its talon or -1")
    return list(value)


def _read_special_seat(g: Game, value: Any) -> int:
    if type(value) is not int or not -1 <= value < g.players:
        raise PositionError(f"special_seat must be a seat from 0 to {g.players - 1}, or -1")
    return value


def _read_special_name(g: Game, value: Any) -> str:
    if not isinstance(value, str):
        raise PositionError("special_hand must be the name of a special hand, or empty")
    return value


def _read_special_cards(g: Game, value: Any) -> list[Card]:
    return read_cards(value, "special_cards")


class AmericanState(StatePart):
    """The fields of a Modern American hand that Classic does not have."""

    __slots__ = ("opened_turn", "talons", "talon_seats", "talon_cards", "talon_packets", "special_seat", "special_name",
                 "special_cards")

    #: each field once: its name in positions and views, who sees it, how it is copied,
    #: and its codecs where it is not a plain value or list
    FIELDS: ClassVar[tuple[StateField, ...]] = (
        StateField("opened_turn", "opened_turn", "public", "list",
                   read=_read_ints("opened_turn", lambda g: len(g.melds), 0)),
        StateField("talons", "talons", "public", "list", read=_read_ints("talons", lambda g: len(g.melds), 0)),
        StateField("talon_seats", "talon_seats", "public", "list", read=_read_seats),
        StateField("talon_cards", "talon_cards", "hidden", "rows", view=_rows_view, write=_rows_json,
                   read=_read_rows, cards=True),
        StateField("talon_packets", "talon_packets", "hidden", "rows", view=_rows_view, write=_rows_json,
                   read=_read_packets, cards=True, aside=True),
        StateField("special_seat", "special_seat", "public", "value", read=_read_special_seat),
        StateField("special_name", "special_hand", "public", "value", read=_read_special_name),
        StateField("special_cards", "special_cards", "public", "list", write=_card_strs, read=_read_special_cards,
                   cards=True, placed=True),
    )

    def __init__(self, sides: int, copy_of: AmericanState | None = None) -> None:
        if copy_of is not None:
            s = copy_of
            self.opened_turn: list[int] = s.opened_turn[:]
            self.talons: list[int] = s.talons[:]
            self.talon_seats: list[int] = s.talon_seats[:]
            self.talon_cards: list[list[Card]] = [x[:] for x in s.talon_cards]
            self.talon_packets: list[list[Card]] = [x[:] for x in s.talon_packets]
            self.special_seat: int = s.special_seat
            self.special_name: str = s.special_name
            self.special_cards: list[Card] = s.special_cards[:]
            return
        self.opened_turn = [0] * sides  #: per side: the turn number of its initial meld (0: not yet)
        self.talons = [0] * sides  #: per side: the talon it received (4, 3; 0: none)
        self.talon_seats = [-1] * sides  #: per side: the seat holding a talon it has not yet played from, or -1
        self.talon_cards = [[] for _ in range(sides)]  #: per side: that talon's cards (in that seat's hand)
        #: the talons of 4 and of 3 cards set aside at the deal and not given yet (M-O14 = set_aside)
        self.talon_packets = [[], []]
        self.special_seat = -1  #: the seat that laid a special hand (C.13), else -1
        self.special_name = ""  #: its name ("pairs", "garbage" ...)
        self.special_cards = []  #: its cards

    def copy(self) -> AmericanState:
        return AmericanState(0, copy_of=self)

    def key(self, card_class: Callable[[Card], int]) -> tuple[object, ...]:
        return (tuple(self.opened_turn), tuple(self.talons), tuple(self.talon_seats),
                tuple(tuple(sorted(card_class(c) for c in row)) for row in self.talon_cards),
                tuple(tuple(sorted(card_class(c) for c in row)) for row in self.talon_packets),
                self.special_seat, self.special_name, tuple(sorted(card_class(c) for c in self.special_cards)))


def part_of(g: HandState) -> AmericanState:
    """The American part of an American hand's state."""
    return g.part  # type: ignore[return-value]
