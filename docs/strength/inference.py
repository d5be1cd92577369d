"""How close the expert's sampled worlds come to the true hands, for docs/bots.md.

    nice -n 15 .venv/bin/python docs/strength/inference.py classic-4p --hands 30 --worlds 8

plays ``--hands`` seeded hands with advanced players in every seat and, at each decision of
each seat, samples ``--worlds`` worlds the way the expert does (``ExpertBot._world``: a world
consistent with the seat's view, dealt again where it contradicts the pile refusals its
:class:`~canasta.bots.inference.PileWatch` read, fed exactly as the expert feeds it) and compares
each world's other hands with the true ones.  A seat's *share held* is the part of its true hand
(a multiset of card kinds: the rank, threes split red and black, since the engine plays no suit)
that the world put in that seat's hand; *hidden* counts only the cards the viewer does not know
to be there (those picked up with the pile are always right).  The baseline is the same world
before the refusals were respected (the view-consistent uniform deal ``sample_world`` makes,
drawn from the same random state), so each pair differs by the inference alone.  Figures are
split by opponents and partner, by the stage of the hand (early, middle, late: the stock above
two thirds, above one third, at most one third of its size after the deal), and for seats under
a refusal limit.  It also counts the limits read that the true hand contradicts, and, for the
ranks a refusal limits and the natural ranks a seat has discarded this hand, how many cards of
them it truly holds against what the worlds deal it (what a discard could tell).  ``--record FILE`` appends the figures as
one JSON line with the command and the load average.  ``--read-discards`` measures the worlds
of an expert that also reads the discards (:func:`canasta.bots.inference.thin`), against the same
uniform deals.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from canasta.bots import make_bot
from canasta.bots.base import world
from canasta.bots.expert import ExpertBot
from canasta.engine.cards import CARD_RANK, IS_RED_THREE, IS_WILD, NATURAL_RANKS, NUM_CARDS
from canasta.engine.game import Game
from canasta.engine.moves import DISCARD
from canasta.engine.native import engine
from canasta.engine.rules import RuleSet
from canasta.views.seat import SeatView, seat_view

STAGES = ("early", "middle", "late")
RED_THREE_KIND = 14  # threes are two kinds: the rank's index for black, this for red

#: the kind of each card code: its rank, red threes apart
KIND = tuple(RED_THREE_KIND if IS_RED_THREE[c] else CARD_RANK[c] for c in range(NUM_CARDS))


def kinds(counts: Sequence[int]) -> Counter[int]:
    """A hand (count per card code) as a multiset of card kinds."""
    out: Counter[int] = Counter()
    for c, k in enumerate(counts):
        if k:
            out[KIND[c]] += k
    return out


def shares(view: SeatView, truth: Game, w: Game) -> dict[int, tuple[float, float | None]]:
    """Per seat, the share of its true hand that world ``w`` put in its hand, over the whole
    hand and over the cards ``view``'s seat does not know to be there (None: it knows them all)."""
    out: dict[int, tuple[float, float | None]] = {}
    for s in range(truth.players):
        true, held = kinds(truth.hands[s]), kinds(w.hands[s])
        size = sum(true.values())
        if size == 0:
            continue
        both = sum((true & held).values())
        known = Counter(KIND[c] for c in (view.hand if s == view.seat else view.known[s]))
        hidden = size - sum(known.values())
        # the known cards are in both hands; the overlap beyond them is what the deal got right
        out[s] = (both / size, (both - sum(known.values())) / hidden if hidden > 0 else None)
    return out


def naturals(counts: Sequence[int], rank: int) -> int:
    """The natural cards of ``rank`` in a hand (count per card code)."""
    return sum(k for c, k in enumerate(counts) if k and CARD_RANK[c] == rank and not IS_WILD[c])


class Tally:
    """Sums and counts by key: the means the report prints."""

    def __init__(self) -> None:
        self.sum: dict[str, float] = {}
        self.n: dict[str, int] = {}

    def add(self, key: str, value: float) -> None:
        self.sum[key] = self.sum.get(key, 0.0) + value
        self.n[key] = self.n.get(key, 0) + 1

    def mean(self, key: str) -> float | None:
        return self.sum[key] / self.n[key] if self.n.get(key) else None


