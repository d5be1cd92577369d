"""A Gymnasium environment: one learning seat, the other seats played by bots or a policy.

Registered as ``canasta/Classic-v0`` (classic-4p), ``canasta/Italian-v0`` (italian-4p) and
``canasta/American-v0`` (american-4p, Modern American Canasta) when this module is imported::

    import gymnasium as gym
    import canasta.rl.gymnasium  # registers the ids
    env = gym.make("canasta/Classic-v0", opponents="basic")

``gym.make("canasta.rl.gymnasium:canasta/Italian-v0")`` imports the module itself.  Any preset
or :class:`~canasta.engine.rules.RuleSet` works through ``rules=``.  The observation is the learning
seat's :class:`~canasta.rl.encoding.Observer` vector; the legal actions are in
``info["action_mask"]`` and :meth:`CanastaEnv.action_masks` (what sb3-contrib's MaskablePPO
reads).  The reward comes at the end (see :mod:`canasta.rl.core`); an illegal action ends the
episode with ``illegal_reward`` (-1 by default) and ``info["illegal_action"]``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Final

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from canasta.bots.base import Bot
from canasta.engine.rules import RuleSet
from canasta.rl.core import ActionTable
from canasta.rl.encoding import NUM_ACTIONS
from canasta.rl.opponents import opponent
from canasta.views.seat import seat_view

OBS_BOUND = 1e4
"""Every feature lies well within +-OBS_BOUND (counts of cards, scores in thousands)."""
Policy = Callable[[np.ndarray, np.ndarray], int]
"""A policy for the other seats: (observation, int8 mask) -> action index."""
Player = str | Policy


class CanastaEnv(gym.Env[np.ndarray, np.int64]):
    """Canasta from one seat's chair."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 - gymnasium declares it so

    def __init__(self, rules: RuleSet | str = "classic-4p", seat: int | None = 0,
                 opponents: Player | Sequence[Player] = "random", reward: str = "hand",
                 reward_scale: float = 1.0, max_hands: int = 60, illegal_reward: float | None = None,
                 render_mode: str | None = None) -> None:
        self.table = ActionTable(rules, reward=reward, reward_scale=reward_scale, max_hands=max_hands)
        self.illegal_reward = self.table.illegal_penalty() if illegal_reward is None else illegal_reward
        self._ended = False  # set by an illegal action: the episode is over though the hand is not
        self.rules = self.table.rules
        n = self.rules.players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be from 0 to {n - 1} (or None for a random seat)")
        self.fixed_seat = seat
        self.seat = seat if seat is not None else 0
        if isinstance(opponents, str) or callable(opponents):
            players: list[Player] = [opponents] * (n - 1)
        else:
            players = list(opponents)
            if len(players) != n - 1:
                raise ValueError(f"give one player for each of the {n - 1} other seats")
        self.players = players
        self.bots: dict[int, Bot] = {}
        self.render_mode = render_mode
        self.observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, (self.table.observer.size,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._rng = random.Random()  # fresh entropy until reset(seed=...)

    def _others(self) -> list[int]:
        n = self.rules.players
        return [(self.seat + k) % n for k in range(1, n)]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        while True:  # a hand that ends before the learning seat acts (very rare) is dealt again
            self.table.reset(self._rng.getrandbits(63))
            if self.fixed_seat is None:
                self.seat = self._rng.randrange(self.rules.players)
            for bot in self.bots.values():
                bot.close()
            self.bots = {}
            for s, player in zip(self._others(), self.players, strict=True):
                if isinstance(player, str):
                    self.bots[s] = opponent(player, seed=self._rng.getrandbits(32))
            self._play_others()
            if not self.table.over:
                self._ended = False
                return self._obs(), self._info()

    def _play_others(self) -> None:
        t = self.table
        while not t.over and t.to_move != self.seat:
            s = t.to_move
            bot = self.bots.get(s)
            if bot is not None:
                t.play(bot.choose(seat_view(t.game, s)))
            else:
                policy = self.players[self._others().index(s)]
                assert callable(policy)
                t.step(int(policy(t.observe(s), t.mask())))

    def _obs(self) -> np.ndarray:
        return self.table.observe(self.seat)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks().astype(np.int8), "seat": self.seat}

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learning seat (bool; all False once the episode is over)."""
        t = self.table
        if t.over or self._ended or t.to_move != self.seat:
            return np.zeros(NUM_ACTIONS, dtype=np.bool_)
        return t.mask(np.bool_)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        t = self.table
        if t.over or self._ended:
            raise ValueError("the episode is over: call reset()")
        if not 0 <= int(action) < NUM_ACTIONS or not self.action_masks()[int(action)]:
            # what a masked learner never does: the episode ends with a penalty
            self._ended = True
            info = self._info()
            info["illegal_action"] = int(action)
            return self._obs(), float(self.illegal_reward), True, False, info
        t.step(int(action))
        self._play_others()
        reward = t.rewards()[self.seat] if t.over else 0.0
        info = self._info()
        if t.over:
            info["hand_scores"] = [s.total for s in t.game.result] if t.game.result else []
        return self._obs(), float(reward), t.over, False, info

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        t = self.table
        view = seat_view(t.game, self.seat)
        return (f"{self.rules.name}, seat {self.seat}, phase {view.phase}; last move: {t.last_move}\n"
                f"hand: {' '.join(str(c) for c in view.hand)}")

    def close(self) -> None:
        for bot in self.bots.values():
            bot.close()
        self.bots = {}


#: the registered ids and the preset each plays (any other preset: ``rules=``)
ENV_IDS: Final[dict[str, str]] = {"canasta/Classic-v0": "classic-4p", "canasta/Italian-v0": "italian-4p",
                                  "canasta/American-v0": "american-4p"}


def register() -> None:
    """Register ``canasta/Classic-v0``, ``canasta/Italian-v0`` and ``canasta/American-v0`` (done on import)."""
    for env_id, preset in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="canasta.rl.gymnasium:CanastaEnv", kwargs={"rules": preset},
                         disable_env_checker=False)


register()
