"""The Modern American going-out search does bounded work, counted in nodes (never timed).

Two positions from the expert's strength run (``docs/strength.md``, "Modern American"): the
table position of its slowest decision (game 173 of
``docs/strength/american/arena-american-4p-expert-vs-advanced-1201.cgn.gz``, decision 59 of the
hand, 46 s then), and one of the sampled worlds that decision played forward, where a seat that
picked the pack holds 34 cards.  There the search, unpruned, visited its whole budget of nodes
(``SEARCH_BUDGET``, and as many moves again past it) and answered no; every node now first asks
the quick necessary condition, and the way out is found in a few dozen nodes."""

from __future__ import annotations

import json
from pathlib import Path

from canasta import Game
from canasta.bots import make_bot
from canasta.bots.heuristic import out_move
from canasta.families.american import movegen
from canasta.views.position import game_from_position
from canasta.views.seat import seat_view

DATA = Path(__file__).parent / "data"


def load(name: str) -> Game:
    return game_from_position(json.loads((DATA / name).read_text(encoding="utf-8")))


def test_the_going_out_search_finds_the_way_out_of_a_hand_of_thirty_four_cards_in_few_nodes() -> None:
    game = load("american-going-out-thirty-four-cards.json")
    seat = game.turn
    assert game.hand_sizes[seat] == 34
    before = movegen.searched[0]
    assert game.family.can_go_out(game)
    assert movegen.searched[0] - before <= 100  # 52 nodes; unpruned, all 4,000 and a "no"
    # the "yes" is true: the way out, meld by meld, ends the hand with this seat going out
    for _ in range(60):
        if game.is_over():
            break
        way = out_move(game, game.options())
        assert way is not None
        game.push(game.materialize(way))
    assert game.is_over() and game.went_out == seat


def test_the_experts_slowest_decision_of_the_strength_run_searches_little() -> None:
    game = load("american-expert-slow-decision.json")
    before = movegen.searched[0]
    move = make_bot("expert:i40", seed=1).choose(seat_view(game, game.to_move))
    assert game.is_legal(move)
    # 18,920 nodes over the 40 worlds' rollouts with this seed; 460,079 before the search was pruned
    assert movegen.searched[0] - before <= 40_000
