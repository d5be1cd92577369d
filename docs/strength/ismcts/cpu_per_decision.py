"""CPU time per decision of two bots facing each other, for docs/strength.md ("OpenSpiel ISMCTS").

    nice -n 10 .venv/bin/python docs/strength/ismcts/cpu_per_decision.py classic-4p expert ismcts:10 --hands 2

plays ``--hands`` seeded hands (bot A in the even seats, B in the odd ones, then the seats
swapped on the same deal) and prints, per bot, its decisions and their mean, median and worst CPU
time (``time.process_time`` of this process around each ``choose``), with the load average.
CPU time, not wall time, so that other work on a shared machine disturbs the figure less.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from canasta.bots import make_bot
from canasta.game import Game
from canasta.rules import RuleSet
from canasta.view import seat_view


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rules")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--hands", type=int, default=2, help="deals (each played twice, seats swapped)")
    ap.add_argument("--seed", type=int, default=1)
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
    print(f"{args.rules}, {args.hands} deals x 2, load average {os.getloadavg()[0]:.2f}")
    for spec, ts in times.items():
        ms = [1000 * t for t in ts]
        print(f"  {spec}: {len(ms)} decisions, CPU ms mean {statistics.fmean(ms):.0f} "
              f"median {statistics.median(ms):.0f} worst {max(ms):.0f}")


if __name__ == "__main__":
    main()
