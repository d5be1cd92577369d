"""Tune the advanced player's habits by self-play, for the expert's guide and rollouts.

``python -m canasta.rl.tune --rules classic-4p --generations 30 --pairs 400 --seed 54 --jobs 2``

The expert plays the advanced player's move unless its sampled worlds show another clearly
better, and plays those worlds forward with the advanced player: a stronger advanced player is a
stronger expert.  The advanced player's habits are numbers (:data:`canasta.bots.heuristic.HABITS`:
the weight of a pair kept, the danger of feeding the pile, the pile worth taking, when to say no
to "may I go out?", ...).  This command searches them with CMA-ES (the ``cma`` package):

**Fitness.**  Each candidate plays ``--pairs`` duplicate deals against the advanced player as it
ships, each deal twice with the sides' seats swapped; its fitness is the mean lead a hand (its
side's score minus the other side's).  A generation's candidates all play the same deals (common
random numbers), and each generation plays new ones.

**Search.**  Each habit is searched on its own scale (:data:`canasta.bots.heuristic.HABITS`), from
the shipped values, by CMA-ES (population ``--population``, step ``--sigma``), seeded: the same
seed gives the same habits.  The kept habits are the mean of the last generation's search.

**Held out.**  The kept habits then play ``--holdout`` duplicate deals of other seeds (from
``seed + 10,000``) against the advanced player: the lead a hand with its 95% interval, and the share
of hands won.  The habits and the run's record go to ``--out`` (the shipped ones:
``canasta/bots/weights/habits-PRESET.json``, read by :func:`canasta.bots.heuristic.shipped_habits`);
a tqdm bar follows the generations.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from multiprocessing import get_context
from typing import Any

from canasta import argtypes
from canasta.bots.heuristic import HABITS, AdvancedBot
from canasta.engine.game import Game
from canasta.engine.native import engine
from canasta.engine.rules import RuleSet
from canasta.views.seat import seat_view

#: deal seeds of a generation: ``seed * DEAL_SEEDS + generation * GENERATION_SEEDS + k``
DEAL_SEEDS = 1_000_003
GENERATION_SEEDS = 10_007
HOLDOUT_OFFSET = 10_000


def habits_of(x: Sequence[float]) -> dict[str, float]:
    """The habits at ``x``: each habit's shipped value plus ``x`` times its scale, kept in its bounds
    (a whole number where the habit is one)."""
    out: dict[str, float] = {}
    for (name, (default, scale, lo, hi, whole)), v in zip(HABITS.items(), x, strict=True):
        value = min(hi, max(lo, default + float(v) * scale))
        out[name] = float(round(value)) if whole else round(value, 4)
    return out


def duel(rules: RuleSet, habits: Mapping[str, float], seeds: Sequence[int]) -> list[float]:
    """The leads, a hand each, of a side playing with ``habits`` against the advanced player on each
    deal of ``seeds``, each dealt twice: the tuned side in the first side's seats, then the second's."""
    leads: list[float] = []
    for seed in seeds:
        for tuned_side in (0, 1):
            g = Game(rules, seed)
            bots = []
            for p in range(rules.players):
                bot = AdvancedBot(seed * 10 + p)
                if g.side_of[p] == tuned_side:
                    bot.set_habits(habits)
                bots.append(bot)
            while not g.is_over():
                g.play(bots[g.to_move].choose(seat_view(g, g.to_move)))
            totals = [s.total for s in g.result or []]
            leads.append(float(totals[tuned_side] - totals[1 - tuned_side]))
    return leads


def _duel_job(job: tuple[RuleSet, dict[str, float], list[int]]) -> list[float]:
    return duel(*job)


def summary(leads: Sequence[float]) -> dict[str, float]:
    """The mean lead a hand with its 95% interval, and the share of hands won (a tie half)."""
    n = len(leads)
    mean = statistics.fmean(leads)
    half = 1.96 * statistics.stdev(leads) / math.sqrt(n) if n > 1 else math.inf
    won = sum(1.0 if v > 0 else 0.5 if v == 0 else 0.0 for v in leads) / n
    return {"hands": n, "lead": round(mean, 1), "low": round(mean - half, 1), "high": round(mean + half, 1),
            "won": round(won, 4)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m canasta.rl.tune", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", type=argtypes.two_sides, default="classic-4p",
                    help="a preset with two sides (default: classic-4p)")
    ap.add_argument("--generations", type=argtypes.positive, default=30, help="CMA-ES generations (default: 30)")
    ap.add_argument("--pairs", type=argtypes.positive, default=400,
                    help="duplicate deals a candidate plays (default: 400)")
    ap.add_argument("--population", type=argtypes.positive, default=10, help="candidates a generation (default: 10)")
    ap.add_argument("--sigma", type=float, default=0.5, help="the first step, in habit scales (default: 0.5)")
    ap.add_argument("--holdout", type=argtypes.positive, default=2000, help="held-out duplicate deals (default: 2000)")
    ap.add_argument("--seed", type=int, default=54)
    ap.add_argument("--jobs", type=argtypes.processes, default=os.cpu_count() or 1,
                    help="processes (default: every core)")
    ap.add_argument("--out", help="where the habits go (default: runs/habits-RULES.json)")
    args = ap.parse_args(argv)
    name: str = args.rules.name
    if args.population < 2 or not args.sigma > 0:
        ap.error(f"--population is at least 2 and --sigma above 0, not {args.population} and {args.sigma}")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*matplotlib")  # cma's plots are not used
        import cma
    from tqdm import tqdm

    started = time.time()
    cpu = time.process_time()
    es = cma.CMAEvolutionStrategy([0.0] * len(HABITS), args.sigma,
                                  {"popsize": args.population, "seed": args.seed, "verbose": -9})
    history: list[dict[str, Any]] = []
    with get_context("fork").Pool(args.jobs) as pool:
        for gen in tqdm(range(args.generations), desc=f"{name} habits", unit="generation"):
            xs = es.ask()
            base = args.seed * DEAL_SEEDS + gen * GENERATION_SEEDS
            seeds = list(range(base, base + args.pairs))
            chunks = [seeds[i::args.jobs] for i in range(args.jobs)]
            jobs = [(args.rules, habits_of(x), c) for x in xs for c in chunks]
            results = pool.map(_duel_job, jobs)
            fitness = []
            for k in range(len(xs)):
                leads = [v for r in results[k * args.jobs:(k + 1) * args.jobs] for v in r]
                fitness.append(statistics.fmean(leads))
            es.tell(xs, [-f for f in fitness])
            history.append({"generation": gen, "best": round(max(fitness), 1), "mean": round(statistics.fmean(fitness), 1),
                            "sigma": round(float(es.sigma), 4)})
        kept = habits_of(es.mean)
        base = (args.seed + HOLDOUT_OFFSET) * DEAL_SEEDS
        seeds = list(range(base, base + args.holdout))
        held = [v for r in pool.map(_duel_job, [(args.rules, kept, seeds[i::args.jobs]) for i in range(args.jobs)])
                for v in r]
    children = os.times()
    meta: dict[str, Any] = {
        "command": " ".join(["python -m canasta.rl.tune", *(argv if argv is not None else sys.argv[1:])]),
        "rules": name, "generations": args.generations, "pairs": args.pairs, "population": args.population,
        "sigma": args.sigma, "seed": args.seed, "engine": engine(),
        "hands_played": 2 * args.pairs * args.population * args.generations + 2 * args.holdout,
        "cpu_seconds": round(children.children_user + children.children_system + time.process_time() - cpu, 1),
        "wall_seconds": round(time.time() - started, 1), "load": round(os.getloadavg()[0], 2),
        "history": history, "held_out": summary(held),
    }
    out = args.out or f"runs/habits-{name}.json"
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"rules": name, "habits": kept, "meta": meta}, f, indent=1)
        f.write("\n")
    h = meta["held_out"]
    print(f"{name}: {meta['hands_played']} hands, {meta['cpu_seconds']} s CPU; held out ({h['hands']} hands "
          f"against the advanced player): {h['lead']:+} a hand [{h['low']:+}, {h['high']:+}], {100 * h['won']:.1f}% "
          f"of hands won -> {out}")
    changed = {k: v for k, v in kept.items() if v != HABITS[k].value}
    print("habits changed: " + ", ".join(f"{k} {HABITS[k].value} -> {v}" for k, v in changed.items()))


if __name__ == "__main__":
    main()
