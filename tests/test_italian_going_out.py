"""Italian: a team that has not opened may open and go out in the same turn (B.9,
B.13.1, B.13.2), and asking the partner (B.13.4, I-O36) works for it as for an
opened team (issue 35).  Also I-O3 ``never`` for a meld laid with a pozzo take.

The property test draws positions of unopened teams near going out
(:func:`canasta.tools.reference.opening_out_position`) under both I-O36 values and
compares the engine with the exhaustive reference walk (:func:`canasta.tools.reference.way_out`).
It is derandomized: a failure shows the same example on every run.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from canasta.engine.cards import IS_RED_THREE, NATURAL_RANKS, RANK_CARDS, THREE, card_str
from canasta.engine.errors import IllegalMoveError
from canasta.engine.game import Game
from canasta.engine.moves import ASK, DISCARD, TAKE, Move
from canasta.engine.rules import RuleSet
from canasta.engine.state import ASK_YES
from canasta.families.italian.options import italian_rules
from canasta.tools.reference import TooBig, generated_moves, opening_out_position, way_out
from canasta.views.position import game_from_position

ASKING = ("customary_optional", "required")
PRESETS = ("italian-4p", "italian-4p", "italian-6p-3x2", "italian-2p", "italian-3p")
#: options that bear on opening and going out in one turn (one at a time, or none)
EXTRAS: tuple[dict[str, Any], ...] = (
    {}, {}, {}, {"I-O22": "two_incl_one_clean"}, {"I-O22": "two_any"}, {"I-O23": "discard_required"},
    {"I-O23": "discard_optional"}, {"I-O38": False}, {"I-O14": "rgit"}, {"I-O14": "off"}, {"I-O7": "always"},
    {"I-O17": "going_out_3_to_6"}, {"I-O12": False}, {"I-O3": "never"}, {"I-O1": "max3"}, {"I-O2": True},
    {"I-O31": True},
)


def _rules(preset: str, extra: dict[str, Any], asking: str) -> RuleSet:
    return RuleSet.preset(preset, {**extra, "I-O36": asking})


def _error(g: Game, move: str) -> IllegalMoveError | None:
    return g.why_illegal(move)


@settings(derandomize=True, max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seed=st.integers(0, 10**6), preset=st.sampled_from(PRESETS), extra=st.sampled_from(EXTRAS))
def test_unopened_going_out_agrees_with_the_reference(seed: int, preset: str, extra: dict[str, Any]) -> None:
    """Whenever the reference finds a way to open and go out this turn, ``can_go_out``
    says so (and only then), the ask is legal where there is a partner, and under
    I-O36 ``required`` ask -> yes leads out through the generated moves; a refused
    ask never hides a way out (forcing the yes opens none)."""
    _agrees_with_the_reference(lambda rules: opening_out_position(rules, seed), seed, preset, extra)


def _agrees_with_the_reference(draw: Callable[[RuleSet], Game | None], seed: int, preset: str,
                               extra: dict[str, Any]) -> None:
    """The checks of the property tests for the position ``draw`` makes under each I-O36 value."""
    # the way out where asking is optional: with a yes, required play is the same
    free = draw(_rules(preset, extra, "customary_optional"))
    assume(free is not None)
    assert free is not None
    assert not free.opened[free.side_of[free.turn]]
    try:
        ref = way_out(free, limit=1500, ask=False)
    except TooBig:
        assume(False)
        return
    can = ref is not None
    event(f"a way out: {can}")
    for asking in ASKING:
        g = draw(_rules(preset, extra, asking))
        assert g is not None and g.hand(0) == free.hand(0)
        where = f"{preset} {extra} I-O36={asking} seed {seed}, hand {' '.join(card_str(c) for c in g.hand(0))}"
        partner = g.has_partner(g.turn)
        if asking == "customary_optional" or not partner:
            assert g.can_go_out() == can, f"{where}: can_go_out says {not can}, the reference {can}"
            if can:  # the generated moves lead out too (without asking)
                assert way_out(g, generated_moves, ask=False) is not None, f"{where}: no generated way out"
        else:
            assert not g.can_go_out(), f"{where}: going out before asking, where asking is required"
        if not partner:
            continue
        err = _error(g, "ask")
        assert (err is None) == can, f"{where}: the ask is {'refused' if err else 'legal'}, the reference says {can}"
        assert (Move(ASK) in list(g.legal_moves)) == can, f"{where}: ask listed wrongly"
        if err is not None:
            assert err.code == "CANNOT_GO_OUT"
            forced = g.copy()
            forced.ask = ASK_YES  # as if the refused ask had been made and answered yes
            assert way_out(forced, limit=1500) is None, f"{where}: a way out behind a refused ask"
            continue
        h = g.copy()
        h.push("ask")
        h.push("yes")
        assert h.can_go_out(), f"{where}: after a yes"
        path = way_out(h, generated_moves)
        assert path is not None, f"{where}: after a yes no generated move leads out (stuck)"
        h = g.copy()
        h.push("ask")
        h.push("no")
        assert not h.can_go_out()
        moves = list(h.legal_moves)
        assert any(m.kind == DISCARD for m in moves), f"{where}: after a no the player cannot play on"


#: options under which an opening that must be clean (B.9.2) can still go out in its turn: the
#: going-out requirements that two clean canastas meet (I-O22), and clean openings at every minimum (I-O7)
CLEAN_OUT: tuple[dict[str, Any], ...] = (
    {"I-O22": "two_incl_one_clean"}, {"I-O22": "two_any"}, {"I-O22": "two_incl_one_clean", "I-O7": "always"},
    {"I-O22": "two_any", "I-O7": "always", "I-O23": "discard_optional"}, {"I-O7": "always"}, {},
)


def clean_out_position(rules: RuleSet, seed: int) -> Game | None:
    """A team that has not opened, holding natural cards only: two or three ranks of
    five to nine cards and usually a loose card, at a team score whose opening must be
    clean (0, or any under I-O7 ``always``); many such hands open and close two clean
    canastas in one turn, many just miss."""
    rng = random.Random(seed)
    ranks = [x for x in NATURAL_RANKS if x != THREE]
    rng.shuffle(ranks)
    hand: list[str] = []
    for rank in ranks[:rng.choice((2, 2, 3))]:
        suits = [c for c in RANK_CARDS[rank] if not IS_RED_THREE[c]]
        hand.extend(card_str(suits[i % len(suits)]) for i in range(rng.choice((5, 6, 7, 7, 7, 8, 9))))
    if rng.random() < 0.75:
        hand.append(card_str(RANK_CARDS[ranks[3]][0]))
    n = rules.players
    slots = n if rules.cutthroat else len(rules.teams)
    scores = [rng.choice((0, 0, 3000, 6000)) if italian_rules(rules).clean_opening == "always" else 0
              for _ in range(slots)]
    return game_from_position({
        "rules": rules.to_dict(), "dealer": n - 1, "turn": 0, "phase": "meld", "turn_number": 9,
        "hands": [hand] + [[] for _ in range(n - 1)], "pile": [], "stock_seed": seed, "scores": scores,
    })


@settings(derandomize=True, max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seed=st.integers(0, 10**6), preset=st.sampled_from(PRESETS), extra=st.sampled_from(CLEAN_OUT))
def test_a_clean_opening_that_goes_out_agrees_with_the_reference(seed: int, preset: str,
                                                                 extra: dict[str, Any]) -> None:
    """The same checks where the opening must be clean and the hand has no wild card: a
    clean opening's groups are natural ones, and two clean canastas may be all going
    out needs (issue 49: the opening search found no clean group at all)."""
    _agrees_with_the_reference(lambda rules: clean_out_position(rules, seed), seed, preset, extra)


def test_the_clean_positions_hold_ways_out() -> None:
    """That property test is not vacuous either: under I-O22 two_any some of its
    positions go out and some do not."""
    rules = RuleSet.preset("italian-4p", {"I-O22": "two_any"})
    said = [g.can_go_out() for g in (clean_out_position(rules, s) for s in range(60)) if g is not None]
    assert sum(said) >= 8 and len(said) - sum(said) >= 8


def test_clean_canastas_at_fifty_open_and_go_out_in_one_turn() -> None:
    """Sevens and nines at a team score of 0 (minimum 50, clean), under I-O22 two_any:
    open with both canastas whole, discard the jack; asking is legal, and under
    I-O36 required ask -> yes lets the same meld go out."""
    hand = ["7S", "7H", "7D", "7C", "7S", "7H", "7D", "9S", "9H", "9D", "9C", "9S", "9H", "9D", "JC"]
    meld = "meld 7S 7H 7D 7C 7S 7H 7D + 9S 9H 9D 9C 9S 9H 9D"
    g = _position(hand=hand, score=0, options={"I-O22": "two_any"})
    assert g.minimum(0) == 50
    assert g.can_go_out() and g.why_illegal("ask") is None
    h = g.copy()
    h.push(meld)
    h.push("discard JC")
    assert h.went_out == 0
    g = _position("required", hand=hand, score=0, options={"I-O22": "two_any"})
    err = g.why_illegal(meld)
    assert err is not None and err.code == "MUST_ASK"
    g.push("ask")
    g.push("yes")
    assert g.can_go_out()
    g.push(meld)
    g.push("discard JC")
    assert g.went_out == 0


# ---------------------------------------------------------------------------- the three situations

#: seven kings (clean), six queens and a joker (dirty), and a five to discard: 185 points laid
OUT_HAND = ["KH", "KS", "KD", "KC", "KH", "KS", "KD", "QH", "QS", "QD", "QC", "QH", "QS", "JK", "5H"]
OUT_MELD = "meld KH KS KD KC KH KS KD + QH QS QD QC QH QS JK"


def _position(asking: str = "customary_optional", hand: list[str] | None = None, score: int = 3000,
              options: dict[str, Any] | None = None) -> Game:
    rules = RuleSet.preset("italian-4p", {**(options or {}), "I-O36": asking})
    return game_from_position({
        "rules": rules.to_dict(), "dealer": 3, "turn": 0, "phase": "meld", "stock_seed": 5,
        "hands": [hand or OUT_HAND, ["5C", "6S", "7C", "9D", "10C"], ["5S", "6H", "7D", "9S", "10H"],
                  ["4C", "6D", "8C", "9H", "JH"]],
        "scores": [score, 0],
    })


def test_default_ask_when_opening_and_going_out_in_one_turn() -> None:
    g = _position()
    assert not g.opened[0] and g.minimum(0) == 90
    assert g.can_go_out()
    assert Move(ASK) in list(g.legal_moves)
    # asking is optional: going out without asking is legal too
    plain = g.copy()
    plain.push(OUT_MELD)
    plain.push("discard 5H")
    assert plain.went_out == 0 and plain.result is not None and plain.result[0].going_out == 300
    g.push("ask")
    assert g.to_move == g.partner_of(0)
    g.push("yes")
    assert g.can_go_out()
    path = way_out(g, generated_moves)
    assert path is not None
    for move in path:
        g.push(move)
    assert g.went_out == 0 and g.end_reason == "went out"


def test_default_ask_refused_when_the_opening_minimum_is_out_of_reach() -> None:
    """The same cards at 12000 points: the minimum is 180 and the five is the
    discard, so 185 melded would do; without the joker's 50 they are 135: no way out."""
    hand = [c for c in OUT_HAND if c != "JK"] + ["QD"]
    g = _position(hand=hand, score=12000)
    assert g.minimum(0) == 180
    assert not g.can_go_out()
    err = g.why_illegal("ask")
    assert err is not None and err.code == "CANNOT_GO_OUT"


