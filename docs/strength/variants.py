"""The expert's search variants, each measured on the deals of a preset's kept record.

    .venv/bin/python docs/strength/variants.py run classic-3p rivals-mean     # play it (Ctrl-C keeps whole deals)
    .venv/bin/python docs/strength/variants.py compare                         # the table of every kept variant

A variant is the expert with one change to its family's search (:class:`canasta.family.SearchTuning`),
at the same iteration budget and with the same seeds as the preset's run in
``docs/strength/tables.py`` (``expert:i90`` in Classic, ``expert:i40`` in Italian), against the
advanced player on the same duplicate deals (seed 1201, matches of at most five hands): a match's
deals depend on its seed and number only, so hand k of game n is dealt alike in both runs and the
two records are compared hand by hand.  Its record goes to ``docs/strength/variants/``.
A variant the comparison shows better becomes the family's search, and its record the preset's.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from canasta.bots.base import Budget
from canasta.bots.expert import ExpertBot
from canasta.family import SearchTuning
from canasta.game import family_of
from canasta.play.record import GameRecord, read_file
from canasta.rules import RuleSet
from canasta.tools.arena import Interrupted, run_arena, tally

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from tables import MAX_HANDS, RUNS, record_path  # noqa: E402

SEED = 1201

#: a variant's name, what it changes, and the change
VARIANTS: dict[str, tuple[str, dict[str, object]]] = {
    "rivals-mean": ("a rollout's position against the others' mean, not the best other side", {"rivals": "mean"}),
    "rivals-best": ("a rollout's position against the best other side, not the others' mean", {"rivals": "best"}),
    "drop": ("choices clearly behind the best dropped after 12 worlds, as in Classic (drop_z 1.5)", {"drop_z": 1.5}),
}


@dataclass
class Variant:
    """Makes the variant expert for a seat (a bot factory for :func:`run_arena`)."""

    name: str
    worlds: int
    tuning: SearchTuning

    def __call__(self, seed: int) -> ExpertBot:
        bot = ExpertBot(seed, Budget(iterations=self.worlds))
        bot.tuning = self.tuning
        return bot


def baseline(preset: str) -> tuple[str, int]:
    """The preset's expert (``expert:iN``) and the games of its seed-1201 run."""
    for name, bot, runs in RUNS:
        if name == preset:
            return bot, dict(runs)[SEED]
    raise SystemExit(f"no run of {preset} in docs/strength/tables.py")


def variant_path(preset: str, variant: str) -> Path:
    return HERE / "variants" / f"arena-{preset}-expert-{variant}-vs-advanced-{SEED}.cgn.gz"


def make_variant(preset: str, variant: str) -> Variant:
    if variant not in VARIANTS:
        raise SystemExit(f"unknown variant {variant!r}: choose {', '.join(VARIANTS)}")
    bot, _ = baseline(preset)
    search = family_of(RuleSet.preset(preset)).search
    tuning = replace(search, **VARIANTS[variant][1])  # type: ignore[arg-type]
    if tuning == search:
        raise SystemExit(f"{variant} is already {preset}'s search")
    return Variant(f"{bot}+{variant}", int(bot.split(":i")[1]), tuning)


def run(preset: str, variant: str, games: int | None) -> None:
    bot = make_variant(preset, variant)
    planned = games or baseline(preset)[1]
    path = variant_path(preset, variant)
    print(f"{preset}: {bot.name} against advanced, {planned} games, seed {SEED} -> {path.relative_to(HERE.parent.parent)}")
    try:
        report = run_arena(preset, (bot, "advanced"), games=planned, seed=SEED, jobs=1, max_hands=MAX_HANDS,
                           save=path)
    except Interrupted as stop:
        report = stop.report
        print(f"stopped: {report.games} games kept")
    print(report.table())


def _read(path: Path) -> list[GameRecord]:
    games, errors = read_file(path)
    if errors:
        raise SystemExit(f"{path}: {errors[0]}")
    return games


def _won(games: list[GameRecord], name: str) -> dict[tuple[str, int], int]:
    """(the game's Event, hand number) -> 1 if the expert (or variant) won the hand, -1 if the
    advanced player did, 0 for a tie."""
    out = {}
    for n, game in enumerate(games, start=1):
        report = tally([game], [f"{name}, game {n}"])
        if report.cut_off:
            continue
        sign = -1 if report.bots[0] == "advanced" else 1  # A is the bot in the game's seat 0
        for k, diff in enumerate(report.diffs, start=1):
            out[(game.headers.get("Event", ""), k)] = sign * ((diff > 0) - (diff < 0))
    return out


def compare_table() -> list[str]:
    """One row a kept variant: its share of hands and the preset's expert's on the hands both
    records hold (the same deals), the difference with its 95% interval over those hands."""
    lines = ["| preset | variant | what it changes | hands both hold | variant's hands won | expert's "
             "| difference [95%] | record |",
             "|---|---|---|---|---|---|---|---|"]
    for path in sorted((HERE / "variants").glob("arena-*-vs-advanced-*.cgn.gz")):
        m = re.fullmatch(r"arena-(.+)-expert-(.+)-vs-advanced-(\d+)\.cgn\.gz", path.name)
        if m is None:
            raise SystemExit(f"{path.name}: not a variant's record name")
        preset, variant = m.group(1), m.group(2)
        base = _won(_read(record_path(preset, SEED)), record_path(preset, SEED).name)
        mine = _won(_read(path), path.name)
        both = sorted(set(base) & set(mine))
        n = len(both)
        a = sum(mine[k] > 0 for k in both) / n
        b = sum(base[k] > 0 for k in both) / n
        d = [(mine[k] > 0) - (base[k] > 0) for k in both]
        mean = sum(d) / n
        se = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n)
        lines.append(f"| {preset} | `{variant}` | {VARIANTS[variant][0]} | {n:,} | {100 * a:.1f}% | {100 * b:.1f}% "
                     f"| {100 * mean:+.1f} [{100 * (mean - 1.96 * se):+.1f}, {100 * (mean + 1.96 * se):+.1f}] "
                     f"| `docs/strength/variants/{path.name}` |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("run", help="play a variant on a preset's deals")
    play.add_argument("preset")
    play.add_argument("variant", choices=sorted(VARIANTS))
    play.add_argument("--games", type=int, default=None, help="default: the preset's seed-1201 run's games")
    sub.add_parser("compare", help="the table of every kept variant")
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.preset, args.variant, args.games)
    else:
        print("\n".join(compare_table()))


if __name__ == "__main__":
    main()
