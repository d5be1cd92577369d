"""The expert's match objective (``SearchTuning.objective="match"``): a rollout's position is
worth the chance it gives to win the match, from the match's totals and the hands left."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from canasta.bots import expert
from canasta.bots.base import Budget
from canasta.bots.expert import ExpertBot, match_chance
from canasta.bots.heuristic import AdvancedBot
from canasta.engine.family import SearchTuning
from canasta.engine.game import Game
from canasta.engine.rules import RuleSet
from canasta.views.seat import seat_view


def _hand(preset: str, scores: list[int], seed: int, decisions: int | None = None) -> Game:
    """A hand of ``preset`` after ``decisions`` moves of advanced players (None: to its end)."""
    g = Game(RuleSet.preset(preset), seed, scores=scores)
    bot = AdvancedBot(seed)
    played = 0
    while not g.is_over() and (decisions is None or played < decisions):
        g.play(bot.choose(seat_view(g, g.to_move)))
        played += 1
    return g


def _match(g: Game) -> SearchTuning:
    return replace(g.family.search, objective="match")


def test_the_two_sides_chances_add_up_to_one_and_follow_the_lead() -> None:
    for seed in (1, 2, 3):
        g = _hand("classic-4p", [1500, 1500], seed, decisions=30)
        mine, theirs = match_chance(g, 0, _match(g)), match_chance(g, 1, _match(g))
        assert mine + theirs == pytest.approx(1.0)
        assert match_chance(g, 2, _match(g)) == mine  # partners share one chance
        lead = expert._lead(g, 0, expert.standing(g))
        assert (mine > 0.5) == (lead > 0) and (mine < 0.5) == (lead < 0)
    chances = []
    for before in ([1000, 3000], [2000, 2000], [3000, 1000]):  # the same hand after other matches so far
        g.start_scores = before
        chances.append(match_chance(g, 0, _match(g)))
    assert chances[0] < 0.2 and chances[0] < chances[1] < chances[2] and chances[2] > 0.8


def test_the_same_lead_counts_for_more_near_the_target() -> None:
    """500 points ahead with many hands to go is less sure than 500 ahead a hand from the end."""
    g = _hand("classic-4p", [0, 0], 4, decisions=12)
    totals = expert.standing(g)
    g.start_scores = [1000 - int(totals[0]), 500 - int(totals[1])]  # the same hand, other totals before it
    early = match_chance(g, 0, _match(g))
    g.start_scores = [4200 - int(totals[0]), 3700 - int(totals[1])]
    late = match_chance(g, 0, _match(g))
    assert 0.5 < early < late


def test_a_hand_that_ends_the_match_is_won_or_lost() -> None:
    for seed in range(1, 6):
        g = _hand("classic-4p", [4990, 4990], seed)
        totals = [r.total + s for r, s in zip(g.result or [], g.start_scores, strict=True)]
        assert max(totals) >= 5000
        want = 1.0 if totals[0] > totals[1] else 0.0 if totals[0] < totals[1] else 0.5
        assert match_chance(g, 0, _match(g)) == want


def test_a_hand_that_leaves_the_match_open_is_never_sure() -> None:
    g = _hand("classic-4p", [0, 0], 7)
    assert g.is_over()
    assert 0.0 < match_chance(g, 0, _match(g)) < 1.0
    totals = [float(r.total) for r in g.result or []]
    scale = 0.16 * 5000 * math.sqrt(max(1.0, (5000 - max(totals)) / (0.16 * 5000)))
    lead = totals[0] - totals[1]
    assert match_chance(g, 0, _match(g)) == pytest.approx(0.5 * (1 + math.erf(lead / (scale * math.sqrt(2)))))


def test_the_match_objective_is_checked() -> None:
    with pytest.raises(ValueError, match="objective"):
        SearchTuning(worlds=8, drop_z=None, scored=True, objective="points")
    with pytest.raises(ValueError, match="pace"):
        SearchTuning(worlds=8, drop_z=None, scored=True, pace=0.0)


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p", "classic-3p-cutthroat"])
def test_an_expert_playing_for_the_match_plays_legal_moves_and_its_values_stay_bounded(preset: str) -> None:
    rules = RuleSet.preset(preset)
    g = Game(rules, 11, scores=[3000] * Game(rules, 11).score_slots)
    bot = ExpertBot(5, Budget(iterations=6))
    bot.tuning = _match(g)
    guide = AdvancedBot(5)
    for _ in range(60):
        if g.is_over():
            break
        view = seat_view(g, g.to_move)
        move = bot.choose(view) if g.to_move == 0 else guide.choose(view)
        assert g.why_illegal(move) is None
        g.play(move)
        value = bot._playout(g.copy(), 0)
        assert value is not None and abs(value) <= expert.SQUASH * (1 + expert.MATCH_TIEBREAK)
