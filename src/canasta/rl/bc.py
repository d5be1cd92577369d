"""Behaviour cloning of the advanced player: the learned baseline's training script.

``nice python -m canasta.rl.bc --rules classic-4p --hands 1500 --epochs 5 --seed 1`` plays ``hands`` hands
of four ``advanced`` bots, records every action of their moves (the observation of the seat to
act, its legal actions, the action the bot's move is made of), fits an MLP (tanh, 256-256) to
them by masked cross-entropy with torch (one thread), and saves it as a numpy policy
(:mod:`canasta.rl.policy`) with a JSON log of the run.  Why cloning: the advanced bot's
decisions are cheap (about 0.03 s of CPU a hand), so a few minutes give ~100k labelled
decisions, where PPO against bots stayed below basic after 30 minutes (``docs/rl.md``).

``python -m canasta.rl.bc --rules classic-4p --measure random basic`` measures the shipped policy
(1000 hands each, seed 5: what ``docs/strength/rl-bc-classic-4p.jsonl`` records).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from canasta.bots import make_bot
from canasta.rl.core import ActionTable
from canasta.rl.encoding import NUM_ACTIONS
from canasta.rl.policy import NumpyPolicy
from canasta.view import seat_view


def collect(rules: str, hands: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    table = ActionTable(rules)
    bots = [make_bot("advanced", seed=seed * 100 + s) for s in range(table.n)]
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    acts: list[int] = []
    for h in range(hands):
        table.reset(seed * 1_000_003 + h)
        while not table.over:
            s = table.to_move
            move = bots[s].choose(seat_view(table.game, s))
            for a in table.decision.actions_for(move):
                obs.append(table.observe(s))
                masks.append(np.packbits(table.mask(np.bool_)))
                acts.append(a)
                table.step(a)
    return np.stack(obs), np.stack(masks), np.asarray(acts, np.int64)


def fit(obs: np.ndarray, masks: np.ndarray, acts: np.ndarray, seed: int, epochs: int,
        hidden: int) -> tuple[NumpyPolicy, list[float]]:
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(obs.shape[1], hidden), torch.nn.Tanh(),
                              torch.nn.Linear(hidden, hidden), torch.nn.Tanh(),
                              torch.nn.Linear(hidden, NUM_ACTIONS))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x_all = torch.from_numpy(obs)
    y_all = torch.from_numpy(acts)
    rng = np.random.default_rng(seed)
    losses: list[float] = []
    for _ in range(epochs):
        order = rng.permutation(len(acts))
        total = 0.0
        for i in range(0, len(order), 512):
            idx = order[i:i + 512]
            m = torch.from_numpy(np.unpackbits(masks[idx], axis=1, count=NUM_ACTIONS).astype(np.bool_))
            logits = net(x_all[idx]).masked_fill(~m, -1e9)
            loss = torch.nn.functional.cross_entropy(logits, y_all[idx])
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            total += loss.item() * len(idx)
        losses.append(round(total / len(order), 4))
    linears = [mod for mod in net if isinstance(mod, torch.nn.Linear)]
    layers = [(mod.weight.detach().numpy().copy(), mod.bias.detach().numpy().copy()) for mod in linears]
    return NumpyPolicy(layers, "tanh"), losses


def measure(rules: str, opponent: str, hands: int, seed: int = 5) -> dict[str, Any]:
    """The shipped policy's side against ``opponent`` over ``hands`` seeded hands
    (:func:`canasta.rl.evaluate.evaluate`), with a 95% normal interval on the hands won."""
    import math

    from canasta.rl.evaluate import evaluate
    from canasta.rl.policy import WEIGHTS

    policy = NumpyPolicy.load(WEIGHTS / f"{rules}.npz")
    t0 = time.process_time()
    r: dict[str, Any] = dict(evaluate(policy, rules, opponent, hands, seed=seed))
    w = r["won"] / hands
    half = 1.96 * math.sqrt(w * (1 - w) / hands)
    r.update(rules=rules, opponent=opponent, seed=seed, ci95=[round(100 * (w - half), 1), round(100 * (w + half), 1)],
             cpu_seconds=round(time.process_time() - t0, 1))
    return r


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rules", default="classic-4p")
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="src/canasta/rl/weights")
    ap.add_argument("--measure", nargs="*", metavar="OPPONENT",
                    help="measure the shipped policy against these bots (1000 hands each) instead of training")
    args = ap.parse_args(argv)
    if args.measure is not None:
        for opp in args.measure:
            print(json.dumps(measure(args.rules, opp, 1000)), flush=True)
        return 0
    t0 = time.process_time()
    obs, masks, acts = collect(args.rules, args.hands, args.seed)
    t1 = time.process_time()
    policy, losses = fit(obs, masks, acts, args.seed, args.epochs, args.hidden)
    t2 = time.process_time()
    policy.rules = args.rules
    policy.meta = {"trained": "behaviour cloning of advanced", "hands": str(args.hands), "seed": str(args.seed)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    policy.save(out / f"{args.rules}.npz")
    record: dict[str, Any] = {"rules": args.rules, "hands": args.hands, "seed": args.seed, "epochs": args.epochs,
                              "hidden": args.hidden, "decisions": len(acts), "losses": losses,
                              "cpu_seconds_collect": round(t1 - t0, 1), "cpu_seconds_fit": round(t2 - t1, 1)}
    (out / f"{args.rules}.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
