"""The speed benchmark: random players, whole hands, one core.

Each run is timed twice: wall time (``time.perf_counter``) and the CPU time of the
process (``time.process_time``), which other work on a shared machine disturbs less.
:func:`compare_pure` plays the same hands in two child processes, one with the engine
as installed (compiled) and one with the pure-Python modules of the same install,
alternating them round by round.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

from canasta.engine.errors import CanastaError
from canasta.engine.game import Game
from canasta.engine.native import engine
from canasta.engine.rules import FAMILY_OPTIONS, PRESETS, RuleSet


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
    #: the CPU time (process time) of the reported run
    cpu_seconds: float = 0.0
    #: which engine played: "compiled" or "pure" (canasta.engine.native.engine)
    engine: str = "pure"

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.seconds

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds

    @property
    def decisions_per_hand(self) -> float:
        return self.decisions / self.hands

    @property
    def ms_per_hand(self) -> float:
        """Wall time per hand, in milliseconds."""
        return 1000 * self.seconds / self.hands

    @property
    def cpu_ms_per_hand(self) -> float:
        """CPU time per hand, in milliseconds."""
        return 1000 * self.cpu_seconds / self.hands

    @property
    def hands_per_cpu_s(self) -> float:
        return self.hands / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "rules": self.rules,
            "engine": self.engine,
            "hands": self.hands,
            "seconds": round(self.seconds, 4),
            "cpu_seconds": round(self.cpu_seconds, 4),
            "ms_per_hand": round(self.ms_per_hand, 4),
            "cpu_ms_per_hand": round(self.cpu_ms_per_hand, 4),
            "hands_per_cpu_s": round(self.hands_per_cpu_s, 1),
            "decisions": self.decisions,
            "hands_per_s": round(self.hands_per_s, 1),
            "decisions_per_s": round(self.decisions_per_s, 1),
            "decisions_per_hand": round(self.decisions_per_hand, 2),
            "runs_hands_per_s": [round(x, 1) for x in self.runs],
        }


def run_bench(rules: RuleSet, hands: int, seed: int, runs: int = 1) -> BenchResult:
    """Play ``hands`` hands ``runs`` times; report the median run."""
    results: list[tuple[float, float, int]] = []
    for _ in range(max(1, runs)):
        rng = random.Random(seed)
        decisions = 0
        start = time.perf_counter()
        cpu_start = time.process_time()
        for i in range(hands):
            _, d = random_hand(rules, seed + i, i % rules.players, rng)
            decisions += d
        results.append((time.perf_counter() - start, time.process_time() - cpu_start, decisions))
    rates = [hands / t for t, _, _ in results]
    med = statistics.median(rates)
    t, cpu, d = min(results, key=lambda r: abs(hands / r[0] - med))
    return BenchResult(rules.name, hands, t, d, rates, cpu, engine())


def _bench_order() -> tuple[str, ...]:
    """The presets family by family, in the order the families were registered, each family's by name."""
    families = list(FAMILY_OPTIONS)
    return tuple(sorted(PRESETS, key=lambda n: (families.index(PRESETS[n].family), n)))


#: the presets ``canasta bench --all`` measures, in this order (the README's speed table)
BENCH_ORDER: tuple[str, ...] = _bench_order()

MARKDOWN_HEADER = ("| preset | hands/s | decisions/s | decisions per hand |\n"
                   "|---|---|---|---|")


def markdown_row(res: BenchResult) -> str:
    """One preset's figures as a row of the Markdown table ``bench --markdown`` prints."""
    return f"| {res.rules} | {res.hands_per_s:.0f} | {res.decisions_per_s:.0f} | {res.decisions_per_hand:.1f} |"


#: what a child of :func:`compare_pure` runs: ``{pure}`` is replaced by True or False.
#: With True, an import hook placed first finds the ``canasta`` modules from their
#: ``.py`` sources only, so the extension modules beside them are never loaded.
_CHILD = """
import sys
if {pure}:
    from importlib.machinery import SOURCE_SUFFIXES, FileFinder, SourceFileLoader

    class PureCanasta:
        def find_spec(self, name, path=None, target=None):
            if name != "canasta" and not name.startswith("canasta."):
                return None
            for entry in (sys.path if path is None else path):
                spec = FileFinder(entry or ".", (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(name, target)
                if spec is not None:
                    return spec
            return None

    sys.meta_path.insert(0, PureCanasta())
import json
from canasta.tools.bench import run_bench
from canasta.engine.rules import RuleSet
rules, hands, seed = json.loads(sys.argv[1])
print(json.dumps(run_bench(RuleSet.preset(rules), hands, seed).as_dict()))
"""


