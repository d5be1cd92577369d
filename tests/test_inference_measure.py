"""docs/strength/inference.py: how close the expert's sampled worlds come to the true hands.

Its invariants on a seeded hand or two, never its figures: shares are in [0, 1], a world holds
exactly each seat's hand size, and the share is taken against the true hands (a hand the viewer
knows whole, its own or one it saw picked up, scores 1.0; the true deal against itself scores 1.0).
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from types import ModuleType

import pytest

from canasta.bots import make_bot
from canasta.bots.base import world
from canasta.bots.expert import ExpertBot
from canasta.engine.game import Game
from canasta.engine.moves import DISCARD
from canasta.engine.rules import RuleSet
from canasta.views.seat import seat_view

SCRIPT = Path(__file__).resolve().parent.parent / "docs" / "strength" / "inference.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("strength_inference", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


measure_script = _load()


@pytest.mark.parametrize("rules", ["classic-4p", "italian-4p"])
def test_the_figures_are_shares_and_counts(rules: str) -> None:
    line = measure_script.measure(rules, hands=1, worlds=2, seed=3)
    assert line["decisions"] > 0
    assert 0 <= line["limits_wrong"] <= line["limits_read"] <= line["limit_checks"]
    assert 0 <= line["limit_checks_wrong"] <= line["limit_checks"]
    figures = line["figures"]
    assert "opponents/inference/whole" in figures and "partner/uniform/whole" in figures
    for key, fig in figures.items():
        assert fig["n"] > 0
        if key.endswith(("/whole", "/hidden")):
            assert 0.0 <= fig["mean"] <= 1.0, key
        else:  # natural cards of one rank held: at most the packs' count of it
            assert 0.0 <= fig["mean"] <= 8, key  # two packs
    # each decision's worlds count for every other seat, under both dealings alike
    for who in ("opponents", "partner"):
        assert figures[f"{who}/inference/whole"]["n"] == figures[f"{who}/uniform/whole"]["n"]
    assert figures["opponents/inference/whole"]["n"] == 2 * 2 * line["decisions"]


@pytest.mark.parametrize("rules", ["classic-4p", "italian-4p"])
def test_worlds_hold_every_hand_size_and_are_scored_against_the_true_hands(rules: str) -> None:
    ruleset = RuleSet.preset(rules)
    g = Game(ruleset, 7)
    players = [make_bot("advanced", seed=s) for s in range(ruleset.players)]
    experts = [ExpertBot(seed=s) for s in range(ruleset.players)]
    while not g.is_over():
        seat = g.to_move
        view = seat_view(g, seat)
        experts[seat].watch.observe(view)
        rng = random.Random()
        rng.setstate(experts[seat].rng.getstate())
        uniform = world(view, rng)
        w = experts[seat]._world(view)
        assert [sum(h) for h in w.hands] == [sum(h) for h in g.hands]
        assert len(w.stock) == len(g.stock)
        if not experts[seat].watch.limits:  # nothing to respect: the very same deal
            assert [list(h) for h in w.hands] == [list(h) for h in uniform.hands]
        got = measure_script.shares(view, g, w)
        assert got[seat] == (1.0, None)  # the viewer's own hand, known whole
        for s, (whole, hidden) in got.items():
            assert 0.0 <= whole <= 1.0
            assert hidden is None or 0.0 <= hidden <= 1.0
            if len(view.known[s]) == sum(g.hands[s]) and s != seat:
                assert (whole, hidden) == (1.0, None)
        for whole, hidden in measure_script.shares(view, g, g).values():
            assert whole == 1.0 and hidden in (1.0, None)
        move = players[seat].choose(view)
        if move.kind == DISCARD:
            experts[seat].watch.discarded(view, move.groups[0][0])
        g.play(move)
