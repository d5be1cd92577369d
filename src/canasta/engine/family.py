"""Rule families: the contract every family keeps, and the words and answers they share.

A rule family (Classic, SPEC Part A; Italian, Part B; any other) is a :class:`RuleFamily`
registered with :func:`register_family`; its code lives in a package of its own under
:mod:`canasta.families`.  :class:`RuleFamily` is the contract: the shape a family declares
(``canasta_size``, ``pile_word``, ...) and the hooks the engine calls, each given the
:class:`~canasta.engine.game.Game` it plays.  This module also holds what the core and the interfaces
say about any family: the notes on the pile (:data:`PILE_NOTES`, by key, so an interface
translates them), the count of a proposed opening (:class:`MeldCount`), the family's words and
the bots' tuning.  (``canasta.engine.game`` names the contract and the registry too, as it always has.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple

from canasta.engine.cards import (
    CARD_RANK,
    IS_BLACK_THREE,
    IS_RED_THREE,
    IS_WILD,
    RANK_PLURALS,
    RED_THREES,
    Card,
)
from canasta.engine.errors import REFUSAL_FORMS, IllegalMoveError
from canasta.engine.fairdeal import DealRandom
from canasta.engine.melds import CANASTA_SIZE, Meld
from canasta.engine.moves import DRAW, MELD, OPEN, TAKE, Group, Move, group_cards
from canasta.engine.native import mypyc_attr
from canasta.engine.options import Option, Spec
from canasta.engine.plans import MeldPlan, TakePlan
from canasta.engine.rules import OptionInfo, RuleSet, add_presets, register_rules_family
from canasta.engine.scoring import SideScore
from canasta.engine.state import StatePart

if TYPE_CHECKING:  # the contract names the game it is given; the game imports this module
    from canasta.engine.game import Game

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
    "never_taken": "never taken in this game: it only grows",
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


class TableNote(NamedTuple):
    """One note a family adds on the table for a seat (:meth:`RuleFamily.table_notes`): a key of
    its :attr:`RuleFamily.note_texts` and its fields, translated by key as the pile's notes are."""

    key: str
    n: int = 0  # {n}: a count or a score
    rank: int = -1  # {rank}: a rank (0 the twos ... 13 the jokers), written in the plural

    @property
    def text(self) -> str:
        """The note in English."""
        return table_note_texts()[self.key].format(n=self.n, rank=RANK_PLURALS[self.rank] if self.rank >= 0 else "")


@dataclass(frozen=True)
class TableSeen:
    """What a seat sees of the table, as a family's notes on it read it (:meth:`RuleFamily.table_notes`;
    ``canasta.views.seat.table_note_list`` builds it from a seat's view)."""

    side: int  # the seat's side; -1: a spectator
    opened: tuple[bool, ...]  # per side: has made its initial meld in this hand
    melds: tuple[tuple[tuple[Card, ...], ...], ...]  # per side: each meld's cards
    stock_size: int
    pile_size: int
    minimum: int  # the initial-meld minimum of the seat's side (0 for a spectator)
    fields: Mapping[str, Any]  # the family's own public fields of the view, by name


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


@dataclass(frozen=True)
class FamilyWords:
    """What a family calls its things, for the interfaces (:attr:`RuleFamily.words
    <canasta.engine.game.RuleFamily.words>`; the discards' name is :attr:`RuleFamily.pile_word
    <canasta.engine.game.RuleFamily.pile_word>`).  English identifiers: an interface translates them
    where it shows them (:mod:`canasta.present`)."""

    canastas: tuple[str, str]  # a canasta without / with wild cards: ("natural", "mixed"), ("clean", "dirty")
    opened: str  # a side that has laid its first meld "has melded" (Classic) or "has opened" (Italian)
    minimum_shown: str  # the first meld's minimum by score: "bands" (a table, A.7.1) or "samples" (a formula, B.9.1)
    pile_fanned: int  # cards of the discards a table shows fanned out (the pozzo's are counted out: more)
    wilds: str  # how wild cards are counted on a meld: "wild" ("2 wild cards") or "pinelle" ("1 pinella, 1 jolly")
    title: str = ""  # the game's name, "Classic Canasta" (empty: the family's name)
    laid_out: str = "red_threes"  # the cards laid out face up for a side: "red_threes" or "threes" (C.3.1)


