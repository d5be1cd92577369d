"""CPU time per decision of two bots facing each other, for docs/strength.md.

    nice -n 10 .venv/bin/python docs/strength/cpu_per_decision.py classic-4p expert advanced --hands 2

plays ``--hands`` seeded hands (bot A in the even seats, B in the odd ones, then the seats
swapped on the same deal) and prints, per bot, its decisions and their mean, median, 99th percentile and worst CPU
time (``time.process_time`` of this process around each ``choose``), the engine that ran them
(compiled or pure) and the load average. CPU time, not wall time, so that other work on a shared
machine disturbs the figure less. ``--record FILE`` also appends the figures to FILE as one JSON
line (the timing records of docs/strength/timing/, which tests/test_strength_records.py checks
the tables against).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from canasta.bots import make_bot
from canasta.engine.game import Game
from canasta.engine.native import engine
from canasta.engine.rules import RuleSet
from canasta.views.seat import seat_view


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("rules")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--hands", type=int, default=2, help="deals (each played twice, seats swapped)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--record", metavar="FILE.jsonl", help="append the figures to this file as a JSON line")
    args = ap.parse_args()
    rules = RuleSet.preset(args.rules)
    times: dict[str, list[float]] = {args.a: [], args.b: []}
    for deal in range(args.hands):
        for swap in (0, 1):
            specs = [args.a, args.b] if not swap else [args.b, args.a]
            seated = [specs[s % 2] for s in range(rules.players)]
            bots = [make_bot(spec, seed=args.seed * 1000 + 10 * deal + s) for s, spec in enumerate(seated)]
            g = Game(rules, args.seed * 1000 + deal)
            while not g.is_over():
                seat = g.to_move
                view = seat_view(g, seat)
                t0 = time.process_time()
                move = bots[seat].choose(view)
                times[seated[seat]].append(time.process_time() - t0)
                g.play(move)
            for bot in bots:
                bot.close()
    load = os.getloadavg()[0]
    engine_name = engine()
    print(f"{args.rules}, {args.hands} deals x 2, engine {engine_name}, load average {load:.2f}")
    line: dict[str, object] = {"rules": args.rules, "deals": args.hands, "seed": args.seed, "engine": engine_name,
                               "load": round(load, 2), "bots": {}}
    for spec, ts in times.items():
        ms = [1000 * t for t in ts]
        stats = {"decisions": len(ms), "mean_ms": round(statistics.fmean(ms)),
                 "median_ms": round(statistics.median(ms)), "p99_ms": round(sorted(ms)[(99 * len(ms)) // 100]),
                 "worst_ms": round(max(ms)), "over_1s": sum(m > 1000 for m in ms)}
        line["bots"][spec] = stats  # type: ignore[index]
        print(f"  {spec}: {stats['decisions']} decisions, CPU ms mean {stats['mean_ms']} "
              f"median {stats['median_ms']} p99 {stats['p99_ms']} worst {stats['worst_ms']}, over 1 s: {stats['over_1s']}")
    if args.record:
        with Path(args.record).open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
