"""Train a Canasta player: sb3-contrib's MaskablePPO on the Gymnasium environment, PyTorch on CPU.

    pip install torch==2.13.0              # the CPU build of torch, first
    pip install -e '.[rl,train]'
    python examples/train.py --minutes 30 --checkpoints 10,30 --out runs/ppo-classic
    python examples/train.py --smoke       # a few seconds: the loop runs, a policy is saved and plays
    python examples/train.py --init classic-4p --reward win --lr 3e-5 ...   # fine-tune a policy

``examples/baseline.py`` runs the learned baseline's whole recipe (behaviour cloning, then this
script's fine-tuning from the clone) in one command.

The learning seat plays classic-4p (``--rules``) with its partner played by the current policy
itself (a numpy copy, refreshed after every update) and its two opponents by ``random`` bots in half of the environments and ``basic`` bots
in the other half (``--opponents``).  ``--init POLICY`` (a policy file or a shipped name) starts
the actor from a saved numpy policy, a behaviour clone say, with the network's sizes taken from
it; the partner plays it from the first step.  The reward is the hand's score difference / 1000 (``--reward win``: +1 or -1
for the hand won or lost, plus 0.2 times that).  At each checkpoint (in
minutes of training, evaluation not counted) the policy is saved as ``policy-<m>min.npz`` (a
numpy network that ``canasta.rl.policy.PolicyBot`` plays, ``policy:PATH``) and measured: hands
won by the policy's side (both seats the policy) against random and against basic bots over
``--eval-hands`` seeded hands.  The figures go to ``figures.json`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

try:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv
except ImportError as exc:  # pragma: no cover - the script says what to install
    raise SystemExit(f"training needs the train extra ({exc}): pip install torch==2.13.0 "
                     "(the CPU build) then pip install -e '.[rl,train]'") from None

from canasta.rl.evaluate import evaluate
from canasta.rl.gymnasium import CanastaEnv
from canasta.rl.policy import NumpyPolicy, export_sb3, load_into_sb3, resolve


class Partner:
    """The learning seat's partner: the policy being trained, as a numpy copy refreshed after
    every update (random legal actions before the first)."""

    def __init__(self, rules: str, seed: int) -> None:
        self.rules = rules
        self.policy: NumpyPolicy | None = None
        self.rng = random.Random(seed)
        self.updates = -1

    def refresh(self, model: Any) -> None:
        self.policy = export_sb3(model, self.rules)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if self.policy is None:
            legal = np.flatnonzero(mask)
            return int(legal[self.rng.randrange(len(legal))])
        return self.policy.act(obs, mask)


class Checkpoints:
    """A callback for ``learn``: stops after the last checkpoint's minutes of training; saves
    and evaluates at each checkpoint."""

    def __init__(self, args: argparse.Namespace, partner: Partner, out: Path) -> None:
        self.model: Any = None
        self.args = args
        self.partner = partner
        self.out = out
        self.marks = sorted(float(x) for x in args.checkpoints.split(",") if x)
        self.trained = 0.0
        self.started = time.perf_counter()
        self.figures: list[dict[str, Any]] = []

    @property
    def num_timesteps(self) -> int:
        return int(self.model.num_timesteps)

    def __call__(self, locals_: dict[str, Any], globals_: dict[str, Any]) -> bool:
        self.model = locals_["self"]
        updates = int(self.model._n_updates)
        if updates != self.partner.updates:  # a new policy since the last refresh
            self.partner.updates = updates
            self.partner.refresh(self.model)
        now = time.perf_counter()
        self.trained += now - self.started
        self.started = now
        while self.marks and self.trained >= self.marks[0] * 60:
            self.checkpoint(self.marks.pop(0))
            self.started = time.perf_counter()  # evaluation is not training time
        return bool(self.marks)

    def checkpoint(self, minutes: float) -> None:
        policy = export_sb3(self.model, self.args.rules, {"minutes": str(minutes), "steps": str(self.num_timesteps)})
        path = self.out / f"policy-{minutes:g}min.npz"
        policy.save(path)
        row: dict[str, Any] = {"minutes": minutes, "steps": self.num_timesteps, "policy": str(path)}
        for opponent in ("random", "basic"):
            row[opponent] = evaluate(policy, self.args.rules, opponent, self.args.eval_hands, seed=self.args.seed + 7)
        self.figures.append(row)
        (self.out / "figures.json").write_text(json.dumps(self.figures, indent=1), encoding="utf-8")
        print(f"{minutes:g} min, {self.num_timesteps} steps: hands won vs random "
              f"{row['random']['won_pct']}%, vs basic {row['basic']['won_pct']}% "
              f"(of {self.args.eval_hands} hands)", flush=True)


class WinRewardEnv(CanastaEnv):
    """The hand won or lost (+1 / -1) plus a fifth of the score difference in thousands: the
    measure is hands won, the score breaks ties and keeps big hands worth more."""

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = super().step(action)
        if terminated and "illegal_action" not in info:
            reward = float(np.sign(reward)) + 0.2 * reward
        return obs, reward, terminated, truncated, info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="classic-4p")
    parser.add_argument("--checkpoints", default="10,30", help="minutes of training at which to save and measure")
    parser.add_argument("--envs", type=int, default=4, help="environments (the opponents taken in turn)")
    parser.add_argument("--opponents", default="random,basic",
                        help="the bots opposing the learning side, one per environment in turn")
    parser.add_argument("--init", help="start the actor from this numpy policy (a file or a shipped name)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="runs/train")
    parser.add_argument("--eval-hands", type=int, default=500)
    parser.add_argument("--n-steps", type=int, default=512, help="steps per environment per update")
    parser.add_argument("--net", default="256,256", help="hidden layer sizes")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--reward", choices=("score", "win"), default="score",
                        help="score: the score difference / 1000; win: +1/-1 for the hand plus 0.2 x that")
    parser.add_argument("--smoke", action="store_true", help="a seconds-long run of the whole loop")
    args = parser.parse_args(argv)
    if args.smoke:
        args.checkpoints = "0.02"
        args.envs = 2
        args.n_steps = 32
        args.eval_hands = 2
        args.net = "16"
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    partner = Partner(args.rules, args.seed)
    init = NumpyPolicy.load(resolve(args.init)) if args.init else None
    if init is not None:
        args.net = ",".join(str(w.shape[0]) for w, _ in init.layers[:-1])
        partner.policy = init
    opponents = [x for x in args.opponents.split(",") if x]

    def make(i: int) -> Any:
        opponent = opponents[i % len(opponents)]
        cls = WinRewardEnv if args.reward == "win" else CanastaEnv
        return lambda: cls(args.rules, seat=None, opponents=[opponent, partner, opponent], reward_scale=1e-3)

    vec = DummyVecEnv([make(i) for i in range(args.envs)])
    vec.seed(args.seed)
    hidden = [int(x) for x in args.net.split(",") if x]
    model = MaskablePPO("MlpPolicy", vec, n_steps=args.n_steps, batch_size=min(256, args.n_steps * args.envs),
                        learning_rate=args.lr, gamma=1.0, seed=args.seed, device="cpu", verbose=0,
                        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}})
    if init is not None:
        load_into_sb3(model, init)
        partner.updates = 0  # the partner plays the initial policy until the first update
    callback = Checkpoints(args, partner, out)
    model.learn(total_timesteps=10**12, callback=callback)
    model.save(out / "model.zip")
    if args.smoke:
        policy = NumpyPolicy.load(out / f"policy-{float(args.checkpoints):g}min.npz")
        print(f"smoke: {model.num_timesteps} steps, policy with {policy.inputs} inputs saved", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
