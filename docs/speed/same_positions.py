"""The generating set's CPU time on identical positions, to compare two versions of the engine.

``python docs/speed/same_positions.py record PRESET`` plays 400 seeded hands with a random
player and keeps their moves (``/tmp/fixed-PRESET.json``); ``python docs/speed/same_positions.py
LABEL PRESET`` replays them and times the options of every decision.  Run ``record`` with the
older engine, then alternate the two engines (``PYTHONPATH=older/src`` and ``newer/src`` for the
pure one, each version's compiled install for the compiled one): the positions are the same
for both even where their generators differ.  Records: ``docs/speed/family-shape.txt``,
``docs/speed/engine-package.txt``."""

from __future__ import annotations

import json
import random
import sys
import time

from canasta.engine.game import Game
from canasta.engine.rules import RuleSet

mode, preset = sys.argv[1], sys.argv[2]
path = f"/tmp/fixed-{preset}.json"
rules = RuleSet.preset(preset)
if mode == "record":
    games = []
    for seed in range(1, 401):
        g = Game(rules, seed)
        rng = random.Random(seed)
        moves = []
        while not g.is_over():
            ms = list(g.legal_moves)
            m = ms[rng.randrange(len(ms))]
            moves.append(str(m))
            g.push(m)
        games.append((seed, moves))
    with open(path, "w", encoding="utf-8") as f:
        json.dump(games, f)
else:
    with open(path, encoding="utf-8") as f:
        games = json.load(f)
    opts = 0.0
    n = 0
    for seed, moves in games:
        g = Game(rules, seed)
        of = g.family.options_of
        for m in moves:
            t = time.process_time()
            of(g)
            opts += time.process_time() - t
            n += 1
            g.push(m)
    print(f"{mode} {preset} decisions {n} options CPU {opts:.3f} s, {1e6*opts/n:.2f} us each")
