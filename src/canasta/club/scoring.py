"""Scoring a pairs tournament: matchpoints, victory points, standings.

A board's *result* for a partnership is its side's score minus the other side's at its table
(both sides score in Canasta; the difference is what the partnership made of the cards).

* **Matchpoints**: a partnership's result on a board is compared with the result of every
  partnership that held the same cards (the same direction, north–south or east–west, at every
  other table of the round): 2 for each it beat, 1 for each tie, 0 for each it lost, as bridge
  clubs score.  The board's *top* is ``2 (tables - 1)``; a partnership's tournament score is its
  matchpoints as a percentage of the tops it played for.
* **Victory points**: the two partnerships at a table turn the round's margin (the sum of their
  results over the round's boards) into 20 victory points shared out: the winner gets
  ``10 + 10 min(|margin|, cap) / cap`` rounded to hundredths, the loser the rest, with
  ``cap = VP_CAP_PER_HAND`` points for each board of the round (a blitz at the cap or over).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: the margin, for each board of a round, at which the victory-point scale reaches 20 - 0
VP_CAP_PER_HAND = 1500
SCORINGS = ("matchpoints", "vp")


@dataclass(frozen=True)
class BoardResult:
    """What happened at one table on one board: the partnerships and their sides' hand scores."""

    round: int
    board: int
    table: int
    ns: int
    ew: int
    ns_score: int
    ew_score: int

    @property
    def ns_net(self) -> int:
        """North–south's result: their score minus east–west's."""
        return self.ns_score - self.ew_score

    def net(self, pair: int) -> int:
        """``pair``'s result on this board."""
        return self.ns_net if pair == self.ns else -self.ns_net


def matchpoints(results: Sequence[BoardResult]) -> dict[int, int]:
    """Each partnership's matchpoints on one board (the results of every table that played it)."""
    out: dict[int, int] = {}
    for direction in ("ns", "ew"):
        nets = [(getattr(r, direction), r.net(getattr(r, direction))) for r in results]
        for pair, mine in nets:
            out[pair] = sum(2 if mine > theirs else 1 if mine == theirs else 0
                            for other, theirs in nets if other != pair)
    return out


def top(tables: int) -> int:
    """A board's top: 2 for each other table."""
    return 2 * (tables - 1)


def victory_points(margin: int, boards: int, cap_per_hand: int = VP_CAP_PER_HAND) -> tuple[float, float]:
    """The victory points of a table's two partnerships from the first one's ``margin`` over ``boards``."""
    cap = cap_per_hand * max(1, boards)
    share = round(10 * min(abs(margin), cap) / cap, 2)
    first = 10 + share if margin >= 0 else 10 - share
    return round(first, 2), round(20 - first, 2)


@dataclass(frozen=True)
class Standing:
    """A partnership's line in the standings: its place (None for one that cannot win a prize,
    placed but not ranked), its score (a percentage of matchpoints, or victory points)."""

    place: int | None
    pair: int
    name: str
    score: float
    matchpoints: int
    tops: int
    vp: float
    net: int
    boards: int
    stand_in: bool


__all__ = ["SCORINGS", "VP_CAP_PER_HAND", "BoardResult", "Standing", "matchpoints", "top", "victory_points"]
