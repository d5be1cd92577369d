"""A match: hands dealt in turn until a side reaches the target (A.15)."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from canasta.engine.fairdeal import FairDeal
from canasta.engine.game import Game
from canasta.engine.rules import RuleSet
from canasta.engine.scoring import SideScore, match_winner


def hand_seed(match_seed: int, hand_number: int) -> int:
    """The seed of one hand, derived from the match seed (stable everywhere)."""
    digest = hashlib.sha256(f"canasta:{match_seed}:{hand_number}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass
class HandResult:
    """A hand played in a match: how it was dealt and how it ended (its scores)."""

    hand_number: int
    seed: int
    dealer: int
    scores: list[SideScore]
    went_out: int
    end_reason: str
    fair: FairDeal | None = None  # a provably fair deal (the seed is then unused)
    concealed_out: bool = False  # went out concealed (without having melded before)


@dataclass
class Match:
    """Deals hands, keeps cumulative scores (per side; per player in cut-throat)
    and decides the winner.  ``first_dealer`` defaults to a seeded random seat (A.3.0)."""

    rules: RuleSet
    seed: int = 0
    first_dealer: int | None = None
    totals: list[int] = field(default_factory=list)
    hands: list[HandResult] = field(default_factory=list)
    winner: int | None = None  # side (player in cut-throat); -1 for a drawn match
    game: Game | None = None
    fair: FairDeal | None = None  # the current hand's fair deal, if it was dealt so

    def __post_init__(self) -> None:
        if self.first_dealer is None:
            self.first_dealer = random.Random(self.seed).randrange(self.rules.players)
        probe = Game(self.rules, deal=False)
        if not self.totals:
            self.totals = [0] * probe.score_slots

    @property
    def over(self) -> bool:
        return self.winner is not None

    def dealer_of(self, hand_number: int) -> int:
        """The deal passes to the left (clockwise) after each hand (A.1.3)."""
        assert self.first_dealer is not None
        return (self.first_dealer + hand_number - 1) % self.rules.players

    def next_hand(self, fair: FairDeal | None = None) -> Game:
        """Deal the next hand (the previous one must be finished and recorded):
        from the match seed, or from ``fair``, a provably fair deal for this hand."""
        if self.over:
            raise ValueError("the match is over")
        if self.game is not None and not self.game.is_over():
            raise ValueError("the current hand is not over")
        if self.game is not None and len(self.hands) < self.game.hand_number:
            self.record_hand()
        k = len(self.hands) + 1
        if fair is not None:
            if fair.hand_number != k or len(fair.client_seeds) != self.rules.players:
                raise ValueError(f"the fair deal is for hand {fair.hand_number} of {len(fair.client_seeds)} "
                                 f"players, not hand {k} of {self.rules.players}")
            self.game = Game(self.rules, 0, dealer=self.dealer_of(k), scores=self.totals, hand_number=k,
                             stream=fair.stream())
        else:
            self.game = Game(self.rules, hand_seed(self.seed, k), dealer=self.dealer_of(k),
                             scores=self.totals, hand_number=k)
        self.fair = fair
        return self.game

    def record_hand(self) -> HandResult:
        """Add the finished hand's scores to the totals and check for a winner."""
        g = self.game
        if g is None or not g.is_over():
            raise ValueError("no finished hand to record")
        if len(self.hands) >= g.hand_number:
            return self.hands[-1]
        result = g.result
        assert result is not None
        sides = list(result) if self.rules.cutthroat else [result[side] for side in range(len(self.totals))]
        gains = [s.total for s in sides]
        self.totals = [t + d for t, d in zip(self.totals, gains, strict=True)]
        rec = HandResult(g.hand_number, g.seed, g.dealer, result, g.went_out, g.end_reason, self.fair,
                         g.out_concealed)
        self.hands.append(rec)
        self.winner = match_winner(self.rules, self.totals, len(self.hands), sides)
        return rec
