"""Pinned move-generation counts ("perft", as python-chess keeps per variant) and
hashes of whole seeded hands, per preset.

``python -m canasta.tools.perft`` rewrites ``tests/data/perft/<preset>.json``;
``tests/test_perft.py`` recomputes every file and compares.  A file holds:

* ``positions``: for seeded random playouts, at some plies, the number of legal
  moves (``moves``) and the number of positions one move further (``perft2``:
  the legal moves summed over every legal move), which catches any change in
  generation;
* ``hands``: the SHA-256 of whole seeded hands (every move and the score
  breakdown), played by a seeded random player and by the basic bot in every
  seat, which catches any change in the rules' effects.

Only the public API is used (``Game``, ``legal_moves``, ``push``, ``pop``,
``seat_view``, ``make_bot``), so the files can be made by an older commit of
the engine and compared with a newer one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from canasta.engine.game import Game
from canasta.engine.rules import PRESETS, RuleSet

SEEDS = (1, 2, 3, 4, 5)
PLIES = (1, 7, 20, 41, 60, 90)
HAND_SEEDS = (11, 12, 13)
MAX_MOVES = 3000
DEFAULT_DIR = Path(__file__).resolve().parents[3] / "tests" / "data" / "perft"


def _perft2(game: Game) -> int:
    total = 0
    for move in list(game.legal_moves):
        game.push(move)
        total += 0 if game.is_over() else len(game.legal_moves)
        game.pop()
    return total


def positions(preset: str) -> list[dict[str, int]]:
    """Legal-move counts at the plies :data:`PLIES` of seeded random playouts."""
    rules = RuleSet.preset(preset)
    out = []
    for seed in SEEDS:
        rng = random.Random(seed)
        game = Game(rules, seed, dealer=seed % rules.players)
        for ply in range(max(PLIES) + 1):
            if game.is_over():
                break
            moves = list(game.legal_moves)
            if ply in PLIES:
                out.append({"seed": seed, "ply": ply, "moves": len(moves), "perft2": _perft2(game)})
            game.push(moves[rng.randrange(len(moves))])
    return out


def _hash_hand(game: Game, played: list[str]) -> str:
    # each side's score as its lines by name, its canastas and whether its cards in hand counted double
    scores = [[[list(x) for x in s.lines()], list(s.canastas), s.penalty_doubled]
              for s in game.result or []] if game.is_over() else []
    text = "\n".join(played) + "\n" + json.dumps(scores)
    return hashlib.sha256(text.encode()).hexdigest()


def hands(preset: str) -> list[dict[str, Any]]:
    """Hashes of whole seeded hands: a random player, then basic bots."""
    from canasta.bots import make_bot
    from canasta.views.seat import seat_view

    rules = RuleSet.preset(preset)
    out: list[dict[str, Any]] = []
    for seed in HAND_SEEDS:
        for player in ("random", "basic"):
            game = Game(rules, seed, dealer=seed % rules.players)
            rng = random.Random(seed)
            bots = [make_bot("basic", seed=seed + s) for s in range(rules.players)]
            played: list[str] = []
            while not game.is_over() and len(played) < MAX_MOVES:
                if player == "random":
                    moves = list(game.legal_moves)
                    move = moves[rng.randrange(len(moves))]
                else:
                    seat = game.to_move
                    move = bots[seat].choose(seat_view(game, seat))
                played.append(str(move))
                game.push(move)
            out.append({"seed": seed, "player": player, "moves": len(played), "sha256": _hash_hand(game, played)})
    return out


def table(preset: str) -> dict[str, Any]:
    """Everything pinned for one preset."""
    return {"preset": preset, "positions": positions(preset), "hands": hands(preset)}


def dumps(data: dict[str, Any]) -> str:
    """The file's text: one position or hand a line."""
    lines = ["{", f' "preset": {json.dumps(data["preset"])},']
    for name in ("positions", "hands"):
        rows = [f"  {json.dumps(row)}" for row in data[name]]
        lines += [f' "{name}": [', ",\n".join(rows), " ]" + ("," if name == "positions" else "")]
    return "\n".join(lines) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m canasta.tools.perft", description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="where the <preset>.json files go")
    ap.add_argument("presets", nargs="*", help="presets (default: all)")
    args = ap.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    for preset in args.presets or sorted(PRESETS):
        (args.dir / f"{preset}.json").write_text(dumps(table(preset)), encoding="utf-8")
        sys.stdout.write(f"{preset}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
