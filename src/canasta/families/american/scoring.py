"""Scoring a Modern American hand (SPEC C.14, C.13.3): the parts a side scores, and their sign,
by the number of its finished canastas.

A side's :class:`~canasta.engine.scoring.SideScore` keeps the shared lines (melded cards, canasta
bonuses, threes in the ``red_threes`` line, going out, cards in hand) and the family's own by name:
``unfinished_melds`` (C.14.1 b), ``aces_sevens_held`` (C.14.1 f) and ``special_hand`` (C.13.3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from canasta.engine.cards import ACE, CARD_RANK, IS_RED_THREE, SEVEN, Card
from canasta.engine.scoring import SideScore
from canasta.families.american import special
from canasta.families.american.melds import CARD_VALUES, canasta_bonus, canasta_kind, unfinished_penalty
from canasta.families.american.options import american_rules
from canasta.families.american.state import part_of

if TYPE_CHECKING:
    from canasta.engine.game import Game

#: threes of one colour: 1, 2, 3, 4 of them (C.14.1 c)
THREE_VALUES: Final = (0, 100, 300, 500, 1000)
#: a player holding three or more aces, or three or more sevens, at the end (C.14.1 f)
HELD_PENALTY: Final = 1500
GOING_OUT: Final = 100


def threes_value(threes: Sequence[Card]) -> int:
    """C.14.1 (c): the threes laid out by a side, each colour counted apart."""
    red = sum(1 for c in threes if IS_RED_THREE[c])
    black = len(threes) - red
    return _colour(red) + _colour(black)


def _colour(n: int) -> int:
    return THREE_VALUES[n] if n < len(THREE_VALUES) else THREE_VALUES[-1] + (n - len(THREE_VALUES) + 1) * 500


def held_penalty(cards: Sequence[Card]) -> int:
    """C.14.1 (f): one player's hand with three or more aces, or sevens (a positive number)."""
    aces = sum(1 for c in cards if CARD_RANK[c] == ACE)
    sevens = sum(1 for c in cards if CARD_RANK[c] == SEVEN)
    return HELD_PENALTY * ((aces >= 3) + (sevens >= 3))


def score(g: Game) -> list[SideScore]:
    """Per side (C.14.1; a special hand's side, C.13.3)."""
    rules = american_rules(g.rules)
    p = part_of(g)
    out: list[SideScore] = []
    for side in range(g.num_sides):
        seats = [s for s in range(g.players) if g.side_of[s] == side]
        if p.special_seat >= 0 and g.side_of[p.special_seat] == side:
            found = special.recognise(rules, special.rank_counts(p.special_cards))
            dream = found is not None and found[0] in special.WINS_THE_GAME
            out.append(SideScore(bonuses=(("special_hand", found[1] if found else 0),), wins_match=dream))
            continue
        melds = list(g.melds[side].values())
        kinds = [k for k in (canasta_kind(m) for m in melds) if k is not None]
        canastas = len(kinds)
        meld_points = sum(m.points for m in melds)
        bonuses = sum(canasta_bonus(m) for m in melds)
        threes = threes_value([c for s in seats for c in g.red3[s]])
        out_now = g.went_out >= 0 and g.side_of[g.went_out] == side
        going_out = 0
        if out_now and canastas:
            going_out = GOING_OUT + (rules.concealed_out_points if g.out_concealed else 0)
        hand_cards = [c for s in seats for c in g.hand(s)]
        if rules.unused_talon == "ignored":
            for c in p.talon_cards[side]:  # an unplayed talon is not counted (M-O31)
                hand_cards.remove(c)
        held = sum(held_penalty(g.hand(s)) for s in seats)
        unfinished = sum(unfinished_penalty(m, rules.four_joker_penalty) for m in melds)
        if canastas == 0:
            meld_line, bonus_line, threes_line = -meld_points, 0, -threes
        elif canastas == 1:
            meld_line, bonus_line, threes_line = meld_points, bonuses, 0
        else:
            meld_line, bonus_line, threes_line = meld_points, bonuses, threes
        own: list[tuple[str, int]] = []
        if unfinished:
            own.append(("unfinished_melds", -unfinished))
        if held:
            own.append(("aces_sevens_held", -held))
        out.append(SideScore(meld_points=meld_line, canasta_bonuses=bonus_line, red_threes=threes_line,
                             going_out=going_out, hand_penalty=-sum(CARD_VALUES[c] for c in hand_cards),
                             canastas=tuple(kinds), bonuses=tuple(own)))
    return out
