"""How much more of a hand's end could the leaf value foresee?  For docs/bots.md ("A learned leaf value").

    .venv/bin/python docs/strength/value_probe.py classic-4p --hands 4000 --holdout 1000 --seed 54

reads the same positions as the training command (``python -m canasta.rl.value``: advanced
players' hands, every third decision, the held-out hands from ``seed + 10,000``) and fits four
guesses of the final lead, each judged on the held-out hands (root mean square error, and the
share of the final lead's variance explained):

* the lead as it stands (what the expert's rollouts were valued by before the model);
* the shipped model's form: ridge regression on :data:`canasta.bots.value.FEATURES`;
* the same with twelve more figures a side (:func:`extra`: the fewest cards one of its players
  holds, black threes held, whether it can take the pile and how big it is, melded points, melds
  of five and of six cards, wild cards in its melds, whether it has the canastas to go out and
  with how few cards, what it still needs to open), each again times the stock's share;
* a small neural network (one hidden layer of 48, numpy, Adam, ``--epochs`` passes, seeded) on
  the shipped model's figures: what a nonlinear model of the same figures adds.

``--record FILE`` appends the figures as one JSON line with the command, engine and load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

from canasta.bots.value import FEATURES, features, stock_share
from canasta.engine.cards import CARD_RANK, IS_BLACK_THREE, IS_NATURAL, NUM_CARDS, THREE
from canasta.engine.game import Game
from canasta.engine.native import engine
from canasta.engine.rules import RuleSet
from canasta.rl.value import HOLDOUT_OFFSET, fit, judge, positions

EXTRA = ("fewest cards one player holds", "black threes held", "can take the pile", "can take x pile size",
         "melded points", "melds of five", "melds of six", "wild cards in melds", "canastas to go out",
         "canastas to go out and at most 3 cards", "canastas to go out / fewest cards", "still needs to open")


def extra(g: Game, side: int) -> list[float]:
    """The twelve more figures of ``side`` (:data:`EXTRA`)."""
    fewest = 99
    black = 0
    top = g.pile[-1] if g.pile else -1
    can_take = 0
    for p in range(g.players):
        if g.side_of[p] != side:
            continue
        fewest = min(fewest, g.hand_sizes[p])
        black += sum(g.hands[p][c] for c in range(NUM_CARDS) if IS_BLACK_THREE[c])
        if top >= 0 and IS_NATURAL[top] and g.rank_counts[p][CARD_RANK[top]] >= 2:
            can_take = 1
    melded = fives = sixes = wilds = 0
    for m in g.melds[side].values():
        if m.rank == THREE:
            continue
        melded += m.points
        if not m.is_canasta:
            fives += m.size == 5
            sixes += m.size == 6
        wilds += m.deuces + m.jokers
    enough = float(g.canasta_counts[side] + len(g.set_aside(side)) >= g.rules.canastas_to_go_out)
    seat = next(p for p in range(g.players) if g.side_of[p] == side)
    need = 0.0 if g.opened[side] else g.minimum(seat) / 100.0
    return [float(fewest), float(black), float(can_take), can_take * len(g.pile) / 10.0, melded / 100.0,
            float(fives), float(sixes), float(wilds), enough, enough * (fewest <= 3), enough / max(1, fewest), need]


def wider(g: Game, side: int, rival: int) -> list[float]:
    """The shipped figures (less the constant), the extra ones of both sides and those times the
    stock's share, then the constant."""
    more = extra(g, side) + extra(g, rival)
    share = stock_share(g)
    return features(g, side, rival)[:-1] + more + [x * share for x in more] + [1.0]


