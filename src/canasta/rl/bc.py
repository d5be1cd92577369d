"""Behaviour cloning of the advanced player, then DAgger: the learned baseline's training script.

``nice python -m canasta.rl.bc --rules classic-4p --hands 1500 --epochs 5 --seed 1`` plays ``hands`` hands
of four ``advanced`` bots, records every action of their moves (the observation of the seat to
act, its legal actions, the action the bot's move is made of), fits an MLP (tanh, 256-256) to
them by masked cross-entropy with torch (one thread), and saves it as a numpy policy
(:mod:`canasta.rl.policy`) with a JSON log of the run.  Why cloning: the advanced bot's
decisions are cheap (about 0.03 s of CPU a hand), so a few minutes give ~100k labelled
decisions, where PPO against bots stayed below basic after 30 minutes (``docs/rl.md``).

``--dagger N`` adds N rounds of DAgger (dataset aggregation): in ``--dagger-hands`` hands one side
is the policy fitted last, its opponents ``--dagger-opponents`` bots in turn; each of its moves is
its own with probability ``--dagger-share``, else the advanced player's, and the advanced player,
seeing what that seat sees, labels every one of its decisions.  The policy is then fitted again,
from the start, on all the decisions recorded so far.  A clone learns the advanced player's moves
in positions of advanced players; DAgger teaches it the moves in the positions its own play and
other opponents lead to (with random opponents among them: what the baseline is measured against).

``python -m canasta.rl.bc --rules classic-4p --measure random basic`` measures the shipped policy
(1000 hands each, seed 5: what ``docs/strength/rl-bc-classic-4p.jsonl`` records).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from canasta.bots import BotSpecError, make_bot
from canasta.engine.moves import Move
from canasta.rl.core import ActionTable
from canasta.rl.encoding import NUM_ACTIONS
from canasta.rl.policy import NumpyPolicy
from canasta.views.seat import seat_view

Decisions = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Recorded decisions: observations, legal actions (bit-packed masks), the actions chosen."""
_Recording = tuple[list[np.ndarray], list[np.ndarray], list[int]]


def _stacked(out: _Recording) -> Decisions:
    return np.stack(out[0]), np.stack(out[1]), np.asarray(out[2], np.int64)


def _record(table: ActionTable, seat: int, move: Move, out: _Recording) -> None:
    """Append the decisions of ``move`` (of ``seat``, to move in ``table``) to ``out``; the table is
    stepped through the move's actions."""
    obs, masks, acts = out
    for a in table.decision.actions_for(move):
        obs.append(table.observe(seat))
        masks.append(np.packbits(table.mask(np.bool_)))
        acts.append(a)
        table.step(a)


def collect(rules: str, hands: int, seed: int) -> Decisions:
    """The decisions of ``hands`` hands of four advanced players."""
    table = ActionTable(rules)
    bots = [make_bot("advanced", seed=seed * 100 + s) for s in range(table.n)]
    out: _Recording = ([], [], [])
    for h in range(hands):
        table.reset(seed * 1_000_003 + h)
        while not table.over:
            s = table.to_move
            _record(table, s, bots[s].choose(seat_view(table.game, s)), out)
    return _stacked(out)


