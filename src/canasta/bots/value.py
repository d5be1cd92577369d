"""A learned value of an unfinished hand: what each side's score will have become when it ends.

The expert stops a rollout after ``rollout_depth`` decisions and values the position where it
stands (:func:`canasta.bots.expert.standing`: the score as it would be were the hand to end now,
plus a little for melds on the way to a canasta).  A :class:`LeafValue` adds to each side's
score the change a linear model expects before the hand ends, read from the whole position
(a sampled world: every hand is known there) by :func:`features`: what each side has melded and
holds, the stock and the pile.  The model is fitted on hands the advanced player played (the
rollout player), by least squares, by ``python -m canasta.rl.value`` (numpy there; here, plain
Python), and ships per preset as ``canasta/bots/weights/value-PRESET.json``.

The model sees two sides: a side and its rival (the best other side), so it serves presets with
two sides; others have none shipped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Final

from canasta.engine.cards import CARD_RANK, IS_NATURAL, IS_WILD, NATURAL_RANKS, NUM_CARDS, NUM_RANKS, THREE

if TYPE_CHECKING:
    from canasta.engine.game import Game

#: what :func:`features` reads for one side, in order (for the side, then its rival)
SIDE_FEATURES: Final = (
    "opened", "canastas", "natural canastas", "melds", "cards beyond three in melds",
    "cards held", "points held", "wild cards held", "pairs held", "cards held that fit a meld",
    "laid-out cards", "seats to move before its turn",
)
#: what :func:`features` reads of the table, after the sides'
TABLE_FEATURES: Final = ("stock", "pile", "pile frozen for the side", "pile frozen for the rival")
#: every side's and table feature once, then each again times the share of the stock left
#: (what a holding is worth depends on the turns left to use it), then a constant
FEATURES: Final = tuple(
    [f"side: {n}" for n in SIDE_FEATURES] + [f"rival: {n}" for n in SIDE_FEATURES] + list(TABLE_FEATURES)
    + [f"{p}: {n} x stock" for p in ("side", "rival") for n in SIDE_FEATURES]
    + [f"{n} x stock" for n in TABLE_FEATURES] + ["constant"])

#: where the shipped models lie
WEIGHTS: Final = Path(__file__).resolve().parent / "weights"


def _side(g: Game, side: int, out: list[float]) -> None:
    """The side's features (:data:`SIDE_FEATURES`), appended to ``out``."""
    melds = g.melds[side]
    aside = g.set_aside(side)
    natural_canastas = sum(1 for m in aside if m.is_natural)
    open_melds = 0
    beyond = 0
    fits = [False] * NUM_RANKS
    for m in melds.values():
        if m.rank == THREE:
            continue
        if m.is_canasta:
            natural_canastas += m.is_natural
        else:
            open_melds += 1
            beyond += max(0, m.size - 3)
        if 0 <= m.rank < NUM_RANKS:
            fits[m.rank] = True
    held = points = wilds = pairs = fitting = 0
    laid = 0
    value = g.card_value
    for p in range(g.players):
        if g.side_of[p] != side:
            continue
        laid += len(g.red3[p])
        held += g.hand_sizes[p]
        hand = g.hands[p]
        for c in range(NUM_CARDS):
            k = hand[c]
            if k:
                points += value[c] * k
                if IS_WILD[c]:
                    wilds += k
                elif IS_NATURAL[c] and fits[CARD_RANK[c]]:
                    fitting += k
        rc = g.rank_counts[p]
        pairs += sum(1 for r in NATURAL_RANKS if rc[r] >= 2 and not fits[r])
    # how many seats move before this side's next turn begins
    wait = 0
    seat = g.turn
    while g.side_of[seat] != side and wait < g.players:
        seat = (seat + g.step) % g.players
        wait += 1
    out.extend((float(g.opened[side]), float(g.canasta_counts[side] + len(aside)), float(natural_canastas),
                float(open_melds), float(beyond), float(held), points / 100.0, float(wilds), float(pairs),
                float(fitting), float(laid), float(wait)))


def stock_share(g: Game) -> float:
    """The share of the cards in play still in the stock: how many turns are left to use a holding."""
    total = len(g.stock) + len(g.pile) + sum(g.hand_sizes)
    return len(g.stock) / total if total else 0.0


def features(g: Game, side: int, rival: int) -> list[float]:
    """The position as the model reads it, for ``side`` against ``rival`` (:data:`FEATURES`)."""
    out: list[float] = []
    _side(g, side, out)
    _side(g, rival, out)
    share = stock_share(g)
    out.extend((len(g.stock) / 10.0, len(g.pile) / 10.0, float(g.pile_frozen_for(side)),
                float(g.pile_frozen_for(rival))))
    out.extend([x * share for x in out])
    out.append(1.0)
    return out


class LeafValue:
    """A fitted linear model: each side's expected change of score before the hand ends."""

    def __init__(self, preset: str, weights: Sequence[float], meta: dict[str, object] | None = None) -> None:
        if len(weights) != len(FEATURES):
            raise ValueError(f"a value model has {len(FEATURES)} weights, not {len(weights)}")
        self.preset = preset
        self.weights = [float(w) for w in weights]
        self.meta = dict(meta or {})

    def change(self, g: Game, side: int, rival: int) -> float:
        """The points ``side`` is expected to add to its score before the hand ends."""
        return sum(w * x for w, x in zip(self.weights, features(g, side, rival), strict=True))

    def totals(self, g: Game, now: Sequence[float]) -> list[float]:
        """``now`` (the sides' scores as they stand) with each side's expected change added; a
        finished hand, or rules with other than two sides, unchanged."""
        if g.is_over() or len(now) != 2 or g.rules.cutthroat:
            return list(now)
        return [now[0] + self.change(g, 0, 1), now[1] + self.change(g, 1, 0)]

    def to_json(self) -> str:
        return json.dumps({"preset": self.preset, "features": list(FEATURES), "weights": self.weights,
                           "meta": self.meta}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> LeafValue:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("features") != list(FEATURES):
            raise ValueError("this value model reads other features than this version's")
        return cls(str(data["preset"]), [float(w) for w in data["weights"]], data.get("meta") or {})


@cache
def shipped(preset: str) -> LeafValue | None:
    """The shipped value model of ``preset`` (``canasta/bots/weights/value-PRESET.json``), or
    None where there is none."""
    path = WEIGHTS / f"value-{preset}.json"
    if not path.is_file():
        return None
    return LeafValue.from_json(path.read_text(encoding="utf-8"))
