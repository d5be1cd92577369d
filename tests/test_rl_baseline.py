"""Issue 32, item 7: the shipped learned baseline (behaviour clone of the advanced player) loads
by name, plays legal moves, and its recorded figures re-tally."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy", reason="policies need numpy: pip install 'canasta[rl]'")

from canasta.bots import make_bot
from canasta.engine.game import Game
from canasta.engine.rules import RuleSet
from canasta.rl.policy import WEIGHTS, PolicyBot
from canasta.views.seat import seat_view

STRENGTH = Path(__file__).resolve().parent.parent / "docs" / "strength"
PRESETS = ("classic-4p", "italian-4p")


@pytest.mark.parametrize("preset", PRESETS)
def test_the_shipped_policy_plays_by_name(preset: str) -> None:
    assert (WEIGHTS / f"{preset}.npz").exists()
    bot = make_bot(f"policy:{preset}", seed=1)
    assert isinstance(bot, PolicyBot) and bot.policy.rules == preset
    game = Game(RuleSet.preset(preset), 3)
    while not game.is_over():
        move = bot.choose(seat_view(game, game.to_move))
        assert game.why_illegal(move) is None
        game.push(move)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_recorded_figures_re_tally(preset: str) -> None:
    record = STRENGTH / f"rl-bc-{preset}.jsonl"
    rows = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert {r["rules"] for r in rows} == {preset}
    assert {r["opponent"] for r in rows} == {"random", "basic"}
    for r in rows:
        assert r["won"] + r["lost"] + r["tied"] == r["hands"] >= 1000
        w = r["won"] / r["hands"]
        half = 1.96 * math.sqrt(w * (1 - w) / r["hands"])
        assert r["ci95"] == [round(100 * (w - half), 1), round(100 * (w + half), 1)]
    by = {r["opponent"]: r for r in rows}
    assert by["random"]["ci95"][0] > 90  # clearly beats random
    assert by["basic"]["won_pct"] > 50  # at par with basic (the interval spans 50%)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_shipped_weights_play_as_recorded_on_a_sample(preset: str) -> None:
    """40 of the recorded seeded hands against random, played again: the weights in the package
    are the ones measured (the record says 95-99% of 1,000 hands)."""
    from canasta.rl.evaluate import evaluate
    from canasta.rl.policy import NumpyPolicy

    result = evaluate(NumpyPolicy.load(WEIGHTS / f"{preset}.npz"), preset, "random", 40, seed=5)
    assert result["hands"] == 40 and result["won"] >= 34, result


def _arena_rows() -> list[dict[str, str]]:
    page = (Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text(encoding="utf-8")
    lines = [line for line in page.splitlines() if line.startswith("|") and "docs/strength/rl/" in line]
    return [dict(zip(("preset", "command", "hands", "won", "games", "per hand", "record"),
                     [c.strip() for c in line.strip("|").split("|")], strict=True)) for line in lines]


def test_every_kept_arena_record_of_the_policies_is_named_in_rl_md() -> None:
    named = {re.search(r"`(docs/strength/rl/[^`]+)`", r["record"]).group(1) for r in _arena_rows()}  # type: ignore[union-attr]
    kept = {f"docs/strength/rl/{p.name}" for p in (STRENGTH / "rl").glob("*.cgn.gz")}
    assert named == kept and len(kept) == 8


def _tally(name: str) -> dict[str, Any]:
    """The figures ``canasta arena --tally`` gives for a kept record (``docs/strength/…``)."""
    from canasta.play.record import read_file
    from canasta.tools.arena import tally

    path = Path(__file__).resolve().parent.parent / name
    games, errors = read_file(path)
    assert errors == []
    return tally(games, [f"{path.name}, game {i}" for i in range(1, len(games) + 1)]).as_dict()


@pytest.mark.parametrize("row", _arena_rows(), ids=lambda r: r["record"].split("/")[-1].strip("`"))
def test_the_policy_arena_rows_are_what_their_records_tally_to(row: dict[str, str]) -> None:
    d = _tally(row["record"].strip("`"))
    assert d["errors"] == [] and d["rules"] == row["preset"] and d["bots"][0] == f"policy:{row['preset']}"
    assert f"--bots {','.join(d['bots'])}" in row["command"] and str(d["hands"]) == row["hands"]
    lo, hi = d["A"]["hands_won_ci95"]
    assert row["won"] == f"{d['A']['hands_won_pct']}% [{lo}, {hi}]" and row["games"] == f"{d['A']['games_won_pct']}%"
    assert row["per hand"] == f"{d['mean_score_diff_per_hand_A_minus_B']:+.0f}"


@pytest.mark.parametrize("preset", PRESETS)
def test_the_ladder_ratings_in_rl_md_are_what_the_kept_records_tally_to(
        preset: str, capsys: pytest.CaptureFixture[str]) -> None:
    from canasta.cli import main

    records = sorted(str(p) for p in (STRENGTH / "rl" / "ladder").glob(f"ladder-{preset}-*.cgn.gz"))
    assert len(records) == 3
    assert main(["ladder", "--rules", preset, "--bots", f"random,basic,policy:{preset},advanced", "--pairs",
                 "adjacent", "--seed", "1", "--tally", *records, "--markdown"]) == 0
    rated = [line for line in capsys.readouterr().out.splitlines() if re.match(r"\| [1-4] \| ", line)]
    page = (Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text(encoding="utf-8")
    assert len(rated) == 4 and all(line in page for line in rated), rated


def test_the_teachers_figure_in_rl_md_is_what_its_record_tallies_to() -> None:
    """The advanced player on the Classic policy's single-hand deals: the figure the page sets
    beside the policy's, from its kept record."""
    name = "docs/strength/rl/teacher/arena-classic-4p-advanced-vs-random-hands-901.cgn.gz"
    d = _tally(name)
    assert d["bots"] == ["advanced", "random"] and d["hands"] == 2000
    lo, hi = d["A"]["hands_won_ci95"]
    page = " ".join((Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text(encoding="utf-8").split())
    assert f"`advanced`, wins {d['A']['hands_won_pct']}% [{lo}, {hi}] of the same 2,000 Classic deals" in page
    assert name in page
