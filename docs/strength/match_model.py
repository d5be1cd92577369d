"""The match model's two figures for a preset (``SearchTuning.pace`` and ``spread``), for docs/bots.md.

    .venv/bin/python docs/strength/match_model.py italian-4p --hands 300 --seed 1

plays ``--hands`` seeded single hands with the advanced player in every seat and prints, as shares
of the match's target, what a side scores in a hand (the *pace*: how many hands a match lasts) and
the standard deviation of one hand's score difference between a side and the best other side (the
*spread*: how much one hand can move the match), beside the family's figures of today.
``--from RECORD...`` reads the hands of kept arena records instead (their ``Score`` tags, every
hand of every game, whoever played it): the same figures for the expert's own matches.
``--record FILE`` appends them as one JSON line with the command and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from canasta.bots.heuristic import AdvancedBot
from canasta.engine.errors import CanastaError
from canasta.engine.game import Game, family_of
from canasta.engine.native import engine
from canasta.engine.rules import RuleSet
from canasta.play.record import read_file
from canasta.views.seat import seat_view


def played(rules: RuleSet, hands: int, seed: int) -> Iterator[list[float]]:
    """The sides' scores of ``hands`` seeded hands of advanced players."""
    bots = [AdvancedBot(seed * 100 + i) for i in range(rules.players)]
    for n in range(hands):
        g = Game(rules, seed * 100_000 + n)
        while not g.is_over():
            g.play(bots[g.to_move].choose(seat_view(g, g.to_move)))
        yield [float(s.total) for s in g.result or []]


def kept(preset: str, paths: list[str]) -> Iterator[list[float]]:
    """The sides' scores of every hand of the kept records at ``paths`` (their ``Score`` tags)."""
    for path in paths:
        games, errors = read_file(Path(path))
        if errors:
            raise SystemExit(f"{path}: {errors[0]}")
        for game in games:
            if game.headers.get("Rules") != preset:
                raise SystemExit(f"{path}: a game of {game.headers.get('Rules')}, not {preset}")
            for hand in game.hands:
                if "Score" in hand.tags:
                    yield [float(x) for x in hand.tags["Score"].split()]


def measure(preset: str, hands: Iterable[list[float]]) -> dict[str, object]:
    rules = RuleSet.preset(preset)
    scores: list[float] = []
    leads: list[float] = []
    count = 0
    started = time.process_time()
    for totals in hands:
        count += 1
        scores.extend(totals)
        # each side's lead over the best other side (two sides: the difference, once)
        for side, mine in enumerate(totals[:1] if len(totals) == 2 else totals):
            leads.append(mine - max(t for i, t in enumerate(totals) if i != side))
    if count < 2:
        raise SystemExit(f"{count} hands: a spread needs two")
    target = rules.target
    search = family_of(rules).search
    return {
        "preset": preset, "hands": count, "engine": engine(),
        "cpu_s": round(time.process_time() - started, 1), "load": round(os.getloadavg()[0], 2),
        "target": target,
        "side_mean": round(statistics.mean(scores), 1), "lead_sd": round(statistics.pstdev(leads), 1),
        "pace": round(statistics.mean(scores) / target, 3), "spread": round(statistics.pstdev(leads) / target, 3),
        "family_pace": search.pace, "family_spread": search.spread,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("preset")
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--from", dest="records", nargs="+", metavar="RECORD",
                    help="read the hands of these arena records instead of playing")
    ap.add_argument("--record", help="append the figures to this JSON-lines file")
    args = ap.parse_args(argv)
    try:
        rules = RuleSet.preset(args.preset)
    except CanastaError as exc:  # an unknown preset: its message names the presets
        raise SystemExit(str(exc)) from None
    hands = kept(args.preset, args.records) if args.records else played(rules, args.hands, args.seed)
    out = measure(args.preset, hands)
    who = f"of {', '.join(args.records)}" if args.records else f"of advanced players (seed {args.seed})"
    out["command"] = " ".join(["docs/strength/match_model.py", *(argv if argv is not None else sys.argv[1:])])
    print(f"{out['preset']}, {out['hands']} hands {who} (engine {out['engine']}, "
          f"{out['cpu_s']} s CPU, load {out['load']}): a side scores {out['side_mean']} a hand "
          f"(pace {out['pace']} of {out['target']}), a side's lead over the best other spreads by "
          f"{out['lead_sd']} (spread {out['spread']}); the family's search uses pace {out['family_pace']}, "
          f"spread {out['family_spread']}")
    if args.record:
        with open(args.record, "a", encoding="utf-8") as f:
            f.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
