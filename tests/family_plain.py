""""Plain Canasta", a rule family written from the engine core alone (no other family's code):
the proof that the contract of :class:`canasta.engine.family.RuleFamily` is whole.

Its rules, for two players, two packs with jokers, eleven cards each:

* P.1 The pile is never taken: a turn draws one card from the stock, may meld, and discards.
  There is no upcard.  Red threes are laid out and replaced, as in every canasta.
* P.2 A meld is three or more natural cards of one rank, fours to aces; wild cards and black
  threes are never melded (they can only be discarded).  A side has one meld of a rank and adds
  to it one card or more at a time.  There is no minimum for the first meld.
* P.3 A canasta is seven cards (the core's shape); going out needs one, and a meld or a
  discard that would empty the hand without it is refused.
* P.4 The score: the melded cards' values, 300 a canasta, 100 for going out, 100 a red three,
  less the cards left in hand.

Every hook the contract leaves abstract is written here; the family keeps the core's defaults
for the rest.  Importing this module registers nothing: :func:`register` does (the tests
register it while they run; ``canasta check-family plain --import family_plain`` calls it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from canasta.engine import turns
from canasta.engine.cards import (
    CARD_RANK,
    CARD_VALUE,
    IS_WILD,
    NATURAL_RANKS,
    NUM_RANKS,
    THREE,
    Card,
    make_deck,
)
from canasta.engine.errors import IllegalMoveError, refuse, register_refusals
from canasta.engine.fairdeal import DealRandom
from canasta.engine.family import FamilyWords, PileNote, PlayTuning, RuleFamily, SearchTuning
from canasta.engine.game import Game, register_family
from canasta.engine.melds import Meld
from canasta.engine.moves import DISCARD, DRAW, MELD, Group, Move, group_cards, make_group
from canasta.engine.options import Option, Spec
from canasta.engine.plans import GroupPlan, MeldPlan, TakePlan
from canasta.engine.rules import RuleSet
from canasta.engine.scoring import SideScore
from canasta.engine.state import DRAW_PHASE, MELD_PHASE

NAME = "plain"
PRESET = "plain-2p"
#: its own refusals (a family registers its forms; an interface translates them by code)
REFUSALS = (
    ("PLAIN_NO_TAKING", "P.1", "in this game the pile is never taken: draw from the stock"),
    ("PLAIN_NATURALS_ONLY", "P.2", "in this game a meld is natural cards, fours to aces, only: no wild card, no three"),
)


def _rank_of(group: Group) -> int:
    """The meld a group goes on: its first card's rank (a group here is natural cards only)."""
    cards = group_cards(group)
    return CARD_RANK[cards[0]] if cards else -1


