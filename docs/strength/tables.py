"""The tables of docs/strength.md that come from kept records, printed from those records.

    .venv/bin/python docs/strength/tables.py presets    # "Every preset": docs/strength/presets/*.cgn.gz
    .venv/bin/python docs/strength/tables.py timing     # "Decision times": docs/strength/timing/*.jsonl
    .venv/bin/python docs/strength/tables.py commands   # the arena commands that make the presets' records

The presets' runs are data (:data:`RUNS`): for each preset the expert at the family's own
number of worlds as an iteration budget (``expert:i90`` in Classic, ``expert:i60`` in Italian: no
clock, so the play and the figures do not depend on the machine or its load) against the
advanced player, on duplicate deals of seed 1201 (and 1202, then 1203, where that held too few hands),
matches of at most five hands.  A row counts a preset's records together; a run stopped with
Ctrl-C says how many of its games it kept (the command with that number of games plays exactly
those games again: a match's deals depend on the seed and its number only).
``tests/test_strength_records.py`` asserts that docs/strength.md holds exactly these lines.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from canasta.play.record import GameRecord, read_file
from canasta.tools.arena import tally

HERE = Path(__file__).resolve().parent
MAX_HANDS = 5

#: (preset, the expert's iteration budget, the runs: (seed, the games it was started with));
#: a preset whose first run held fewer than 600 hands got a second run on the next seed's deals
RUNS: list[tuple[str, str, list[tuple[int, int]]]] = [
    ("classic-4p", "expert:i90", [(1201, 220)]),
    ("classic-2p", "expert:i90", [(1201, 130), (1202, 40)]),
    ("classic-3p", "expert:i90", [(1201, 130)]),
    ("classic-3p-cutthroat", "expert:i90", [(1201, 130), (1202, 12)]),
    ("classic-6p", "expert:i90", [(1201, 130)]),
    ("classic-6p-3x2", "expert:i90", [(1201, 130)]),
    ("italian-4p", "expert:i60", [(1201, 220), (1202, 60)]),
    ("italian-2p", "expert:i60", [(1201, 140)]),
    ("italian-3p", "expert:i60", [(1201, 140)]),
    ("italian-5p", "expert:i60", [(1201, 140), (1202, 68)]),
    ("italian-6p", "expert:i60", [(1201, 140)]),
    ("italian-6p-3x2", "expert:i60", [(1201, 140)]),
]


def record_path(preset: str, seed: int) -> Path:
    return HERE / "presets" / f"arena-{preset}-expert-vs-advanced-{seed}.cgn.gz"


def command(preset: str, bot: str, seed: int, games: int) -> str:
    return (f"canasta arena --rules {preset} --bots {bot},advanced --games {games} --max-hands {MAX_HANDS} "
            f"--jobs 1 --seed {seed} --save docs/strength/presets/{record_path(preset, seed).name}")


def presets_table() -> list[str]:
    """One row a preset, its runs' records tallied together (as ``canasta arena --tally A B`` does)."""
    lines = ["| preset | expert | games | hands | expert's hands won [95%] | games won | per hand "
             "| hands gone out | records |",
             "|---|---|---|---|---|---|---|---|---|"]
    for preset, bot, runs in RUNS:
        games: list[GameRecord] = []
        names: list[str] = []
        kept: list[str] = []
        stopped = []
        for seed, planned in runs:
            path = record_path(preset, seed)
            if not path.is_file():
                continue
            got, errors = read_file(path)
            if errors:
                raise SystemExit(f"{path}: {errors[0]}")
            games += got
            names += [f"{path.name}, game {i}" for i in range(1, len(got) + 1)]
            kept.append(f"`docs/strength/presets/{path.name}`")
            if len(got) < planned:
                stopped.append(f"seed {seed}: {len(got)} of {planned}")
        if not games:
            lines.append(f"| {preset} | `{bot}` | not run yet (a former expert's runs: \"Earlier runs\") | | | | | | |")
            continue
        d = tally(games, names).as_dict()
        if d["errors"] or d["cut_off_games_not_counted"]:
            raise SystemExit(f"{preset}: {(d['errors'] + d['cut_off_games_not_counted'])[0]}")
        if d["rules"] != preset or d["bots"] != [bot, "advanced"]:
            raise SystemExit(f"{preset}: the records hold {d['bots']} on {d['rules']}, not {bot} against advanced")
        lo, hi = d["A"]["hands_won_ci95"]
        played = f"{d['games']}" + (f" (stopped: {', '.join(stopped)})" if stopped else "")
        lines.append(
            f"| {preset} | `{bot}` | {played} | {d['hands']:,} | **{d['A']['hands_won_pct']}% [{lo}, {hi}]** "
            f"| {d['A']['games_won_pct']}% | {d['mean_score_diff_per_hand_A_minus_B']:+.0f} "
            f"| {d['hands_went_out_pct']}% | {', '.join(kept)} |")
    return lines


def timing_table() -> list[str]:
    lines = ["| preset | engine | deals × 2 | load | expert's decisions | CPU ms mean / median / worst "
             "| over 1 s |",
             "|---|---|---|---|---|---|---|"]
    for path in sorted((HERE / "timing").glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(raw)
            e = r["bots"]["expert"]
            lines.append(f"| {r['rules']} | {r['engine']} | {r['deals']} | {r['load']:.2f} | {e['decisions']} "
                         f"| {e['mean_ms']} / {e['median_ms']} / {e['worst_ms']} | {e['over_1s']} |")
    return lines


def main(argv: list[str]) -> int:
    what = argv[0] if argv else "presets"
    if what == "presets":
        print("\n".join(presets_table()))
    elif what == "timing":
        print("\n".join(timing_table()))
    elif what == "commands":
        print("\n".join(command(p, b, seed, g) for p, b, runs in RUNS for seed, g in runs))
    else:
        print(f"unknown table {what!r}: presets, timing or commands", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
