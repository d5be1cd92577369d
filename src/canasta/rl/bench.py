"""Environment speed: steps per second with random masked actions, against the bare engine.

``python -m canasta.rl.bench --env pettingzoo --rules classic-4p --seconds 5`` plays hands with
uniformly random legal actions, taking every step's observation and mask, and prints the steps
per second and the ratio to the bare engine's decisions per second (random playouts through
``Game.random_move``, :func:`canasta.tools.bench.random_hand`) measured in the same process right
before, each in wall time and in CPU time (``time.process_time``, which other work on a shared
machine disturbs less).  The legal actions are read from the int8 mask through a bool view of
it (no copy: numpy finds the nonzero entries of a bool array several times faster than of an
int8 one, and the harness's own cost is not the environment's).  ``--env`` is ``table`` (:class:`canasta.rl.core.ActionTable`, what every environment
wraps), ``pettingzoo`` (``canasta.rl.pettingzoo.env()``, as users get it), ``pettingzoo-raw``
(without PettingZoo's order-enforcing wrapper) or ``gymnasium`` (one learning seat; the other seats random masked actions through the
same encoding, so each step includes theirs).

``--parts`` times a table step piece by piece instead (:func:`step_parts`): the engine's
generating set, the actions and mask built from it, the observation, the harness's choice of
action, and the step (the move built, its suits drawn, the engine's move played), in µs per
step, beside a bare engine decision and a whole PettingZoo step.  The pieces are timed in wall
time on one core (the process's CPU clock is too coarse, and too dear to read, around pieces of
a microsecond); the bare decision and the PettingZoo step in CPU time.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Final

import numpy as np

from canasta.engine.native import engine as engine_name
from canasta.engine.rules import RuleSet, resolve_rules
from canasta.rl.core import ActionTable
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
    #: the CPU time (process time) of the environment's run
    cpu_seconds: float = 0.0
    #: the bare engine's decisions per CPU-second, same run
    engine_decisions_per_cpu_s: float = 0.0
    #: which engine ran: "compiled" or "pure" (canasta.engine.native.engine)
    engine: str = "pure"

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def ratio(self) -> float:
        """Environment steps per second over bare engine decisions per second."""
        return self.steps_per_s / self.engine_decisions_per_s

    @property
    def steps_per_cpu_s(self) -> float:
        return self.steps / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    @property
    def cpu_ratio(self) -> float:
        """The same ratio in CPU time."""
        if self.engine_decisions_per_cpu_s <= 0:
            return 0.0
        return self.steps_per_cpu_s / self.engine_decisions_per_cpu_s

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = asdict(self)
        out["steps_per_s"] = round(self.steps_per_s, 1)
        out["ratio_to_engine"] = round(self.ratio, 3)
        out["steps_per_cpu_s"] = round(self.steps_per_cpu_s, 1)
        out["ratio_to_engine_cpu"] = round(self.cpu_ratio, 3)
        return out

    def text(self) -> str:
        return (f"{self.env} {self.rules}: {self.steps} steps, {self.hands} hands in {self.seconds:.2f} s "
                f"({self.cpu_seconds:.2f} s CPU) on one core, engine: {self.engine}\n"
                f"                          wall time   CPU time\n"
                f"  steps/s                 {self.steps_per_s:9,.0f}  {self.steps_per_cpu_s:9,.0f}\n"
                f"  bare engine decisions/s {self.engine_decisions_per_s:9,.0f}  {self.engine_decisions_per_cpu_s:9,.0f}\n"
                f"  ratio                   {self.ratio:9.2f}  {self.cpu_ratio:9.2f}")


Run = tuple[int, int, float, float]
"""steps, hands, wall seconds, CPU seconds"""


def engine_rates(rules: RuleSet, seconds: float, seed: int) -> tuple[float, float]:
    """Bare engine decisions per second and per CPU-second: random playouts, whole hands."""
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    cpu = time.process_time()
    i = 0
    while True:
        _, d = random_hand(rules, seed + i, i % rules.players, rng)
        decisions += d
        i += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions / elapsed, decisions / max(time.process_time() - cpu, 1e-9)


def engine_rate(rules: RuleSet, seconds: float, seed: int) -> float:
    """Bare engine decisions per second: random playouts, whole hands."""
    return engine_rates(rules, seconds, seed)[0]


def _run_table(rules: RuleSet, seconds: float, seed: int) -> Run:
    table = ActionTable(rules)
    rng = random.Random(seed)
    steps = hands = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while True:
        table.reset(seed + hands)
        while not table.over:
            seat = table.to_move
            table.observe(seat)
            legal = table.mask().view(np.bool_).nonzero()[0]
            table.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        table.rewards()
        hands += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, hands, elapsed, time.process_time() - cpu


def _run_pettingzoo(rules: RuleSet, seconds: float, seed: int, wrapped: bool) -> Run:
    from canasta.rl import pettingzoo as cpz

    env = cpz.env(rules) if wrapped else cpz.raw_env(rules)
    rng = random.Random(seed)
    steps = hands = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while True:
        env.reset(seed=seed + hands)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].view(np.bool_).nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        hands += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, hands, elapsed, time.process_time() - cpu


def _run_gymnasium(rules: RuleSet, seconds: float, seed: int) -> Run:
    from canasta.rl.gymnasium import CanastaEnv

    rng = random.Random(seed)

    def other(obs: np.ndarray, mask: np.ndarray) -> int:
        legal = mask.view(np.bool_).nonzero()[0]
        return int(legal[int(rng.random() * len(legal))])

    env = CanastaEnv(rules, seat=0, opponents=other)
    steps = hands = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while True:
        _, info = env.reset(seed=seed + hands)
        done = False
        while not done:
            legal = info["action_mask"].view(np.bool_).nonzero()[0]
            _, _, done, _, info = env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        hands += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, hands, elapsed, time.process_time() - cpu


#: the pieces of a table step :func:`step_parts` times, in the order a step takes them
PARTS: Final = (
    ("generating set", "the engine's options of the position (Game.options)"),
    ("actions and mask", "the options mapped to action indices, the int8 mask (less the generating set)"),
    ("observation", "the mover's observation vector"),
    ("harness", "the legal actions read from the mask, one drawn at random"),
    ("step", "the move built from the action, its suits drawn, the engine's move played"),
)


@dataclass
class StepParts:
    """µs per step of each piece of :data:`PARTS` (wall time, the timer's own cost taken off), and
    of a bare decision and a PettingZoo step timed whole (CPU time)."""

    rules: str
    steps: int
    parts: dict[str, float]
    #: a bare engine decision (``Game.random_move`` and the move played), same run
    engine_us: float
    #: a whole PettingZoo step (``env()``: ``last()`` and ``step()``), same run
    pettingzoo_us: float
    engine: str = "pure"

    @property
    def table_us(self) -> float:
        return sum(self.parts.values())

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = asdict(self)
        out["parts"] = {k: round(v, 3) for k, v in self.parts.items()}
        out["engine_us"] = round(self.engine_us, 3)
        out["pettingzoo_us"] = round(self.pettingzoo_us, 3)
        out["table_us"] = round(self.table_us, 3)
        return out

    def text(self) -> str:
        lines = [f"a table step of {self.rules}, piece by piece ({self.steps} steps, engine: {self.engine}), "
                 "µs per step:"]
        lines += [f"  {name:18s} {self.parts[name]:6.2f}   {what}" for name, what in PARTS]
        lines.append(f"  {'table step':18s} {self.table_us:6.2f}   the pieces together")
        lines.append(f"  {'PettingZoo step':18s} {self.pettingzoo_us:6.2f}   env(): last() and step(), timed whole")
        lines.append(f"  {'bare decision':18s} {self.engine_us:6.2f}   Game.random_move and the move played")
        if self.pettingzoo_us > 0:
            lines.append(f"  a PettingZoo step over a bare decision: {self.engine_us / self.pettingzoo_us:.2f}")
        return "\n".join(lines)


def _timer_cost() -> int:
    """The ns two clock readings cost, the least of many tries."""
    clock = time.perf_counter_ns
    best = 10**9
    for _ in range(2000):
        a = clock()
        b = clock()
        best = min(best, b - a)
    return best


def step_parts(rules: RuleSet | str = "classic-4p", seconds: float = 5.0, seed: int = 1) -> StepParts:
    """Each piece of a table step timed on its own (:data:`PARTS`), over hands with random
    masked actions for ``seconds``, then a bare engine decision and a PettingZoo
    step timed whole for ``seconds`` each.  Reading the clock around every piece costs time
    that is measured and taken off; the pieces' sum still comes out a little above an untimed
    step."""
    r = resolve_rules(rules) if isinstance(rules, str) else rules
    clock = time.perf_counter_ns  # finer and cheaper to read than the process's CPU clock
    tare = _timer_cost()
    table = ActionTable(r)
    rng = random.Random(seed)
    spent = [0] * len(PARTS)
    steps = hands = 0
    limit = clock() + int(seconds * 1e9)
    while clock() < limit:
        table.reset(seed + hands)
        while not table.over:
            t0 = clock()
            table.game.options()
            t1 = clock()
            mask = table.mask()
            t2 = clock()
            table.observe(table.to_move)
            t3 = clock()
            legal = mask.view(np.bool_).nonzero()[0]
            action = int(legal[int(rng.random() * len(legal))])
            t4 = clock()
            table.step(action)
            t5 = clock()
            for i, (start, end) in enumerate(((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5))):
                spent[i] += end - start - tare
            steps += 1
        hands += 1
    # the mask's time included the generating set again (the decision asks the engine itself)
    per = [x / steps / 1000 for x in spent]
    per[1] -= per[0]
    engine = engine_rates(r, seconds, seed)[1]
    pz_steps, _, _, pz_cpu = _run_pettingzoo(r, seconds, seed, wrapped=True)
    return StepParts(r.name, steps, {name: per[i] for i, (name, _) in enumerate(PARTS)}, 1e6 / engine,
                     pz_cpu / pz_steps * 1e6, engine_name())


def env_bench(rules: RuleSet | str = "classic-4p", env: str = "pettingzoo", seconds: float = 5.0,
              seed: int = 1, engine_seconds: float | None = None) -> EnvBenchResult:
    """Steps per second of ``env`` with random masked actions (observation and mask taken at
    every step), and the bare engine's decisions per second measured just before in the same
    process (for ``engine_seconds``, default ``seconds``), in wall and in CPU time."""
    r = resolve_rules(rules) if isinstance(rules, str) else rules
    if env not in ENVS:
        raise ValueError(f"env must be one of {', '.join(ENVS)}, not {env!r}")
    wall_rate, cpu_rate = engine_rates(r, seconds if engine_seconds is None else engine_seconds, seed)
    runners: dict[str, Callable[[], Run]] = {
        "table": lambda: _run_table(r, seconds, seed),
        "pettingzoo": lambda: _run_pettingzoo(r, seconds, seed, wrapped=True),
        "pettingzoo-raw": lambda: _run_pettingzoo(r, seconds, seed, wrapped=False),
        "gymnasium": lambda: _run_gymnasium(r, seconds, seed),
    }
    steps, hands, elapsed, cpu = runners[env]()
    return EnvBenchResult(env, r.name, steps, hands, elapsed, wall_rate, cpu, cpu_rate, engine_name())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m canasta.rl.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="pettingzoo", choices=ENVS + ("all",), help="which environment (default %(default)s)")
    parser.add_argument("--rules", default="classic-4p", help="a preset or a rules file (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default %(default)s)")
    parser.add_argument("--parts", action="store_true",
                        help="time a table step piece by piece instead (--env is not used)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if args.parts:
        parts = step_parts(args.rules, args.seconds, args.seed)
        print(json.dumps(parts.as_dict()) if args.json else parts.text())
        return 0
    envs = ENVS if args.env == "all" else (args.env,)
    for name in envs:
        result = env_bench(args.rules, name, args.seconds, args.seed)
        print(json.dumps(result.as_dict()) if args.json else result.text())
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