def collect_dagger(rules: str, policy: NumpyPolicy, hands: int, seed: int, share: float,
                   opponents: list[str]) -> Decisions:
    """One round of DAgger: ``hands`` hands in which one side (seat 0's, then seat 1's, in turn)
    plays each move by ``policy`` with probability ``share``, else by the advanced
    player, against ``opponents`` bots (one name per pair of hands, in turn); every decision of
    that side is labelled with the advanced player's choice from the seat's view."""
    table = ActionTable(rules)
    rng = random.Random(seed)
    out: _Recording = ([], [], [])
    for h in range(hands):
        table.reset(seed * 1_000_003 + h)
        side_of = table.game.side_of
        name = opponents[(h // 2) % len(opponents)]
        teachers = [make_bot("advanced", seed=rng.getrandbits(32)) for _ in range(table.n)]
        others = {s: make_bot(name, seed=rng.getrandbits(32)) for s in range(table.n) if side_of[s] != side_of[h % 2]}
        while not table.over:
            s = table.to_move
            view = seat_view(table.game, s)
            if s in others:
                table.play(others[s].choose(view))
                continue
            label = teachers[s].choose(view)
            _record(table.copy(), s, label, out)
            if rng.random() < share:  # the policy's own move, action by action
                while table.step(policy.act(table.observe(s), table.mask(np.bool_))) is None:
                    pass
            else:
                table.play(label)
    return _stacked(out)


def fit_epochs(net: Any, opt: Any, obs: np.ndarray, masks: np.ndarray, acts: np.ndarray,
               rng: np.random.Generator, epochs: int, batch: int,
               after_epoch: Callable[[], None] | None = None) -> list[float]:
    """``epochs`` passes of masked cross-entropy over the decisions (shuffled by ``rng``, in
    batches of ``batch``), fitting the torch network ``net`` with ``opt``; each pass's mean loss."""
    import torch

    x_all = torch.from_numpy(obs)
    y_all = torch.from_numpy(acts)
    losses: list[float] = []
    for _ in range(epochs):
        order = rng.permutation(len(acts))
        total = 0.0
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            m = torch.from_numpy(np.unpackbits(masks[idx], axis=1, count=NUM_ACTIONS).astype(np.bool_))
            logits = net(x_all[idx]).masked_fill(~m, -1e9)
            loss = torch.nn.functional.cross_entropy(logits, y_all[idx])
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            total += loss.item() * len(idx)
        losses.append(round(total / max(1, len(order)), 4))
        if after_epoch is not None:
            after_epoch()
    return losses


def fit(obs: np.ndarray, masks: np.ndarray, acts: np.ndarray, seed: int, epochs: int,
        hidden: int) -> tuple[NumpyPolicy, list[float]]:
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(obs.shape[1], hidden), torch.nn.Tanh(),
                              torch.nn.Linear(hidden, hidden), torch.nn.Tanh(),
                              torch.nn.Linear(hidden, NUM_ACTIONS))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    losses = fit_epochs(net, opt, obs, masks, acts, np.random.default_rng(seed), epochs, 512)
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
    ap.add_argument("--dagger", type=int, default=0, metavar="ROUNDS", help="rounds of DAgger after the clone")
    ap.add_argument("--dagger-hands", type=int, default=8000, help="hands a round of DAgger plays")
    ap.add_argument("--dagger-share", type=float, default=0.7,
                    help="the share of the learning side's moves the policy plays (the rest the advanced player's)")
    ap.add_argument("--dagger-opponents", default="advanced,random", help="the learning side's opponents, in turn")
    ap.add_argument("--out", default="src/canasta/rl/weights")
    ap.add_argument("--measure", nargs="*", metavar="OPPONENT",
                    help="measure the shipped policy against these bots (1000 hands each) instead of training")
    args = ap.parse_args(argv)
    if args.measure is not None:
        for opp in args.measure:
            print(json.dumps(measure(args.rules, opp, 1000)), flush=True)
        return 0
    opponents = [name.strip() for name in args.dagger_opponents.split(",") if name.strip()]
    if args.dagger < 0 or not 0.0 <= args.dagger_share <= 1.0 or not opponents:
        ap.error("--dagger needs a number of rounds >= 0, --dagger-share a share from 0 to 1 and "
                 "--dagger-opponents at least one bot")
    for name in opponents:  # an unknown name is refused here, before any hand is played
        try:
            make_bot(name)
        except BotSpecError as exc:
            ap.error(f"--dagger-opponents: {exc}")
    t0 = time.process_time()
    data = [collect(args.rules, args.hands, args.seed)]
    t1 = time.process_time()
    policy, losses = fit(*data[0], args.seed, args.epochs, args.hidden)
    t2 = time.process_time()
    record: dict[str, Any] = {"rules": args.rules, "hands": args.hands, "seed": args.seed, "epochs": args.epochs,
                              "hidden": args.hidden, "decisions": len(data[0][2]), "losses": losses,
                              "cpu_seconds_collect": round(t1 - t0, 1), "cpu_seconds_fit": round(t2 - t1, 1)}
    rounds: list[dict[str, Any]] = []
    for r in range(1, args.dagger + 1):  # round r plays from the seed + r
        t0 = time.process_time()
        data.append(collect_dagger(args.rules, policy, args.dagger_hands, args.seed + r, args.dagger_share,
                                   opponents))
        t1 = time.process_time()
        obs, masks, acts = (np.concatenate(part) for part in zip(*data, strict=True))
        policy, losses = fit(obs, masks, acts, args.seed, args.epochs, args.hidden)
        rounds.append({"round": r, "hands": args.dagger_hands, "share": args.dagger_share, "opponents": opponents,
                       "decisions": len(data[-1][2]), "losses": losses,
                       "cpu_seconds_collect": round(t1 - t0, 1),
                       "cpu_seconds_fit": round(time.process_time() - t1, 1)})
    if rounds:
        record["dagger"] = rounds
    policy.rules = args.rules
    policy.meta = {"trained": "behaviour cloning of advanced" + (f", {args.dagger} rounds of DAgger" if rounds else ""),
                   "hands": str(args.hands), "seed": str(args.seed)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    policy.save(out / f"{args.rules}.npz")
    (out / f"{args.rules}.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
