"""One environment step decoded: ``python -m canasta.rl.example --rules classic-4p --seed 1``.

An :class:`~canasta.rl.core.ActionTable` is dealt from the seed and played with uniformly
random legal actions (``random.Random(seed)``) up to the first action that is a whole meld
by itself; that step is shown as its action index, the action in words, the engine move it
played, and the features of the observation that changed, for the seat that acted and for the
next seat (which sees only the public part of it).  ``docs/rl.md`` shows the output for one seed
and a test recomputes it, so the example there cannot go stale.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass

from canasta.engine.moves import MoveKind
from canasta.rl.core import ActionTable
from canasta.rl.encoding import action_name

Change = tuple[str, float, float]


@dataclass(frozen=True)
class DecodedStep:
    rules: str
    seed: int
    index: int  # how many actions of the hand came before this one
    seat: int
    action: int
    move: str
    changes: list[Change]  # the acting seat's observation: (feature, before, after)
    other: int
    other_changes: list[Change]  # the next seat's observation

    def lines(self) -> list[str]:
        width = max(len(name) for name, _, _ in self.changes + self.other_changes)

        def table(changes: list[Change]) -> list[str]:
            return [f"  {name:<{width}}  {a:g} -> {b:g}" for name, a, b in changes]

        return [
            f"{self.rules}, reset(seed={self.seed}), random legal actions from random.Random({self.seed});"
            f" action {self.index + 1} of the hand:",
            f"seat {self.seat} plays action {self.action} = {action_name(self.action)}",
            f"the engine move: {self.move}",
            f"seat {self.seat}'s observation (it acted), the features that changed:",
            *table(self.changes),
            f"seat {self.other}'s observation (the next seat), the features that changed:",
            *table(self.other_changes),
        ]

    def __str__(self) -> str:
        return "\n".join(self.lines())


def decoded_step(rules: str = "classic-4p", seed: int = 1, max_actions: int = 10_000) -> DecodedStep:
    """The first one-action meld of the hand dealt by ``reset(seed)`` under random legal actions."""
    table = ActionTable(rules)
    table.reset(seed)
    rng = random.Random(seed)
    names = table.observer.feature_names()
    for index in range(max_actions):
        if table.over:
            break
        seat = table.to_move
        other = (seat + 1) % table.n
        fresh = not table.pending
        before, before_other = table.observe(seat), table.observe(other)
        action = rng.choice(table.legal_actions())
        move = table.step(action)
        if fresh and move is not None and move.kind == MoveKind.MELD:
            after, after_other = table.observe(seat), table.observe(other)
            return DecodedStep(
                rules, seed, index, seat, action, str(move),
                [(names[i], float(before[i]), float(after[i])) for i in range(len(names)) if before[i] != after[i]],
                other,
                [(names[i], float(before_other[i]), float(after_other[i]))
                 for i in range(len(names)) if before_other[i] != after_other[i]])
    raise ValueError(f"no one-action meld in the hand of seed {seed}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m canasta.rl.example", description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="classic-4p", help="a preset (default classic-4p)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print(decoded_step(args.rules, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
