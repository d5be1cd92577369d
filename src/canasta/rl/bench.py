"""Environment speed: steps per second with random masked actions, against the bare engine.

``python -m canasta.rl.bench --env pettingzoo --rules classic-4p --seconds 5`` plays hands with
uniformly random legal actions, taking every step's observation and mask, and prints the steps
per second and the ratio to the bare engine's decisions per second (random playouts through
``Game.random_move``, :func:`canasta.tools.bench.random_hand`) measured in the same process right
before.  ``--env`` is ``table`` (:class:`canasta.rl.core.ActionTable`, what every environment
wraps), ``pettingzoo`` (``canasta.rl.pettingzoo.env()``, as users get it), ``pettingzoo-raw``
(without PettingZoo's order-enforcing wrapper) or ``gymnasium`` (one learning seat; the other seats random masked actions through the
same encoding, so each step includes theirs).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from canasta.rl.core import ActionTable
from canasta.rules import RuleSet, resolve_rules
from canasta.tools.bench import random_hand

ENVS = ("table", "pettingzoo", "pettingzoo-raw", "gymnasium")


@dataclass
class EnvBenchResult:
    env: str
    rules: str
    steps: int
    hands: int
    seconds: float
    engine_decisions_per_s: float

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def ratio(self) -> float:
        """Environment steps per second over bare engine decisions per second."""
        return self.steps_per_s / self.engine_decisions_per_s

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = asdict(self)
        out["steps_per_s"] = round(self.steps_per_s, 1)
        out["ratio_to_engine"] = round(self.ratio, 3)
        return out

    def text(self) -> str:
        return (f"{self.env} {self.rules}: {self.steps} steps, {self.hands} hands in {self.seconds:.2f} s on one core\n"
                f"  steps/s                 {self.steps_per_s:,.0f}\n"
                f"  bare engine decisions/s {self.engine_decisions_per_s:,.0f}\n"
                f"  ratio                   {self.ratio:.2f}")


def engine_rate(rules: RuleSet, seconds: float, seed: int) -> float:
    """Bare engine decisions per second: random playouts, whole hands."""
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    i = 0
    while True:
        _, d = random_hand(rules, seed + i, i % rules.players, rng)
        decisions += d
        i += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions / elapsed


def _run_table(rules: RuleSet, seconds: float, seed: int) -> tuple[int, int, float]:
    table = ActionTable(rules)
    rng = random.Random(seed)
    steps = hands = 0
    start = time.perf_counter()
    while True:
        table.reset(seed + hands)
        while not table.over:
            seat = table.to_move
            table.observe(seat)
            legal = table.mask().nonzero()[0]
            table.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        table.rewards()
        hands += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, hands, elapsed


def _run_pettingzoo(rules: RuleSet, seconds: float, seed: int, wrapped: bool) -> tuple[int, int, float]:
    from canasta.rl import pettingzoo as cpz

    env = cpz.env(rules) if wrapped else cpz.raw_env(rules)
    rng = random.Random(seed)
    steps = hands = 0
    start = time.perf_counter()
    while True:
        env.reset(seed=seed + hands)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        hands += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, hands, elapsed


def _run_gymnasium(rules: RuleSet, seconds: float, seed: int) -> tuple[int, int, float]:
    from canasta.rl.gymnasium import CanastaEnv

    rng = random.Random(seed)

    def other(obs: np.ndarray, mask: np.ndarray) -> int:
        legal = mask.nonzero()[0]
        return int(legal[int(rng.random() * len(legal))])

    env = CanastaEnv(rules, seat=0, opponents=other)
    steps = hands = 0
    start = time.perf_counter()
    while True:
        _, info = env.reset(seed=seed + hands)
        done = False
        while not done:
            legal = info["action_mask"].nonzero()[0]
            _, _, done, _, info = env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        hands += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, hands, elapsed


def env_bench(rules: RuleSet | str = "classic-4p", env: str = "pettingzoo", seconds: float = 5.0,
              seed: int = 1, engine_seconds: float | None = None) -> EnvBenchResult:
    """Steps per second of ``env`` with random masked actions (observation and mask taken at
    every step), and the bare engine's decisions per second measured just before in the same
    process (for ``engine_seconds``, default ``seconds``)."""
    r = resolve_rules(rules) if isinstance(rules, str) else rules
    if env not in ENVS:
        raise ValueError(f"env must be one of {', '.join(ENVS)}, not {env!r}")
    engine = engine_rate(r, seconds if engine_seconds is None else engine_seconds, seed)
    runners: dict[str, Callable[[], tuple[int, int, float]]] = {
        "table": lambda: _run_table(r, seconds, seed),
        "pettingzoo": lambda: _run_pettingzoo(r, seconds, seed, wrapped=True),
        "pettingzoo-raw": lambda: _run_pettingzoo(r, seconds, seed, wrapped=False),
        "gymnasium": lambda: _run_gymnasium(r, seconds, seed),
    }
    steps, hands, elapsed = runners[env]()
    return EnvBenchResult(env, r.name, steps, hands, elapsed, engine)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m canasta.rl.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="pettingzoo", choices=ENVS + ("all",), help="which environment (default %(default)s)")
    parser.add_argument("--rules", default="classic-4p", help="a preset or a rules file (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    envs = ENVS if args.env == "all" else (args.env,)
    for name in envs:
        result = env_bench(args.rules, name, args.seconds, args.seed)
        print(json.dumps(result.as_dict()) if args.json else result.text())
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
