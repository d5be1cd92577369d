"""A PettingZoo AEC environment: ``canasta.rl.pettingzoo.env(rules="classic-4p")``.

Agents are the seats, ``seat_0`` ... ``seat_N-1``; the agent to act is the seat to move (the
partner while "may I go out?" waits for an answer).  Each observation is a dict with
``observation`` (the seat's :class:`~canasta.rl.encoding.Observer` vector) and ``action_mask``
(int8, all zeros for a seat that is not to act).  An illegal action ends the episode with
``illegal_reward`` for the agent that played it (by default :meth:`ActionTable.illegal_penalty`, worse
than losing any hand, so an illegal move is never a way out of a bad hand).  Rewards come at the end of the episode (see
:mod:`canasta.rl.core`): ``reward="hand"`` (the default) is the hand's score difference,
``reward="match"`` the match's outcome.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from canasta.engine.rules import RuleSet
from canasta.rl.core import ActionTable
from canasta.rl.encoding import NUM_ACTIONS
from canasta.views.seat import seat_view


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


class CanastaAECEnv(AECEnv):  # type: ignore[misc]
    """Canasta as an AEC game: one agent per seat."""

    metadata: ClassVar[dict[str, Any]] = {"name": "canasta_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, rules: RuleSet | str = "classic-4p", reward: str = "hand", reward_scale: float = 1.0,
                 max_hands: int = 60, illegal_reward: float | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        self.table = ActionTable(rules, reward=reward, reward_scale=reward_scale, max_hands=max_hands)
        self.illegal_reward = self.table.illegal_penalty() if illegal_reward is None else illegal_reward
        self.rules = self.table.rules
        self.render_mode = render_mode
        self.possible_agents = [agent_name(s) for s in range(self.rules.players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        size = self.table.observer.size
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            })
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.table.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = agent_name(self.table.to_move)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.table.observation(self._seat[agent])

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """AECEnv's ``last``, with the observation asked of the table here (one call less a step)."""
        agent = self.agent_selection
        return (self.table.observation(self._seat[agent]) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: give an action index")
        t = self.table
        self._cumulative_rewards[agent] = 0.0
        if not t.try_step(int(action)):
            # PettingZoo's TerminateIllegalWrapper, built in: the episode ends, the agent pays
            for other in self.agents:
                self.terminations[other] = True
                self.rewards[other] = 0.0
                self._cumulative_rewards[other] = 0.0
                self.infos[other] = {"illegal_move": True}
            self.rewards[agent] = float(self.illegal_reward)
            self._accumulate_rewards()
            return
        if t.over:
            for a, r in zip(self.possible_agents, t.rewards(), strict=True):
                self.rewards[a] = r
                self.terminations[a] = True
            self._accumulate_rewards()
            # every agent sees the end once, starting with the one that acted
            self.agent_selection = agent
        else:
            self.agent_selection = self.possible_agents[t.game.to_move]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        t = self.table
        g = t.game
        lines = [f"{self.rules.name} hand {g.hand_number}, {self.agent_selection} to act"
                 + (f"; last move: {t.last_move}" if t.last_move is not None else "")]
        if t.over and g.result is not None:
            lines.append("scores: " + " ".join(str(s.total) for s in g.result))
        else:
            view = seat_view(g, g.to_move)
            lines.append("hand: " + " ".join(sorted(str(c) for c in view.hand)))
        text = "\n".join(lines)
        if self.render_mode == "human":  # PettingZoo's convention: human mode shows, returns None
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order enforcement, with ``last()``, ``step()``, ``agents``, ``agent_selection``
    and ``agent_iter()`` going straight to the environment (inherited, they read attributes
    through two ``__getattr__`` layers and a chain of calls, several times a step); the checks
    and errors are PettingZoo's."""

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self.env.agents
        return agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        selection: str = self.env.agent_selection
        return selection

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("last cannot be called before reset")
        result: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result

    def step(self, action: int | None) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)


class _AgentIterable(AECOrderEnforcingIterable):  # type: ignore[misc]
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):  # type: ignore[misc]
    """PettingZoo's iterator over the agent to act, reading the wrapped environment directly."""

    def __next__(self) -> str:
        wrapper = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        agent: str = env.agent_selection
        return agent


def raw_env(rules: RuleSet | str = "classic-4p", **kwargs: Any) -> CanastaAECEnv:
    return CanastaAECEnv(rules, **kwargs)


def env(rules: RuleSet | str = "classic-4p", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's order enforcement.  An illegal or out-of-range action
    ends the episode with ``illegal_reward`` (by default worse than any hand) for the agent that played it and
    ``info["illegal_move"]`` (what PettingZoo's ``TerminateIllegalWrapper`` does, built in: that
    wrapper would compute every observation twice)."""
    return _OrderEnforcing(raw_env(rules, **kwargs))
