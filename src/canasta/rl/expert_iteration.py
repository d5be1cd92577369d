"""Expert iteration, first generation (issue 54): a policy network learns the expert's decisions.

``nice -n 15 python -m canasta.rl.expert_iteration --rules classic-4p --hands 40 --worlds 30 --seed 54``

**Data.**  Seeded self-play hands in which every seat's move is the learner's own with
probability ``--share`` (the policy fitted last; in round 1 the ``--start`` policy, by default the
shipped clone of the advanced player), else the expert's; the expert (``ExpertBot`` with
``--worlds`` sampled worlds a decision and no clock, so the labels do not depend on the
machine's load), seeing what that seat sees, labels every decision of every seat.  So the
positions are the ones the learner's own play leads to, and the labels the expert's choice there:
DAgger with the expert as the teacher.  Each label is recorded as the actions its move is made of
(:mod:`canasta.rl.actions`), with the observation (:class:`~canasta.rl.encoding.Observer`) and the
legal actions before each.

**Training.**  The policy (an MLP, tanh; the ``--start`` policy's shape, or ``--hidden`` units
twice from scratch with ``--start none``) is fitted by masked cross-entropy with torch, one
thread, a fixed seed: the same data and seed give the same weights.  Round ``r`` plays from
``seed + r`` and fits again, from the start policy, on every round's data.  The weights are saved
as a numpy policy (:mod:`canasta.rl.policy`: playing needs numpy alone) with a JSON record of the
run: sizes, CPU seconds, losses, and the agreement with the expert on held-out hands
(``--holdout`` hands from other seeds) of the start policy and of the trained one.

The expert uses such a policy for its rollouts with ``ExpertBot(rollout="policy:PATH")``
(:mod:`canasta.rl.rollout`); the recipe and what it gained are in ``docs/bots.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from canasta.bots.base import Budget
from canasta.bots.expert import ExpertBot
from canasta.bots.heuristic import AdvancedBot
from canasta.engine.moves import Move
from canasta.rl.bc import Decisions, _record, _Recording, _stacked, fit_epochs
from canasta.rl.core import ActionTable
from canasta.rl.encoding import NUM_ACTIONS
from canasta.rl.policy import NumpyPolicy, resolve
from canasta.views.seat import seat_view

#: hand seeds of a run: ``seed * HAND_SEEDS + h`` (the held-out hands: from ``seed + HOLDOUT_OFFSET``)
HAND_SEEDS = 1_000_033
HOLDOUT_OFFSET = 10_000


@dataclass
class Generated:
    """A round's data and what was counted while it was played."""

    data: Decisions
    hands: int
    moves: int  # moves labelled (a move is one or more actions)
    expert_left_guide: int  # of them, moves where the expert did not play the advanced player's move
    learner_agreed: int  # of them, moves where the learner's own choice was the expert's
    cpu_seconds: float


def _progress(total: int, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="hand", leave=False)


def _policy_move(table: ActionTable, seat: int, policy: NumpyPolicy) -> Move:
    """The policy's move for ``seat`` (to move in ``table``), built on a copy of the table."""
    t = table.copy()
    while True:
        move = t.step(policy.act(t.observe(seat), t.mask(np.bool_)))
        if move is not None:
            return move


def generate(rules: str, policy: NumpyPolicy, hands: int, seed: int, share: float, worlds: int,
             expert_rollout: str = "advanced", progress: bool = False) -> Generated:
    """``hands`` seeded self-play hands; each move the learner's (``policy``) with probability
    ``share``, else the expert's, and every decision labelled by the expert (``worlds`` worlds)."""
    t0 = time.process_time()
    table = ActionTable(rules)
    rng = random.Random(seed)
    out: _Recording = ([], [], [])
    moves = left = agreed = 0
    bar = _progress(hands, f"expert labels, seed {seed}") if progress else None
    for h in range(hands):
        table.reset(seed * HAND_SEEDS + h)
        experts = [ExpertBot(rng.getrandbits(32), Budget(iterations=worlds), rollout=expert_rollout)
                   for _ in range(table.n)]
        guides = [AdvancedBot(rng.getrandbits(32)) for _ in range(table.n)]
        while not table.over:
            s = table.to_move
            view = seat_view(table.game, s)
            label = experts[s].choose(view)
            moves += 1
            left += not _same(table, guides[s].choose(view), label)
            own = _policy_move(table, s, policy)
            agreed += _same(table, own, label)
            _record(table.copy(), s, label, out)
            table.play(own if rng.random() < share else label)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return Generated(_stacked(out), hands, moves, left, agreed, round(time.process_time() - t0, 1))