def measure(rules_name: str, hands: int, worlds: int, seed: int, read_discards: bool = False) -> dict[str, object]:
    """Play ``hands`` seeded hands of advanced players and measure the worlds (see the module);
    ``read_discards``: the worlds also thin the ranks each seat has discarded
    (``ExpertBot.read_discards``)."""
    rules = RuleSet.preset(rules_name)
    tally = Tally()
    limits_read = limits_wrong = checks = checks_wrong = decisions = 0
    for deal in range(hands):
        g = Game(rules, seed * 1000 + deal)
        players = [make_bot("advanced", seed=seed * 1000 + 10 * deal + s) for s in range(rules.players)]
        experts = [ExpertBot(seed=seed * 1000 + 10 * deal + s) for s in range(rules.players)]
        for expert in experts:
            expert.read_discards = read_discards
        start = max(1, len(g.stock))
        discarded: list[set[int]] = [set() for _ in range(rules.players)]
        while not g.is_over():
            seat = g.to_move
            view = seat_view(g, seat)
            watch = experts[seat].watch
            before = watch.limits
            watch.observe(view)  # as ExpertBot.choose does
            fresh = watch.limits is not before and bool(watch.limits)
            for o, ranks in watch.limits.items():
                for rank, most in ranks.items():
                    wrong = naturals(g.hands[o], rank) > most
                    checks += 1
                    checks_wrong += wrong
                    if fresh:
                        limits_read += 1
                        limits_wrong += wrong
            stage = STAGES[min(2, 3 * (start - len(g.stock)) // start)]
            decisions += 1
            for _ in range(worlds):
                rng = random.Random()
                rng.setstate(experts[seat].rng.getstate())
                uniform = world(view, rng)  # the same deal before the refusals are respected
                inferred = experts[seat]._world(view)
                for label, w in (("uniform", uniform), ("inference", inferred)):
                    for s, (whole, hidden) in shares(view, g, w).items():
                        if s == seat:
                            continue
                        who = "partner" if g.side_of[s] == g.side_of[seat] else "opponents"
                        keys = [f"{who}/{label}", f"{who}/{stage}/{label}"]
                        if s in watch.limits:
                            keys.append(f"limited/{label}")
                        for key in keys:
                            tally.add(key + "/whole", whole)
                            if hidden is not None:
                                tally.add(key + "/hidden", hidden)
                        for rank in watch.limits.get(s, {}):
                            tally.add(f"limited-rank/{label}", naturals(w.hands[s], rank))
                            if label == "inference":
                                tally.add("limited-rank/true", naturals(g.hands[s], rank))
                        for rank in discarded[s]:
                            tally.add(f"discarded/{label}", naturals(w.hands[s], rank))
                            if label == "inference":
                                tally.add("discarded/true", naturals(g.hands[s], rank))
            move = players[seat].choose(view)
            if move.kind == DISCARD:
                watch.discarded(view, move.groups[0][0])  # as ExpertBot.choose does
                card = move.groups[0][0]
                if CARD_RANK[card] in NATURAL_RANKS:
                    discarded[seat].add(CARD_RANK[card])
            g.play(move)
        for bot in players:
            bot.close()
    figures: dict[str, object] = {}
    for key in sorted(tally.n):
        m = tally.mean(key)
        figures[key] = {"mean": round(m, 4) if m is not None else None, "n": tally.n[key]}
    return {"rules": rules_name, "hands": hands, "worlds": worlds, "seed": seed, "read_discards": read_discards,
            "decisions": decisions,
            "limits_read": limits_read, "limits_wrong": limits_wrong,
            "limit_checks": checks, "limit_checks_wrong": checks_wrong, "figures": figures}


def _fmt(figures: dict[str, dict[str, float | int | None]], key: str) -> str:
    u, i = figures.get(f"{key}/uniform/whole"), figures.get(f"{key}/inference/whole")
    hu, hi = figures.get(f"{key}/uniform/hidden"), figures.get(f"{key}/inference/hidden")
    if not u or not i:
        return f"  {key}: no sample"
    line = f"  {key}: whole {i['mean']:.4f} vs uniform {u['mean']:.4f}"
    if hu and hi:
        line += f"; hidden {hi['mean']:.4f} vs {hu['mean']:.4f} (n {hi['n']})"
    return line


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("rules")
    ap.add_argument("--hands", type=int, default=20, help="seeded hands of advanced players")
    ap.add_argument("--worlds", type=int, default=8, help="worlds sampled at each decision")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--read-discards", action="store_true",
                    help="the worlds also thin the ranks each seat has discarded (ExpertBot.read_discards)")
    ap.add_argument("--record", metavar="FILE.jsonl", help="append the figures to this file as a JSON line")
    args = ap.parse_args()
    t0 = time.process_time()
    line = measure(args.rules, args.hands, args.worlds, args.seed, args.read_discards)
    line["cpu_s"] = round(time.process_time() - t0, 1)
    line["engine"] = engine()
    line["load"] = round(os.getloadavg()[0], 2)
    line["command"] = "docs/strength/inference.py " + " ".join(sys.argv[1:])
    figures: dict[str, dict[str, float | int | None]] = line["figures"]  # type: ignore[assignment]
    print(f"{args.rules}: {args.hands} hands, {line['decisions']} decisions x {args.worlds} worlds, "
          f"engine {line['engine']}, {line['cpu_s']} s CPU, load average {line['load']:.2f}")
    print("share of the true hand the worlds hold, inference vs uniform:")
    for key in ("opponents", "partner", *(f"{who}/{st}" for who in ("opponents", "partner") for st in STAGES),
                "limited"):
        print(_fmt(figures, key))
    print(f"limits read {line['limits_read']}, wrong {line['limits_wrong']}; "
          f"checked at decisions {line['limit_checks']}, wrong {line['limit_checks_wrong']}")
    for what, text in (("limited-rank", "a rank a refusal limits"), ("discarded", "a rank the seat discarded")):
        d = [figures.get(f"{what}/{k}") for k in ("true", "inference", "uniform")]
        if all(d):
            print(f"natural cards held of {text}: true, inference, uniform: "
                  + ", ".join(f"{x['mean']:.3f}" for x in d if x))
    if args.record:
        with Path(args.record).open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
