"""Fit the expert's leaf value (:mod:`canasta.bots.value`) on hands of the advanced player.

``python -m canasta.rl.value --rules classic-4p --hands 4000 --holdout 1000 --seed 54``

**Data.**  ``--hands`` seeded hands with the advanced player in every seat (the expert's rollout
player, so the model learns what its rollouts would have found had they gone on); at every
``--every``-th decision the position is read for each side against the other
(:func:`canasta.bots.value.features`) beside the sides' scores as they stand
(:func:`canasta.bots.expert.standing`), and once the hand is over each row's target is the change
of its side's score from there to the end.

**Fit.**  Ridge regression (``--ridge``, the constant unpenalised), solved exactly with numpy:
the same hands give the same weights.  Held-out hands (``--holdout``, from ``seed + 10,000``)
measure how far the final lead between the sides lies from the lead as it stands (what the
expert's rollouts are valued by today) and from the lead the model expects: the root mean square
error, and the share of the final lead's variance explained.  The weights go to ``--out``
(the shipped ones: ``canasta/bots/weights/value-PRESET.json``) with the run's record in their
``meta``; a tqdm bar follows the hands.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from canasta import argtypes
from canasta.bots.expert import standing
from canasta.bots.heuristic import AdvancedBot
from canasta.bots.value import FEATURES, LeafValue, features
from canasta.engine.game import Game
from canasta.engine.native import engine
from canasta.engine.rules import RuleSet
from canasta.views.seat import seat_view

#: hand seeds of a run: ``seed * HAND_SEEDS + h`` (the held-out hands: from ``seed + HOLDOUT_OFFSET``)
HAND_SEEDS = 1_000_033
HOLDOUT_OFFSET = 10_000


def positions(rules: RuleSet, hands: int, seed: int, every: int, desc: str,
              read: Callable[[Game, int, int], list[float]] = features) -> tuple[Any, Any, Any]:
    """Rows of features (``read``: :func:`canasta.bots.value.features`, or another reading of
    the position for a side against its rival), the lead as it stood (side minus rival) and the
    change of the side's score to the end, two rows (one a side) at every ``every``-th decision
    of ``hands`` hands."""
    from tqdm import tqdm

    xs: list[list[float]] = []
    now_lead: list[float] = []
    change: list[float] = []
    bots = [AdvancedBot(seed * 100 + i) for i in range(rules.players)]
    for h in tqdm(range(hands), desc=desc, unit="hand", leave=False):
        g = Game(rules, seed * HAND_SEEDS + h)
        stood: list[tuple[int, float]] = []  # each row's side and its score as it stood
        n = 0
        while not g.is_over():
            if n % every == 0:
                now = standing(g)
                for side in (0, 1):
                    xs.append(read(g, side, 1 - side))
                    now_lead.append(now[side] - now[1 - side])
                    stood.append((side, now[side]))
            g.play(bots[g.to_move].choose(seat_view(g, g.to_move)))
            n += 1
        final = [float(s.total) for s in g.result or []]
        change.extend(final[side] - was for side, was in stood)
    return np.array(xs, dtype=np.float64), np.array(now_lead), np.array(change)


def fit(x: Any, y: Any, ridge: float) -> Any:
    """Least squares with an L2 penalty on every weight but the constant (the last)."""
    penalty = np.full(x.shape[1], ridge)
    penalty[-1] = 0.0
    return np.linalg.solve(x.T @ x + np.diag(penalty), x.T @ y)


def judge(x: Any, now_lead: Any, change: Any, w: Any) -> dict[str, float]:
    """How far the final lead lies from the lead as it stands and from the model's, over the
    rows of side 0 (each position once): RMSE, and the share of variance explained."""
    side0 = slice(0, None, 2)
    side1 = slice(1, None, 2)
    final = now_lead[side0] + change[side0] - change[side1]
    model = now_lead[side0] + x[side0] @ w - x[side1] @ w
    var = float(np.var(final))
    out = {}
    for name, guess in (("standing", now_lead[side0]), ("model", model)):
        err = final - guess
        out[f"rmse_{name}"] = round(float(np.sqrt(np.mean(err ** 2))), 1)
        out[f"explained_{name}"] = round(1.0 - float(np.mean(err ** 2)) / var, 3) if var else 0.0
    out["positions"] = int(final.shape[0])
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m canasta.rl.value", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", type=argtypes.two_sides, default="classic-4p",
                    help="a preset with two sides (default: classic-4p)")
    ap.add_argument("--hands", type=argtypes.positive, default=4000, help="training hands (default: 4000)")
    ap.add_argument("--holdout", type=argtypes.positive, default=1000, help="held-out hands (default: 1000)")
    ap.add_argument("--every", type=argtypes.positive, default=3, help="read every N-th decision (default: 3)")
    ap.add_argument("--ridge", type=float, default=10.0, help="the L2 penalty (default: 10)")
    ap.add_argument("--seed", type=int, default=54)
    ap.add_argument("--out", help="where the weights go (default: runs/value-RULES.json)")
    args = ap.parse_args(argv)
    rules: RuleSet = args.rules
    if args.ridge < 0:
        ap.error(f"--ridge is at least 0, not {args.ridge}")
    started = time.process_time()
    x, now_lead, change = positions(rules, args.hands, args.seed, args.every, "training hands")
    w = fit(x, change, args.ridge)
    data_cpu = time.process_time() - started
    hx, hnow, hchange = positions(rules, args.holdout, args.seed + HOLDOUT_OFFSET, args.every, "held-out hands")
    meta: dict[str, object] = {
        "command": " ".join(["python -m canasta.rl.value", *(argv if argv is not None else sys.argv[1:])]),
        "rules": rules.name, "hands": args.hands, "rows": int(x.shape[0]), "holdout_hands": args.holdout,
        "every": args.every, "ridge": args.ridge, "seed": args.seed, "engine": engine(),
        "cpu_seconds": round(time.process_time() - started, 1), "train_cpu_seconds": round(data_cpu, 1),
        "load": round(os.getloadavg()[0], 2),
        "training": judge(x, now_lead, change, w), "held_out": judge(hx, hnow, hchange, w),
    }
    model = LeafValue(rules.name, [float(v) for v in w], meta)
    out = args.out or f"runs/value-{rules.name}.json"
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write(model.to_json() + "\n")
    held = meta["held_out"]
    assert isinstance(held, dict)
    print(f"{rules.name}: {meta['rows']} rows of {args.hands} hands, {len(FEATURES)} features, "
          f"{meta['cpu_seconds']} s CPU; held out ({held['positions']} positions of {args.holdout} hands): "
          f"final lead's RMSE {held['rmse_standing']} as it stands, {held['rmse_model']} by the model "
          f"(variance explained {held['explained_standing']} -> {held['explained_model']}) -> {out}")


if __name__ == "__main__":
    main()
