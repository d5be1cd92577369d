"""Italian Canasta (SPEC Part B), as a rule family: :class:`Italian`.

The package holds everything of the family: its rules (:mod:`.rules`: the cut
and the pozzo, taking it, melds that close at seven, wild-card melds, the
opening, scoring), its groups and openings (:mod:`.openings`), its move
generation (:mod:`.movegen`) and its going-out search (:mod:`.going_out`).
Importing it registers the family (``RuleSet.family == "italian"``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final

from canasta.engine import turns
from canasta.engine.cards import CARD_RANK, IS_WILD, Card
from canasta.engine.errors import IllegalMoveError, refuse
from canasta.engine.fairdeal import DealRandom
from canasta.engine.family import FamilyWords, PileNote, PlayTuning, ReviewMarks, SearchTuning
from canasta.engine.game import Game, RuleFamily, register_family
from canasta.engine.melds import WILD_MELD, Meld
from canasta.engine.moves import OPEN, TAKE, Group, Move, group_cards
from canasta.engine.native import mypyc_attr
from canasta.engine.options import Option, Spec
from canasta.engine.plans import MeldPlan, TakePlan
from canasta.engine.rules import RuleSet
from canasta.engine.scoring import SideScore
from canasta.engine.state import ANSWER_PHASE, MELD_PHASE, DrawMode
from canasta.families.italian import movegen, options, refusals  # noqa: F401  (registers its refusal forms)
from canasta.families.italian import rules as play
from canasta.families.italian.going_out import italian_can_go_out
from canasta.families.italian.melds import CANASTA, it_canasta, it_group_error
from canasta.families.italian.openings import group_key, groups_from
from canasta.families.italian.options import italian_rules
from canasta.families.italian.state import ItalianState, part_of

#: the families this one builds on (it may import their packages; tests/test_layering.py reads it)
EXTENDS: Final[tuple[str, ...]] = ()


@mypyc_attr(allow_interpreted_subclasses=True)
class Italian(RuleFamily):
    """Italian Canasta (Part B), with its options I-O1 ..."""

    name = "italian"
    refusal_variant = "italian"
    pile_word = "pozzo"
    hand_word = "smazzata"
    canasta_size = CANASTA
    take_draws = 1
    closes_canastas = True
    has_wild_melds = True
    has_cut = True
    goes_out_in_one_move = False
    rule_options = options.ITALIAN_OPTIONS
    player_counts = options.PLAYERS
    start_preset = options.START
    rules_part = options.ItalianRules
    words = FamilyWords(canastas=("clean", "dirty"), opened="opened", minimum_shown="samples", pile_fanned=5, wilds="pinelle",
                        title="Italian Canasta")
    play = PlayTuning(keep_pair_for_pile=False, track_shedding=False, black_three_discard=5, meld_takes_pile=False,
                      one_and_wild_takes=False, frozen_need=3, classic_scale=False, ask_tells_out=True)
    # choices clearly behind dropped as in Classic, and 60 worlds: +4.4 points of hands over every
    # choice in all of 40 worlds in the variant runs of three presets, +1.3 [-0.8, +3.3] over the
    # seed-1201 deals of all six, at 0.9 to 1.0 of the CPU time (docs/strength.md)
    # and, in italian-4p (the preset with a shipped model), a rollout stopped before the hand ends
    # valued with the learned leaf value, its lead squashed at 2,800 points: 57.3% [51.7, 62.8] of
    # 300 whole matches against the search without it, and against advanced +7.9 points [+2.3,
    # +13.5] of matches on the same 164 (docs/strength.md, "The expert that learns: whole matches")
    search = SearchTuning(worlds=60, drop_z=1.5, scored=False, rivals="mean", learned=True, squash=2800.0)
    # a review's Italian values run larger (docs/review.md: measured over 290 decisions, two seeds)
    review_marks = ReviewMarks(inaccuracy=120.0, mistake=400.0, blunder=1000.0)

    def presets(self) -> dict[str, RuleSet]:
        return options.presets()

    def frozen_take_naturals(self, rules: RuleSet) -> int:
        return italian_rules(rules).frozen_pozzo_naturals

    def meld_shape_error(self, rules: RuleSet, meld: Meld) -> str | None:
        return it_group_error(italian_rules(rules), meld.naturals, meld.deuces, meld.jokers, meld.rank == WILD_MELD)

    def going_out_met(self, g: Game, side: int) -> bool:
        return play.requirement_met(g.rules, *play.closed_counts(g, side))

    def canasta_counts_as(self, rules: RuleSet, meld: Meld) -> str | None:
        return it_canasta(rules, meld)[1]

    def frozen_note(self, rules: RuleSet) -> PileNote:
        return PileNote("frozen_pozzo", n=italian_rules(rules).frozen_pozzo_naturals)

    def unmelded_note(self) -> PileNote:
        return PileNote("unopened")

    def open_note(self, rules: RuleSet) -> PileNote:
        return PileNote("open_pair" if italian_rules(rules).pozzo_take == "natural_pair_only" else "open")

    def blocked_notes(self, rules: RuleSet, fields: Mapping[str, Any], side: int, rank: int) -> list[PileNote]:
        house = italian_rules(rules)
        if house.pozzo_closed_rank_block == "off" or side < 0:
            return []
        own = house.pozzo_closed_rank_block == "own_closed"
        notes = []
        closed: Sequence[Sequence[Sequence[Card]]] = fields.get("closed", ())
        for other, canastas in enumerate(closed):
            if (other == side) == own and any(CARD_RANK[c[0]] == rank for c in canastas if c):
                notes.append(PileNote("closed_rank_own" if own else "closed_rank_other", rank=rank))
        return notes

    def card_values(self, rules: RuleSet) -> tuple[int, ...]:
        return play.card_values(rules)

    def deal(self, g: Game, deck: Sequence[Card] | None, cut: int | None, stream: DealRandom | None) -> None:
        play.deal(g, deck, cut, stream)

    def stock_out_ends_hand(self, g: Game) -> bool:
        return italian_rules(g.rules).empty_stock == "hand_ends"

    def draw_ran_out(self, g: Game) -> None:
        turns.end_hand(g, "the stock ran out")

    def has_open_move(self, rules: RuleSet) -> bool:
        return italian_rules(rules).opening_draws_one

    def must_ask_to_go_out(self, rules: RuleSet) -> bool:
        return italian_rules(rules).asking_partner == "required"

    def canastas_needed(self, rules: RuleSet) -> int | str:
        return italian_rules(rules).going_out_requirement

    def new_part(self, sides: int) -> ItalianState:
        return ItalianState(sides)

    def check_discard(self, g: Game, seat: int, card: Card) -> None:
        if part_of(g).opening_draw == DrawMode.ANNOUNCED and not g.opened[g.side_of[seat]]:
            raise refuse("MUST_OPEN")

    def drawing(self, g: Game, seat: int, kind: int) -> int:
        count = g.rules.draw_count
        if italian_rules(g.rules).opening_draws_one and not g.opened[g.side_of[seat]]:
            part_of(g).opening_draw = DrawMode.ANNOUNCED if kind == OPEN else DrawMode.UNANNOUNCED
            return 1 if kind == OPEN else count
        return count

    def plan_take(self, g: Game, move: Move) -> TakePlan:
        return play.plan_take(g, move)

    def plan_open(self, g: Game) -> None:
        play.plan_open(g)

    def plan_meld(self, g: Game, move: Move, final: bool = False) -> MeldPlan:
        return play.plan_meld(g, move)

    def lay(self, g: Game, seat: int, plan: MeldPlan) -> None:
        opening = not g.opened[g.side_of[seat]]
        play.lay_groups(g, seat, plan.groups)
        if opening and italian_rules(g.rules).opening_must_be_clean(g.minimum(seat)):
            part_of(g).clean_turn = True

    def take(self, g: Game, seat: int, plan: TakePlan) -> None:
        if play.take(g, seat, plan):
            g.phase = MELD_PHASE
        else:
            turns.end_hand(g, "the stock ran out")

    def group_keyer(self) -> Callable[[Group], int]:
        return group_key

    def may_ask(self, g: Game) -> bool:
        return italian_can_go_out(g, assume_yes=True)

    def can_go_out(self, g: Game, seat: int | None = None) -> bool:
        return g.phase in (MELD_PHASE, ANSWER_PHASE) and italian_can_go_out(g)

    def discard_out_error(self, g: Game, seat: int, card: Card) -> IllegalMoveError | None:
        return (play.finish_error(g, seat, (), WILD_MELD in g.melds[g.side_of[seat]])
                or play.final_discard_error(g.rules, card))

    def opening_count(self, g: Game, move: Move, cards: list[Card]) -> int:
        vals = g.card_value
        if move.kind != TAKE:
            return sum(vals[c] for c in cards)
        # B.9.6: the pair (three if frozen) that takes the pozzo and its top card do not count
        head = list(group_cards(move.groups[0])) if move.groups else []
        r = g.rules
        house = italian_rules(r)
        top_rank = CARD_RANK[g.pile[-1]] if g.pile else -1
        naturals = [c for c in head if not IS_WILD[c] and CARD_RANK[c] == top_rank]
        if g.pile_frozen or house.pozzo_take == "natural_pair_only":
            skip = house.frozen_pozzo_naturals if g.pile_frozen else 2
        else:
            skip = min(len(naturals), 2)
        counted = list(cards)
        for c in naturals[:skip]:
            counted.remove(c)
        return sum(vals[c] for c in counted)

    def options(self, g: Game) -> list[Option]:
        return movegen.options(g)

    def generator(self) -> Callable[[Game], list[Option]]:
        return movegen.options

    def build_groups(self, hand: list[int], spec: Sequence[Spec]) -> list[Group]:
        return groups_from(hand, spec)

    def gen_takes(self, g: Game) -> Iterator[Move]:
        return movegen.gen_takes(g)

    def score(self, g: Game) -> list[SideScore]:
        return play.score(g)


ITALIAN: RuleFamily = register_family(Italian())

__all__ = ["ITALIAN", "Italian"]