@dataclass(frozen=True)
class PlayTuning:
    """How the heuristic players (basic, advanced) play a family: data the family
    gives (:attr:`RuleFamily.play <canasta.engine.game.RuleFamily.play>`), not tests of it."""

    keep_pair_for_pile: bool  # keep a natural pair back to take a big pile
    track_shedding: bool  # read what the next player sheds
    black_three_discard: int  # how much a black three is worth discarding (it blocks the next player)
    meld_takes_pile: bool  # a card of a rank the next side has melded lets it take an unfrozen pile
    one_and_wild_takes: bool  # one natural card and a wild card take an unfrozen pile (A.9.3)
    frozen_need: int  # natural cards of the top's rank the bot assumes take a frozen pile
    classic_scale: bool  # feeding danger scaled by classic_danger_scale, not danger_scale
    #: going out is several meld moves, found with the family's going-out search (``can_go_out``),
    #: though the one-move search finds none (C.11: melds grow card by card)
    out_by_search: bool = False
    #: "may I go out?" is offered exactly when the player to move could go out were the partner to
    #: say yes (before any answer, with a partner and two cards or more): the offer answers the
    #: going-out search (true wherever ``out_by_search`` is)
    ask_tells_out: bool = False
    #: ranks whose unfinished natural meld costs ``race_cost`` at the end of the hand (C.14.1 b)
    race_ranks: tuple[int, ...] = ()
    race_cost: int = 0
    #: what an unfinished meld of wild cards costs at the end of the hand (0: none, or no such melds)
    unfinished_wild_cost: int = 0
    #: what a player holding three or more of a race rank pays at the end of the hand (C.14.1 f)
    hoard_cost: int = 0
    #: a finished canasta makes its rank dead for everyone: no meld, no pick, no safe feed (C.5.8)
    dead_ranks: bool = False


@dataclass(frozen=True)
class ReviewMarks:
    """The points lost (at least) from which a game review marks a decision an inaccuracy,
    a mistake or a blunder (:mod:`canasta.review`): data each family gives, measured on its
    own scale of points (:attr:`RuleFamily.review_marks <canasta.engine.game.RuleFamily.review_marks>`;
    docs/review.md says how)."""

    inaccuracy: float
    mistake: float
    blunder: float

    def thresholds(self) -> tuple[tuple[str, float], ...]:
        """(mark, points) from the heaviest down."""
        return (("blunder", self.blunder), ("mistake", self.mistake), ("inaccuracy", self.inaccuracy))


