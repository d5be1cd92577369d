"""Measuring a trained policy: its side against bots over seeded hands."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy.typing as npt

from canasta.bots.base import Bot
from canasta.engine.rules import RuleSet
from canasta.rl.core import ActionTable
from canasta.rl.encoding import FloatArray
from canasta.rl.opponents import opponent
from canasta.views.seat import seat_view


def evaluate(policy: Callable[[FloatArray, npt.NDArray[Any]], int], rules: RuleSet | str, opponent_spec: str,
             hands: int, seed: int = 0) -> dict[str, float]:
    """The policy's side (two seats of it in partnership games) against ``opponent`` bots over
    ``hands`` seeded hands (``opponent_spec``: a bot name; ``expert`` searches a fixed number of
    worlds, so the figures repeat), the sides' seats swapped every other hand.  Returns hands won,
    lost and tied, and the mean score difference per hand."""
    table = ActionTable(rules)
    n = table.n
    won = lost = 0
    diff = 0.0
    rng = random.Random(seed)
    for h in range(hands):
        table.reset(seed * 1_000_003 + h)
        side = h % 2  # the policy plays the seats of this side (seat parity)
        mine = {s for s in range(n) if table.game.side_of[s] == table.game.side_of[side]}
        bots: dict[int, Bot] = {s: opponent(opponent_spec, seed=rng.getrandbits(32)) for s in range(n) if s not in mine}
        while not table.over:
            s = table.to_move
            if s in mine:
                table.step(policy(table.observe(s), table.mask()))
            else:
                table.play(bots[s].choose(seat_view(table.game, s)))
        r = table.rewards()[side]
        won += r > 0
        lost += r < 0
        diff += r
    return {"hands": hands, "won": won, "lost": lost, "tied": hands - won - lost,
            "won_pct": round(100 * won / hands, 1) if hands else 0.0,
            "score_diff_per_hand": round(diff / hands, 1) if hands else 0.0}


__all__ = ["evaluate"]
