"""Saved policies: the numpy network format, the policy bot (legal moves from a seat view, whole
hands), the evaluation loop."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="policies need numpy: pip install 'canasta[rl]'")

from canasta.engine.game import Game  # noqa: E402
from canasta.engine.rules import RuleSet  # noqa: E402
from canasta.rl.encoding import NUM_ACTIONS, Observer  # noqa: E402
from canasta.rl.evaluate import evaluate  # noqa: E402
from canasta.rl.policy import NumpyPolicy, PolicyBot  # noqa: E402
from canasta.views.seat import seat_view  # noqa: E402


def _random_policy(inputs: int, seed: int = 0) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    return NumpyPolicy([(rng.normal(size=(16, inputs)).astype(np.float32), rng.normal(size=16).astype(np.float32)),
                        (rng.normal(size=(NUM_ACTIONS, 16)).astype(np.float32),
                         rng.normal(size=NUM_ACTIONS).astype(np.float32))], rules="classic-4p")


def test_save_load_round_trip(tmp_path: Path) -> None:
    policy = _random_policy(354)
    path = tmp_path / "p.npz"
    policy.save(path)
    again = NumpyPolicy.load(path)
    obs = np.arange(354, dtype=np.float32) / 354
    assert np.array_equal(policy.logits(obs), again.logits(obs))
    assert again.rules == "classic-4p" and again.inputs == 354
    (tmp_path / "bad.npz").write_bytes(b"not a policy")
    with pytest.raises(ValueError):
        NumpyPolicy.load(tmp_path / "bad.npz")


def test_act_is_the_best_legal_action() -> None:
    policy = _random_policy(354, seed=3)
    obs = np.zeros(354, dtype=np.float32)
    logits = policy.logits(obs)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal = [0, 7, 500, 1744]
    mask[legal] = 1
    assert policy.act(obs, mask) == max(legal, key=lambda a: logits[a])
    with pytest.raises(ValueError):
        policy.act(obs, np.zeros(NUM_ACTIONS, dtype=np.int8))


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p", "classic-2p"])
def test_policy_bot_plays_whole_hands(preset: str) -> None:
    rules = RuleSet.preset(preset)
    bot = PolicyBot(_random_policy(Observer(rules).size, seed=1), seed=2)
    for seed in range(2):
        game = Game(rules, seed)
        moves = 0
        while not game.is_over():
            move = bot.choose(seat_view(game, game.to_move))
            assert game.why_illegal(move) is None
            game.push(move)
            moves += 1
        assert moves > 10


def test_policy_bot_refuses_another_size() -> None:
    bot = PolicyBot(_random_policy(100))
    with pytest.raises(ValueError, match="features"):
        bot.choose(seat_view(Game(RuleSet.preset("classic-4p"), 1), 1))


def test_evaluate_counts_hands() -> None:
    rng = random.Random(0)

    def uniform(obs: Any, mask: Any) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[rng.randrange(len(legal))])

    result = evaluate(uniform, "classic-4p", "basic", hands=6, seed=2)
    assert result["hands"] == 6
    assert result["won"] + result["lost"] + result["tied"] == 6
    assert result["won"] <= 3, "a random side should not beat basic bots often"