@dataclass(frozen=True)
class SearchTuning:
    """How the expert searches in a family (:attr:`RuleFamily.search
    <canasta.engine.game.RuleFamily.search>`), each measured against the advanced player
    (README, "Strength")."""

    worlds: int  # most sampled worlds per decision, when the budget names none
    drop_z: float | None  # a choice this many standard errors behind the best is dropped (None: never)
    scored: bool  # value positions by the family's scoring (else the rough value of the first version)
    #: where three or more sides play, a rollout's position (the hand not over) is valued against
    #: the best other side ("best") or the others' mean ("mean"); a finished hand always counts
    #: its lead over the best other side
    rivals: str = "best"
    #: what a rollout's position is worth: the lead it gives in this hand ("hand"), or the chance
    #: it gives to win the match ("match"): the lead in the match's totals once this hand is
    #: added, against the spread of the hands still to play (see ``canasta.bots.expert``)
    objective: str = "hand"
    #: the match model of ``objective="match"``, as shares of the match's target: the points a
    #: side scores in a typical hand (how many hands are left), and the spread (standard
    #: deviation) of one hand's score difference; measured in advanced players' hands
    pace: float = 0.16
    spread: float = 0.16
    #: whether a rollout that stops before the hand ends adds to each side's score the change
    #: the preset's shipped leaf value expects (:mod:`canasta.bots.value`), where there is one
    learned: bool = False
    #: the scale of a position's value: the lead ``d`` counts as ``squash * tanh(d / squash)``, so
    #: that one wild world does not outvote the rest; about a large hand's lead in the family's points
    squash: float = 800.0
    #: whether the guide (the move the others must beat) and the rollouts play with the habits
    #: self-play tuned for the preset (``canasta.bots.heuristic.shipped_habits``), where there are some
    habits: bool = False

    def __post_init__(self) -> None:
        if self.rivals not in ("best", "mean"):
            raise ValueError(f"SearchTuning.rivals is 'best' or 'mean', not {self.rivals!r}")
        if self.objective not in ("hand", "match"):
            raise ValueError(f"SearchTuning.objective is 'hand' or 'match', not {self.objective!r}")
        if not (self.pace > 0 and self.spread > 0):
            raise ValueError(f"SearchTuning.pace and spread are above 0, not {self.pace!r} and {self.spread!r}")
        if not self.squash > 0:
            raise ValueError(f"SearchTuning.squash is above 0, not {self.squash!r}")


# ---------------------------------------------------------------------------- the contract

