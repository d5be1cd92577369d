"""Everything of canasta.rl pickles (for subprocess vector environments, Ray workers,
checkpoints): a pickled table or environment, mid-hand, continues exactly as the original does,
and its observations stay those of the seat's view; OpenSpiel's own serialisation round trips."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

pytest.importorskip("numpy", reason="the environments need the rl extra: pip install 'canasta[rl]'")

import numpy as np

from canasta.rl.core import ActionTable
from canasta.rl.encoding import Observer
from canasta.views.seat import seat_view


def _check_view(t: ActionTable, seat: int, obs: np.ndarray) -> None:
    pending = t.pending if seat == t.to_move else ()
    assert np.array_equal(obs, t.observer.encode_view(seat_view(t.game, seat), pending))


def _walk(t: ActionTable, rng: np.random.Generator, steps: int) -> list[tuple[Any, ...]]:
    """Seeded random legal actions; what every step showed."""
    out: list[tuple[Any, ...]] = []
    for _ in range(steps):
        if t.over:
            out.append(("over", tuple(t.rewards())))
            break
        seat = t.to_move
        obs = t.observe(seat)
        _check_view(t, seat, obs)
        mask = t.mask()
        a = int(rng.choice(np.flatnonzero(mask)))
        move = t.step(a)
        out.append((seat, obs.tobytes(), mask.tobytes(), a, str(move)))
    return out


@pytest.mark.parametrize(("rules", "reward"), [("classic-4p", "hand"), ("italian-4p", "hand"),
                                               ("classic-2p", "match")])
def test_table_pickles_mid_hand_and_continues(rules: str, reward: str) -> None:
    t = ActionTable(rules, reward=reward)
    t.reset(seed=11)
    rng = np.random.default_rng(3)
    _walk(t, rng, 20)
    for _ in range(2000):  # stop inside a move of several actions
        starts = [a for a in t.legal_actions() if t.copy().step(a) is None]
        if starts:
            t.step(starts[0])
            break
        _walk(t, rng, 1)
    assert t.pending, "pickled with a sequence of actions under way"
    copy = pickle.loads(pickle.dumps(t))
    assert isinstance(copy.observer, Observer)
    assert copy.pending == t.pending
    state = rng.bit_generator.state
    ours = _walk(t, rng, 3000)
    rng.bit_generator.state = state
    theirs = _walk(copy, rng, 3000)
    assert ours == theirs
    assert ours[-1][0] == "over"
    # the unpickled table deals on from the same random sequence
    t.reset()
    copy.reset()
    assert t.game.hands == copy.game.hands


def test_observer_pickles() -> None:
    t = ActionTable("italian-4p")
    t.reset(seed=2)
    obs = t.observe(1)
    other = pickle.loads(pickle.dumps(t.observer))
    assert np.array_equal(other.encode(t.game, 1), obs)


@pytest.mark.parametrize("opponents", ["random", "basic", "advanced"])
def test_gymnasium_env_pickles_mid_episode(opponents: str) -> None:
    pytest.importorskip("gymnasium", reason="the Gymnasium environment needs the rl extra")
    from canasta.rl.gymnasium import CanastaEnv

    env = CanastaEnv("classic-4p", opponents=opponents)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(8):
        _obs, _r, term, _trunc, _info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert not term
    copy = pickle.loads(pickle.dumps(env))

    def run(e: CanastaEnv, r: np.random.Generator) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        while True:
            a = int(r.choice(np.flatnonzero(e.action_masks())))
            obs, reward, term, trunc, _info = e.step(a)
            out.append((a, obs.tobytes(), reward))
            if term or trunc:
                return out

    state = rng.bit_generator.state
    ours = run(env, rng)
    rng.bit_generator.state = state
    assert run(copy, rng) == ours
    assert pickle.loads(pickle.dumps(env)).reset(seed=9)[0].tobytes() == env.reset(seed=9)[0].tobytes()


def test_pettingzoo_env_pickles_mid_episode() -> None:
    pytest.importorskip("pettingzoo", reason="the PettingZoo environment needs the rl extra")
    from canasta.rl import pettingzoo as cpz

    env = cpz.env(rules="italian-4p")
    env.reset(seed=8)
    rng = np.random.default_rng(8)

    def run(e: Any, r: np.random.Generator, steps: int) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        for agent in e.agent_iter(steps):
            obs, reward, term, trunc, _info = e.last()
            a = None if term or trunc else int(r.choice(np.flatnonzero(obs["action_mask"])))
            out.append((agent, obs["observation"].tobytes(), reward, a))
            e.step(a)
        return out

    run(env, rng, 50)
    copy = pickle.loads(pickle.dumps(env))
    state = rng.bit_generator.state
    ours = run(env, rng, 5000)
    rng.bit_generator.state = state
    assert run(copy, rng, 5000) == ours
    assert ours[-1][2] != 0.0 or ours[-2][2] != 0.0, "played to the end of the hand"


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_openspiel_state_serialises_mid_hand(preset: str) -> None:
    """``serialize_game_and_state`` and pickle round trips of a mid-hand state continue as the
    original does (``random_sim_test(serialize=True)`` on every preset: test_rl_openspiel)."""
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install 'canasta[rl]'")
    import canasta.rl.openspiel as cos

    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    state = game.new_initial_state()
    rng = np.random.RandomState(4)
    while not state.is_terminal() and state.move_number() < game.rules.deck_size + 80:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    text = pyspiel.serialize_game_and_state(game, state)
    _game2, state2 = pyspiel.deserialize_game_and_state(text)
    pickled = pickle.loads(pickle.dumps(state))
    for other in (state2, pickled):
        assert str(other) == str(state)
        assert other.history() == state.history()
    states = [state, state2, pickled]
    while not state.is_terminal():
        for p in range(game.num_players()):
            strings = {s.information_state_string(p) for s in states}
            assert len(strings) == 1
            assert len({s.observation_string(p) for s in states}) == 1
        legal = state.legal_actions()
        assert state2.legal_actions() == legal == pickled.legal_actions()
        a = int(rng.choice(legal))
        for s in states:
            s.apply_action(a)
    assert state2.returns() == state.returns() == pickled.returns()
