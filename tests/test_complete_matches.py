"""Every preset plays complete matches (to its target) with the basic bot in every
seat, with the invariants checked at the end of every hand.  (Uniformly random
players cannot finish most Italian matches: without canastas their red threes
count double negative and their totals drift below zero.)"""

from __future__ import annotations

import pytest

from canasta.bots import make_bot
from canasta.engine.rules import PRESETS, RuleSet
from canasta.play.match import Match
from canasta.tools.selfcheck import problems_in
from canasta.views.seat import seat_view


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_match_of_basic_bots_reaches_its_target(preset: str) -> None:
    rules = RuleSet.preset(preset)
    bots = [make_bot("basic", seed=s) for s in range(rules.players)]
    match = Match(rules, seed=12)
    while not match.over:
        game = match.next_hand()
        while not game.is_over():
            seat = game.to_move
            game.push(bots[seat].choose(seat_view(game, seat)))
        assert problems_in(game) == []
        match.record_hand()
        assert len(match.hands) < 200, "the match should end"
    assert match.winner is not None
    best = max(match.totals)
    assert best >= rules.target or match.winner == -1
    assert sum(h.scores[0].total for h in match.hands) == match.totals[0]
