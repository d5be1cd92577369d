"""Cut-throat (C-O10): once the lone hand is known, the two partners' melds of a rank become
one meld, kept whole even past the wild-card limits (docs/decisions.md).  A position of such
a table must read back; a meld over the limits that no two melds could have made is still
refused.  (Found by the long reference run of issue 49: a seeded playout's position did not
read back.)"""

from __future__ import annotations

import random

import pytest

from canasta.engine.exceptions import PositionError
from canasta.engine.game import Game
from canasta.engine.rules import RuleSet
from canasta.views.position import game_from_position, position_of


def test_every_position_of_a_cut_throat_hand_reads_back() -> None:
    rules = RuleSet.preset("classic-3p-cutthroat")
    over = 0
    for seed in (12, 35, 49):  # seeds whose random play combines melds past the limits
        rng = random.Random(seed)
        game = Game(rules, seed, dealer=seed % 3, scores=[0, 1600, 3100])
        while not game.is_over():
            moves = list(game.legal_moves)
            game.push(moves[rng.randrange(len(moves))])
            p = position_of(game)
            assert position_of(game_from_position(p)) == p, f"seed {seed}, after {game.move_stack[-1]}"
            over += any(m.wilds > 3 for side in game.melds for m in side.values())
    assert over, "no combined meld over the limits was met: the test no longer covers the case"


def test_a_meld_no_two_melds_could_make_is_refused() -> None:
    rules = RuleSet.preset("classic-3p-cutthroat")
    game = Game(rules, 1, dealer=0)
    p = position_of(game)
    p["melds"][0] = [["6H", "6S", "2C", "2D", "JK", "JK"]]  # two naturals, four wild cards
    with pytest.raises(PositionError, match="wild"):
        game_from_position(p)
