"""Rule families: what Classic (SPEC Part A) and Italian (Part B) Canasta do
differently, as one class per family (in the spirit of python-chess's variants).

:class:`~canasta.game.Game` holds what both families share (turns, drawing,
discarding, asking, undo) and calls its ``family`` for the rest, through the
named hooks of :class:`RuleFamily`: the deal, taking the pile (pozzo), meld
planning and laying, going out, move generation and scoring.  It never tests
which family it plays.  A third family is a new subclass registered in
:data:`FAMILIES`, not more ``if`` s.

The families keep no state: every hook is a function of the game's state
record (:class:`~canasta.state.HandState`), as in pgx.  They also answer the
questions views, positions and bots ask (the capabilities below), so those
need not test the family either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple

from canasta.cards import RANK_PLURALS, Card
from canasta.errors import IllegalMoveError
from canasta.fairdeal import DealRandom
from canasta.melds import Meld
from canasta.moves import DRAW, MELD, OPEN, TAKE, Group, Move, group_cards
from canasta.rules import RuleSet
from canasta.scoring import SideScore

if TYPE_CHECKING:
    from canasta.game import Game
    from canasta.movegen import Option


#: the pile's (or pozzo's) state in words (A.8, A.9, B.10): English sentences with
#: ``{n}`` (a count) or ``{rank}`` (a rank, in the plural); an interface translates them
#: by key (they are extracted for the catalogs from here, as data)
PILE_NOTES: Final[dict[str, str]] = {
    "empty": "empty",
    "frozen": "FROZEN for everyone: a wild card is in it; only a natural pair matching the top card takes it",
    "frozen_pozzo": "FROZEN: a wild card is in it; only {n} natural cards matching the top card take it",
    "unmelded": "frozen for your side until it has melded: a natural pair matching the top card, with enough "
                "for your initial meld, takes it",
    "unopened": "your team must open first (or open in the same turn) to take it",
    "face_down": "the top card is face down",
    "wild_on_top.pile": "BLOCKED: a wild card is on top, so nobody can take the pile now",
    "wild_on_top.pozzo": "BLOCKED: a wild card is on top, so nobody can take the pozzo now",
    "black_three_on_top.pile": "BLOCKED: a black three is on top, so the next player cannot take the pile",
    "black_three_on_top.pozzo": "BLOCKED: a black three is on top, so the next player cannot take the pozzo",
    "red_three_on_top.pile": "BLOCKED: a red three is on top of the pile",
    "red_three_on_top.pozzo": "BLOCKED: a red three is on top of the pozzo",
    "closed_rank_own": "BLOCKED for you: your team closed a canasta of {rank}",
    "closed_rank_other": "BLOCKED for you: the other side closed a canasta of {rank}",
    "open_pair": "open: a natural pair matching the top card takes it",
    "open": "open: a natural pair, one natural card and a wild card, or a meld of the top card's rank takes it",
}


class PileNote(NamedTuple):
    """One note on the pile: a key of :data:`PILE_NOTES` and its fields."""

    key: str
    n: int = 0  # {n}: a count
    rank: int = -1  # {rank}: a rank (0 the twos ... 13 the jokers), written in the plural

    @property
    def text(self) -> str:
        """The note in English."""
        return PILE_NOTES[self.key].format(n=self.n, rank=RANK_PLURALS[self.rank] if self.rank >= 0 else "")


@dataclass(frozen=True)
class MeldCount:
    """A proposed initial meld (opening) as the minimum sees it (:meth:`Game.meld_count`)."""

    count: int  # what the move counts towards the minimum
    minimum: int  # the minimum of the mover's side in this hand
    applies: bool  # False once the side has melded, or when going out concealed exempts it (C-O5)
    why_not: str  # why the minimum does not apply ("" when it does)

    @property
    def enough(self) -> bool:
        """The count reaches the minimum, or no minimum applies."""
        return not self.applies or self.count >= self.minimum


class RuleFamily:
    """The hooks a rule family provides.  Every method takes the game first."""

    #: the family's id, as in ``RuleSet.family``
    name: ClassVar[str] = ""
    #: what the discard pile is called ("pile", "pozzo")
    pile_word: ClassVar[str] = "pile"
    #: stock cards drawn after taking the pile (A.16.2: none; B.10.8: one)
    take_draws: ClassVar[int] = 0
    #: whether a meld that reaches seven cards is closed and set aside (B.7.2)
    closes_canastas: ClassVar[bool] = False
    #: whether melds of wild cards only exist (B.8), kept under ``WILD_MELD``
    has_wild_melds: ClassVar[bool] = False
    #: whether the pile is frozen against a side that has not melded (A.8.4)
    frozen_until_melded: ClassVar[bool] = True
    #: whether the deal has a cut (B.3), chosen by a player
    has_cut: ClassVar[bool] = False
    #: whether going out is offered as one move that melds everything (Classic), rather
    #: than found meld by meld with the going-out search (Italian)
    goes_out_in_one_move: ClassVar[bool] = True
    #: whether cards taken with the pile go to the hand below a frozen pile's natural pair only
    #: (Italian's pozzo is taken by a natural pair, three when frozen; Classic also by one and a wild)
    takes_with_one_and_wild: ClassVar[bool] = True

    def frozen_take_naturals(self, rules: RuleSet) -> int:
        """Natural cards of the top card's rank that take a frozen pile (A.9.2, B.10.4)."""
        return 2

    def meld_shape_error(self, rules: RuleSet, meld: Meld) -> str | None:
        """None if a meld on the table has a legal make-up, else its refusal key."""
        raise NotImplementedError

    def going_out_met(self, g: Game, side: int) -> bool:
        """Whether ``side`` has the canastas going out needs (A.12.2, B.13.1)."""
        raise NotImplementedError

    # -- words, for the views' notes on the pile (pile_notes)
    def frozen_note(self, rules: RuleSet) -> PileNote:
        raise NotImplementedError

    def unmelded_note(self) -> PileNote:
        raise NotImplementedError

    def open_note(self, rules: RuleSet) -> PileNote:
        raise NotImplementedError

    def blocked_notes(self, rules: RuleSet, closed: Sequence[Sequence[Sequence[Card]]], side: int,
                      rank: int) -> list[PileNote]:
        """Why the pile's top card blocks ``side`` beyond the card itself (B.10.6)."""
        return []

    def __init__(self) -> None:
        #: :meth:`options` as a plain function of the game, called on every decision
        #: (bound straight to the generator: one call frame less than the method)
        self.options_of: Callable[[Game], list[Option]] = self.generator()
        #: the key of the meld a group of a meld move goes on (its rank; Italian: or WILD_MELD)
        self.group_key: Callable[[Group], int] = self.group_keyer()

    def group_keyer(self) -> Callable[[Group], int]:
        """The function behind :attr:`group_key`."""
        raise NotImplementedError

    def generator(self) -> Callable[[Game], list[Option]]:
        """The function behind :meth:`options`."""
        return self.options

    # -- the deal
    def card_values(self, rules: RuleSet) -> tuple[int, ...]:
        """Point value of each card code."""
        raise NotImplementedError

    def deal(self, g: Game, deck: Sequence[Card] | None, cut: int | None, stream: DealRandom | None) -> None:
        """Deal the hand and begin the first turn."""
        raise NotImplementedError

    def check_cut(self, cut: int | None) -> None:
        """Refuse a cut the family does not have (ValueError)."""

    # -- turns
    def stock_out_ends_hand(self, g: Game) -> bool:
        """Whether a turn that begins with no stock ends the hand at once."""
        return False

    def draw_ran_out(self, g: Game) -> None:
        """The last stock card drawn was a red three (A.13.1, B.14)."""
        raise NotImplementedError

    def cards_to_draw(self, g: Game, move: Move) -> int:
        """:meth:`Game.cards_to_draw <canasta.game.Game.cards_to_draw>`."""
        if move.kind == TAKE:
            return self.take_draws
        if move.kind == OPEN:
            return 1
        if move.kind == DRAW:
            return g.rules.draw_count
        raise ValueError(f"'{move}' is not a way to draw: ask about draw, take or open")

    # -- plans (raise IllegalMoveError), and their execution
    def plan_take(self, g: Game, move: Move) -> object:
        raise NotImplementedError

    def plan_open(self, g: Game) -> None:
        raise NotImplementedError

    def plan_meld(self, g: Game, move: Move, final: bool = False) -> object:
        raise NotImplementedError

    def lay(self, g: Game, seat: int, plan: Any) -> None:
        """Lay a planned meld move.  (A family may make this, and :meth:`take`, a
        staticmethod of the same arguments: the game calls it on every meld.)"""
        raise NotImplementedError

    def take(self, g: Game, seat: int, plan: Any) -> None:
        """Take the pile as planned (and what follows: a draw in Italian)."""
        raise NotImplementedError

    # -- going out
    def may_ask(self, g: Game) -> bool:
        """Whether asking "may I go out?" makes sense now (the mover could go out on a yes)."""
        raise NotImplementedError

    def can_go_out(self, g: Game, seat: int | None = None) -> bool:
        """Whether the player to move could go out in this turn from here."""
        raise NotImplementedError

    def discard_out_error(self, g: Game, seat: int, card: Card) -> IllegalMoveError | None:
        """Why discarding the last card (going out) is refused, or None."""
        raise NotImplementedError

    def before_going_out(self, g: Game, seat: int) -> None:
        """What happens first when ``seat`` goes out (C-O10: the lone hand forms)."""

    def went_out_concealed(self, g: Game, seat: int) -> bool:
        """Whether ``seat``, going out now, goes out concealed (A.12.4)."""
        return False

    # -- the initial meld (opening)
    def opening_count(self, g: Game, move: Move, cards: list[Card]) -> int:
        """What a meld or take move counts towards the minimum (A.7, B.9)."""
        raise NotImplementedError

    def exempt_from_minimum(self, g: Game, move: Move, cards: list[Card]) -> bool:
        """C-O5: going out concealed in this move needs no minimum."""
        return False

    def meld_count(self, g: Game, move: Move) -> MeldCount:
        """:meth:`Game.meld_count <canasta.game.Game.meld_count>`."""
        if move.kind not in (MELD, TAKE):
            raise ValueError(f"'{move}' lays no cards: ask about a meld or take move")
        seat = g.turn
        side = g.side_of[seat]
        cards = [c for grp in move.groups for c in group_cards(grp)]
        count = self.opening_count(g, move, cards)
        minimum = g.minimum(seat)
        if g.opened[side]:
            return MeldCount(count, minimum, False, "your side has already melded in this hand")
        if self.exempt_from_minimum(g, move, cards):
            return MeldCount(count, minimum, False, "going out concealed is exempt from the minimum (C-O5)")
        return MeldCount(count, minimum, True, "")

    # -- generation
    def options(self, g: Game) -> list[Option]:
        """The generating set as options (see :mod:`canasta.movegen`)."""
        raise NotImplementedError

    def build_groups(self, hand: list[int], spec: Sequence[tuple[int, int, int, int]]) -> list[Group]:
        """The groups of an initial-meld option (rank, naturals, deuces, jokers)."""
        raise NotImplementedError

    def gen_takes(self, g: Game) -> Iterator[Move]:
        """The take moves of the generating set."""
        raise NotImplementedError

    # -- scoring
    def score(self, g: Game) -> list[SideScore]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<rule family {self.name}>"


def _registry() -> dict[str, RuleFamily]:
    from canasta.classic import Classic
    from canasta.italian import Italian

    return {f.name: f for f in (Classic(), Italian())}


#: the rule families by name (``RuleSet.family``)
FAMILIES: dict[str, RuleFamily] = {}


def family_of(rules: RuleSet) -> RuleFamily:
    """The family that plays these rules."""
    if not FAMILIES:
        FAMILIES.update(_registry())
    return FAMILIES[rules.family]


__all__ = ["FAMILIES", "MeldCount", "RuleFamily", "family_of"]
