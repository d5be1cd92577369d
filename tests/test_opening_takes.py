"""Classic's takes that open a side's melding are checked from counts (``opening_take_ok``), not by
building each move and planning it, and offered as options, built only when chosen: the two must
agree, move for move, in every Classic preset."""

from __future__ import annotations

import random

import pytest

from canasta.bots.heuristic import AdvancedBot, HeuristicBot
from canasta.engine.game import Game
from canasta.engine.moves import TAKE, Move
from canasta.engine.native import compiled_status
from canasta.engine.rules import PRESETS, RuleSet
from canasta.engine.state import DRAW_PHASE
from canasta.families.classic import movegen
from canasta.tools.reference import take_position
from canasta.views.seat import seat_view

CLASSIC = sorted(name for name in PRESETS if name.startswith("classic"))


def built_and_planned(g: Game, monkeypatch: pytest.MonkeyPatch) -> set[Move]:
    """Every candidate take built into a move and kept only if the rules' own planning accepts it."""
    with monkeypatch.context() as m:
        m.setattr(movegen, "opening_take_ok", lambda *args: True)
        candidates = [g.materialize(opt) for opt in movegen.gen_takes(g)]
    return {move for move in candidates if movegen.take_ok(g, move)}


def unopened_draws(preset: str, seed: int, hands: int) -> list[Game]:
    """Positions of seeded play where a side that has not melded may take the pile."""
    rules = RuleSet.preset(preset)
    found = []
    rng = random.Random(seed)
    for deal in range(hands):
        g = Game(rules, seed * 100 + deal)
        bots = [(AdvancedBot if rng.random() < 0.5 else HeuristicBot)(rng.randrange(1 << 30))
                for _ in range(rules.players)]
        while not g.is_over():
            if g.phase == DRAW_PHASE and g.pile and not g.opened[g.side_of[g.turn]] and any(
                    True for _ in movegen.gen_takes(g)):
                found.append(g.copy())
            g.push(bots[g.turn].choose(seat_view(g, g.turn)))
    return found


def small_takes(preset: str, seeds: range) -> list[Game]:
    """The reference's small positions with a pile to take (few cards: a take may empty the hand)."""
    rules = RuleSet.preset(preset)
    found = []
    for seed in seeds:
        g = take_position(rules, seed)
        if g is not None and g.phase == DRAW_PHASE and not g.opened[g.side_of[g.turn]]:
            found.append(g)
    return found


@pytest.mark.skipif(compiled_status()["canasta.families.classic.movegen"],
                    reason="the check is replaced in the module's namespace, which a compiled module does not read")
@pytest.mark.parametrize("preset", CLASSIC)
def test_opening_takes_from_counts_are_the_planned_ones(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    positions = unopened_draws(preset, seed=54, hands=6) + small_takes(preset, range(300))
    takes = refused = lazy = 0
    for g in positions:
        options = list(movegen.gen_takes(g))
        lazy += sum(1 for opt in options if isinstance(opt, tuple))
        fast = [g.materialize(opt) for opt in options]
        assert all(move.kind == TAKE for move in fast)
        planned = built_and_planned(g, monkeypatch)
        assert len(fast) == len(set(fast))
        assert set(fast) == planned, f"{preset}: {g!r}: {sorted(map(str, set(fast) ^ planned))}"
        takes += len(fast)
        with monkeypatch.context() as m:
            m.setattr(movegen, "opening_take_ok", lambda *args: True)
            refused += sum(1 for _ in movegen.gen_takes(g)) - len(planned)
    # the positions hold takes that open, and candidates the rules refuse (a hand left too small)
    assert takes and refused and lazy