def network(x: Any, y: Any, epochs: int, seed: int, hidden: int = 48, lr: float = 1e-3) -> Any:
    """A one-hidden-layer network fitted to ``y`` (the change of the side's score); returns its
    prediction function."""
    rng = np.random.default_rng(seed)
    mu, sd = x.mean(0), x.std(0) + 1e-6
    mu[-1], sd[-1] = 0.0, 1.0  # the constant
    scale = float(y.std()) or 1.0
    xs, ys = (x - mu) / sd, y / scale
    params = [rng.normal(0, 1 / np.sqrt(xs.shape[1]), (xs.shape[1], hidden)), np.zeros(hidden),
              rng.normal(0, 1 / np.sqrt(hidden), hidden), np.zeros(1)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = 0
    for _ in range(epochs):
        order = rng.permutation(xs.shape[0])
        for i in range(0, xs.shape[0], 512):
            rows = order[i:i + 512]
            xb, yb = xs[rows], ys[rows]
            z = xb @ params[0] + params[1]
            a = np.maximum(z, 0.0)
            d = (a @ params[2] + params[3][0] - yb) / len(rows)
            da = np.outer(d, params[2]) * (z > 0)
            grads = [xb.T @ da, da.sum(0), a.T @ d, np.array([d.sum()])]
            t += 1
            for k, grad in enumerate(grads):
                m[k] = 0.9 * m[k] + 0.1 * grad
                v[k] = 0.999 * v[k] + 0.001 * grad * grad
                params[k] -= lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)

    def predict(q: Any) -> Any:
        return (np.maximum(((q - mu) / sd) @ params[0] + params[1], 0.0) @ params[2] + params[3][0]) * scale

    return predict


def held_out(x: Any, now: Any, change: Any, predict: Any) -> dict[str, float]:
    """:func:`canasta.rl.value.judge` of any prediction: its figures for the model."""
    # judge reads a linear model's weights: give it the prediction as the one weight of a column
    figures = judge(predict(x)[:, None], now, change, np.ones(1))
    return {"rmse": figures["rmse_model"], "explained": figures["explained_model"]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("preset")
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--holdout", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=54)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--record", help="append the figures to this JSON-lines file")
    args = ap.parse_args(argv)
    rules = RuleSet.preset(args.preset)
    started = time.process_time()
    x, _, change = positions(rules, args.hands, args.seed, 3, "training hands", wider)
    hx, hnow, hchange = positions(rules, args.holdout, args.seed + HOLDOUT_OFFSET, 3, "held-out hands", wider)
    shipped = [*range(len(FEATURES) - 1), x.shape[1] - 1]  # the shipped figures and the constant
    standing = judge(hx[:, :1], hnow, hchange, np.zeros(1))
    w = fit(x[:, shipped], change, 10.0)
    wide = fit(x, change, 10.0)
    guesses = {
        "as it stands": {"rmse": standing["rmse_standing"], "explained": standing["explained_standing"]},
        "linear, the shipped figures": held_out(hx[:, shipped], hnow, hchange, lambda q: q @ w),
        f"linear, {2 * len(EXTRA)} more figures (and x stock)": held_out(hx, hnow, hchange, lambda q: q @ wide),
        f"network 48, the shipped figures, {args.epochs} epochs": held_out(
            hx[:, shipped], hnow, hchange, network(x[:, shipped], change, args.epochs, args.seed)),
    }
    line = {"command": " ".join(["docs/strength/value_probe.py", *(argv if argv is not None else sys.argv[1:])]),
            "preset": args.preset, "rows": int(x.shape[0]), "held_out_positions": standing["positions"],
            "engine": engine(), "cpu_seconds": round(time.process_time() - started, 1),
            "load": round(os.getloadavg()[0], 2), "held_out": guesses}
    print(f"{args.preset}: {line['rows']} rows; held out, {standing['positions']} positions "
          f"({line['cpu_seconds']} s CPU, engine {line['engine']}, load {line['load']}):")
    for name, figures in guesses.items():
        print(f"  {name}: final lead's RMSE {figures['rmse']}, variance explained {figures['explained']}")
    if args.record:
        with open(args.record, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
