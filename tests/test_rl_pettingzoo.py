"""The PettingZoo AEC environment passes PettingZoo's own API and seed tests."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the PettingZoo environment needs the rl extra: pip install 'canasta[rl]'")

import numpy as np
from pettingzoo.test import api_test, seed_test

from canasta.engine.rules import PRESETS as ALL_PRESETS
from canasta.rl import pettingzoo as cpz

PRESETS = sorted(ALL_PRESETS)  # the framework's own checks on every preset


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("preset", PRESETS)
def test_api(preset: str) -> None:
    api_test(cpz.env(rules=preset), num_cycles=400)


@pytest.mark.parametrize("preset", PRESETS)
def test_seed(preset: str) -> None:
    seed_test(lambda: cpz.env(rules=preset), num_cycles=400)


def _play(env: cpz.CanastaAECEnv, seed: int) -> tuple[dict[str, float], int]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = {a: 0.0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter(100_000):
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        assert agent == cpz.agent_name(env.table.to_move)
        legal = np.flatnonzero(obs["action_mask"])
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(legal)))
        steps += 1
    return totals, steps


def test_hand_reward_is_the_score_difference() -> None:
    env = cpz.raw_env(rules="classic-4p")
    totals, steps = _play(env, 5)
    assert steps > 20
    result = env.table.game.result
    assert result is not None
    diff = result[0].total - result[1].total
    assert totals == {"seat_0": diff, "seat_1": -diff, "seat_2": diff, "seat_3": -diff}


def test_match_reward_is_the_outcome() -> None:
    env = cpz.raw_env(rules="classic-2p", reward="match", max_hands=3)
    totals, _ = _play(env, 2)
    match = env.table.match
    assert match is not None and 1 <= len(match.hands) <= 3
    expected = {"seat_0": 0.0, "seat_1": 0.0}
    if match.winner is not None and match.winner >= 0:
        expected = {f"seat_{s}": 1.0 if s == match.winner else -1.0 for s in range(2)}
    assert totals == expected
