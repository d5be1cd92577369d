"""CPU time per hand of presets measured in turn, in one process and the same run, alternated
(so the machine's load weighs on each alike): the hands of ``canasta bench`` (random players,
dealing and scoring included).  Prints one line a preset a round: the engine (pure or
compiled), the preset, ms of CPU a hand, decisions a hand.

    python docs/speed/alternate_presets.py american-4p classic-4p --hands 300 --rounds 5
"""

from __future__ import annotations

import argparse

from canasta.engine.native import engine
from canasta.engine.rules import RuleSet
from canasta.tools.bench import run_bench


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("presets", nargs="+")
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    kind = engine()
    for k in range(args.rounds):
        for name in args.presets:
            res = run_bench(RuleSet.preset(name), args.hands, args.seed)
            print(f"{kind} round {k + 1} {name} {res.cpu_ms_per_hand:.3f} ms CPU a hand, "
                  f"{res.decisions_per_hand:.1f} decisions a hand", flush=True)


if __name__ == "__main__":
    main()
