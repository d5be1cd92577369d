"""Matches: hands dealt in turn until a side reaches the target (SPEC A.1.3, A.15)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings

from canasta.engine.game import Game
from canasta.engine.rules import PRESETS, RuleSet
from canasta.engine.scoring import match_winner
from canasta.play.match import Match, hand_seed
from canasta.views.position import game_from_position, position_of
from conftest import MAX_MOVES, SEEDS

# the Classic presets (SPEC Part A); other families are out of scope here
PRESET_NAMES = sorted(n for n, r in PRESETS.items() if r.family == "classic")
MAX_HANDS = 400


def _play_out(game: Game, rng: random.Random) -> None:
    for _ in range(MAX_MOVES):
        if game.is_over():
            return
        moves = list(game.legal_moves)
        game.push(moves[rng.randrange(len(moves))])
    raise AssertionError("a random hand did not end")


def _play_match(match: Match, rng: random.Random) -> list[list[int]]:
    """Play to the end, checking every hand; returns the totals after each hand."""
    rules = match.rules
    n = rules.players
    expected = list(match.totals)
    history: list[list[int]] = []
    assert match.first_dealer is not None
    for k in range(1, MAX_HANDS + 1):
        before = list(match.totals)
        game = match.next_hand()
        # A.1.3: the deal passes to the left (clockwise) after each hand
        assert game.dealer == (match.first_dealer + k - 1) % n
        assert game.hand_number == k
        assert game.to_move == (game.dealer + 1) % n, "the player on the dealer's left plays first"
        assert position_of(game)["scores"] == before, "minimum counts use the scores before the hand"
        _play_out(game, rng)
        record = match.record_hand()
        assert record.hand_number == k and record.dealer == game.dealer and record.seed == game.seed
        result = game.result
        assert result is not None
        assert len(result) == len(expected)
        expected = [t + s.total for t, s in zip(expected, result, strict=True)]
        assert match.totals == expected, "totals are the sum of the hand results"
        assert len(match.hands) == k
        history.append(list(match.totals))
        if match.over:
            return history
        assert match_winner(rules, match.totals) is None
    raise AssertionError(f"no winner after {MAX_HANDS} hands")


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=3, derandomize=True, deadline=None)
@given(seed=SEEDS)
def test_random_match_reaches_a_winner(preset: str, seed: int) -> None:
    rules = RuleSet.preset(preset)
    match = Match(rules, seed=seed)
    assert match.totals == [0] * (rules.players if rules.cutthroat else len(rules.teams))
    history = _play_match(match, random.Random(seed))
    winner = match.winner
    assert winner is not None and winner >= 0
    final = history[-1]
    assert final[winner] >= rules.target
    assert all(final[winner] > t for i, t in enumerate(final) if i != winner), "the higher total wins"
    for totals in history[:-1]:  # the match did not stop early, nor run on
        best = max(totals)
        assert best < rules.target or totals.count(best) > 1
    assert sum(len(r.scores) for r in match.hands) == len(history) * len(final)
    sums = [sum(r.scores[i].total for r in match.hands) for i in range(len(final))]
    assert sums == final
    with pytest.raises(ValueError):
        match.next_hand()


def test_low_target_match_with_overrides() -> None:
    rules = RuleSet.preset("classic-4p", {"target": 500})
    match = Match(rules, seed=3, first_dealer=2)
    history = _play_match(match, random.Random(3))
    assert match.winner is not None and history[-1][match.winner] >= 500


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_dealer_rotates_clockwise_from_the_first_dealer(preset: str) -> None:
    rules = RuleSet.preset(preset)
    n = rules.players
    for first in range(n):
        match = Match(rules, seed=9, first_dealer=first)
        assert [match.dealer_of(k) for k in range(1, 2 * n + 2)] == [
            (first + k) % n for k in range(2 * n + 1)]


def test_first_dealer_is_seeded() -> None:
    rules = RuleSet.preset("classic-4p")
    firsts = {Match(rules, seed=s).first_dealer for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert Match(rules, seed=17).first_dealer == Match(rules, seed=17).first_dealer


def test_matches_are_reproducible() -> None:
    rules = RuleSet.preset("classic-3p")
    a = Match(rules, seed=21)
    b = Match(rules, seed=21)
    ha = _play_match(a, random.Random(4))
    hb = _play_match(b, random.Random(4))
    assert ha == hb
    assert [r.seed for r in a.hands] == [hand_seed(21, k) for k in range(1, len(a.hands) + 1)]
    assert len({r.seed for r in a.hands}) == len(a.hands)


def test_hand_seed_is_stable() -> None:
    assert hand_seed(1, 1) == hand_seed(1, 1)
    assert hand_seed(1, 1) != hand_seed(1, 2) != hand_seed(2, 1)
    assert 0 <= hand_seed(123, 4) < 2**64


def test_cannot_deal_before_the_hand_is_over() -> None:
    match = Match(RuleSet.preset("classic-4p"), seed=1)
    with pytest.raises(ValueError):
        match.record_hand()
    match.next_hand()
    with pytest.raises(ValueError):
        match.next_hand()
    with pytest.raises(ValueError):
        match.record_hand()


def test_cutthroat_totals_are_per_player() -> None:
    rules = RuleSet.preset("classic-3p-cutthroat")
    match = Match(rules, seed=5)
    assert len(match.totals) == 3
    _play_match(match, random.Random(5))
    assert match.winner in (0, 1, 2)


# -- ties (C-O9) ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("totals", "default", "draw"),
    [
        ([0, 0], None, None),
        ([4995, 4990], None, None),
        ([5000, 4995], 0, 0),
        ([4995, 5000], 1, 1),
        ([5200, 5300], 1, 1),  # both over: the higher total wins (A.15.1)
        ([5000, 5000], None, -1),  # exact tie at the target (C-O9)
        ([7000, 7000], None, -1),
        ([-200, 5005], 1, 1),
        ([6000, 6000, 7000], 2, 2),  # a tie below the top does not matter
        ([7000, 7000, 6000], None, -1),
        ([4990, 4990, 4990], None, None),
    ],
)
def test_match_winner_and_ties(totals: list[int], default: int | None, draw: int | None) -> None:
    assert match_winner(RuleSet.preset("classic-4p"), totals) == default
    assert match_winner(RuleSet.preset("classic-4p", {"C-O9": "draw"}), totals) == draw


def test_match_winner_uses_the_rules_target() -> None:
    assert match_winner(RuleSet.preset("classic-6p"), [9995, 5000]) is None  # A.18.4: 10000
    assert match_winner(RuleSet.preset("classic-6p"), [10000, 5000]) == 0
    assert match_winner(RuleSet.preset("classic-3p-cutthroat"), [7495, 0, 0]) is None
    assert match_winner(RuleSet.preset("classic-3p-cutthroat"), [7500, 0, 0]) == 0


def _finished_hand(melds: list[list[list[str]]]) -> Game:
    """A hand over with no cards in hand: each side scores its meld cards."""
    data: dict[str, Any] = {"rules": "classic-4p", "phase": "over", "hand_number": 1,
                            "melds": melds, "end_reason": "test"}
    game = game_from_position(data)
    assert game.is_over()
    return game


def _record(match: Match, game: Game) -> None:
    match.game = game
    match.record_hand()


def test_tie_at_target_plays_another_hand() -> None:
    rules = RuleSet.preset("classic-4p")
    match = Match(rules, seed=2, totals=[4980, 4980])
    _record(match, _finished_hand([[["KH", "KS", "KD"]], [["KC", "KH", "KS"]]]))
    assert match.totals == [5010, 5010]
    assert match.winner is None and not match.over
    game = match.next_hand()  # C-O9 default: play another hand
    assert game.hand_number == 2
    assert position_of(game)["scores"] == [5010, 5010]


def test_tie_at_target_can_be_a_draw() -> None:
    rules = RuleSet.preset("classic-4p", {"C-O9": "draw"})
    match = Match(rules, seed=2, totals=[4980, 4980])
    _record(match, _finished_hand([[["KH", "KS", "KD"]], [["KC", "KH", "KS"]]]))
    assert match.winner == -1 and match.over
    with pytest.raises(ValueError):
        match.next_hand()


def test_higher_total_wins_even_if_behind_before_the_hand() -> None:
    rules = RuleSet.preset("classic-4p")
    match = Match(rules, seed=2, totals=[4980, 4995])
    _record(match, _finished_hand([[["KH", "KS", "KD"]], [["4C", "4H", "4S"]]]))
    assert match.totals == [5010, 5010]
    assert match.winner is None
    match = Match(rules, seed=2, totals=[4985, 4990])
    _record(match, _finished_hand([[["KH", "KS", "KD"]], [["4C", "4H", "4S"]]]))
    assert match.totals == [5015, 5005]
    assert match.winner == 0
