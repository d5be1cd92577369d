"""The Modern American family (SPEC Part C) as a whole: registered and built on Classic, its
options and refusals tied to Part C's numbers, seeded hands played to the end with the engine's
invariants checked after every move, positions and views that round-trip, and the family's own
rules seen in play (threes, the talon, the empty tray, special hands, the score).  The rules case by
case are ``tests/test_american_conformance.py``."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from canasta import Game, RuleSet
from canasta.engine.errors import REFUSAL_FORMS
from canasta.engine.family import family_of
from canasta.engine.rules import FAMILY_OPTIONS, PRESETS
from canasta.families.american import American
from canasta.families.american.state import part_of
from canasta.families.classic import Classic
from canasta.tools.selfcheck import problems_in
from canasta.views.position import game_from_position, position_of
from canasta.views.seat import seat_view

ROOT = Path(__file__).resolve().parents[1]
PRESETS_AM = ("american-4p", "american-2p")


def part_c() -> str:
    text = (ROOT / "docs" / "rules" / "SPEC.md").read_text(encoding="utf-8")
    return text[text.index("## PART C:"):text.index("## PART D:")]


def test_the_family_is_registered_and_builds_on_classic() -> None:
    for name in PRESETS_AM:
        assert name in PRESETS
        rules = RuleSet.preset(name)
        assert rules.family == "american" and rules.hand_size == 13 and rules.target == 8500
        assert isinstance(family_of(rules), American)
    assert issubclass(American, Classic)
    assert RuleSet.preset("american-2p").players == 2


def test_every_option_of_part_c_is_registered_but_the_players() -> None:
    spec = set(re.findall(r"^\| (M-O\d+) \|", part_c(), flags=re.M))
    registered = {o.id for o in FAMILY_OPTIONS["american"]}
    assert spec - registered == {"M-O30"}, "M-O30 is the rule set's players (the two presets)"
    assert registered <= spec
    for o in FAMILY_OPTIONS["american"]:
        assert re.search(rf"^\* {re.escape(o.rule)} ", part_c(), flags=re.M), (o.id, o.rule)


@pytest.mark.parametrize("name", PRESETS_AM)
def test_every_alternative_of_part_c_is_played(name: str) -> None:
    assert "not played yet" not in part_c()
    for o in FAMILY_OPTIONS["american"]:
        for choice in o.choices:
            rules = RuleSet.preset(name, {o.id: choice})
            assert rules.get(o.field) == choice
            game = Game(rules, seed=3)
            assert problems_in(game) == [] and game.legal_moves


def test_every_refusal_of_the_family_cites_a_rule_of_part_c() -> None:
    rules = set(re.findall(r"^\* (C\.\d+\.\d+) ", part_c(), flags=re.M))
    own = [f for f in REFUSAL_FORMS.values() if f.rule.startswith("C.") and not f.rule.startswith("C-")]
    assert len(own) >= 40
    for form in own:
        assert form.rule in rules, (form.key, form.rule)


def play_hand(name: str, seed: int, check: bool = True) -> Game:
    game = Game(name, seed=seed, dealer=seed % RuleSet.preset(name).players)
    rng = random.Random(seed)
    for _ in range(3000):
        if game.is_over():
            break
        moves = list(game.legal_moves)
        assert moves, f"no legal move in {game!r}"
        game.push(moves[rng.randrange(len(moves))])
        if check:
            assert problems_in(game) == [], (seed, game.move_stack[-1], problems_in(game))
    assert game.is_over()
    return game


@pytest.mark.parametrize("name", PRESETS_AM)
def test_seeded_hands_end_with_every_invariant_held(name: str) -> None:
    for seed in range(6):
        game = play_hand(name, seed)
        result = game.result
        assert result is not None
        for score in result:
            assert score.total == sum(points for _, points in score.lines())


@pytest.mark.parametrize("name", PRESETS_AM)
def test_play_is_deterministic(name: str) -> None:
    a = play_hand(name, 3, check=False)
    b = play_hand(name, 3, check=False)
    assert [str(m) for m in a.move_stack] == [str(m) for m in b.move_stack]
    assert a.result == b.result


def test_positions_and_views_round_trip_in_play() -> None:
    game = Game("american-4p", seed=5)
    rng = random.Random(5)
    while not game.is_over():
        data = position_of(game)
        assert position_of(game_from_position(data)) == data
        for seat in range(game.players):
            view = seat_view(game, seat)
            assert sorted(view.hand) == game.hand(seat)
            assert list(view.part_value("talons")) == part_of(game).talons
        moves = list(game.legal_moves)
        game.push(moves[rng.randrange(len(moves))])


def test_no_hand_holds_a_three_once_its_turn_has_begun() -> None:
    """C.3.1: threes, red and black, are laid out and replaced in their holder's turn."""
    game = Game("american-4p", seed=2)
    rng = random.Random(2)
    while not game.is_over():
        if game.phase == 1:  # meld: the mover has drawn
            assert game.rank_counts[game.turn][1] == 0, game.hand(game.turn)
        moves = list(game.legal_moves)
        game.push(moves[rng.randrange(len(moves))])


def test_a_three_hand_match_plays_three_hands_at_rising_minimums() -> None:
    """M-O28 = three_hands through the Match: the minimum by the hand (C.7.1 does not apply), the
    target not ending it, the higher total winning after the third hand (M-O27 on a tie)."""
    from canasta.play.match import Match

    rules = RuleSet.preset("american-4p", {"M-O28": "three_hands", "M-O27": "draw"})
    match = Match(rules, seed=5)
    rng = random.Random(1)
    minimums = []
    while not match.over:
        game = match.next_hand()
        minimums.append((game.minimum(0), game.minimum(1)))
        view = seat_view(game, 0)  # what a seat's interface shows: the same minimums, not the score's
        assert (view.minimum(0), view.minimum(1)) == minimums[-1]
        while not game.is_over():
            game.play_unchecked(game.random_move(rng))
        match.record_hand()
    assert minimums == [(125, 125), (155, 155), (180, 180)]
    totals = match.totals
    assert match.winner == (-1 if totals[0] == totals[1] else totals.index(max(totals)))


def test_the_rules_page_of_a_three_hand_match_gives_the_minimum_by_the_hand() -> None:
    """The terminal's rules page says the three-hand match's minimums by the hand, not by the score."""
    from canasta.tui.render import rules_text

    text = rules_text(RuleSet.preset("american-4p", {"M-O28": "three_hands"})).plain
    assert "Opening minimum by hand: 125, 155, 180" in text, text
    assert "by score" not in text
