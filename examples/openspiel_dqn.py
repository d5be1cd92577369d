"""Canasta through OpenSpiel's own learning code: one PyTorch DQN agent per seat on ``python_canasta``.

OpenSpiel's ``rl_environment`` plays the game (it samples the deal at the chance nodes) and gives
each seat its information-state tensor and legal actions; ``open_spiel.python.pytorch.dqn`` learns
by independent Q-learning, every seat its own network.  Every so often the agents are measured
against uniformly random players: each seat in turn is a greedy agent, the others random, and the
mean hand reward (the hand score minus the other side's, in points) is printed per seat.

Needs the ``rl`` extra (open-spiel, and dm-tree, which OpenSpiel's DQN imports) and torch (the
``train`` extra)::

    pip install -e '.[rl,train]'
    python examples/openspiel_dqn.py --rules classic-2p --episodes 200 --eval-every 50
    python examples/openspiel_dqn.py --smoke            # seconds: the whole loop, what the tests run
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import random_agent
from open_spiel.python.pytorch import dqn

import canasta.rl.openspiel as cos  # registers python_canasta


def _agents(env: Any, hidden: Sequence[int], seed: int, warmup: int) -> list[Any]:
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    return [dqn.DQN(player_id=p, state_representation_size=size, num_actions=actions,
                    hidden_layers_sizes=list(hidden), batch_size=32, replay_buffer_capacity=20_000,
                    learning_rate=1e-4, optimizer_str="adam", loss_str="huber",
                    min_buffer_size_to_learn=warmup, learn_every=10, update_target_network_every=500,
                    epsilon_decay_duration=50_000, seed=seed + p)
            for p in range(env.num_players)]


def _play(env: Any, agents: Sequence[Any], learn: bool) -> list[float]:
    """One hand; the seats' returns.  Learning agents see the last time step too."""
    time_step = env.reset()
    while not time_step.last():
        seat = time_step.observations["current_player"]
        out = agents[seat].step(time_step, is_evaluation=not learn)
        time_step = env.step([out.action])
    if learn:
        for agent in agents:
            agent.step(time_step)
    return [float(r) for r in time_step.rewards]


def evaluate(env: Any, agents: Sequence[Any], hands: int, seed: int) -> list[float]:
    """Per seat, the mean reward of that seat's agent (greedy) against random players."""
    randoms = [random_agent.RandomAgent(player_id=p, num_actions=env.action_spec()["num_actions"])
               for p in range(env.num_players)]
    np.random.seed(seed)  # the random agents draw from numpy's global generator
    means = []
    for seat in range(env.num_players):
        table = list(randoms)
        table[seat] = agents[seat]
        means.append(float(np.mean([_play(env, table, learn=False)[seat] for _ in range(hands)])))
    return means


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rules", default="classic-2p", help="a rules preset (default classic-2p)")
    parser.add_argument("--episodes", type=int, default=200, help="training hands")
    parser.add_argument("--eval-every", type=int, default=50, help="measure after this many hands")
    parser.add_argument("--eval-hands", type=int, default=10, help="hands per seat in a measure")
    parser.add_argument("--hidden", default="128,128", help="hidden layer sizes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="two hands, a tiny network, one measure")
    args = parser.parse_args(argv)
    hidden = [int(x) for x in args.hidden.split(",")]
    warmup = 1000
    if args.smoke:
        args.episodes, args.eval_every, args.eval_hands, hidden, warmup = 2, 2, 1, [16], 64
    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": args.rules})
    np.random.seed(args.seed)  # the agents' exploration draws from numpy's global generator
    env = rl_environment.Environment(game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=args.seed))
    agents = _agents(env, hidden, args.seed, warmup)
    for episode in range(1, args.episodes + 1):
        _play(env, agents, learn=True)
        if episode % args.eval_every == 0:
            means = evaluate(env, agents, args.eval_hands, args.seed + episode)
            losses = [a.loss for a in agents]
            print(f"hands {episode}: mean reward per seat against random "
                  + " ".join(f"{m:+.0f}" for m in means)
                  + " | loss " + " ".join("-" if x is None else f"{float(x):.3g}" for x in losses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
