"""Classic Canasta (SPEC Part A), as a rule family: :class:`Classic`.

The package holds everything of the family: its rules (:mod:`.rules`: the deal,
taking the pile, meld plans and laying, cut-throat sides, scoring), its move
generation (:mod:`.movegen`) and going out (:mod:`.going_out`).  Importing it
registers the family (``RuleSet.family == "classic"``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Final

from canasta.engine import turns
from canasta.engine.cards import CARD_VALUE, THREE, Card
from canasta.engine.errors import IllegalMoveError, refuse
from canasta.engine.fairdeal import DealRandom
from canasta.engine.family import FamilyWords, PileNote, PlayTuning, SearchTuning
from canasta.engine.game import Game, RuleFamily, register_family
from canasta.engine.melds import Meld, check_meld_shape
from canasta.engine.moves import MELD, TAKE, Group, Move, group_cards
from canasta.engine.native import mypyc_attr
from canasta.engine.options import Option, Spec
from canasta.engine.plans import MeldPlan, TakePlan
from canasta.engine.rules import RuleSet
from canasta.engine.scoring import SideScore
from canasta.engine.state import DRAW_PHASE, FINAL_PHASE
from canasta.families.classic import movegen, options
from canasta.families.classic import rules as classic_rules
from canasta.families.classic.going_out import classic_plan, qualifies_concealed

#: the families this one builds on (it may import their packages; tests/test_layering.py reads it)
EXTENDS: Final[tuple[str, ...]] = ()


@mypyc_attr(allow_interpreted_subclasses=True)
class Classic(RuleFamily):
    """Classic Canasta (Part A), with its options C-O1 ... (cut-throat, 2 and 6 players)."""

    name = "classic"
    pile_word = "pile"
    take_draws = 0
    rule_options = options.CLASSIC_OPTIONS
    player_counts = options.PLAYERS
    start_preset = options.START
    words = FamilyWords(canastas=("natural", "mixed"), opened="melded", minimum_shown="bands", pile_fanned=3, wilds="wild",
                        title="Classic Canasta")
    play = PlayTuning(keep_pair_for_pile=True, track_shedding=True, black_three_discard=20, meld_takes_pile=True,
                      one_and_wild_takes=True, frozen_need=2, classic_scale=True)
    #: playing for the match, not the hand: 56.0% of 300 whole classic-4p matches against the
    #: hand-playing expert; and a rollout cut short valued with the preset's learned leaf value
    #: (canasta.bots.value; shipped for classic-4p, the other presets play as before): 56.7% of
    #: 300 against the match's expert without it (docs/strength.md, "The expert that learns:
    #: whole matches")
    search = SearchTuning(worlds=90, drop_z=1.5, scored=True, objective="match", learned=True)

    def presets(self) -> dict[str, RuleSet]:
        return options.presets()

    def card_values(self, rules: RuleSet) -> tuple[int, ...]:
        return CARD_VALUE

    def meld_shape_error(self, rules: RuleSet, meld: Meld) -> str | None:
        return check_meld_shape(rules, meld.naturals, meld.wilds)

    def going_out_met(self, g: Game, side: int) -> bool:
        return g.side_canastas(side) >= g.rules.canastas_to_go_out

    def frozen_note(self, rules: RuleSet) -> PileNote:
        return PileNote("frozen")

    def unmelded_note(self) -> PileNote:
        return PileNote("unmelded")

    def open_note(self, rules: RuleSet) -> PileNote:
        return PileNote("open")

    def deal(self, g: Game, deck: Sequence[Card] | None, cut: int | None, stream: DealRandom | None) -> None:
        classic_rules.deal(g, deck)

    def check_cut(self, cut: int | None) -> None:
        if cut is not None:
            raise ValueError("cut applies to Italian Canasta only (B.3.1); a Classic deck is dealt as given")

    def draw_ran_out(self, g: Game) -> None:
        if g.rules.red_three_last_card_may_meld:
            g.phase = FINAL_PHASE
        else:
            turns.end_hand(g, "a red three was drawn as the last card of the stock")

    def plan_take(self, g: Game, move: Move) -> TakePlan:
        return classic_rules.plan_take(g, move)

    def plan_open(self, g: Game) -> None:
        raise refuse("NO_ANNOUNCED_OPENING")

    def plan_meld(self, g: Game, move: Move, final: bool = False) -> MeldPlan:
        return classic_rules.plan_meld(g, move, final)

    def lay(self, g: Game, seat: int, plan: MeldPlan) -> None:
        classic_rules.lay_groups(g, seat, plan.groups)

    def take(self, g: Game, seat: int, plan: TakePlan) -> None:
        classic_rules.take(g, seat, plan)

    def group_keyer(self) -> Callable[[Group], int]:
        return movegen.group_rank

    def may_ask(self, g: Game) -> bool:
        return classic_plan(g) is not None

    def can_go_out(self, g: Game, seat: int | None = None) -> bool:
        if g.phase == DRAW_PHASE and (seat is None or seat == g.turn):
            # before drawing, only taking the pile is a sure step: a take after which the turn
            # goes out (a take below the minimum is legal only so, A.7.7)
            return any(self._out_after_take(g, g.materialize(take)) for take in movegen.gen_takes(g))
        return classic_plan(g, seat) is not None

    def _out_after_take(self, g: Game, take: Move) -> bool:
        h = g.copy()
        h.push(take)
        return h.went_out == g.turn or classic_plan(h) is not None

    def discard_out_error(self, g: Game, seat: int, card: Card) -> IllegalMoveError | None:
        return classic_rules.finish_error(g, seat, g.canasta_counts[g.side_of[seat]])

    def before_going_out(self, g: Game, seat: int) -> None:
        if g.rules.cutthroat and g.lone_seat < 0:
            classic_rules.form_cutthroat_sides(g, seat)  # RG3: going out first makes the lone hand too

    def went_out_concealed(self, g: Game, seat: int) -> bool:
        return qualifies_concealed(g, seat) and any(
            m.owner == seat and m.turn == g.turn_no and m.is_canasta and m.rank != THREE
            for m in g.melds[g.side_of[seat]].values()
        )

    def opening_count(self, g: Game, move: Move, cards: list[Card]) -> int:
        vals = g.card_value
        if move.kind == TAKE:
            return sum(vals[c] for c in cards) + (vals[g.pile[-1]] if g.pile else 0)
        return sum(vals[c] for c in cards)

    def exempt_from_minimum(self, g: Game, move: Move, cards: list[Card]) -> bool:
        seat = g.turn
        if move.kind == TAKE:  # a take below the minimum is legal only as the start of a concealed going out
            return self.opening_count(g, move, cards) < g.minimum(seat) and g.why_illegal(move) is None
        return (move.kind == MELD and g.rules.concealed_out_exempt_from_minimum
                and g.hand_sizes[seat] - len(cards) <= 1 and g.phase != FINAL_PHASE and qualifies_concealed(g, seat)
                and any(len(group_cards(grp)) >= g.canasta_size for grp in move.groups))

    def options(self, g: Game) -> list[Option]:
        return movegen.options(g)

    def generator(self) -> Callable[[Game], list[Option]]:
        return movegen.options

    def build_groups(self, hand: list[int], spec: Sequence[Spec]) -> list[Group]:
        return movegen.groups_from(hand, list(spec))

    def gen_takes(self, g: Game) -> Iterator[Option]:
        return movegen.gen_takes(g)

    def score(self, g: Game) -> list[SideScore]:
        return classic_rules.score(g)


CLASSIC: RuleFamily = register_family(Classic())

__all__ = ["CLASSIC", "Classic"]
