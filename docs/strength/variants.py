"""The expert's search variants, each measured on the deals of a preset's kept record.

    .venv/bin/python docs/strength/variants.py run classic-3p rivals-mean     # play it (Ctrl-C keeps whole deals)
    .venv/bin/python docs/strength/variants.py compare                         # the table of every kept variant
    .venv/bin/python docs/strength/variants.py timing italian-4p no-drop-i40 --hands 10  # CPU and moves, same positions
    .venv/bin/python docs/strength/variants.py former                          # today's expert against the former one

A variant is the expert with one change to its family's search (:class:`canasta.engine.family.SearchTuning`),
at the same iteration budget and with the same seeds as the preset's run in
``docs/strength/tables.py`` (``expert:i90`` in Classic, ``expert:i60`` in Italian), against the
advanced player on the same duplicate deals (seed 1201, matches of at most five hands): a match's
deals depend on its seed and number only, so hand k of game n is dealt alike in both runs and the
two records are compared hand by hand.  Its record goes to ``docs/strength/variants/``.
A variant the comparison shows better becomes the family's search, and the preset's runs are
played again; the former expert's records move to ``docs/strength/earlier/``, where the variants
measured against it still find them (a variant's record names its expert, ``expert:i40+drop-i60``,
and is compared with the record of that expert on the same deals).

``timing`` puts the expert and the variant before the same positions (hands of the advanced
player, seat 0 asking both at each of its decisions) and prints their CPU time per decision
(``time.process_time``) and how often they choose the same move: what a variant costs, and how
much it changes the play, before an arena run measures its strength.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from canasta.bots.base import Budget
from canasta.bots.expert import ExpertBot
from canasta.bots.heuristic import AdvancedBot
from canasta.engine.family import SearchTuning
from canasta.engine.game import Game, family_of
from canasta.engine.native import engine
from canasta.engine.rules import RuleSet
from canasta.play.record import GameRecord, read_file
from canasta.tools.arena import Interrupted, ProgressEstimate, run_arena, tally
from canasta.tools.commands import stoppable
from canasta.views.seat import seat_view

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from tables import MAX_HANDS, RUNS, record_path  # noqa: E402

SEED = 1201

#: a variant's name, what it changes, and the change: fields of the family's SearchTuning, or of
#: the expert itself (its class attributes, such as ``switch_z``)
VARIANTS: dict[str, tuple[str, dict[str, object]]] = {
    "rivals-mean": ("a rollout's position against the others' mean, not the best other side", {"rivals": "mean"}),
    "rivals-best": ("a rollout's position against the best other side, not the others' mean", {"rivals": "best"}),
    "drop": ("choices clearly behind the best dropped after 12 worlds, as in Classic (drop_z 1.5)", {"drop_z": 1.5}),
    "drop-i60": ("the drop, and half as many worlds again (60)", {"drop_z": 1.5, "worlds": 60}),
    "switch-0.5": ("leaves the advanced player's move for a gain of half a standard error, not one",
                   {"switch_z": 0.5}),
    "switch-1.5": ("leaves the advanced player's move for a gain of one and a half standard errors, not one",
                   {"switch_z": 1.5}),
    "depth-80": ("rollouts of 80 decisions before a position is valued, not 40", {"rollout_depth": 80}),
    "melds-2": ("two melds besides the advanced player's tried as well (the best by its own meld scoring)",
                {"meld_choices": 2}),
    "discards-5": ("five discards tried, not three (the advanced player's ranking)", {"discard_choices": 5}),
    "rough": ("a rollout's position valued roughly (melded points less cards held), not by the scoring",
              {"scored": False}),
    "no-drop-i40": ("every choice in all of 40 worlds (the Italian search before drop-i60)",
                    {"drop_z": None, "worlds": 40}),
    "discards": ("sampled worlds also thin the ranks each seat has discarded this hand (half of its hidden "
                 "cards of them go back to the stock)", {"read_discards": True}),
    "value": ("a rollout stopped before the hand ends valued with the change each side's score is expected to make "
              "by the end (the preset's shipped leaf value, canasta.bots.value)", {"learned": True}),
    "value-wide": ("the leaf value, the position's lead squashed at 2,800 points, not 800 (Italian's leads are "
                   "about 3.5 times Classic's: at 800, over half of an italian-4p hand's positions are squashed flat)",
                   {"learned": True, "squash": 2800.0}),
    "value-d20": ("the leaf value, and rollouts of 20 decisions, not 40", {"learned": True, "rollout_depth": 20}),
    "value-d10": ("the leaf value, and rollouts of 10 decisions, not 40", {"learned": True, "rollout_depth": 10}),
    "habits": ("the guide and the rollouts play with the advanced player's habits tuned by self-play for the "
               "preset (python -m canasta.rl.tune, canasta/bots/weights/habits-PRESET.json)", {"habits": True}),
    "no-value": ("no leaf value, and a position's lead squashed at 800 points (Italian's expert before the "
                 "leaf value)", {"learned": False, "squash": 800.0}),
    "match": ("a rollout's position valued by the chance it gives to win the match (the match's totals "
              "and the hands left), not by the hand's lead", {"objective": "match", "learned": False}),
    "hand": ("a rollout's position valued by the lead it gives in this hand, not by the chance to win the "
             "match, and no leaf value (Classic's expert before it played for the match)",
             {"objective": "hand", "learned": False}),
}


@dataclass
class Variant:
    """Makes the variant expert for a seat (a bot factory for :func:`run_arena`)."""

    name: str
    worlds: int
    tuning: SearchTuning
    attributes: dict[str, object]

    def __call__(self, seed: int, plain: bool = False) -> ExpertBot:
        """``plain``: at the default budget (the tuning's worlds and the one-second clock)."""
        bot = ExpertBot(seed) if plain else ExpertBot(seed, Budget(iterations=self.worlds))
        bot.tuning = self.tuning
        for key, value in self.attributes.items():
            setattr(bot, key, value)
        return bot


def baseline(preset: str) -> tuple[str, int]:
    """The preset's expert (``expert:iN``) and the games of its seed-1201 run."""
    for name, bot, runs in RUNS:
        if name == preset:
            return bot, dict(runs)[SEED]
    raise SystemExit(f"no run of {preset} in docs/strength/tables.py")


def worlds_of(bot: str) -> int:
    """The worlds of an ``expert:iN`` budget."""
    return int(bot.split(":i")[1])


def variant_path(preset: str, variant: str) -> Path:
    return HERE / "variants" / f"arena-{preset}-expert-{variant}-vs-advanced-{SEED}.cgn.gz"


def make_variant(preset: str, variant: str, same: bool = False) -> Variant:
    """The variant's bot factory; a variant that the preset's search has become since is refused
    unless ``same`` (a duel against another variant or advanced, its record's name unchanged)."""
    if variant not in VARIANTS:
        raise SystemExit(f"unknown variant {variant!r}: choose {', '.join(VARIANTS)}")
    bot, _ = baseline(preset)
    search = family_of(RuleSet.preset(preset)).search
    change = VARIANTS[variant][1]
    attributes = {k: v for k, v in change.items() if k not in search.__dataclass_fields__}
    unknown = [k for k in attributes if not hasattr(ExpertBot, k)]
    if unknown:
        raise SystemExit(f"{variant}: {', '.join(unknown)} is neither a SearchTuning field nor the expert's")
    tuning = replace(search, **{k: v for k, v in change.items() if k not in attributes})  # type: ignore[arg-type]
    if not same and tuning == search and all(getattr(ExpertBot, k) == v for k, v in attributes.items()):
        raise SystemExit(f"{variant} is already {preset}'s search")
    worlds = tuning.worlds if "worlds" in change else worlds_of(bot)
    return Variant(f"{bot}+{variant}", worlds, tuning, attributes)


def timing(preset: str, variant: str, hands: int, seed: int, plain: bool = False) -> None:
    """``plain``: both at the default budget (the family's or the variant's worlds, and the
    one-second clock: what the plain ``expert`` plays), each asked first at every other decision."""
    rules = RuleSet.preset(preset)
    bot, _ = baseline(preset)
    made = make_variant(preset, variant)
    if plain:
        bot = "expert"
    expert = ExpertBot(seed) if plain else ExpertBot(seed, Budget(iterations=worlds_of(bot)))
    other = made(seed, plain)
    guide = AdvancedBot(seed)
    cpu: tuple[list[float], list[float]] = ([], [])
    same = 0
    for hand in range(hands):
        g = Game(rules, seed * 1000 + hand)
        while not g.is_over():
            view = seat_view(g, g.to_move)
            if g.to_move != 0:
                g.play(guide.choose(view))
                continue
            chosen = {}
            for i in (0, 1) if not plain or len(cpu[0]) % 2 == 0 else (1, 0):
                t0 = time.process_time()
                chosen[i] = (expert, other)[i].choose(view)
                cpu[i].append(time.process_time() - t0)
            move = chosen[0]
            same += chosen[1] == move
            g.play(move)
    n = len(cpu[0])
    print(f"{preset}, {hands} hands (seed {seed}), engine {engine()}, load average {os.getloadavg()[0]:.2f}: "
          f"{n} decisions of seat 0" + (", both at the default budget (worlds and the clock)" if plain else ""))
    for name, times in ((bot, cpu[0]), (made.name if not plain else f"expert+{variant}", cpu[1])):
        print(f"  {name}: CPU ms a decision, mean {1000 * statistics.mean(times):.1f}, "
              f"worst {1000 * max(times):.0f}")
    print(f"  CPU ratio {sum(cpu[1]) / sum(cpu[0]):.2f}; the same move in {same} of {n} ({100 * same / n:.0f}%)")


def duel_path(preset: str, variant: str, against: str, seed: int) -> Path:
    """Whole matches are issue 54's measure (docs/strength.md, "The expert that learns: whole matches")."""
    return HERE / "learned" / f"duel-{preset}-expert-{variant}-vs-{against}-{seed}.cgn.gz"


def duel(preset: str, variant: str, against: str, games: int, seed: int, jobs: int, resume: bool = False) -> None:
    """The variant against the preset's expert (``against="expert"``, the same budget) or the
    advanced player in whole matches (to the target, up to 60 hands), every deal played twice
    with the seats swapped: what players feel, matches won, beside hands won and points a hand."""
    bot = make_variant(preset, variant, same=against != "expert")
    other: str | Variant = baseline(preset)[0] if against == "expert" else against
    if against in VARIANTS:  # another variant: the expert before a change the preset's search has made since
        other = make_variant(preset, against, same=True)
    path = duel_path(preset, variant, against, seed)
    print(f"{preset}: {bot.name} against {other if isinstance(other, str) else other.name}, {games} whole matches, seed {seed} -> "
          f"{path.relative_to(HERE.parent.parent)}")
    done = [0]

    def heard(est: ProgressEstimate) -> None:  # a line a finished match, for a run in the background
        if est.games_done > done[0]:
            done[0] = est.games_done
            print(f"{est.games_done}/{est.games} matches, {est.hands_done:.0f} hands, {est.moves} moves, "
                  f"{time.perf_counter() - started:.0f} s", flush=True)

    started = time.perf_counter()
    _play(preset, bot, other, games, seed, jobs, 60, path, heard, resume)  # 60 hands: run_arena's own cap on a match


def _play(preset: str, bot: Variant, other: str | Variant, games: int, seed: int, jobs: int, max_hands: int, path: Path,
          progress: Callable[[ProgressEstimate], None] | None = None, resume: bool = False) -> None:
    """Play and save the run, and print its table; `kill -INT` or `kill` (a run in the background
    too) stops it keeping whole games."""
    try:
        with stoppable():
            report = run_arena(preset, (bot, other), games=games, seed=seed, jobs=jobs, max_hands=max_hands,
                               save=path, progress=progress, resume=resume)
    except Interrupted as stop:
        report = stop.report
        print(f"stopped: {report.games} games kept")
    print(report.table())


def run(preset: str, variant: str, games: int | None) -> None:
    bot = make_variant(preset, variant)
    planned = games or baseline(preset)[1]
    path = variant_path(preset, variant)
    print(f"{preset}: {bot.name} against advanced, {planned} games, seed {SEED} -> {path.relative_to(HERE.parent.parent)}")
    _play(preset, bot, "advanced", planned, SEED, 1, MAX_HANDS, path)


# the tables read the same kept records several times (a preset's run is compared with each of
# its variants): a record is read, and its games replayed, once a process while the file stays
# as it was (its path, size and time of change)
FileKey = tuple[Path, int, int]


def _key(path: Path) -> FileKey:
    stat = path.stat()
    return path, stat.st_size, stat.st_mtime_ns


def _read(path: Path) -> list[GameRecord]:
    return _read_once(_key(path))


@cache
def _read_once(key: FileKey) -> list[GameRecord]:
    games, errors = read_file(key[0])
    if errors:
        raise SystemExit(f"{key[0]}: {errors[0]}")
    return games


def _won_of(path: Path) -> dict[tuple[str, int], int]:
    """:func:`_won` of the record at ``path``."""
    return _won_once(_key(path))


@cache
def _won_once(key: FileKey) -> dict[tuple[str, int], int]:
    return _won(_read_once(key), key[0].name)


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


def _expert_of(games: list[GameRecord]) -> str:
    """The name of the player a record sets against the advanced one."""
    return next(name for name in games[0].players() if name != "advanced")


def measured_against(preset: str, variant_games: list[GameRecord]) -> Path:
    """The record a variant is compared with: the seed-1201 run, on the same deals, of the expert
    the variant changed (its record names it: ``python:expert:i40+drop-i60``); the preset's run
    (``docs/strength/presets/``), or a former expert's (``docs/strength/earlier/``).  Where both
    name the same expert (Classic's ``expert:i90`` before and after it played for the match), the
    expert of the variant's day: the later run made no later than the variant (the records' dates)."""
    expert = _expert_of(variant_games).removeprefix("python:").rsplit("+", 1)[0]
    day = _date(variant_games)
    runs = [path for path in (record_path(preset, SEED), HERE / "earlier" / record_path(preset, SEED).name)
            if path.is_file() and _expert_of(_read(path)) == expert and _date(_read(path)) <= day]
    if not runs:
        raise SystemExit(f"{preset}: no kept seed-{SEED} run of {expert} to compare its variant with")
    return max(runs, key=lambda path: _date(_read(path)))


def _date(games: list[GameRecord]) -> str:
    """The day a record's run began (its first game's ``Date`` tag, ``2026.12.04``)."""
    return games[0].headers.get("Date", "")


def _differences() -> list[tuple[str, str, Path, Path, float, float, list[int]]]:
    """Each kept variant's record: (preset, variant, record, the record it is compared with, the
    variant's and the expert's shares of the hands both records hold, the variant's result minus
    the expert's on each such hand)."""
    out = []
    for path in sorted((HERE / "variants").glob("arena-*-vs-advanced-*.cgn.gz")):
        m = re.fullmatch(r"arena-(.+)-expert-(.+)-vs-advanced-(\d+)\.cgn\.gz", path.name)
        if m is None:
            raise SystemExit(f"{path.name}: not a variant's record name")
        preset, variant = m.group(1), m.group(2)
        against = measured_against(preset, _read(path))
        out.append((preset, variant, path, against, *_hand_by_hand(path, against)))
    return out


def _hand_by_hand(path: Path, other_path: Path) -> tuple[float, float, list[int]]:
    """Two records of the same deals, on the hands both hold: each one's share of those hands won
    against the advanced player, and on each hand the first's result minus the other's."""
    mine, theirs = _won_of(path), _won_of(other_path)
    both = sorted(set(mine) & set(theirs))
    n = len(both)
    return (sum(mine[k] > 0 for k in both) / n, sum(theirs[k] > 0 for k in both) / n,
            [(mine[k] > 0) - (theirs[k] > 0) for k in both])


def _interval(d: list[int]) -> str:
    """The mean of ``d`` in points of hands won, with its 95% interval."""
    n = len(d)
    mean = sum(d) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n)
    return f"{100 * mean:+.1f} [{100 * (mean - 1.96 * se):+.1f}, {100 * (mean + 1.96 * se):+.1f}]"