def test_required_ask_yes_then_open_and_go_out() -> None:
    g = _position("required")
    assert not g.can_go_out()  # not before asking (B.13.4, I-O36)
    err = g.why_illegal(OUT_MELD)
    assert err is not None and err.code == "MUST_ASK"
    assert Move(ASK) in list(g.legal_moves)
    g.push("ask")
    g.push("yes")
    assert g.can_go_out()
    assert g.why_illegal(OUT_MELD) is None
    g.push(OUT_MELD)
    assert g.opened[0]
    g.push("discard 5H")
    assert g.went_out == 0 and g.result is not None and g.result[0].going_out == 300


def test_required_ask_yes_then_the_generated_moves_lead_out() -> None:
    """After the yes the generating set holds an opening that keeps going out possible
    (every generated meld does), and the turn ends out."""
    g = _position("required")
    g.push("ask")
    g.push("yes")
    for _ in range(10):
        if g.is_over():
            break
        moves = list(g.legal_moves)
        assert moves, "stuck after a yes"
        g.push(max(moves, key=lambda m: sum(len(grp) for grp in m.groups)))
    assert g.went_out == 0


def test_required_ask_no_then_play_on() -> None:
    g = _position("required")
    g.push("ask")
    g.push("no")
    assert not g.can_go_out()
    err = g.why_illegal(OUT_MELD)
    assert err is not None and err.code == "PARTNER_SAID_NO"
    assert Move(ASK) not in list(g.legal_moves)
    # an opening that does not go out, then a discard: the turn passes
    assert g.why_illegal("meld KH KS KD KC KH KS KD + QH QS QD") is None
    g.push("meld KH KS KD KC KH KS KD + QH QS QD")
    assert g.opened[0] and not g.can_go_out()
    g.push("discard 5H")
    assert not g.is_over() and g.turn == 1


