"""The tables of docs/strength.md that come from kept records, printed from those records.

    .venv/bin/python docs/strength/tables.py presets    # "Every preset": docs/strength/presets/*.cgn.gz
    .venv/bin/python docs/strength/tables.py timing     # "Decision times": docs/strength/timing/*.jsonl
    .venv/bin/python docs/strength/tables.py commands   # the arena commands that make the presets' records

The presets' runs are data (:data:`RUNS`): for each preset the expert at the family's own
number of worlds as an iteration budget (``expert:i90`` in Classic, ``expert:i40`` in Italian: no
clock, so the play and the figures do not depend on the machine or its load) against the
advanced player, on duplicate deals of seed 1201, matches of at most five hands.  A row gives
the command with the games its record holds, which plays exactly those games again (a match's
deal depends on the seed and its number only); a run stopped with Ctrl-C says so.
``tests/test_strength_records.py`` asserts that docs/strength.md holds exactly these lines.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from canasta.play.record import read_file
from canasta.tools.arena import tally

HERE = Path(__file__).resolve().parent
SEED = 1201
MAX_HANDS = 5

#: (preset, the expert's iteration budget, the games the run was started with)
RUNS: list[tuple[str, str, int]] = [
    ("classic-4p", "expert:i90", 220),
    ("classic-2p", "expert:i90", 130),
    ("classic-3p", "expert:i90", 130),
    ("classic-3p-cutthroat", "expert:i90", 130),
    ("classic-6p", "expert:i90", 130),
    ("classic-6p-3x2", "expert:i90", 130),
    ("italian-4p", "expert:i40", 210),
    ("italian-2p", "expert:i40", 130),
    ("italian-3p", "expert:i40", 130),
    ("italian-5p", "expert:i40", 130),
    ("italian-6p", "expert:i40", 130),
    ("italian-6p-3x2", "expert:i40", 130),
]


def record_path(preset: str) -> Path:
    return HERE / "presets" / f"arena-{preset}-expert-vs-advanced-{SEED}.cgn.gz"


def command(preset: str, bot: str, games: int) -> str:
    return (f"canasta arena --rules {preset} --bots {bot},advanced --games {games} --max-hands {MAX_HANDS} "
            f"--jobs 1 --seed {SEED} --save docs/strength/presets/{record_path(preset).name}")


def whole_tally(path: Path) -> dict[str, Any]:
    """What ``canasta arena --tally PATH`` says of a record that must read whole."""
    games, errors = read_file(path)
    if errors:
        raise SystemExit(f"{path}: {errors[0]}")
    d: dict[str, Any] = tally(games, [f"{path.name}, game {i}" for i in range(1, len(games) + 1)]).as_dict()
    if d["errors"] or d["cut_off_games_not_counted"]:
        raise SystemExit(f"{path}: {(d['errors'] + d['cut_off_games_not_counted'])[0]}")
    return d


def presets_table() -> list[str]:
    lines = ["| preset | expert | games | hands | expert's hands won [95%] | games won | per hand "
             "| hands gone out | record |",
             "|---|---|---|---|---|---|---|---|---|"]
    for preset, bot, planned in RUNS:
        path = record_path(preset)
        if not path.is_file():
            lines.append(f"| {preset} | `{bot}` | not run | | | | | | |")
            continue
        d = whole_tally(path)
        if d["rules"] != preset or d["bots"] != [bot, "advanced"]:
            raise SystemExit(f"{path}: holds {d['bots']} on {d['rules']}, not {bot} against advanced on {preset}")
        lo, hi = d["A"]["hands_won_ci95"]
        games = f"{d['games']}" + ("" if d["games"] >= planned else f" (stopped; {planned} planned)")
        lines.append(
            f"| {preset} | `{bot}` | {games} | {d['hands']:,} | **{d['A']['hands_won_pct']}% [{lo}, {hi}]** "
            f"| {d['A']['games_won_pct']}% | {d['mean_score_diff_per_hand_A_minus_B']:+.0f} "
            f"| {d['hands_went_out_pct']}% | `docs/strength/presets/{path.name}` |")
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
        print("\n".join(command(p, b, g) for p, b, g in RUNS))
    else:
        print(f"unknown table {what!r}: presets, timing or commands", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