def compare_table() -> list[str]:
    """One row a kept variant: its share of hands and the preset's expert's on the hands both
    records hold (the same deals), the difference with its 95% interval over those hands."""
    lines = ["| preset | variant | what it changes | hands both hold | variant's hands won | expert's "
             "| difference [95%] | record | compared with |",
             "|---|---|---|---|---|---|---|---|---|"]
    for preset, variant, path, against, a, b, d in _differences():
        lines.append(f"| {preset} | `{variant}` | {VARIANTS[variant][0]} | {len(d):,} | {100 * a:.1f}% "
                     f"| {100 * b:.1f}% | {_interval(d)} | `docs/strength/variants/{path.name}` "
                     f"| `{against.relative_to(HERE.parent.parent)}` |")
    return lines


def former_table() -> list[str]:
    """Each preset whose expert has changed since an earlier run on the same deals (seed 1201,
    ``docs/strength/earlier/``): today's run and the former one compared hand by hand on the hands
    both records hold, as a variant is; then each family's presets together."""
    lines = ["| preset | today | former | hands both hold | today's hands won | former's "
             "| difference [95%] | records |",
             "|---|---|---|---|---|---|---|---|"]
    pooled: dict[str, list[int]] = {}  # by family: each family's expert changed on its own
    for preset, _, _ in RUNS:
        today = record_path(preset, SEED)
        former = HERE / "earlier" / today.name
        if not (today.is_file() and former.is_file()):
            continue
        games, earlier = _read(today), _read(former)
        a, b, d = _hand_by_hand(today, former)
        pooled.setdefault(family_of(RuleSet.preset(preset)).name, []).extend(d)
        lines.append(f"| {preset} | `{_expert_of(games)}` | `{_expert_of(earlier)}` | {len(d):,} "
                     f"| {100 * a:.1f}% | {100 * b:.1f}% | {_interval(d)} "
                     f"| `docs/strength/presets/{today.name}`, `docs/strength/earlier/{former.name}` |")
    for family, d in pooled.items():
        lines.append(f"| all {family} presets | | | {len(d):,} | | | {_interval(d)} | |")
    return lines