def test_required_ask_no_also_refuses_going_out_with_the_discard() -> None:
    g = _position("required")
    g.push("ask")
    g.push("no")
    g.push("meld KH KS KD KC KH KS KD + QH QS QD QC QH QS")  # two cards stay: the joker and the five
    err = g.why_illegal("meld Q:JK")  # closing the queens would leave the five to go out with
    assert err is not None and err.code == "PARTNER_SAID_NO"
    assert not g.can_go_out()
    g.push("discard JK")
    assert not g.is_over() and g.turn == 1


# ---------------------------------------------------------------------------- I-O3 never, hand and pozzo alike

KINGS = ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]


def _closed_kings(option: str) -> Game:
    rules = RuleSet.preset("italian-4p", {"I-O3": option})
    return game_from_position({
        "rules": rules.to_dict(), "dealer": 3, "turn": 0, "phase": "draw", "stock_seed": 3,
        "hands": [["KC", "KH", "KS", "9S", "9H", "9D", "5C", "6D"], [], [], []],
        "melds": [[["QH", "QS", "QD"]], []], "closed": [[KINGS], []],
        "opened": [True, False], "has_melded": [True, False, False, False],
        "pile": ["7S", "KD"],
    })


def test_io3_never_refuses_a_closed_rank_from_the_hand_and_with_the_pozzo() -> None:
    g = _closed_kings("never")
    err = g.why_illegal("take KC KH")
    assert err is not None and err.code == "RANK_CLOSED" and err.rule == "B.6.4"
    assert not any(m.kind == TAKE for m in g.legal_moves)
    g.push("draw")
    err = g.why_illegal("meld KC KH KS")
    assert err is not None and err.code == "RANK_CLOSED"