@dataclass
class Comparison:
    """Pure against compiled on the same hands: one result per engine and round."""

    rules: str
    hands: int
    pure: list[BenchResult]
    compiled: list[BenchResult]

    @property
    def pure_rate(self) -> float:
        """Hands per CPU-second of the pure engine, the median round."""
        return statistics.median(r.hands_per_cpu_s for r in self.pure)

    @property
    def compiled_rate(self) -> float:
        return statistics.median(r.hands_per_cpu_s for r in self.compiled)

    @property
    def ratio(self) -> float:
        """How many times faster the compiled engine is, by CPU time (medians)."""
        return self.compiled_rate / self.pure_rate

    @property
    def identical(self) -> bool:
        """Whether both engines made the same number of decisions in every round (the same play)."""
        return len({r.decisions for r in self.pure + self.compiled}) == 1

    @property
    def decisions_per_hand(self) -> float:
        return self.compiled[0].decisions_per_hand

    def as_dict(self) -> dict[str, object]:
        return {
            "rules": self.rules,
            "hands": self.hands,
            "pure_hands_per_cpu_s": [round(r.hands_per_cpu_s, 1) for r in self.pure],
            "compiled_hands_per_cpu_s": [round(r.hands_per_cpu_s, 1) for r in self.compiled],
            "pure_cpu_ms_per_hand": round(1000 / self.pure_rate, 4),
            "compiled_cpu_ms_per_hand": round(1000 / self.compiled_rate, 4),
            "ratio": round(self.ratio, 2),
            "identical_play": self.identical,
        }


def _child(pure: bool, rules: str, hands: int, seed: int) -> BenchResult:
    code = _CHILD.replace("{pure}", "True" if pure else "False")
    env = dict(os.environ, PYTHONHASHSEED="0")
    done = subprocess.run([sys.executable, "-c", code, json.dumps([rules, hands, seed])], env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise CanastaError(f"the benchmark's child process failed: {last}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    want = "pure" if pure else "compiled"
    if out["engine"] != want:
        raise CanastaError(f"the {want} engine's child process ran the {out['engine']} engine")
    return BenchResult(str(out["rules"]), int(out["hands"]), float(out["seconds"]), int(out["decisions"]),
                       [float(out["hands_per_s"])], float(out["cpu_seconds"]), str(out["engine"]))


def compare_pure(rules: RuleSet, hands: int, seed: int, rounds: int = 3) -> Comparison:
    """Play the same ``hands`` hands with the compiled engine and with the pure-Python one,
    each in a fresh child process, ``rounds`` times, alternating which goes first."""
    if engine() != "compiled":
        raise CanastaError("--compare-pure needs the compiled engine (this one is "
                           f"{engine()}): CANASTA_COMPILE=1 pip install .")
    if rules.name not in PRESETS:
        raise CanastaError("--compare-pure measures a preset; name one")
    pure: list[BenchResult] = []
    compiled: list[BenchResult] = []
    for r in range(max(1, rounds)):
        for is_pure in ((True, False) if r % 2 == 0 else (False, True)):
            (pure if is_pure else compiled).append(_child(is_pure, rules.name, hands, seed))
    return Comparison(rules.name, hands, pure, compiled)


COMPARE_MARKDOWN_HEADER = ("| preset | hands/CPU-s pure | hands/CPU-s compiled | compiled/pure | decisions per hand |\n"
                           "|---|---|---|---|---|")


def compare_markdown_row(c: Comparison) -> str:
    """One preset's comparison as a row of the table ``bench --markdown --compare-pure`` prints."""
    return (f"| {c.rules} | {c.pure_rate:.0f} | {c.compiled_rate:.0f} | {c.ratio:.2f} | "
            f"{c.decisions_per_hand:.1f} |")