def pooled_table() -> list[str]:
    """A variant tried in several presets: the hands of all of them together."""
    by_variant: dict[str, tuple[list[str], list[int]]] = {}
    for preset, variant, _, _, _, _, d in _differences():
        presets, diffs = by_variant.setdefault(variant, ([], []))
        presets.append(preset)
        diffs.extend(d)
    lines = ["| variant | presets | hands | difference [95%] |", "|---|---|---|---|"]
    for variant, (presets, diffs) in sorted(by_variant.items()):
        if len(presets) > 1:
            lines.append(f"| `{variant}` | {', '.join(presets)} | {len(diffs):,} | {_interval(diffs)} |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("run", help="play a variant on a preset's deals")
    play.add_argument("preset")
    play.add_argument("variant", choices=sorted(VARIANTS))
    play.add_argument("--games", type=int, default=None, help="default: the preset's seed-1201 run's games")
    match = sub.add_parser("duel", help="a variant against the preset's expert (or advanced) in whole matches")
    match.add_argument("preset")
    match.add_argument("variant", choices=sorted(VARIANTS))
    match.add_argument("--against", choices=("expert", "advanced", *sorted(VARIANTS)), default="expert",
                       help="the preset's expert, the advanced player, or another variant (hand: Classic's expert "
                            "before it played for the match)")
    match.add_argument("--games", type=int, default=100)
    match.add_argument("--seed", type=int, default=5400)
    match.add_argument("--jobs", type=int, default=1)
    match.add_argument("--resume", action="store_true", help="continue a stopped duel from its kept record")
    sub.add_parser("compare", help="the table of every kept variant")
    sub.add_parser("former", help="each preset's run against the former expert's on the same deals")
    clock = sub.add_parser("timing", help="CPU per decision and moves of the expert and a variant, same positions")
    clock.add_argument("preset")
    clock.add_argument("variant", choices=sorted(VARIANTS))
    clock.add_argument("--hands", type=int, default=10)
    clock.add_argument("--seed", type=int, default=1)
    clock.add_argument("--plain", action="store_true",
                       help="both at the default budget (worlds and the one-second clock), not an iteration budget")
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.preset, args.variant, args.games)
    elif args.command == "duel":
        duel(args.preset, args.variant, args.against, args.games, args.seed, args.jobs, args.resume)
    elif args.command == "timing":
        timing(args.preset, args.variant, args.hands, args.seed, args.plain)
    elif args.command == "former":
        print("\n".join(former_table()))
    else:
        print("\n".join(compare_table()))
        print()
        print("\n".join(pooled_table()))


if __name__ == "__main__":
    main()
