"""Options: the generating set of a position before its moves are built.

An option is an ``int`` ``code * 16 + rank`` for the common moves (the codes
below: a discard of that rank, a natural card onto its meld, a deuce or a joker
onto it, a new meld of three naturals, of two naturals and a deuce or a joker,
a deuce or a joker onto the meld of wild cards, a new meld of wild cards with
``rank`` jokers of three), a tuple of (rank, naturals, deuces, jokers) for an
initial meld (in the draw phase, for a take that opens: the group shown with the pile's
top card first, then the new melds laid with it), or the :class:`~canasta.engine.moves.Move` itself.  Options are built
into moves only when chosen (:meth:`Game.materialize
<canasta.engine.game.Game.materialize>`), which keeps random playouts cheap.

A family generates them (its ``options`` hook); this module is the shared
vocabulary: the codes, building a code's move, and reading an option without
building it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from canasta.engine.cards import JOKER, JOKER_RANK, RANK_CARDS, TWO, Card
from canasta.engine.melds import WILD_MELD
from canasta.engine.moves import DISCARD, MELD, TAKE, Group, Move
from canasta.engine.state import DRAW_PHASE, HandState

Spec = tuple[int, int, int, int]
"""One group of an initial meld as counts: (rank or meld key, naturals, deuces, jokers)."""

Option = int | Move | tuple[Spec, ...]
"""An entry of the generating set before it is built: ``code * 16 + rank`` for
a common move, a tuple of :data:`Spec` for an initial meld (in the draw phase, a take
that opens, its first Spec the group shown with the top card), or the Move itself."""

#: the option codes (``code * 16 + rank``; ``opt >> 4`` is the code, ``opt & 15`` the rank)
DISCARD_CODE: Final = 0  #: discard a card of the rank
NATURAL_ON: Final = 1  #: a natural card onto its meld
DEUCE_ON: Final = 2  #: a deuce onto the meld of the rank
JOKER_ON: Final = 3  #: a joker onto the meld of the rank
NEW_THREE: Final = 4  #: a new meld of three naturals
NEW_PAIR_DEUCE: Final = 5  #: a new meld of two naturals and a deuce
NEW_PAIR_JOKER: Final = 6  #: a new meld of two naturals and a joker
DEUCE_ON_WILD: Final = 7  #: a deuce onto the open meld of wild cards (Italian)
JOKER_ON_WILD: Final = 8  #: a joker onto it
NEW_WILD: Final = 9  #: a new meld of three wild cards, ``rank`` of them jokers
CODE_SHIFT: Final = 4  #: ``code << CODE_SHIFT | rank``
#: each code's option for rank 0: ``NATURAL_ON_OPT + rank`` is the option of that rank
NATURAL_ON_OPT: Final = NATURAL_ON << CODE_SHIFT
DEUCE_ON_OPT: Final = DEUCE_ON << CODE_SHIFT
JOKER_ON_OPT: Final = JOKER_ON << CODE_SHIFT
NEW_THREE_OPT: Final = NEW_THREE << CODE_SHIFT
NEW_PAIR_DEUCE_OPT: Final = NEW_PAIR_DEUCE << CODE_SHIFT
NEW_PAIR_JOKER_OPT: Final = NEW_PAIR_JOKER << CODE_SHIFT
DEUCE_ON_WILD_OPT: Final = DEUCE_ON_WILD << CODE_SHIFT
JOKER_ON_WILD_OPT: Final = JOKER_ON_WILD << CODE_SHIFT
NEW_WILD_OPT: Final = NEW_WILD << CODE_SHIFT


def option_of(code: int, rank: int) -> int:
    """The option ``code * 16 + rank``."""
    return (code << CODE_SHIFT) + rank


def suits(hand: Sequence[int], rank: int, k: int) -> list[int]:
    """Suits of ``k`` cards of ``rank`` held, canonically chosen."""
    out: list[int] = []
    if k <= 0:
        return out
    base = rank * 4
    for s in range(4):
        for _ in range(hand[base + s]):
            out.append(s)
            if len(out) == k:
                return out
    return out


def pick(hand: Sequence[int], rank: int, k: int) -> list[Card]:
    """``k`` cards of ``rank`` held, canonically chosen (fewer if not held)."""
    if rank == JOKER_RANK:
        return [JOKER] * min(k, hand[JOKER])
    return [rank * 4 + s for s in suits(hand, rank, k)]


def pick_deuces(hand: Sequence[int], k: int) -> list[Card]:
    """``k`` deuces held, canonically chosen."""
    return [TWO * 4 + s for s in suits(hand, TWO, k)]


def code_move(hand: Sequence[int], opt: int) -> Move:
    """The move behind an option code, from the hand of the player to move."""
    code = opt >> CODE_SHIFT
    r = opt & 15
    if code <= NATURAL_ON:
        for c in RANK_CARDS[r]:
            if hand[c]:
                return Move(DISCARD, ((c,),)) if code == DISCARD_CODE else Move(MELD, ((c,),))
    if code in (DEUCE_ON, NEW_PAIR_DEUCE):
        deuce = next(c for c in RANK_CARDS[TWO] if hand[c])
        if code == DEUCE_ON:
            return Move(MELD, ((-(r + 1), deuce),))
        nat = pick(hand, r, 2)
        return Move(MELD, ((nat[0], nat[1], deuce),))
    if code == JOKER_ON:
        return Move(MELD, ((-(r + 1), JOKER),))
    if code == NEW_THREE:
        return Move(MELD, (tuple(pick(hand, r, 3)),))
    if code == DEUCE_ON_WILD:
        return Move(MELD, ((next(c for c in RANK_CARDS[TWO] if hand[c]),),))
    if code == JOKER_ON_WILD:
        return Move(MELD, ((JOKER,),))
    if code == NEW_WILD:
        return Move(MELD, (tuple(pick_deuces(hand, 3 - r) + [JOKER] * r),))
    nat = pick(hand, r, 2)  # NEW_PAIR_JOKER
    return Move(MELD, ((nat[0], nat[1], JOKER),))


#: per option code: the cards a meld option lays and how many of them are wild
#: (the discard code lays none)
_CODE_LAYS: Final = ((0, 0), (1, 0), (1, 1), (1, 1), (3, 0), (3, 1), (3, 1), (1, 1), (1, 1), (3, 3))
#: per option: its one group as :func:`option_groups` gives it
_CODE_GROUPS: Final = tuple(((WILD_MELD if opt >> CODE_SHIFT >= DEUCE_ON_WILD else opt & 15,)
                             + _CODE_LAYS[opt >> CODE_SHIFT],)
                            for opt in range(16 * len(_CODE_LAYS)))
#: the smallest meld option (a code ``NATURAL_ON``): anything below is a discard
FIRST_MELD: Final = NATURAL_ON_OPT


def split_options(opts: Sequence[Option]) -> tuple[list[Option], list[Option], list[Move]]:
    """The meld options, the discard options and the other moves, each in their
    order, without building the moves."""
    melds: list[Option] = []
    discards: list[Option] = []
    others: list[Move] = []
    for opt in opts:
        if isinstance(opt, int):
            (melds if opt >= FIRST_MELD else discards).append(opt)
        elif isinstance(opt, tuple) or opt.kind == MELD:
            melds.append(opt)
        elif opt.kind == DISCARD:
            discards.append(opt)
        else:
            others.append(opt)
    return melds, discards, others


def is_take(g: HandState, opt: Option) -> bool:
    """Whether an option of ``g``'s generating set takes the pile: a take move, or, in the draw
    phase, a take that opens given as its Specs (Classic's, built only when chosen)."""
    if isinstance(opt, Move):
        return opt.kind == TAKE
    return isinstance(opt, tuple) and g.phase == DRAW_PHASE


def discard_card(g: HandState, opt: Option) -> Card:
    """The card a discard option of the player to move discards, without building the move."""
    if isinstance(opt, int):
        hand = g.hands[g.turn]
        return next(c for c in RANK_CARDS[opt] if hand[c])
    if isinstance(opt, tuple):
        raise ValueError("an opening is not a discard")
    return opt.groups[0][0]


def option_groups(opt: int | tuple[Spec, ...]) -> Sequence[tuple[int, int, int]]:
    """Per group of a meld option (a code or an opening's spec), without building
    it: the key of the meld it goes on, the cards it lays, and how many are wild."""
    if isinstance(opt, tuple):
        return [(key, (n if key != WILD_MELD else 0) + d + j, d + j) for key, n, d, j in opt]
    return _CODE_GROUPS[opt]


__all__ = ["Group", "Option", "Spec", "code_move", "discard_card", "is_take", "option_groups", "pick", "split_options",
           "suits"]
