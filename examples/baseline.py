"""The learned baseline's recipe in one command: behaviour cloning and DAgger, then fine-tuning by PPO.

    pip install torch==2.13.0              # the CPU build of torch, first
    pip install -e '.[rl,train]'
    nice python examples/baseline.py --rules classic-4p --out runs/baseline-classic
    python examples/baseline.py --smoke --out runs/baseline-smoke    # seconds: both stages run

1. ``canasta.rl.bc``: ``--hands`` hands of four ``advanced`` bots are recorded (each action of
   their moves with the acting seat's observation and mask) and an MLP (tanh, 256-256) is fitted
   to them (``--epochs``); then ``--dagger`` rounds of DAgger (``--dagger-hands`` hands each: the
   policy plays one side against advanced and random opponents in turn, the advanced player labels
   its decisions, and the MLP is fitted again on everything recorded): ``OUT/bc/RULES.npz``, with
   the run's record ``OUT/bc/RULES.json``.  The defaults (``--hands 12000 --epochs 10 --seed 2
   --dagger 1 --dagger-hands 8000``) make the shipped ``policy:classic-4p``.
2. ``examples/train.py --init OUT/bc/RULES.npz``: MaskablePPO fine-tunes the clone (its partner
   the policy itself, its opponents ``--opponents`` bots, the reward ``win``: +1/-1 for the hand
   plus 0.2 x the score difference in thousands), checkpoints at ``--minutes`` minutes of
   training, each saved as ``OUT/finetune/policy-<m>min.npz`` and measured against random and
   basic over ``--eval-hands`` seeded hands (``OUT/finetune/figures.json``).

Any of the saved policies plays as a bot: ``canasta arena --bots policy:OUT/finetune/policy-20min.npz,random``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _train_script() -> Any:
    spec = importlib.util.spec_from_file_location("canasta_train_example", HERE / "train.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="classic-4p")
    parser.add_argument("--hands", type=int, default=12000, help="hands of advanced bots to clone")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--dagger", type=int, default=1, help="rounds of DAgger after the clone")
    parser.add_argument("--dagger-hands", type=int, default=8000, help="hands a round of DAgger plays")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--minutes", default="10,20", help="fine-tuning checkpoints, minutes of training")
    parser.add_argument("--opponents", default="random,basic")
    parser.add_argument("--lr", type=float, default=3e-5, help="the fine-tuning's learning rate")
    parser.add_argument("--eval-hands", type=int, default=500)
    parser.add_argument("--out", default="runs/baseline")
    parser.add_argument("--smoke", action="store_true", help="seconds: a few hands, a tiny network, a short tuning")
    args = parser.parse_args(argv)

    from canasta.rl import bc

    out = Path(args.out)
    hidden = 256
    if args.smoke:
        args.hands, args.epochs, args.dagger_hands, args.minutes, args.eval_hands, hidden = 3, 1, 2, "0.02", 2, 16
    if bc.main(["--rules", args.rules, "--hands", str(args.hands), "--epochs", str(args.epochs), "--seed",
                str(args.seed), "--hidden", str(hidden), "--dagger", str(args.dagger), "--dagger-hands",
                str(args.dagger_hands), "--out", str(out / "bc")]) != 0:
        return 1
    tune = ["--init", str(out / "bc" / f"{args.rules}.npz"), "--rules", args.rules, "--checkpoints", args.minutes,
            "--opponents", args.opponents, "--reward", "win", "--lr", str(args.lr), "--seed", str(args.seed),
            "--eval-hands", str(args.eval_hands), "--out", str(out / "finetune")]
    if args.smoke:
        tune += ["--envs", "2", "--n-steps", "32"]
    return int(_train_script().main(tune))


if __name__ == "__main__":
    sys.exit(main())
