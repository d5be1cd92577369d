"""Seeding: an unseeded reset draws fresh entropy (fresh environments deal different hands),
a seeded one repeats exactly, and so do the unseeded resets that follow it."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("numpy", reason="the environments need the rl extra: pip install 'canasta[rl]'")

from canasta.rl.core import ActionTable

RESETS = 4


def _hands(t: ActionTable) -> list[list[int]]:
    return [sorted(h) for h in t.game.hands] + [list(t.game.stock)]


def _table_deals(seed: int | None, rules: str = "classic-4p") -> list[list[list[int]]]:
    t = ActionTable(rules)
    out = []
    for k in range(RESETS):
        t.reset(seed if k == 0 else None)
        out.append(_hands(t))
    return out


@pytest.mark.parametrize("rules", ["classic-4p", "italian-4p"])
def test_table_unseeded_resets_differ_seeded_repeat(rules: str) -> None:
    a, b = _table_deals(None, rules), _table_deals(None, rules)
    # fresh entropy: no reset of one table deals what the same reset of the other deals (two
    # equal shuffles of 108 cards have a chance of about 1e-160)
    assert all(x != y for x, y in zip(a, b, strict=True))
    assert len({str(x) for x in a}) == RESETS
    assert _table_deals(12, rules) == _table_deals(12, rules)
    assert _table_deals(12, rules) != _table_deals(13, rules)


def _gym_deals(seed: int | None) -> list[Any]:
    from canasta.rl.gymnasium import CanastaEnv

    env = CanastaEnv("classic-4p", opponents="random")
    out = []
    for k in range(RESETS):
        obs, _info = env.reset(seed=seed if k == 0 else None)
        out.append((_hands(env.table), obs.tobytes()))
    return out


def test_gymnasium_unseeded_resets_differ_seeded_repeat() -> None:
    pytest.importorskip("gymnasium", reason="the Gymnasium environment needs the rl extra")
    a, b = _gym_deals(None), _gym_deals(None)
    assert all(x[0] != y[0] for x, y in zip(a, b, strict=True))
    assert _gym_deals(3) == _gym_deals(3)


def test_gymnasium_vector_env_unseeded_deals_differ() -> None:
    """The issue's case: an unseeded ``gym.make_vec`` dealt the same hand in every environment."""
    gym = pytest.importorskip("gymnasium", reason="the Gymnasium environment needs the rl extra")
    import numpy as np

    import canasta.rl.gymnasium  # noqa: F401 - registers the ids

    vec = gym.make_vec("canasta/Classic-v0", num_envs=3, vectorization_mode="sync")
    try:
        for _ in range(2):
            obs, _info = vec.reset()
            hands = obs[:, :15]  # the learning seat's hand, per card kind
            assert not np.array_equal(hands[0], hands[1]) or not np.array_equal(hands[1], hands[2])
            assert len({row.tobytes() for row in obs}) == 3
        seeded = vec.reset(seed=5)[0]
        assert np.array_equal(seeded, vec.reset(seed=5)[0])
    finally:
        vec.close()


def _pz_deals(seed: int | None) -> list[Any]:
    from canasta.rl import pettingzoo as cpz

    env = cpz.env(rules="italian-4p")
    out = []
    for k in range(RESETS):
        env.reset(seed=seed if k == 0 else None)
        out.append(_hands(env.unwrapped.table))
    return out


def test_pettingzoo_unseeded_resets_differ_seeded_repeat() -> None:
    pytest.importorskip("pettingzoo", reason="the PettingZoo environment needs the rl extra")
    a, b = _pz_deals(None), _pz_deals(None)
    assert all(x != y for x, y in zip(a, b, strict=True))
    assert _pz_deals(21) == _pz_deals(21)
