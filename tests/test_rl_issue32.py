"""Issue 32, item 6: reproducible expert opponents, an illegal-action penalty worse than any hand,
no step after an illegal-action termination, PettingZoo's render_test."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="the RL environments need the rl extra")
pytest.importorskip("pettingzoo", reason="the RL environments need the rl extra")

from pettingzoo.test import render_test  # noqa: E402

from canasta.bots.expert import ExpertBot  # noqa: E402
from canasta.rl import pettingzoo as pz  # noqa: E402
from canasta.rl.core import ILLEGAL_HAND, ActionTable  # noqa: E402
from canasta.rl.gymnasium import CanastaEnv  # noqa: E402
from canasta.rl.opponents import opponent  # noqa: E402
from canasta.rl.pettingzoo import raw_env  # noqa: E402


def test_a_plain_expert_opponent_has_no_clock() -> None:
    bot = opponent("expert", seed=4)
    assert isinstance(bot, ExpertBot)
    assert bot.budget is not None and bot.budget.seconds is None and bot.family_worlds
    timed = opponent("expert:0.5", seed=4)
    assert timed.budget is not None and timed.budget.seconds == 0.5


@pytest.mark.slow
def test_expert_opponents_repeat_a_seeded_episode() -> None:
    def episode() -> list[int]:
        env = CanastaEnv("classic-2p", opponents="expert")
        obs, info = env.reset(seed=11)
        seen = [int(obs.sum())]
        for _ in range(3):
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, _, done, _, info = env.step(action)
            seen.append(int(obs.sum()))
            if done:
                break
        return seen

    assert episode() == episode()


def test_the_default_illegal_penalty_is_worse_than_any_hand() -> None:
    env = CanastaEnv("classic-4p", opponents="random")
    assert env.illegal_reward == ILLEGAL_HAND < -10_000
    assert CanastaEnv("classic-4p", reward="match").illegal_reward < -1
    assert CanastaEnv("classic-4p", reward_scale=0.001).illegal_reward == pytest.approx(ILLEGAL_HAND * 0.001)
    # the hand rewards of random play stay far above it
    table = ActionTable("classic-4p")
    rng = np.random.default_rng(0)
    for seed in range(20):
        table.reset(seed)
        while not table.over:
            legal = table.legal_actions()
            table.step(legal[int(rng.integers(len(legal)))])
        assert min(table.rewards()) > table.illegal_penalty() / 2
    assert raw_env("italian-4p").illegal_reward == ILLEGAL_HAND


def test_step_after_an_illegal_action_raises() -> None:
    env = CanastaEnv("classic-4p", opponents="random")
    _, info = env.reset(seed=1)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, term, _, info = env.step(bad)
    assert term and reward == ILLEGAL_HAND and info["illegal_action"] == bad
    assert not env.action_masks().any()
    good = int(np.flatnonzero(info["action_mask"])[0]) if info["action_mask"].any() else 0
    with pytest.raises(ValueError, match="over"):
        env.step(good)
    _, info = env.reset(seed=2)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))  # a reset starts afresh
    env.reset(seed=3)
    _, reward, term, _, info = env.step(10**6)  # out of range: the same penalty, no IndexError
    assert term and reward == ILLEGAL_HAND and info["illegal_action"] == 10**6


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_pettingzoo_render_test(preset: str, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda render_mode=None: pz.env(preset, render_mode=render_mode))
    assert "hand" in capsys.readouterr().out  # human mode printed
