"""A long soak with a timing report, and the reference check at scale.

::

    python -m canasta.tools.soak --rules italian-4p --hands 10000 --seed 1
    python -m canasta.tools.soak --rules italian-4p --hands 0 --reference 2000

Random hands are played through the public API; every engine step (listing the
legal moves, then ``push`` of the chosen one) is timed, and the slowest step is
reported with the hand's seed and the move number, so it can be replayed.
``--reference N`` also compares the generator with the exhaustive reference
(:mod:`canasta.tools.reference`) on N seeds of each kind of position (small ones,
ones near going out, ones where many naturals meet the pile's top card), and the
going-out decision with the reference's answer; it reports how many end-of-turn
states were compared.  The exit status is 1 if anything disagreed.  ``canasta soak
--reference N`` does the same over every preset.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from canasta.engine.errors import CanastaError, IllegalMoveError
from canasta.engine.game import Game
from canasta.engine.rules import RuleSet, resolve_rules


@dataclass
class SoakReport:
    rules: str
    hands: int = 0
    steps: int = 0
    seconds: float = 0.0
    slowest_ms: float = 0.0  # the slowest step, re-timed alone (best of five)
    raw_slowest_ms: float = 0.0  # the slowest step as first timed, in the run
    slowest_at: str = ""
    over_20ms: int = 0
    positions: int = 0
    states: int = 0
    too_big: int = 0
    gaps: int = 0  # end-of-turn states some legal moves reach and the generated ones do not
    refused: int = 0  # generated moves push refused
    kinds: dict[str, int] = field(default_factory=dict)  # positions walked, by kind
    problems: list[str] = field(default_factory=list)


def _step_ms(rules: RuleSet, seed: int, dealer: int, k: int, repeat: int = 5) -> float:
    """Replay a hand to its ``k``-th step and time that step alone, best of ``repeat``."""
    rng = random.Random(seed)
    game = Game(rules, seed, dealer=dealer)
    for _ in range(k - 1):
        moves = list(game.legal_moves)
        game.push(moves[int(rng.random() * len(moves))])
    best = float("inf")
    r_state = rng.getstate()
    for _ in range(repeat):
        rng.setstate(r_state)
        t = time.process_time()
        moves = list(game.legal_moves)
        game.push(moves[int(rng.random() * len(moves))])
        best = min(best, (time.process_time() - t) * 1000)
        game.pop()
    return best


def soak(rules: RuleSet, hands: int, seed: int, report: SoakReport | None = None) -> SoakReport:
    """Play ``hands`` random hands, timing every step (legal moves + push) in
    process CPU time (time spent waiting for the CPU on a shared machine does not
    count); the ten slowest steps are then replayed and timed alone, best of five,
    and the slowest of those is reported."""
    rep = report or SoakReport(rules.name)
    clock = time.process_time
    slow: list[tuple[float, int, int, int, str]] = []
    start = clock()
    for i in range(hands):
        s = seed + i
        rng = random.Random(s)
        game = Game(rules, s, dealer=i % rules.players)
        k = 0
        while not game.is_over():
            t = clock()
            moves = list(game.legal_moves)
            move = moves[int(rng.random() * len(moves))]
            game.push(move)
            dt = (clock() - t) * 1000
            k += 1
            if dt > 20:
                rep.over_20ms += 1
            if len(slow) < 10 or dt > slow[0][0]:
                heapq.heappush(slow, (dt, s, i % rules.players, k, str(move)))
                if len(slow) > 10:
                    heapq.heappop(slow)
            if k > 5000:
                rep.problems.append(f"hand seed {s}: no end after 5000 moves")
                break
        rep.hands += 1
        rep.steps += k
    rep.seconds += clock() - start
    rep.raw_slowest_ms = max((x[0] for x in slow), default=0.0)
    for _, s, dealer, k, text in slow:
        ms = _step_ms(rules, s, dealer, k)
        if ms > rep.slowest_ms:
            rep.slowest_ms = ms
            rep.slowest_at = f"hand seed {s} dealer {dealer}, move {k} ({text})"
    return rep


#: the kinds of position the reference check walks, by name (see :mod:`canasta.tools.reference`)
KINDS: Final = ("small", "near_going_out", "take")


def _makers() -> dict[str, Callable[[RuleSet, int], Game | None]]:
    from canasta.tools.reference import going_out_position, small_position, take_position

    return {"small": small_position, "near_going_out": going_out_position, "take": take_position}


def reference_check(rules: RuleSet, positions: int, seed: int, report: SoakReport | None = None,
                    tick: Callable[[], None] | None = None, limit: int = 3000,
                    kinds: Sequence[str] = KINDS) -> SoakReport:
    """Compare the generating set with the exhaustive reference on ``positions`` seeds of
    each kind of position (:data:`KINDS`) from ``seed`` on: every end of the mover's turn
    that some sequence of legal moves reaches must be reached through ``legal_moves``
    (the generating set's promise, see :mod:`canasta.engine.game`), every generated move must be
    accepted, and near going out ``may_ask`` must agree with the walk.  ``tick`` is called
    after each seed; a position whose turn has more than ``limit`` states is counted as too
    big and left; ``kinds``: the kinds walked (all by default)."""
    from canasta.tools.reference import WENT_OUT_AT, TooBig, outcomes, reference_moves

    rep = report or SoakReport(rules.name)
    for i in range(positions):
        for kind, make in _makers().items():
            if kind not in kinds:
                continue
            try:
                g = make(rules, seed + i)
            except CanastaError as exc:  # the playout reached a table its own position cannot hold
                rep.problems.append(f"{kind} {seed + i}: the position could not be made: {exc}")
                continue
            if g is None:
                continue
            try:
                ref = outcomes(g, reference_moves, limit)
                gen = outcomes(g, lambda x: list(x.legal_moves), limit)
            except TooBig:
                rep.too_big += 1
                continue
            except IllegalMoveError as exc:
                rep.refused += 1
                rep.problems.append(f"{kind} {seed + i}: a generated move was refused: {exc}")
                continue
            rep.positions += 1
            rep.kinds[kind] = rep.kinds.get(kind, 0) + 1
            rep.states += len(ref)
            if ref != gen:
                rep.gaps += len(ref - gen)
                rep.problems.append(f"{kind} {seed + i}: {len(ref - gen)} outcomes not generated, "
                                    f"{len(gen - ref)} generated outcomes the reference lacks")
            if kind == "near_going_out":
                seat = g.turn
                can = any(key[WENT_OUT_AT] == seat for key in ref)
                said = g.family.may_ask(g)
                if can != said:
                    rep.problems.append(f"{kind} {seed + i}: the engine says it can go out: {said}, the reference "
                                        f"{can}")
        if tick is not None:
            tick()
    return rep


def reference_record(rep: SoakReport, per_preset: int, seed: int, cpu_seconds: float,
                     limit: int = 3000) -> dict[str, object]:
    """One JSON-ready line of a reference run (``canasta soak --record``)."""
    return {"rules": rep.rules, "seeds": per_preset, "first_seed": seed, "limit": limit, "positions": rep.positions,
            "kinds": dict(sorted(rep.kinds.items())), "states": rep.states, "not_generated": rep.gaps,
            "refused": rep.refused, "too_big": rep.too_big, "problems": len(rep.problems),
            "cpu_seconds": round(cpu_seconds, 1), "load_average": round(os.getloadavg()[0], 2),
            "command": f"canasta soak --reference {per_preset} --rules {rep.rules} --seed {seed} --limit {limit}"}


def reference_table(records: Sequence[dict[str, object]]) -> str:
    """The Markdown table of a reference run's records (``--table FILE``; ``docs/generation.md``)."""
    rows = ["| rules | seeds | positions (small, near going out, take) | ends of a turn compared | not generated "
            "| generated moves refused | too big (> limit states) | CPU s | load average |",
            "|---|---|---|---|---|---|---|---|---|"]
    total = [0, 0, 0, 0]
    for r in records:
        kinds = r["kinds"]
        assert isinstance(kinds, dict)
        split = ", ".join(str(kinds.get(k, 0)) for k in KINDS)
        rows.append(f"| {r['rules']} | {r['seeds']} | {r['positions']} ({split}) | {r['states']:,} | {r['not_generated']} "
                    f"| {r['refused']} | {r['too_big']} | {r['cpu_seconds']} | {r['load_average']} |")
        for i, key in enumerate(("positions", "states", "not_generated", "refused")):
            value = r[key]
            assert isinstance(value, int)
            total[i] += value
    rows.append(f"| all {len(records)} | | {total[0]:,} | {total[1]:,} | {total[2]} | {total[3]} | | | |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m canasta.tools.soak", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="italian-4p", help="a preset or a rules file")
    ap.add_argument("--hands", type=int, default=10000, help="random hands to play and time")
    ap.add_argument("--seed", type=int, default=1, help="the first hand's seed")
    ap.add_argument("--reference", type=int, default=0, metavar="N",
                    help="also compare with the exhaustive reference on N small positions of each kind")
    ap.add_argument("--table", metavar="FILE", help="print the Markdown table of a reference run's records and stop")
    args = ap.parse_args(argv)
    if args.table:
        try:
            with open(args.table, encoding="utf-8") as f:
                records = [json.loads(line) for line in f if line.strip()]
            print(reference_table(records), end="")
        except (OSError, ValueError, KeyError, AssertionError) as exc:
            print(f"canasta.tools.soak: {args.table}: not a reference run's records ({exc})", file=sys.stderr)
            return 2
        return 0
    try:
        rules = resolve_rules(args.rules)
    except Exception as exc:  # a bad preset or rules file: one line, no traceback
        print(f"canasta.tools.soak: {exc}", file=sys.stderr)
        return 2
    rep = soak(rules, args.hands, args.seed)
    if args.hands:
        print(f"rules {rep.rules}: {rep.hands} hands, {rep.steps} steps in {rep.seconds:.1f} s "
              f"CPU ({rep.seconds / max(rep.steps, 1) * 1e6:.0f} us/step); slowest step {rep.slowest_ms:.2f} ms "
              f"(re-timed alone; {rep.raw_slowest_ms:.1f} ms as first timed) at {rep.slowest_at}; "
              f"steps first timed over 20 ms: {rep.over_20ms}")
    if args.reference:
        t = time.perf_counter()
        reference_check(rules, args.reference, args.seed, rep)
        print(f"reference: {rep.positions} positions, {rep.states} end-of-turn states compared "
              f"({rep.too_big} too big to walk) in {time.perf_counter() - t:.1f} s")
    for p in rep.problems[:20]:
        print("  " + p)
    print(f"{len(rep.problems)} problems")
    return 1 if rep.problems else 0


if __name__ == "__main__":
    sys.exit(main())
