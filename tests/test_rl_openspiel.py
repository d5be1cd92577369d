"""The OpenSpiel game passes pyspiel's random simulation test for every preset; resampling keeps
a seat's information state; an ISMCTS bot plays whole hands through it."""

from __future__ import annotations

from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel game needs the rl extra: pip install 'canasta[rl]'")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import canasta.rl.openspiel as cos  # noqa: E402
from canasta.rules import PRESETS  # noqa: E402


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_sim(preset: str) -> None:
    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    sims = 2 if preset in ("classic-4p", "italian-4p") else 1
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)


def _deal(state: Any, rng: np.random.RandomState) -> None:
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        actions, probs = zip(*outcomes, strict=True)
        assert abs(sum(probs) - 1.0) < 1e-9
        state.apply_action(int(rng.choice(actions, p=probs)))


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_resampling_keeps_the_information_state(preset: str) -> None:
    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    rng = np.random.RandomState(3)
    state = game.new_initial_state()
    _deal(state, rng)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for step in range(120):
        if state.is_terminal():
            break
        if step % 10 == 0:
            for p in range(game.num_players()):
                other = state.resample_from_infostate(p, sampler)
                assert other.information_state_string(p) == state.information_state_string(p)
                assert other.observation_string(p) == state.observation_string(p)
                assert np.array_equal(other.observation_tensor(p), state.observation_tensor(p))
                if p == state.current_player():
                    assert other.legal_actions() == state.legal_actions()
                q = (p + 1) % game.num_players()
                changed += other.observation_string(q) != state.observation_string(q)
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert changed > 0, "resampled worlds deal the unseen cards anew"


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_ismcts_plays_whole_hands(preset: str) -> None:
    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(2))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(3))
    for _ in range(2):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                _deal(state, rng)
            elif state.current_player() == 0:
                action = bot.step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
                decisions += 1
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        returns = state.returns()
        assert decisions > 5
        assert abs(sum(returns)) < 1e-6
        assert returns[0] == returns[2] == -returns[1]
        assert state.move_number() <= game.max_game_length()
