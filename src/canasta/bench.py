"""The speed benchmark: random players, whole hands, one core."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from canasta.game import Game
from canasta.rules import PRESETS, RuleSet


def random_hand(rules: RuleSet, seed: int, dealer: int, rng: random.Random) -> tuple[Game, int]:
    """Deal a hand and play it out with players choosing uniformly among the
    legal moves; returns the finished game (scored) and the number of decisions."""
    game = Game(rules, seed, dealer=dealer)
    decisions = 0
    choose = game.random_move
    play = game.play_unchecked
    while not game.is_over():
        play(choose(rng))
        decisions += 1
    assert game.result is not None
    return game, decisions


@dataclass
class BenchResult:
    rules: str
    hands: int
    seconds: float
    decisions: int
    runs: list[float]

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.seconds

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds

    @property
    def decisions_per_hand(self) -> float:
        return self.decisions / self.hands

    def as_dict(self) -> dict[str, object]:
        return {
            "rules": self.rules,
            "hands": self.hands,
            "seconds": round(self.seconds, 4),
            "hands_per_s": round(self.hands_per_s, 1),
            "decisions_per_s": round(self.decisions_per_s, 1),
            "decisions_per_hand": round(self.decisions_per_hand, 2),
            "runs_hands_per_s": [round(x, 1) for x in self.runs],
        }


def run_bench(rules: RuleSet, hands: int, seed: int, runs: int = 1) -> BenchResult:
    """Play ``hands`` hands ``runs`` times; report the median run."""
    results = []
    for _ in range(max(1, runs)):
        rng = random.Random(seed)
        decisions = 0
        start = time.perf_counter()
        for i in range(hands):
            _, d = random_hand(rules, seed + i, i % rules.players, rng)
            decisions += d
        results.append((time.perf_counter() - start, decisions))
    rates = [hands / t for t, _ in results]
    med = statistics.median(rates)
    t, d = min(results, key=lambda r: abs(hands / r[0] - med))
    return BenchResult(rules.name, hands, t, d, rates)


#: the presets ``canasta bench --all`` measures, in this order (the README's speed table)
BENCH_ORDER: tuple[str, ...] = tuple(sorted(PRESETS, key=lambda n: (not n.startswith("classic"), n)))

MARKDOWN_HEADER = ("| preset | hands/s | decisions/s | decisions per hand |\n"
                   "|---|---|---|---|")


def markdown_row(res: BenchResult) -> str:
    """One preset's figures as a row of the Markdown table ``bench --markdown`` prints."""
    return f"| {res.rules} | {res.hands_per_s:.0f} | {res.decisions_per_s:.0f} | {res.decisions_per_hand:.1f} |"