def test_io3_default_allows_a_new_meld_of_a_closed_rank_both_ways() -> None:
    g = _closed_kings("new_meld_after_close_one_open_per_rank")
    assert g.why_illegal("take KC KH") is None
    g.push("draw")
    assert g.why_illegal("meld KC KH KS") is None


def test_the_drawn_positions_hold_ways_out() -> None:
    """The property test is not vacuous: the positions it draws often can go out (and
    often just cannot)."""
    rules = RuleSet.preset("italian-4p")
    said = [g.can_go_out() for g in (opening_out_position(rules, s) for s in range(60)) if g is not None]
    assert sum(said) >= 8 and len(said) - sum(said) >= 8


@pytest.mark.parametrize(("options", "out"), [({"I-O38": False, "I-O14": "off"}, True),
                                               ({"I-O38": False}, False), ({}, False)])
def test_an_opening_that_needs_its_meld_of_deuces(options: dict[str, Any], out: bool) -> None:
    """At 120 the kings' worth of fours and the fives need three deuces laid as a meld
    in the opening.  With I-O14 off and I-O38 false that meld may stay open while the
    fives close dirty and the player goes out; with I-O14 (the default) the open
    deuce meld forbids closing the fives afterwards, and in the opening move itself
    (B.8.5); with I-O38 (the default) no one goes out past an open wild meld."""
    hand = ["4S", "4H", "4D", "4C", "4S", "4H", "4D", "5S", "5H", "5D", "5C", "5S", "5H",
            "2S", "2H", "2D", "2C", "9S"]
    g = _position(hand=hand, score=6000, options=options)
    assert g.minimum(0) == 120
    assert g.can_go_out() == out
    assert (way_out(g, limit=5000, ask=False) is not None) == out
    assert (g.why_illegal("ask") is None) == out