def _same(table: ActionTable, a: Move, b: Move) -> bool:
    """Whether two moves of the seat to move are the same choice (the same actions: suits aside)."""
    d = table.decision
    return bool(d.actions_for(a) == d.actions_for(b))


@dataclass
class Fitted:
    policy: NumpyPolicy
    losses: list[float]
    net: Any  # the torch module it was read from


def fit(obs: np.ndarray, masks: np.ndarray, acts: np.ndarray, seed: int, epochs: int, hidden: int = 64,
        start: NumpyPolicy | None = None, lr: float = 3e-4, progress: bool = False) -> Fitted:
    """An MLP fitted to the decisions by masked cross-entropy (torch, one thread, seeded);
    from ``start``'s weights when given, else from scratch with two tanh layers of ``hidden``."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    sizes = ([w.shape[1] for w, _ in start.layers] + [NUM_ACTIONS]) if start is not None else \
        [obs.shape[1], hidden, hidden, NUM_ACTIONS]
    mods: list[Any] = []
    for i in range(len(sizes) - 1):
        mods.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            mods.append(torch.nn.Tanh())
    net = torch.nn.Sequential(*mods)
    if start is not None:
        if start.activation != "tanh" or start.inputs != obs.shape[1]:
            raise ValueError("the start policy must be a tanh network over these observations")
        with torch.no_grad():
            for mod, (w, b) in zip([m for m in net if isinstance(m, torch.nn.Linear)], start.layers, strict=True):
                mod.weight.copy_(torch.from_numpy(w))
                mod.bias.copy_(torch.from_numpy(b))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=epochs, desc="fitting", unit="epoch", leave=False)
    losses = fit_epochs(net, opt, obs, masks, acts, np.random.default_rng(seed), epochs, 256,
                        None if bar is None else lambda: bar.update(1))
    if bar is not None:
        bar.close()
    layers = [(mod.weight.detach().numpy().copy(), mod.bias.detach().numpy().copy())
              for mod in net if isinstance(mod, torch.nn.Linear)]
    return Fitted(NumpyPolicy(layers, "tanh"), losses, net)


def agreement(policy: NumpyPolicy, data: Decisions) -> float:
    """The share of recorded decisions (actions) where ``policy`` picks the recorded action."""
    obs, masks, acts = data
    if len(acts) == 0:
        return 0.0
    hits = 0
    for x, m, a in zip(obs, masks, acts, strict=True):
        hits += policy.act(x, np.unpackbits(m, count=NUM_ACTIONS)) == a
    return hits / len(acts)


def decision_ms(policy: NumpyPolicy, data: Decisions, repeat: int = 1) -> float:
    """Mean wall milliseconds of ``policy.act`` over the recorded decisions (actions)."""
    obs, masks, _ = data
    unpacked = [np.unpackbits(m, count=NUM_ACTIONS) for m in masks]
    t0 = time.perf_counter()
    for _ in range(repeat):
        for x, m in zip(obs, unpacked, strict=True):
            policy.act(x, m)
    return 1000 * (time.perf_counter() - t0) / max(1, repeat * len(obs))


def _concat(parts: list[Decisions]) -> Decisions:
    obs, masks, acts = (np.concatenate(p) for p in zip(*parts, strict=True))
    return obs, masks, acts


def _gen_record(g: Generated, share: float, seed: int) -> dict[str, Any]:
    return {"seed": seed, "hands": g.hands, "share": share, "moves": g.moves, "actions": len(g.data[2]),
            "expert_left_advanced_pct": round(100 * g.expert_left_guide / max(1, g.moves), 1),
            "learner_agreed_moves_pct": round(100 * g.learner_agreed / max(1, g.moves), 1),
            "cpu_seconds": g.cpu_seconds}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="classic-4p")
    ap.add_argument("--hands", type=int, default=40, help="self-play hands a round plays")
    ap.add_argument("--holdout", type=int, default=8, help="held-out hands to measure the agreement on")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of data and fitting")
    ap.add_argument("--share", type=float, default=0.5, help="the share of moves the learner plays itself")
    ap.add_argument("--worlds", type=int, default=30, help="the expert's sampled worlds a decision")
    ap.add_argument("--expert-rollout", default="advanced", help="the labelling expert's rollouts")
    ap.add_argument("--start", default="", help="the policy to start from (default: the shipped one of "
                                               "the rules; 'none': from scratch)")
    ap.add_argument("--hidden", type=int, default=64, help="units of each hidden layer, from scratch")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--seed", type=int, default=54)
    ap.add_argument("--out", default="runs/expert-iteration", help="the folder for the weights and the record")
    ap.add_argument("--name", default="", help="the files' name (default: RULES-gen1)")
    args = ap.parse_args(argv)
    if min(args.hands, args.rounds, args.worlds, args.epochs, args.hidden) < 1 or args.holdout < 0 \
            or not 0.0 <= args.share <= 1.0 or args.lr <= 0:
        ap.error("--hands, --rounds, --worlds, --epochs and --hidden must be whole numbers from 1, "
                 "--holdout from 0, --share from 0 to 1 and --lr above 0")
    if args.expert_rollout != "advanced" and not args.expert_rollout.startswith("policy"):
        ap.error("--expert-rollout: choose advanced, policy or policy:PATH")
    start_name = args.start or args.rules
    try:
        start = None if start_name == "none" else NumpyPolicy.load(resolve(start_name))
    except ValueError as exc:
        ap.error(f"--start: {exc}")
    opener = start
    if opener is None:  # from scratch: round 1's learner is an untrained network of that shape
        from canasta.engine.rules import RuleSet
        from canasta.rl.encoding import Observer

        opener = fit(np.zeros((0, Observer(RuleSet.preset(args.rules)).size), np.float32),
                     np.zeros((0, (NUM_ACTIONS + 7) // 8), np.uint8), np.zeros(0, np.int64),
                     args.seed, 1, args.hidden).policy
    record: dict[str, Any] = {"rules": args.rules, "seed": args.seed, "worlds": args.worlds,
                              "expert_rollout": args.expert_rollout, "start": start_name, "epochs": args.epochs,
                              "lr": args.lr, "hidden": None if start is not None else args.hidden, "rounds": []}
    held = generate(args.rules, opener, args.holdout, args.seed + HOLDOUT_OFFSET, args.share, args.worlds,
                    args.expert_rollout, progress=True) if args.holdout else None
    if held is not None:
        record["holdout"] = _gen_record(held, args.share, args.seed + HOLDOUT_OFFSET)
        record["holdout"]["start_agreement_pct"] = round(100 * agreement(opener, held.data), 1)
    data: list[Decisions] = []
    policy = opener
    for r in range(1, args.rounds + 1):
        got = generate(args.rules, policy, args.hands, args.seed + r, args.share, args.worlds,
                       args.expert_rollout, progress=True)
        data.append(got.data)
        t0 = time.process_time()
        fitted = fit(*_concat(data), args.seed, args.epochs, args.hidden, start, args.lr, progress=True)
        policy = fitted.policy
        row = _gen_record(got, args.share, args.seed + r)
        row.update(losses=fitted.losses, fit_cpu_seconds=round(time.process_time() - t0, 1))
        if held is not None:
            row["holdout_agreement_pct"] = round(100 * agreement(policy, held.data), 1)
            row["policy_ms_per_action"] = round(decision_ms(policy, held.data), 3)
        record["rounds"].append(row)
        print(json.dumps(row), flush=True)
    policy.rules = args.rules
    policy.meta = {"trained": f"expert iteration: {args.rounds} round(s) of expert labels ({args.worlds} worlds)",
                   "hands": str(args.hands), "seed": str(args.seed), "start": start_name}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = args.name or f"{args.rules}-gen1"
    policy.save(out / f"{name}.npz")
    (out / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out / (name + '.npz')} and {out / (name + '.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