class Plain(RuleFamily):
    """Plain Canasta: Classic's cards and canastas without the pile, natural melds only."""

    name = NAME
    rule_options = ()
    player_counts = (2,)
    start_preset = PRESET
    words = FamilyWords(canastas=("natural", "natural"), opened="melded", minimum_shown="bands", pile_fanned=3,
                        wilds="wild", title="Plain Canasta")
    play = PlayTuning(keep_pair_for_pile=False, track_shedding=False, black_three_discard=0, meld_takes_pile=False,
                      one_and_wild_takes=False, frozen_need=99, classic_scale=True)
    search = SearchTuning(worlds=8, drop_z=1.5, scored=True)

    def presets(self) -> dict[str, RuleSet]:
        return {PRESET: RuleSet(name=PRESET, family=NAME, players=2, hand_size=11, minimum_table=((0, 0),))}

    # -- the game's shape and its notes

    def card_values(self, rules: RuleSet) -> tuple[int, ...]:
        return CARD_VALUE

    def meld_shape_error(self, rules: RuleSet, meld: Meld) -> str | None:
        if meld.wilds:
            return "PLAIN_NATURALS_ONLY"
        return "MELD_TOO_SMALL" if meld.naturals < 3 else None

    def going_out_met(self, g: Game, side: int) -> bool:
        return g.side_canastas(side) >= 1

    def frozen_note(self, rules: RuleSet) -> PileNote:
        return PileNote("never_taken")

    def unmelded_note(self) -> PileNote:
        return PileNote("never_taken")

    def open_note(self, rules: RuleSet) -> PileNote:
        return PileNote("never_taken")

    def top_card_notes(self, rules: RuleSet, top: Card | None, fields: Mapping[str, Any], side: int) -> list[PileNote]:
        return []  # no top card blocks a pile that is never taken

    # -- the deal and the stock

    def deal(self, g: Game, deck: Sequence[Card] | None, cut: int | None, stream: DealRandom | None) -> None:
        cards = list(deck)[::-1] if deck is not None else self._shuffled(g)
        g.stock = cards
        for _ in range(g.rules.hand_size):
            for k in range(1, g.players + 1):
                turns.add_to_hand(g, (g.dealer + k) % g.players, g.stock.pop())
        for k in range(1, g.players + 1):
            turns.lay_out_red_threes(g, (g.dealer + k) % g.players)
        turns.begin_turn(g, (g.dealer + 1) % g.players, first=True)

    def _shuffled(self, g: Game) -> list[Card]:
        cards = make_deck(g.rules.packs)
        random.Random(g.seed).shuffle(cards)
        return cards

    def draw_ran_out(self, g: Game) -> None:
        turns.end_hand(g, "a red three was drawn as the last card of the stock")

    # -- plans and what they do

    def plan_take(self, g: Game, move: Move) -> TakePlan:
        raise refuse("PLAIN_NO_TAKING")

    def plan_open(self, g: Game) -> None:
        raise refuse("NO_ANNOUNCED_OPENING")

    def plan_meld(self, g: Game, move: Move, final: bool = False) -> MeldPlan:
        seat = g.turn
        side = g.side_of[seat]
        cards = [c for grp in move.groups for c in group_cards(grp)]
        turns.holds(g, seat, cards)
        groups: list[GroupPlan] = []
        grown = {r: m.naturals for r, m in g.melds[side].items()}
        canastas = g.canasta_counts[side]
        for grp in move.groups:
            laid = group_cards(grp)
            if not laid:
                raise refuse("MELD_TOO_SMALL")
            for c in laid:
                if IS_WILD[c] or CARD_RANK[c] == THREE:
                    raise refuse("PLAIN_NATURALS_ONLY")
            ranks = {CARD_RANK[c] for c in laid}
            if len(ranks) > 1:
                raise refuse("MIXED_RANKS", ranks=" ".join(str(r) for r in sorted(ranks)))
            r = ranks.pop()
            if any(r == seen for seen, _ in groups):
                raise refuse("ONE_MELD_PER_RANK", rank=r)
            before = grown.get(r, 0)
            if before + len(laid) < 3:
                raise refuse("MELD_TOO_SMALL")
            if before < g.canasta_size <= before + len(laid):
                canastas += 1
            grown[r] = before + len(laid)
            groups.append((r, laid))
        if g.hand_sizes[seat] - len(cards) <= 1 and canastas < 1:
            raise refuse("NEEDS_CANASTA")
        return MeldPlan(tuple(groups))

    def lay(self, g: Game, seat: int, plan: MeldPlan) -> None:
        side = g.side_of[seat]
        for r, cards in plan.groups:
            meld = g.melds[side].get(r)
            if meld is None:
                meld = g.melds[side][r] = Meld(r, seat, g.turn_no, False, g.canasta_size)  # nothing is concealed here
            elif meld.owner != seat or meld.turn != g.turn_no:
                g.touched_old = True
            was = meld.size
            for c in cards:
                turns.remove_card(g, seat, c)
                meld.add(c)
            if was < g.canasta_size <= meld.size:
                g.canasta_counts[side] += 1
        g.opened[side] = True
        g.melded_now = True

    def take(self, g: Game, seat: int, plan: TakePlan) -> None:
        raise AssertionError("the pile is never taken")  # plan_take refuses every take

    # -- going out

    def may_ask(self, g: Game) -> bool:
        return self.can_go_out(g)  # (two players: the game refuses to ask before this)

    def can_go_out(self, g: Game, seat: int | None = None) -> bool:
        seat = g.turn if seat is None else seat
        if g.phase != MELD_PHASE or seat != g.turn:
            return False
        side = g.side_of[seat]
        counts = g.rank_counts[seat]
        left = 0
        canastas = g.canasta_counts[side]
        for r in range(NUM_RANKS):
            n = counts[r]
            if not n:
                continue
            melded = g.melds[side].get(r)
            before = melded.size if melded is not None else 0
            if r not in NATURAL_RANKS or (melded is None and n < 3):
                left += n
            elif before < g.canasta_size <= before + n:
                canastas += 1
        return left <= 1 and canastas >= 1

    def discard_out_error(self, g: Game, seat: int, card: Card) -> IllegalMoveError | None:
        return None if self.going_out_met(g, g.side_of[seat]) else refuse("NEEDS_CANASTA")

    def opening_count(self, g: Game, move: Move, cards: list[Card]) -> int:
        return sum(g.card_value[c] for c in cards)

    # -- the generating set: draw; a new meld of three, one more card on a meld, or all of a rank; discard

    def options(self, g: Game) -> list[Option]:
        if g.phase == DRAW_PHASE:
            return [Move(DRAW)]
        if g.phase != MELD_PHASE:
            return []
        seat = g.turn
        side = g.side_of[seat]
        hand = g.hands[seat]
        firsts: dict[int, list[Card]] = {}
        for c, n in enumerate(hand):
            firsts.setdefault(CARD_RANK[c], []).extend([c] * n)
        out: list[Option] = []
        for r, cards in sorted(firsts.items()):
            if not cards or r not in NATURAL_RANKS:
                continue
            first = cards[:1] if r in g.melds[side] else cards[:3]
            # the smallest step, and every card of the rank at once (a canasta that goes out)
            for laid in (first, cards) if len(cards) > len(first) else (first,):
                move = Move(MELD, (make_group(tuple(laid)),))
                if len(laid) >= len(first) >= (1 if r in g.melds[side] else 3) and g.why_illegal(move) is None:
                    out.append(move)
        seen: set[int] = set()
        for c, n in enumerate(hand):
            if n and CARD_RANK[c] not in seen:
                seen.add(CARD_RANK[c])
                discard = Move(DISCARD, ((c,),))
                if g.why_illegal(discard) is None:
                    out.append(discard)
        return out

    def generator(self) -> Callable[[Game], list[Option]]:
        return self.options

    def build_groups(self, hand: list[int], spec: Sequence[Spec]) -> list[Group]:
        raise AssertionError("this family's options are moves, never specs")

    def group_keyer(self) -> Callable[[Group], int]:
        return _rank_of

    def gen_takes(self, g: Game) -> Iterator[Move]:
        return iter(())

    # -- the score

    def score(self, g: Game) -> list[SideScore]:
        out = []
        for side in range(g.num_sides):
            melds = g.melds[side].values()
            seats = [s for s in range(g.players) if g.side_of[s] == side]
            left = sum(g.card_value[c] for s in seats for c in g.hand(s))
            out.append(SideScore(
                meld_points=sum(m.points for m in melds),
                canasta_bonuses=300 * sum(1 for m in melds if m.is_canasta),
                red_threes=100 * sum(len(g.red3[s]) for s in seats),
                going_out=100 if g.went_out >= 0 and g.side_of[g.went_out] == side else 0,
                hand_penalty=-left,
                canastas=tuple("natural" for m in melds if m.is_canasta),
            ))
        return out


def register() -> Plain:
    """Make the family playable: the family, its preset and its refusals."""
    family = Plain()
    register_family(family)
    register_refusals(*REFUSALS)
    return family
