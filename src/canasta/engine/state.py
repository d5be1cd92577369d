"""The state of one hand, as one record (in the spirit of pgx's ``State``).

:class:`HandState` lists every field that changes during a hand and that every
rule family shares, once, with how it is copied (``copy``), the name it has in
positions and seat views (``name``) and who may see it (``seen``); a family's
own fields live in its :class:`StatePart` (``HandState.part``), which declares
them the same way (``StatePart.FIELDS``).  Everything else is derived
from this list by field:

* :func:`snapshot` / :func:`restore` (``push`` / ``pop``) and :func:`copy_state`
  (``Game.copy``) are written out field by field, in the record's order, as
  plain functions (fast, and compilable ahead of time: no generated code);
  ``tests/test_invariants.py`` checks that they name every field, copied as its
  ``copy`` says;
* :mod:`canasta.views.position` writes and reads back, and :mod:`canasta.views.seat` copies
  out, the fields by their ``name``, with the codecs each declares here (``view``,
  ``write``, ``read``, ``derive``: :data:`SHARED_FIELDS`), in one loop with the
  family part's fields.

A new field is written here (and one line in each of the three functions
below; the test says which is missing), with its codecs if it is not a plain
value or list.  What no single field can check (known cards in their hand, every
card of the pack in one place) :func:`canasta.views.position.game_from_position` checks
once all are read.  :class:`~canasta.engine.game.Game` *is* a ``HandState`` plus the
hand's fixed facts (rules, seed, dealer, scores).

Phases, the state of "may I go out?" and the Italian draw of an opening turn
are :class:`~enum.IntEnum` s (ints at run time, so as fast as before).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import Field, dataclass, field, fields
from enum import IntEnum
from typing import Any, ClassVar, Final, NamedTuple

from canasta.engine.cards import (
    CARD_RANK,
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    NUM_CARDS,
    Card,
    card_str,
    read_cards,
)
from canasta.engine.errors import refuse
from canasta.engine.exceptions import PositionError
from canasta.engine.melds import WILD_MELD, Meld
from canasta.engine.native import mypyc_attr


class Phase(IntEnum):
    """Where the player to move is in the turn."""

    DRAW = 0  #: draw from the stock, take the pile, (Italian I-O31) open
    MELD = 1  #: meld, discard, ask
    ANSWER = 2  #: the partner answers "may I go out?"
    FINAL = 3  #: C-O4: a red three drawn as the last stock card: meld, then end
    OVER = 4  #: the hand is over


class Ask(IntEnum):
    """The state of "may I go out?" in the current turn (A.12.3, B.13.4)."""

    NONE = 0
    PENDING = 1
    YES = 2
    NO = 3


class DrawMode(IntEnum):
    """Italian, I-O31: how an unopened side drew this turn."""

    NORMAL = 0  #: as the rules say (or the side has opened)
    ANNOUNCED = 1  #: announced an opening and drew one card
    UNANNOUNCED = 2  #: drew two cards without announcing: may not open this turn


# the members as module constants: a global is read several times faster than
# an enum attribute, and these are read on every move
DRAW_PHASE: Final = Phase.DRAW
MELD_PHASE: Final = Phase.MELD
ANSWER_PHASE: Final = Phase.ANSWER
FINAL_PHASE: Final = Phase.FINAL
OVER: Final = Phase.OVER
ASK_NONE: Final = Ask.NONE
ASK_PENDING: Final = Ask.PENDING
ASK_YES: Final = Ask.YES
ASK_NO: Final = Ask.NO

PHASE_NAMES: Final = ("draw", "meld", "answer", "final", "over")
ASK_NAMES: Final = ("none", "pending", "yes", "no")

#: how a field is copied (the kinds of ``copy``), as the functions below write it
COPY_KINDS: Final = {
    "value": "s.{f}",
    "list": "s.{f}[:]",
    "rows": "[x[:] for x in s.{f}]",
    "melds": "[{{k: m.copy() for k, m in d.items()}} for d in s.{f}]",
    "meld_lists": "[[m.copy() for m in x] for x in s.{f}]",
    "part": "None if s.{f} is None else s.{f}.copy()",
}


def _m(copy: str, name: str | None, seen: str = "public", part: str = "shared",
       view: Callable[[Any, Any], Any] | None = None, write: Callable[[Any, Any], Any] | None = None,
       read: Callable[[Any, Any], Any] | None = None, derive: Callable[[Any], Any] | None = None,
       cards: bool = False, placed: bool = False) -> dict[str, Any]:
    """A state field: ``copy`` (a :data:`COPY_KINDS` kind), ``name`` in positions and
    views (None: derived from other fields, not written), ``seen``: "public",
    "own" (only the seat's own: hands), "hidden" (nobody: the stock's order),
    ``part``: "shared", or the family whose :class:`StatePart` declares it; ``view``,
    ``write``, ``read``, ``derive``, ``cards`` and ``placed`` as :class:`StateField` has them."""
    return {"copy": copy, "name": name, "seen": seen, "part": part, "view": view, "write": write, "read": read,
            "derive": derive, "cards": cards, "placed": placed}


# -- the shared fields' codecs, ``(game, value) -> value``: how a seat view copies a field out
# -- (``view``) and how a position writes it (``write``); a field without one is a plain value or
# -- list.  Read back by canasta.views.seat (rebuilt games) and canasta.views.position (game_from_position).

def _card_strs(cards: list[Card]) -> list[str]:
    return [card_str(c) for c in cards]


def _counted(counts: list[int]) -> list[Card]:
    """The cards of a count per card code, in code order."""
    return [c for c in range(NUM_CARDS) for _ in range(counts[c])]


def _phase_name(g: Any, v: int) -> str:
    return PHASE_NAMES[v]


def _ask_name(g: Any, v: int) -> str:
    return ASK_NAMES[v]


def _hands_json(g: Any, v: list[list[int]]) -> list[list[str]]:
    return [_card_strs(g.hand(s)) for s in range(g.players)]


def _known_view(g: Any, v: list[list[int]]) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(_counted(k)) for k in v)


def _known_json(g: Any, v: list[list[int]]) -> list[list[str]]:
    return [_card_strs(_counted(k)) for k in v]


def _rows_view(g: Any, v: list[list[Card]]) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(x) for x in v)


def _rows_json(g: Any, v: list[list[Card]]) -> list[list[str]]:
    return [_card_strs(x) for x in v]


def _melds_view(g: Any, v: list[dict[int, Meld]]) -> tuple[tuple[tuple[tuple[Card, ...], bool, int, int], ...], ...]:
    return tuple(tuple((tuple(m.cards), m.concealed, m.owner, m.turn) for m in side.values()) for side in v)


def _melds_json(g: Any, v: list[dict[int, Meld]]) -> list[list[dict[str, Any]]]:
    return [[{"cards": _card_strs(m.cards), "concealed": m.concealed, "owner": m.owner, "turn": m.turn}
             for m in side.values()] for side in v]


def _pile_view(g: Any, v: list[Card]) -> tuple[Card | None, ...]:
    lo, hi = g.face_down()  # a family's face-down pile cards are seen as None
    return tuple(None if lo <= i < hi else c for i, c in enumerate(v))


def _pile_json(g: Any, v: list[Card]) -> list[str]:
    return _card_strs(v)


def _stock_json(g: Any, v: list[Card]) -> list[str]:
    return _card_strs(v[::-1])  # top first


# -- how a position reads the shared fields back, ``(game, JSON) -> value`` (``read``), raising
# -- PositionError with what is wrong, and the value of a field a position leaves out (``derive``,
# -- computed once every given field is read).  A field with neither is read as a value of the
# -- type of its start value (a list: as long, of that type), and left out keeps that value.

def _seat(name: str, lowest: int = 0) -> Callable[[Any, Any], int]:
    def read(g: Any, v: Any) -> int:
        if type(v) is not int:
            raise PositionError(f"{name} must be a whole number, not {v!r}")
        if not lowest <= v < g.players:
            raise PositionError(f"{name} must be {'-1 or ' if lowest < 0 else ''}a seat from 0 to {g.players - 1}")
        return v
    return read


def _named(name: str, names: tuple[str, ...]) -> Callable[[Any, Any], int]:
    def read(g: Any, v: Any) -> int:
        if not isinstance(v, str):
            raise PositionError(f"{name} must be text, not {v!r}")
        if v not in names:
            raise PositionError(f"{name} must be one of {', '.join(names)}, not {v!r}")
        return names.index(v)
    return read


def _per_seat(name: str, what: str) -> Callable[[Any, Any], list[list[Card]]]:
    """A list of card lists, one per seat."""
    def read(g: Any, v: Any) -> list[list[Card]]:
        if not isinstance(v, list) or len(v) != g.players:
            raise PositionError(f"{name} must list {what} of each of the {g.players} seats")
        return [read_cards(x, f"{name}[{s}]") for s, x in enumerate(v)]
    return read


def _counts(rows: list[list[Card]]) -> list[list[int]]:
    out = [[0] * NUM_CARDS for _ in rows]
    for row, cards in zip(out, rows, strict=True):
        for c in cards:
            row[c] += 1
    return out


def _read_hands(g: Any, v: Any) -> list[list[int]]:
    return _counts(_per_seat("hands", "the cards")(g, v))


def _read_known(g: Any, v: Any) -> list[list[int]]:
    return _counts(_per_seat("known", "cards")(g, v))


def _read_red_threes(g: Any, v: Any) -> list[list[Card]]:
    rows = _per_seat("red_threes", "the red threes")(g, v)
    laid_out = g.family.laid_out  # the cards the family lays out (A.4.3: the red threes; C.3.1: every three)
    for s, cards in enumerate(rows):
        if not all(laid_out[c] for c in cards):
            raise PositionError(f"red_threes[{s}] may hold only 3H and 3D" if laid_out == IS_RED_THREE
                                else f"red_threes[{s}] may hold only the cards the rules lay out")
    return rows


def _read_opened(g: Any, v: Any) -> list[bool]:
    n = len(g.melds)
    if not isinstance(v, list) or len(v) != n or not all(type(x) is bool for x in v):
        raise PositionError(f"opened must list true/false for each of the {n} sides")
    return list(v)


def _derive_opened(g: Any) -> list[bool]:
    return [bool(g.melds[side]) or bool(g.set_aside(side)) for side in range(len(g.melds))]


def read_meld(g: Any, entry: Any, where: str) -> Meld:
    """A meld of a position of ``g``: a list of cards, or an object with ``cards`` (and
    ``concealed``, ``owner``, ``turn``); checked against the family's rules (a family's own
    fields read their melds with it too)."""
    if isinstance(entry, list):
        entry = {"cards": entry}
    if not isinstance(entry, Mapping):
        raise PositionError(f"{where} must be a list of cards or an object with 'cards'")
    cards = read_cards(entry.get("cards"), where)
    if not cards:
        raise PositionError(f"{where} is empty")
    ranks = {CARD_RANK[c] for c in cards if IS_NATURAL[c] or IS_BLACK_THREE[c]}
    if g.family.has_wild_melds and not ranks and all(IS_WILD[c] for c in cards):
        ranks = {WILD_MELD}
    if len(ranks) != 1 or any(IS_RED_THREE[c] for c in cards):
        raise PositionError(f"{where} is not a meld of one rank")
    m = Meld(ranks.pop(), full=g.canasta_size)
    for c in cards:
        m.add(c)
    if m.rank != 1:
        bad = g.family.meld_shape_error(g.rules, m)
        if bad is not None and not (g.rules.cutthroat and _two_melds_in_one(g, cards)):
            raise PositionError(f"{where}: {refuse(bad)}")
    elif m.wilds:
        raise PositionError(f"{where}: black threes are melded without wild cards")
    owner, turn, concealed = entry.get("owner", -1), entry.get("turn", 0), entry.get("concealed", False)
    for key, value in (("owner", owner), ("turn", turn)):
        if type(value) is not int:
            raise PositionError(f"{key} must be a whole number, not {value!r}")
    if type(concealed) is not bool:
        raise PositionError(f"concealed must be true or false, not {concealed!r}")
    m.owner, m.turn, m.concealed = owner, turn, concealed
    return m


def _two_melds_in_one(g: Any, cards: list[Card]) -> bool:
    """Whether ``cards`` split into two melds of their rank that the family allows: a cut-throat
    side's meld once the two partners' melds are combined (C-O10), which may pass the limits on
    wild cards (docs/decisions.md)."""
    naturals = [c for c in cards if not IS_WILD[c]]
    wilds = [c for c in cards if IS_WILD[c]]
    for n in range(2, len(naturals) - 1):
        for w in range(len(wilds) + 1):
            a, b = Meld(CARD_RANK[naturals[0]]), Meld(CARD_RANK[naturals[0]])
            for c in naturals[:n] + wilds[:w]:
                a.add(c)
            for c in naturals[n:] + wilds[w:]:
                b.add(c)
            if g.family.meld_shape_error(g.rules, a) is None and g.family.meld_shape_error(g.rules, b) is None:
                return True
    return False


def _read_melds(g: Any, v: Any) -> list[dict[int, Meld]]:
    sides = len(g.melds)
    if not isinstance(v, list) or len(v) != sides:
        raise PositionError(f"melds must list the melds of each of the {sides} sides")
    out: list[dict[int, Meld]] = []
    for side, side_list in enumerate(v):
        if not isinstance(side_list, list):
            raise PositionError(f"melds[{side}] must be a list of melds")
        melds: dict[int, Meld] = {}
        for i, entry in enumerate(side_list):
            m = read_meld(g, entry, f"melds[{side}][{i}]")
            if m.rank in melds:
                raise PositionError(f"melds[{side}] has two melds of the same rank (A.5.7)")
            if g.family.closes_canastas and m.size >= g.canasta_size:
                raise PositionError(f"melds[{side}][{i}] has {g.canasta_size} cards: list it under 'closed' (B.7.2)")
            melds[m.rank] = m
        out.append(melds)
    return out


def _read_pile(g: Any, v: Any) -> list[Card]:
    return read_cards(v, "pile")


def pile_frozen_by_cards(rules: Any, pile: Sequence[Card], hidden: Sequence[int] = (0, 0)) -> bool:
    """Whether a pile holding these cards (bottom to top) is frozen, as play leaves it.

    A pile is emptied when it is taken, so every card in it was turned up or
    discarded since, and the pile is frozen exactly when one of them freezes it:
    a wild card (A.8.3, B.10.2, B.4.2); under C-O2 a black three, turned up
    (covered or not, C-O3) or discarded (A.8.2); under C-O13 a red three, which
    can be in the pile only as a turned upcard (A.3.3).  A family's face-down
    cards (``hidden``: Italian's pozzo below its upcard, I-O30) never freeze it;
    where a family's options leave cards in a pile that do not freeze it otherwise
    (Italian I-O30 ``face_up``, I-O32 ``top_card_only``), a position must give
    ``pile_frozen`` itself (``position_of`` always writes it)."""
    lo, hi = (hidden[0], hidden[1]) if len(hidden) == 2 else (0, 0)
    for i, c in enumerate(pile):
        if lo <= i < hi:
            continue
        if IS_WILD[c]:
            return True
        if IS_BLACK_THREE[c] and rules.black_three_freezes:
            return True
        if IS_RED_THREE[c] and rules.red_three_upcard_freezes:
            return True
    return False


def cards_in(value: Any, out: list[Card]) -> list[Card]:
    """The cards of a field's view value (card codes in tuples or lists to any depth), appended to ``out``."""
    if isinstance(value, (tuple, list)):
        for x in value:
            cards_in(x, out)
    else:
        out.append(value)
    return out


def _not_bound(g: Any) -> bool:
    return False  # a position that leaves ``must_go_out`` out: no take below the minimum this turn


def _derive_pile_frozen(g: Any) -> bool:
    return pile_frozen_by_cards(g.rules, g.pile, list(g.face_down()))


def _read_stock(g: Any, v: Any) -> list[Card]:
    return read_cards(v, "stock")[::-1]  # written top first


def _read_side_of(g: Any, v: Any) -> list[int]:
    if not isinstance(v, list) or len(v) != g.players or not all(
            type(x) is int and 0 <= x < len(g.rules.teams) for x in v):
        raise PositionError(f"side_of must list a side number for each of the {g.players} seats")
    return list(v)


def _derive_turn(g: Any) -> int:
    return int((g.dealer + 1) % g.players)


def _derive_turn_no(g: Any) -> int:
    return 1


class StateField(NamedTuple):
    """One field of the state, as views and positions see it."""

    attr: str  #: the attribute (of the game, or of its family's :class:`StatePart`)
    name: str  #: its name in positions and views
    seen: str  #: "public", "own" (the seat's own: hands) or "hidden" (nobody: the stock)
    copy: str  #: a :data:`COPY_KINDS` kind
    #: how a view copies it out, ``(game, value) -> value`` (None: a tuple, or the value)
    view: Callable[[Any, Any], Any] | None = None
    #: how a position writes it, ``(game, value) -> JSON`` (None: a list, or the value)
    write: Callable[[Any, Any], Any] | None = None
    #: how a position reads it back, ``(game, JSON) -> value``, raising ValueError with what is
    #: wrong (None: a list or value of the field's type, as written)
    read: Callable[[Any, Any], Any] | None = None
    #: its value when a position leaves it out, ``game -> value`` (None: the part's start value)
    derive: Callable[[Any], Any] | None = None
    #: how a game rebuilt from a seat view reads it back, ``(game, view value) -> value``
    #: (None: as the view holds it, tuples as lists)
    unview: Callable[[Any, Any], Any] | None = None
    #: the view's value is cards (card codes, in tuples to any depth): a view written as JSON
    #: names them (``"QH"``), and reading it back parses them
    cards: bool = False
    #: those cards lie face up on the table, in no hand and not in the stock (a seat has seen them)
    placed: bool = False
    #: those cards lie face down apart, in no hand and not in the stock (nobody has seen them:
    #: C.8.3's talons set aside at the deal, M-O14)
    aside: bool = False


@mypyc_attr(allow_interpreted_subclasses=True)  # a family outside the package may give its own
class StatePart:
    """A rule family's own part of the hand's state (``HandState.part``), in the
    spirit of python-chess's variant boards: the family makes it
    (``RuleFamily.new_part``), keeps its fields, copies it and resets it at each
    turn; shared code only copies it (snapshots) and asks it the questions
    below.  ``FIELDS`` declares its written fields for views and positions
    (attribute of the part, name, who sees it, copy kind)."""

    __slots__ = ()
    FIELDS: ClassVar[tuple[StateField, ...]] = ()

    def copy(self) -> StatePart:
        """An independent copy (snapshots, ``Game.copy``)."""
        raise NotImplementedError

    def begin_turn(self) -> None:
        """A turn begins: reset what lasts one turn."""

    # -- what shared code (views, bots, encodings) may ask any family's part; the answers
    # -- here are a family's without such things

    def set_aside(self, side: int) -> list[Meld]:
        """The canastas of ``side`` kept out of its open melds (Italian: closed, B.7.2)."""
        return []

    def canastas_set_aside(self, side: int) -> int:
        """How many canastas of ``side`` are kept in the part, not among its open melds."""
        return len(self.set_aside(side))

    def face_down(self) -> tuple[int, int]:
        """``pile[first:end]`` lie face down (Italian: the pozzo's cards under the upcard, I-O30)."""
        return (0, 0)

    def shown_at_deal(self) -> list[Card]:
        """Cards the deal showed everyone besides the upcard (Italian: the cut's wild cards, B.3.2)."""
        return []

    def turn_marks(self) -> tuple[bool, int]:
        """What the turn so far binds: (the opening was clean, so no wild card may follow, B.9.2;
        how the player drew, a :class:`DrawMode`, I-O31)."""
        return (False, DrawMode.NORMAL)

    def key(self, card_class: Callable[[Card], int]) -> tuple[object, ...]:
        """The part as a hashable key, each card written as ``card_class`` says (the reference's
        states modulo suits, :mod:`canasta.tools.reference`)."""
        return ()

    def drop_pile_bottom(self, count: int, left: int) -> None:
        """The pile's ``count`` lowest cards are gone and ``left`` remain (a position cut down
        to the pile's top, :mod:`canasta.tools.reference`): move what the part says of pile places
        (Italian: the pozzo's face-down cards)."""


@dataclass(slots=True, init=False, eq=False, repr=False)
class HandState:
    """Everything that changes during a hand.  Seats are 0..players-1, sides
    index ``rules.teams`` (players in cut-throat before the lone hand forms)."""

    # -- the position of play
    turn: int = field(metadata=_m("value", "turn", read=_seat("turn"), derive=_derive_turn))  #: the seat whose turn it is
    phase: int = field(metadata=_m("value", "phase", view=_phase_name, write=_phase_name,
                                 read=_named("phase", PHASE_NAMES)))  #: a :class:`Phase`
    turn_no: int = field(metadata=_m("value", "turn_number", derive=_derive_turn_no))  #: turns begun in this hand (1 = the first)
    # -- the cards
    hands: list[list[int]] = field(metadata=_m("rows", "hands", seen="own", write=_hands_json, read=_read_hands))  #: per seat: count of each card code
    known: list[list[int]] = field(metadata=_m("rows", "known", view=_known_view, write=_known_json,
                                                read=_read_known))  #: per seat: counts of cards seen entering the hand
    red3: list[list[Card]] = field(metadata=_m("rows", "red_threes", view=_rows_view, write=_rows_json,
                                                read=_read_red_threes, cards=True, placed=True))  #: per seat: red threes laid out
    opened: list[bool] = field(metadata=_m("list", "opened", read=_read_opened, derive=_derive_opened))  #: per side: has made its initial meld / opening
    melds: list[dict[int, Meld]] = field(metadata=_m("melds", "melds", view=_melds_view, write=_melds_json,
                                                      read=_read_melds))  #: per side: open melds by rank (or WILD_MELD)
    pile: list[Card] = field(metadata=_m("list", "pile", view=_pile_view, write=_pile_json, read=_read_pile))  #: the discard pile / pozzo, bottom first
    pile_frozen: bool = field(metadata=_m("value", "pile_frozen", derive=_derive_pile_frozen))
    stock: list[Card] = field(metadata=_m("list", "stock", seen="hidden", write=_stock_json, read=_read_stock))  #: the stock, its top card last
    # -- the turn's flags
    took_pile: bool = field(metadata=_m("value", "took_pile"))
    melded_now: bool = field(metadata=_m("value", "melded_this_turn"))
    touched_old: bool = field(metadata=_m("value", "touched_old_melds"))  #: added to a meld laid before (C-O5)
    ask: int = field(metadata=_m("value", "ask", view=_ask_name, write=_ask_name, read=_named("ask", ASK_NAMES)))  #: an :class:`Ask`
    must_go_out: bool = field(metadata=_m("value", "must_go_out", derive=_not_bound))  #: the turn must end by going out: the pile was taken below the minimum on the strength of going out concealed (A.7.7)
    has_melded: list[bool] = field(metadata=_m("list", "has_melded"))  #: per seat, in an earlier turn (C-O5)
    added_to_partner: list[bool] = field(metadata=_m("list", "added_to_partner"))  #: per seat (C-O5)
    red3_pending: list[bool] = field(metadata=_m("list", "red_threes_pending"))  #: per seat: dealt red threes not yet laid out
    side_of: list[int] = field(metadata=_m("list", "side_of", read=_read_side_of))  #: per seat
    lone_seat: int = field(metadata=_m("value", "lone", read=_seat("lone", -1)))  #: cut-throat: the lone hand's seat once known, else -1
    # -- the end
    went_out: int = field(metadata=_m("value", "went_out", read=_seat("went_out", -1)))  #: the seat that went out, else -1
    out_concealed: bool = field(metadata=_m("value", "concealed_out"))
    end_reason: str = field(metadata=_m("value", "end_reason"))
    # -- derived, kept up to date for speed (not written in positions)
    rank_counts: list[list[int]] = field(metadata=_m("rows", None))  #: per seat: count of each rank held
    hand_sizes: list[int] = field(metadata=_m("list", None))  #: per seat: cards held
    canasta_counts: list[int] = field(metadata=_m("list", None))  #: per side: canastas (open and set aside)
    # -- the family's own part (None if it has none): its fields are declared by it, see StatePart
    part: StatePart | None = field(metadata=_m("part", None))


STATE_FIELDS: Final[tuple[Field[Any], ...]] = fields(HandState)
STATE_NAMES: Final = tuple(f.name for f in STATE_FIELDS)
#: the shared fields written in positions and views, in the record's order, each declared once
#: (name, who sees it, how it is copied, its codecs) as a family's part declares its own
SHARED_FIELDS: Final = tuple(StateField(f.name, f.metadata["name"], f.metadata["seen"], f.metadata["copy"],
                                        view=f.metadata["view"], write=f.metadata["write"], read=f.metadata["read"],
                                        derive=f.metadata["derive"], cards=f.metadata["cards"],
                                        placed=f.metadata["placed"])
                             for f in STATE_FIELDS if f.metadata["name"])
#: (attribute, name in positions and views) of the shared fields written out
WRITTEN: Final = tuple((f.attr, f.name) for f in SHARED_FIELDS)


def snapshot(s: HandState) -> tuple[object, ...]:
    """An independent copy of the state, for :func:`restore` (``push``).

    One line per field of :class:`HandState`, in its order (a test checks it);
    a plain function, no loop over the fields, so as fast as can be."""
    return (
        s.turn,
        s.phase,
        s.turn_no,
        [x[:] for x in s.hands],
        [x[:] for x in s.known],
        [x[:] for x in s.red3],
        s.opened[:],
        [{k: m.copy() for k, m in d.items()} for d in s.melds],
        s.pile[:],
        s.pile_frozen,
        s.stock[:],
        s.took_pile,
        s.melded_now,
        s.touched_old,
        s.ask,
        s.must_go_out,
        s.has_melded[:],
        s.added_to_partner[:],
        s.red3_pending[:],
        s.side_of[:],
        s.lone_seat,
        s.went_out,
        s.out_concealed,
        s.end_reason,
        [x[:] for x in s.rank_counts],
        s.hand_sizes[:],
        s.canasta_counts[:],
        None if s.part is None else s.part.copy(),
    )


def restore(s: HandState, t: tuple[object, ...]) -> None:
    """Put back a :func:`snapshot` (``pop``); the snapshot is consumed."""
    (
        s.turn,
        s.phase,
        s.turn_no,
        s.hands,
        s.known,
        s.red3,
        s.opened,
        s.melds,
        s.pile,
        s.pile_frozen,
        s.stock,
        s.took_pile,
        s.melded_now,
        s.touched_old,
        s.ask,
        s.must_go_out,
        s.has_melded,
        s.added_to_partner,
        s.red3_pending,
        s.side_of,
        s.lone_seat,
        s.went_out,
        s.out_concealed,
        s.end_reason,
        s.rank_counts,
        s.hand_sizes,
        s.canasta_counts,
        s.part,
    ) = t  # type: ignore[assignment]


def copy_state(s: HandState, d: HandState) -> None:
    """Give ``d`` an independent copy of ``s``'s state (``Game.copy``)."""
    d.turn = s.turn
    d.phase = s.phase
    d.turn_no = s.turn_no
    d.hands = [x[:] for x in s.hands]
    d.known = [x[:] for x in s.known]
    d.red3 = [x[:] for x in s.red3]
    d.opened = s.opened[:]
    d.melds = [{k: m.copy() for k, m in d.items()} for d in s.melds]
    d.pile = s.pile[:]
    d.pile_frozen = s.pile_frozen
    d.stock = s.stock[:]
    d.took_pile = s.took_pile
    d.melded_now = s.melded_now
    d.touched_old = s.touched_old
    d.ask = s.ask
    d.must_go_out = s.must_go_out
    d.has_melded = s.has_melded[:]
    d.added_to_partner = s.added_to_partner[:]
    d.red3_pending = s.red3_pending[:]
    d.side_of = s.side_of[:]
    d.lone_seat = s.lone_seat
    d.went_out = s.went_out
    d.out_concealed = s.out_concealed
    d.end_reason = s.end_reason
    d.rank_counts = [x[:] for x in s.rank_counts]
    d.hand_sizes = s.hand_sizes[:]
    d.canasta_counts = s.canasta_counts[:]
    d.part = None if s.part is None else s.part.copy()