@mypyc_attr(allow_interpreted_subclasses=True)
class RuleFamily:
    """The hooks a rule family provides.  Every method takes the game first."""

    #: the family's id, as in ``RuleSet.family``
    name: ClassVar[str] = ""
    #: what the discard pile is called ("pile", "pozzo")
    pile_word: ClassVar[str] = "pile"
    #: what a hand (one deal) is called: "hand", or the family's own word ("smazzata"), which a
    #: language may say instead of its usual one (:data:`canasta.present.HAND_PHRASES`)
    hand_word: ClassVar[str] = "hand"
    #: the cards a meld needs to be a canasta (A.6.1, B.7.1: seven); the game reads it as
    #: ``game.canasta_size`` and every meld it makes carries it (``Meld.full``)
    canasta_size: ClassVar[int] = CANASTA_SIZE
    #: stock cards drawn after taking the pile (A.16.2: none; B.10.8: one)
    take_draws: ClassVar[int] = 0
    #: the cards laid out face up for the side and replaced when dealt or drawn, by card code
    #: (A.4.3, B.11: the red threes; C.3.1: every three), and those cards' codes
    laid_out: ClassVar[tuple[bool, ...]] = IS_RED_THREE
    laid_out_cards: ClassVar[tuple[Card, ...]] = RED_THREES
    #: whether a meld that reaches seven cards is closed and set aside (B.7.2)
    closes_canastas: ClassVar[bool] = False
    #: whether melds of wild cards only exist (B.8), kept under ``WILD_MELD``
    has_wild_melds: ClassVar[bool] = False
    #: whether the deal has a cut (B.3), chosen by a player
    has_cut: ClassVar[bool] = False
    #: whether going out is offered as one move that melds everything (Classic), rather
    #: than found meld by meld with the going-out search (Italian)
    goes_out_in_one_move: ClassVar[bool] = True
    #: the variant id of the shared refusal forms this family words or cites its own
    #: way (its forms ``CODE.variant``, registered with ``errors.register_refusals``)
    refusal_variant: ClassVar[str] = ""
    #: how the heuristic players play it (every family says: there is no default)
    play: ClassVar[PlayTuning]
    #: what the interfaces call its things (every family says: there is no default)
    words: ClassVar[FamilyWords]
    #: how the expert searches it (every family says: there is no default)
    search: ClassVar[SearchTuning]
    #: the points lost from which a game review marks a decision (measured in Classic; a family
    #: whose values run on another scale measures its own)
    review_marks: ClassVar[ReviewMarks] = ReviewMarks(inaccuracy=50.0, mistake=100.0, blunder=250.0)
    #: its named options (C-O1 ..., I-O1 ...), the player counts it is for and the preset its
    #: rules files start from; a family that gives them has its rule sets registered with it
    #: (:func:`register_family`; empty: registered apart, ``canasta.engine.rules.register_rules_family``)
    rule_options: ClassVar[tuple[OptionInfo, ...]] = ()
    player_counts: ClassVar[tuple[int, ...]] = ()
    start_preset: ClassVar[str] = ""
    #: the record of its options that are not shared fields of a rule set (``RuleSet.part``:
    #: a frozen dataclass, see ``canasta.engine.rules.RulesPart``), or None
    rules_part: ClassVar[type[Any] | None] = None

    #: the family's own notes on the table (:meth:`table_notes`), by key: English sentences with
    #: ``{n}`` and ``{rank}``, extracted for the catalogs as data and translated by key
    note_texts: ClassVar[Mapping[str, str]] = {}

    def table_notes(self, rules: RuleSet, seen: TableSeen) -> list[TableNote]:
        """What the family says to a seat about the table beyond the pile's notes (C.8: the
        talons, C.5.8: dead ranks ...), keys of :attr:`note_texts`.  Nothing by default."""
        return []

    def rule_notes(self, rules: RuleSet) -> list[TableNote]:
        """The family's rules in a few sentences with the rule set's numbers, for a rules screen
        or page (keys of :attr:`note_texts`).  Nothing by default: the options say it all."""
        return []

    def meld_note(self, rules: RuleSet, move: Move) -> TableNote | None:
        """What a meld move is called where the family names it (a key of :attr:`note_texts`,
        said after the player's name in the log: C.13.3, a special hand laid at once), or None:
        the log lists its melds."""
        return None

    def presets(self) -> dict[str, RuleSet]:
        """Its rule sets by name, registered with it (``RuleSet.preset``)."""
        return {}

    def refusal(self, key: str) -> str:
        """The key of the refusal form of shared code's ``key`` in this family: its own
        form ``key.variant`` if it registered one, else ``key``."""
        own = f"{key}.{self.refusal_variant}"
        return own if self.refusal_variant and own in REFUSAL_FORMS else key

    def frozen_take_naturals(self, rules: RuleSet) -> int:
        """Natural cards of the top card's rank that take a frozen pile (A.9.2, B.10.4)."""
        return 2

    def pile_frozen_for(self, g: Game, side: int) -> bool:
        """Whether the pile is frozen against ``side`` (A.8: a wild card in it, or the side has not
        melded): only natural cards of the top card's rank take it then.  A family whose pile is
        always taken that way says so here."""
        return g.pile_frozen or not g.opened[side]

    def meld_shape_error(self, rules: RuleSet, meld: Meld) -> str | None:
        """None if a meld on the table has a legal make-up, else its refusal key."""
        raise NotImplementedError

    def going_out_met(self, g: Game, side: int) -> bool:
        """Whether ``side`` has the canastas going out needs (A.12.2, B.13.1)."""
        raise NotImplementedError

    def canasta_counts_as(self, rules: RuleSet, meld: Meld) -> str | None:
        """How a canasta of seven or more cards counts: ``"clean"`` (natural cards only),
        ``"dirty"``, or None where it counts as neither (Italian wild canastas, I-O12)."""
        return "clean" if meld.deuces + meld.jokers == 0 else "dirty"

    # -- words, for the views' notes on the pile (pile_notes)
    def frozen_note(self, rules: RuleSet) -> PileNote:
        """The note on a pile frozen by a wild card or black three."""
        raise NotImplementedError

    def unmelded_note(self) -> PileNote:
        """The note on a pile frozen because the side has not melded yet."""
        raise NotImplementedError

    def open_note(self, rules: RuleSet) -> PileNote:
        """The note on a pile that is not frozen."""
        raise NotImplementedError

    def top_card_notes(self, rules: RuleSet, top: Card | None, fields: Mapping[str, Any], side: int) -> list[PileNote]:
        """What the pile's top card (None: face down) says to ``side``: blocked by a wild card or a
        three on top (A.8.1), in the family's word for the pile, or what :meth:`blocked_notes`
        adds.  A family whose pile no top card blocks says nothing here."""
        if top is None:
            return [PileNote("face_down")]
        for blocks, key in ((IS_WILD, "wild_on_top"), (IS_BLACK_THREE, "black_three_on_top"),
                            (IS_RED_THREE, "red_three_on_top")):
            if blocks[top]:
                own = f"{key}.{self.pile_word}"
                return [PileNote(own if own in PILE_NOTES else f"{key}.pile")]
        return self.blocked_notes(rules, fields, side, CARD_RANK[top])

    def blocked_notes(self, rules: RuleSet, fields: Mapping[str, Any], side: int, rank: int) -> list[PileNote]:
        """Why the pile's top card blocks ``side`` beyond the card itself (B.10.6); ``fields``:
        the family's own public fields of a seat's view, by name (``SeatView.part_fields``)."""
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

    # -- what its options say, asked by the players and the interfaces
    def has_open_move(self, rules: RuleSet) -> bool:
        """Whether a player announces an opening with a move of its own (``open``: I-O31)."""
        return False

    def must_ask_to_go_out(self, rules: RuleSet) -> bool:
        """Whether a player with a partner must ask before going out (I-O36 = "required")."""
        return False

    def canastas_needed(self, rules: RuleSet) -> int | str:
        """What going out needs, for the rules' summary: a number of canastas, or the word of
        the option that says which (I-O22: ``"clean_and_dirty"`` ...)."""
        return rules.canastas_to_go_out

    def new_part(self, sides: int) -> StatePart | None:
        """The family's own part of a new hand's state (``HandState.part``), or None."""
        return None

    # -- hooks of a family with a state part (called only when ``part`` is not None)
    def check_discard(self, g: Game, seat: int, card: Card) -> None:
        """Refuse discarding ``card`` where the family's own rules forbid it (IllegalMoveError:
        Italian's opening turn, B.5.1; C.10.2, C.10.3: a three, a wild card, the empty tray)."""

    def takes_back(self, g: Game, seat: int, card: Card) -> bool:
        """Whether discarding ``card``, which ``seat`` does not hold, takes it back from the side's
        melds first (C.10.4, M-O17 = take_back); IllegalMoveError where the family says why not.
        No by default: the card must be held."""
        return False

    def take_back(self, g: Game, seat: int, card: Card) -> None:
        """Move ``card`` from the side's melds into ``seat``'s hand, to be discarded
        (:meth:`takes_back` said yes)."""
        raise NotImplementedError

    def discarded(self, g: Game, seat: int) -> None:
        """``seat``'s discard is on the pile, before the game looks at the emptied hand or passes
        the turn: what follows a discard in the family (C.8.1: the talon).  Nothing by default."""

    def keeps_laid_out(self, g: Game, seat: int) -> bool:
        """Whether ``seat`` now keeps one of the cards the family lays out in hand, rather than
        laying it out (C.3.2: a three kept for the Straight, M-O32).  No by default."""
        return False

    def drawing(self, g: Game, seat: int, kind: int) -> int:
        """A draw (or Italian ``open``) begins: the stock cards it draws; the family
        notes in its state part how the side drew."""
        return g.rules.draw_count

    # -- turns
    def stock_out_ends_hand(self, g: Game) -> bool:
        """Whether a turn that begins with no stock ends the hand at once."""
        return False

    def draw_ran_out(self, g: Game) -> None:
        """The last stock card drawn was a red three (A.13.1, B.14)."""
        raise NotImplementedError

    def cards_to_draw(self, g: Game, move: Move) -> int:
        """:meth:`Game.cards_to_draw <canasta.engine.game.Game.cards_to_draw>`."""
        if move.kind == TAKE:
            return self.take_draws
        if move.kind == OPEN:
            return 1
        if move.kind == DRAW:
            return g.rules.draw_count
        raise ValueError(f"'{move}' is not a way to draw: ask about draw, take or open")

    # -- plans (raise IllegalMoveError), and their execution
    def plan_take(self, g: Game, move: Move) -> TakePlan:
        """The checked plan of taking the pile with ``move``, or IllegalMoveError."""
        raise NotImplementedError

    def plan_open(self, g: Game) -> None:
        """Check that announcing an opening (Italian ``open``) is allowed, or IllegalMoveError."""
        raise NotImplementedError

    def plan_meld(self, g: Game, move: Move, final: bool = False) -> MeldPlan:
        """The checked plan of a meld move (``final``: after the last stock card), or IllegalMoveError."""
        raise NotImplementedError

    def unchecked_plan(self, g: Game, move: Move) -> MeldPlan | TakePlan:
        """The plan of a meld or take move generated in this very position (no checks)."""
        key = self.group_key
        if move.kind == MELD:
            return MeldPlan(tuple([(key(grp), group_cards(grp)) for grp in move.groups]))
        return TakePlan(CARD_RANK[g.pile[-1]], move.groups[0],
                        tuple([(key(grp), group_cards(grp)) for grp in move.groups[1:]]))

    def lay(self, g: Game, seat: int, plan: MeldPlan) -> None:
        """Lay a planned meld move."""
        raise NotImplementedError

    def take(self, g: Game, seat: int, plan: TakePlan) -> None:
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
        """:meth:`Game.meld_count <canasta.engine.game.Game.meld_count>`."""
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
        """The generating set as options (see :mod:`canasta.engine.options`): sound and complete
        for the turn, as the docstring of :mod:`canasta.engine.game` promises."""
        raise NotImplementedError

    def build_groups(self, hand: list[int], spec: Sequence[Spec]) -> list[Group]:
        """The groups of an initial-meld option (rank, naturals, deuces, jokers)."""
        raise NotImplementedError

    def gen_takes(self, g: Game) -> Iterator[Option]:
        """The takes of the generating set: moves, or options (:mod:`canasta.engine.options`) that
        :meth:`Game.materialize <canasta.engine.game.Game.materialize>` builds into take moves."""
        raise NotImplementedError

    # -- scoring
    def score(self, g: Game) -> list[SideScore]:
        """The score of a finished hand, per side (per player in cut-throat)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<rule family {self.name}>"


#: the rule families by name (``RuleSet.family``), filled by :func:`register_family`
#: (the packages under :mod:`canasta.families` register themselves when imported)
FAMILIES: dict[str, RuleFamily] = {}


def register_family(family: RuleFamily) -> RuleFamily:
    """Make a family playable: rule sets whose ``family`` is its name are played by it.  The one
    description of a family is its class: its options, player counts and presets (when it gives
    them) are registered with the rule sets here too."""
    if not family.name:
        raise ValueError("a rule family needs a name")
    register_rules_family(family.name, family.rule_options, family.player_counts, family.start_preset,
                          family.rules_part)
    FAMILIES[family.name] = family
    add_presets(family.presets())
    return family


def table_note_texts() -> dict[str, str]:
    """Every registered family's notes on the table by key (:attr:`RuleFamily.note_texts`)."""
    out: dict[str, str] = {}
    for family in FAMILIES.values():
        out.update(family.note_texts)
    return out


def family_of(rules: RuleSet) -> RuleFamily:
    """The family that plays these rules."""
    try:
        return FAMILIES[rules.family]
    except KeyError:
        raise ValueError(f"no rule family {rules.family!r} is registered "
                         f"(known: {', '.join(sorted(FAMILIES))})") from None


__all__ = ["FAMILIES", "PILE_NOTES", "FamilyWords", "MeldCount", "PileNote", "PlayTuning", "RuleFamily", "SearchTuning",
           "TableNote", "TableSeen", "family_of", "register_family", "table_note_texts"]
