"""Property tests against the exhaustive reference (canasta.tools.reference), over every
preset and every option alternative, seeded:

* the generating set is complete and sound: every end-of-turn state that some
  sequence of ``push``-accepted moves reaches (modulo suits and the order of meld
  steps) is reached through ``legal_moves``, and every generated move is accepted;
* the going-out decision is exact: ``can_go_out`` agrees with the reference on
  positions near going out;
* positions derive like play: a position with its derived fields left out reads
  back to the same full state and the same legal moves.

A longer run of the first two is ``python -m canasta.tools.soak --hands 0 --reference N``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from canasta.engine.game import Game
from canasta.engine.moves import Move
from canasta.engine.rules import PRESETS, RuleSet
from canasta.families.italian.going_out import italian_can_go_out
from canasta.tools.reference import (
    WENT_OUT_AT,
    TooBig,
    compare,
    describe_difference,
    going_out_position,
    outcomes,
    reference_moves,
    small_position,
    state_key,
    take_position,
)
from canasta.views.position import derived_fields, game_from_position, position_of

SKIP = {"C-O10", "C-O11", "I-O20", "I-O21"}  # player-count options: covered by their presets


def _configs() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in sorted(PRESETS)]
    for base in ("classic-4p", "italian-4p"):
        for o in RuleSet.preset(base).options:
            out += [(base, {o.id: v}) for v in o.choices[1:] if o.id not in SKIP]
    return out


CONFIGS = _configs()
SEEDS_PER_CONFIG = 4  # x 2 kinds of position x every configuration; the soak runs more
IDS = [f"{p}{''.join(f'-{k}={v}' for k, v in o.items())}" for p, o in CONFIGS]


def test_every_option_alternative_is_covered() -> None:
    covered = {k for _, o in CONFIGS for k in o}
    for base in ("classic-4p", "italian-4p"):
        for o in RuleSet.preset(base).options:
            if len(o.choices) > 1 and o.id not in SKIP:
                assert o.id in covered


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "options"), CONFIGS, ids=IDS)
def test_generating_set_is_complete_and_sound(preset: str, options: dict[str, Any]) -> None:
    rules = RuleSet.preset(preset, options)
    compared = 0
    for seed in range(SEEDS_PER_CONFIG):
        for make in (small_position, going_out_position, take_position):
            game = make(rules, 7919 * seed + 11)
            if game is None:
                continue
            try:
                only_ref, only_gen = compare(game, limit=600)
            except TooBig:
                continue
            compared += 1
            assert not only_ref, (f"{make.__name__}({preset} {options}, seed {7919 * seed + 11}): the reference "
                                  f"reaches {describe_difference(game, next(iter(only_ref)))}, legal_moves never")
            assert not only_gen, "the reference enumerator missed an outcome the generator reaches"
    assert compared >= 2


def test_italian_pozzo_opening_with_a_further_natural_is_generated() -> None:
    """The known gap: taking the pozzo with a natural pair and a further natural of
    the same rank in the same meld (it counts towards the opening, B.9.6)."""
    game = game_from_position({
        "rules": "italian-4p", "dealer": 3, "turn": 0, "phase": "draw",
        "hands": [["10S", "10S", "10H", "10D", "KS", "KH", "KD"], [], [], []],
        "pile": ["4S", "10C"], "stock_seed": 1,
    })
    # the pair and the top card do not count; the two further tens (20) and the kings (30) make 50
    move = Move.parse("take 10S 10H 10D 10S + KS KH KD")
    assert game.why_illegal("take 10S 10H + KS KH KD") is not None
    assert game.why_illegal("take 10S 10H 10D + KS KH KD") is not None
    assert game.why_illegal(move) is None
    assert move in list(game.legal_moves)


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "options"), CONFIGS, ids=IDS)
def test_going_out_decision_matches_the_reference(preset: str, options: dict[str, Any]) -> None:
    rules = RuleSet.preset(preset, options)
    checked = 0
    for seed in range(SEEDS_PER_CONFIG + 3):
        game = going_out_position(rules, 104729 * seed + 3)
        if game is None:
            continue
        try:
            ends = outcomes(game, reference_moves, 600)
        except TooBig:
            continue
        seat = game.turn
        can = any(k[WENT_OUT_AT] == seat for k in ends)
        said = italian_can_go_out(game, assume_yes=True) if rules.family == "italian" else game.can_go_out()
        assert said == can, f"{preset} {options} seed {104729 * seed + 3}: can_go_out says {said}"
        checked += 1
    assert checked >= 2


def _full_state(game: Game) -> tuple[object, ...]:
    return (position_of(game), state_key(game), [k[:] for k in game.known])


@pytest.mark.parametrize(("preset", "options"), CONFIGS, ids=IDS)
def test_positions_derive_like_play(preset: str, options: dict[str, Any]) -> None:
    rules = RuleSet.preset(preset, options)
    derived = [f for f in derived_fields(rules)
               if not (f == "pile_frozen" and rules.has_option("pozzo_cards") and (
                   rules.get("pozzo_cards") == "face_up" or rules.get("pozzo_taking") == "top_card_only"))]
    for seed in (5, 6):
        rng = random.Random(seed)
        game = Game(rules, seed, dealer=seed % rules.players)
        step = 0
        while True:
            if step % 3 == 0 or game.is_over():
                p = position_of(game)
                for f in derived:
                    p.pop(f, None)
                back = game_from_position(p)
                assert _full_state(back) == _full_state(game), f"{preset} {options} seed {seed}, move {step}"
                assert [str(m) for m in back.legal_moves] == [str(m) for m in game.legal_moves]
            if game.is_over():
                break
            moves = list(game.legal_moves)
            game.push(moves[rng.randrange(len(moves))])
            step += 1


@pytest.mark.parametrize(("covered", "c_o2", "c_o13"), [
    (c, b, r) for c in (True, False) for b in (False, True) for r in (False, True)])
def test_upcard_options_freeze_as_spec_a8_says(covered: bool, c_o2: bool, c_o13: bool) -> None:
    """A.3.3 / A.8 with C-O2, C-O3, C-O13: each turned card freezes the pile exactly
    when it is a wild card, a black three under C-O2 (covered or not) or a red three
    under C-O13; a black three is covered only under C-O3."""
    rules = RuleSet.preset("classic-4p", {"C-O3": covered, "C-O2": c_o2, "C-O13": c_o13})
    from canasta.engine.cards import make_deck, parse_card

    for turned in (["3S"], ["3H"], ["2C"], ["JK", "3C"], ["3D", "3S"]):
        deck = make_deck(2)
        first = [parse_card(c) for c in turned] + [parse_card("9H")]
        rest = list(deck)
        for c in first:
            rest.remove(c)
        order = rest[:44] + first + rest[44:]  # 44 dealt cards, then the upcards (top first)
        game = Game(rules, 0, dealer=3, deck=order)
        pile = game.pile
        blacks = any(c in ("3S", "3C") for c in turned)
        reds = any(c in ("3H", "3D") for c in turned)
        wild = any(c in ("2C", "JK") for c in turned)
        if blacks and not covered and turned[0] in ("3S", "3C"):
            assert len(pile) == 1  # left on top (C-O3 false)
        expect = wild or (blacks and c_o2) or (reds and c_o13)
        assert game.pile_frozen == expect, (turned, covered, c_o2, c_o13)
