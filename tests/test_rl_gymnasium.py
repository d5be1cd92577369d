"""The Gymnasium environment passes Gymnasium's environment checker; ids are registered."""

from __future__ import annotations

import pytest

gym = pytest.importorskip("gymnasium", reason="the Gymnasium environment needs the rl extra: pip install 'canasta[rl]'")

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from canasta.engine.rules import PRESETS  # noqa: E402
from canasta.rl.gymnasium import CanastaEnv  # noqa: E402


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("env_id", ["canasta/Classic-v0", "canasta/Italian-v0", "canasta/American-v0"])
def test_check_env(env_id: str) -> None:
    env = gym.make(env_id, opponents="basic")
    check_env(env.unwrapped)
    env.close()


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_check_env_on_every_preset(preset: str) -> None:
    env = CanastaEnv(preset, opponents="basic")
    check_env(env)
    env.close()


def _episode(env: CanastaEnv, seed: int) -> tuple[list[int], float]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    while True:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        a = int(rng.choice(np.flatnonzero(mask)))
        actions.append(a)
        obs, reward, term, trunc, info = env.step(a)
        assert env.observation_space.contains(obs)
        if term or trunc:
            return actions, reward


@pytest.mark.parametrize("rules", ["classic-4p", "italian-4p", "american-4p"])
def test_same_seed_same_episode(rules: str) -> None:
    a = _episode(CanastaEnv(rules, opponents="random"), 4)
    b = _episode(CanastaEnv(rules, opponents="random"), 4)
    assert a == b
    assert _episode(CanastaEnv(rules, opponents="random"), 5) != a


def test_reward_is_the_learning_seats_score_difference() -> None:
    env = CanastaEnv("classic-4p", seat=1, opponents=["basic", "random", "basic"])
    _, reward = _episode(env, 8)
    result = env.table.game.result
    assert result is not None
    assert reward == result[1].total - result[0].total


def test_a_policy_can_play_the_other_seats() -> None:
    calls: list[int] = []

    def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
        calls.append(1)
        return int(np.flatnonzero(mask)[0])

    env = CanastaEnv("italian-4p", seat=None, opponents=first_legal)
    _episode(env, 3)
    assert calls and 0 <= env.seat < 4


def test_an_illegal_action_ends_the_episode_with_the_penalty() -> None:
    env = CanastaEnv("classic-4p", opponents="random", illegal_reward=-5.0)
    env.reset(seed=1)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, term, _, info = env.step(bad)
    assert term and reward == -5.0 and info["illegal_action"] == bad


def test_the_american_id_plays_modern_american_canasta() -> None:
    """``canasta/American-v0`` is american-4p: 13 cards dealt, one drawn, and a seeded episode
    played to its end under those rules (the learning seat's reward is its side's score difference)."""
    env = gym.make("canasta/American-v0", opponents="random")
    inner = env.unwrapped
    assert isinstance(inner, CanastaEnv)
    inner.reset(seed=11)
    game = inner.table.game
    assert game.rules.family == "american" and game.rules.name == "american-4p"
    assert game.rules.hand_size == 13 and game.rules.draw_count == 1  # C.1.4, C.4.2
    actions, reward = _episode(inner, 11)
    assert actions and inner.table.game.result is not None
    result = inner.table.game.result
    side = game.side_of[inner.seat]
    assert reward == result[side].total - result[1 - side].total
    env.close()
