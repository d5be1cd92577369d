"""Modern American Canasta (SPEC Part C), as a rule family: :class:`American`, built on Classic.

It keeps Classic's shape where the rules agree (the sides, the turn, asking to go out, card values)
and declares what differs: 13 cards and no upcard, one card drawn, all threes laid out, the turn
card and the talons, the clean-triple opening with its minimums by score, melds capped at seven with
the rule of five, aces and sevens, melds of wild cards, dead ranks, the pack picked only with a
natural pair, the empty tray's bar, going out with two canastas, special hands, and the score by
the number of canastas.  Its rules are in :mod:`.rules`, :mod:`.melds`, :mod:`.special` and
:mod:`.scoring`, its generation in :mod:`.movegen`, its options in :mod:`.options`, its part of the
state in :mod:`.state` and its refusals in :mod:`.refusals`.  Importing it registers the family
(``RuleSet.family == "american"``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final

from canasta.engine.cards import ACE, CARD_RANK, NUM_CARDS, RED_THREES, SEVEN, THREE, Card
from canasta.engine.errors import IllegalMoveError
from canasta.engine.fairdeal import DealRandom
from canasta.engine.family import (
    FamilyWords,
    PileNote,
    PlayTuning,
    ReviewMarks,
    SearchTuning,
    TableNote,
    TableSeen,
)
from canasta.engine.game import Game, RuleFamily, register_family
from canasta.engine.melds import Meld
from canasta.engine.moves import DRAW, TAKE, Group, Move, group_cards
from canasta.engine.native import mypyc_attr
from canasta.engine.options import Option, Spec
from canasta.engine.plans import MeldPlan, TakePlan
from canasta.engine.rules import RuleSet
from canasta.engine.scoring import SideScore
from canasta.families.american import movegen, notes, openings, options, refusals  # noqa: F401  (registers its refusal forms)
from canasta.families.american import rules as play
from canasta.families.american.melds import CANASTA, CARD_VALUES, canasta_kind, dead_ranks, shape_error
from canasta.families.american.options import american_rules
from canasta.families.american.scoring import score
from canasta.families.american.state import AmericanState, part_of
from canasta.families.classic import Classic

#: every three, red and black, is laid out and replaced (C.3.1)
IS_THREE: Final[tuple[bool, ...]] = tuple(CARD_RANK[c] == THREE for c in range(NUM_CARDS))
THREES: Final[tuple[Card, ...]] = (*RED_THREES, *(c for c in range(NUM_CARDS) if IS_THREE[c] and c not in RED_THREES))

#: the families this one builds on (it may import their packages; tests/test_layering.py reads it)
EXTENDS: Final[tuple[str, ...]] = ("canasta.families.classic",)


@mypyc_attr(allow_interpreted_subclasses=True)
class American(Classic):
    """Modern American Canasta (Part C), with its options M-O1 ...: Classic where the rules agree."""

    name = "american"
    refusal_variant = "american"
    pile_word = "pile"  # the clubs say "the pack"; the interfaces have the pile's words
    canasta_size = CANASTA
    take_draws = 0
    laid_out = IS_THREE
    laid_out_cards = THREES
    has_wild_melds = True
    rule_options = options.AMERICAN_OPTIONS
    player_counts = options.PLAYERS
    start_preset = options.START
    rules_part = options.AmericanRules
    words = FamilyWords(canastas=("natural", "mixed"), opened="melded", minimum_shown="bands", pile_fanned=3,
                        wilds="wild", title="Modern American Canasta", laid_out="threes")
    play = PlayTuning(keep_pair_for_pile=True, track_shedding=True, black_three_discard=0, meld_takes_pile=False,
                      one_and_wild_takes=False, frozen_need=2, classic_scale=True, out_by_search=True,
                      race_ranks=(ACE, SEVEN), race_cost=2500, unfinished_wild_cost=2000, hoard_cost=1500,
                      dead_ranks=True)
    search = SearchTuning(worlds=40, drop_z=1.5, scored=True)
    review_marks = ReviewMarks(inaccuracy=100.0, mistake=250.0, blunder=600.0)

    def presets(self) -> dict[str, RuleSet]:
        return options.presets()

    def card_values(self, rules: RuleSet) -> tuple[int, ...]:
        return CARD_VALUES

    def new_part(self, sides: int) -> AmericanState:
        return AmericanState(sides)

    def pile_frozen_for(self, g: Game, side: int) -> bool:
        return True  # C.9.1: the pack is always taken with a natural pair

    def meld_shape_error(self, rules: RuleSet, meld: Meld) -> str | None:
        return shape_error(meld, american_rules(rules).eighth_card_going_out)

    def going_out_met(self, g: Game, side: int) -> bool:
        p = part_of(g)
        if p.special_seat >= 0 and g.side_of[p.special_seat] == side:
            return True  # a special hand empties the hand without canastas (C.13.1)
        return g.side_canastas(side) >= g.rules.canastas_to_go_out and not play.side_blocks(g.melds[side])

    def canasta_counts_as(self, rules: RuleSet, meld: Meld) -> str | None:
        kind = canasta_kind(meld)
        return None if kind == "wild" else ("clean" if meld.wilds == 0 else "dirty")

    def canastas_needed(self, rules: RuleSet) -> int | str:
        return rules.canastas_to_go_out

    # -- words, for the views' notes on the pack
    def frozen_note(self, rules: RuleSet) -> PileNote:
        return PileNote("open_pair")

    def unmelded_note(self) -> PileNote:
        return PileNote("open_pair")

    def open_note(self, rules: RuleSet) -> PileNote:
        return PileNote("open_pair")

    def blocked_notes(self, rules: RuleSet, fields: Mapping[str, Any], side: int, rank: int) -> list[PileNote]:
        return []

    note_texts = notes.NOTES

    def table_notes(self, rules: RuleSet, seen: TableSeen) -> list[TableNote]:
        return notes.table_notes(rules, seen)

    def rule_notes(self, rules: RuleSet) -> list[TableNote]:
        return notes.rule_notes(rules)

    def meld_note(self, rules: RuleSet, move: Move) -> TableNote | None:
        return notes.laid_note(rules, move)

    # -- the deal and the turn
    def deal(self, g: Game, deck: Sequence[Card] | None, cut: int | None, stream: DealRandom | None) -> None:
        play.deal(g, deck)

    def keeps_laid_out(self, g: Game, seat: int) -> bool:
        return american_rules(g.rules).three_for_straight == "keep_one" and not g.opened[g.side_of[seat]]

    def drawing(self, g: Game, seat: int, kind: int) -> int:
        play.forget_talon(g, seat)  # the seat's next turn: its talon is its hand now (M-O31)
        return american_rules(g.rules).stock_draw

    def cards_to_draw(self, g: Game, move: Move) -> int:
        if move.kind == DRAW:
            return american_rules(g.rules).stock_draw
        return super().cards_to_draw(g, move)

    def stock_out_ends_hand(self, g: Game) -> bool:
        return american_rules(g.rules).stock_out == "immediate"

    def draw_ran_out(self, g: Game) -> None:
        from canasta.engine import turns

        turns.end_hand(g, "a three was drawn as the last card of the stock")

    def takes_back(self, g: Game, seat: int, card: Card) -> bool:
        return play.takes_back(g, seat, card)

    def take_back(self, g: Game, seat: int, card: Card) -> None:
        play.take_back(g, seat, card)

    def check_discard(self, g: Game, seat: int, card: Card) -> None:
        if not g.hands[seat][card]:
            return  # a melded card taken back (takes_back said why it may be)
        if g.hand_sizes[seat] > 1:  # the last card: discard_out_error says it
            err = play.discard_error(g, seat, card)
            if err is not None:
                raise err

    def discarded(self, g: Game, seat: int) -> None:
        side = g.side_of[seat]
        if play.talon_due(g, side):
            play.give_talon(g, seat)

    # -- plans and their execution
    def plan_take(self, g: Game, move: Move) -> TakePlan:
        return play.plan_take(g, move)

    def plan_meld(self, g: Game, move: Move, final: bool = False) -> MeldPlan:
        return play.plan_meld(g, move, final)

    def unchecked_plan(self, g: Game, move: Move) -> MeldPlan | TakePlan:
        # the shared plan (each group keyed), but for a special hand, which lays every card held (C.13.1)
        if move.kind != TAKE and sum(len(group_cards(grp)) for grp in move.groups) == g.hand_sizes[g.turn]:
            return play.plan_meld(g, move)
        return super().unchecked_plan(g, move)

    def lay(self, g: Game, seat: int, plan: MeldPlan) -> None:
        play.lay(g, seat, plan)

    def take(self, g: Game, seat: int, plan: TakePlan) -> None:
        play.take(g, seat, plan)

    def group_keyer(self) -> Callable[[Group], int]:
        return play.group_key

    # -- going out
    def may_ask(self, g: Game) -> bool:
        return movegen.can_go_out(g)

    def can_go_out(self, g: Game, seat: int | None = None) -> bool:
        if seat is not None and seat != g.turn:
            return False
        return movegen.can_go_out(g)

    def discard_out_error(self, g: Game, seat: int, card: Card) -> IllegalMoveError | None:
        side = g.side_of[seat]
        if play.talon_due(g, side) and american_rules(g.rules).talon_holds:
            return play.discard_error(g, seat, card)  # the talon follows: not going out (M-O13)
        return (play.finish_error(g, seat, g.canasta_counts[side], play.side_blocks(g.melds[side]))
                or play.discard_error(g, seat, card))

    def before_going_out(self, g: Game, seat: int) -> None:
        return None

    def went_out_concealed(self, g: Game, seat: int) -> bool:
        p = part_of(g)
        return p.special_seat < 0 and not g.has_melded[seat] and not g.touched_old

    # -- the initial meld
    def opening_count(self, g: Game, move: Move, cards: list[Card]) -> int:
        return sum(CARD_VALUES[c] for c in cards)  # a pick's top card never counts (C.7.3)

    def exempt_from_minimum(self, g: Game, move: Move, cards: list[Card]) -> bool:
        return False

    # -- generation
    def options(self, g: Game) -> list[Option]:
        return movegen.options(g)

    def generator(self) -> Callable[[Game], list[Option]]:
        return movegen.options

    def build_groups(self, hand: list[int], spec: Sequence[Spec]) -> list[Group]:
        return openings.build(hand, spec)

    def gen_takes(self, g: Game) -> Iterator[Move]:
        return movegen.gen_takes(g)

    # -- scoring
    def score(self, g: Game) -> list[SideScore]:
        return score(g)


AMERICAN: RuleFamily = register_family(American())

__all__ = ["AMERICAN", "American", "dead_ranks"]
