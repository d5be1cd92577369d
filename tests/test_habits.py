"""The advanced player's habits (:data:`canasta.bots.heuristic.HABITS`), their tuning by
self-play (:mod:`canasta.rl.tune`), and the expert's guide and rollouts playing with them."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from canasta.bots import expert
from canasta.bots.expert import ExpertBot
from canasta.bots.heuristic import HABITS, AdvancedBot, read_habits, shipped_habits
from canasta.engine.game import Game, family_of
from canasta.engine.rules import RuleSet
from canasta.engine.state import MELD_PHASE
from canasta.views.seat import seat_view


def _as_shipped(bot: AdvancedBot) -> dict[str, float]:
    return {name: float(getattr(bot, name)) for name in HABITS}


def test_the_habits_are_the_advanced_players_own() -> None:
    assert _as_shipped(AdvancedBot(0)) == {name: v[0] for name, v in HABITS.items()}
    for name, (value, scale, lo, hi, whole) in HABITS.items():
        assert lo <= value <= hi and scale > 0, name
        assert isinstance(getattr(AdvancedBot(0), name), int) == whole, name


def test_set_habits_changes_the_play_and_refuses_unknown_names() -> None:
    rules = RuleSet.preset("classic-4p")
    plain, hoarder = AdvancedBot(5), AdvancedBot(5)
    hoarder.set_habits({"pair_weight": 60.0, "take_min_size": 8.0, "freeze_value": 0.0})
    assert (hoarder.pair_weight, hoarder.take_min_size, hoarder.freeze_value) == (60.0, 8, 0)
    differs = 0
    for seed in range(6):
        g = Game(rules, seed)
        while not g.is_over():
            view = seat_view(g, g.to_move)
            a, b = plain.choose(view), hoarder.choose(view)
            differs += a != b
            g.play(a)
    assert differs > 0
    before = _as_shipped(plain)
    with pytest.raises(ValueError, match="unknown habits pair_wieght"):
        plain.set_habits({"pair_weight": 3.0, "pair_wieght": 3.0})
    assert _as_shipped(plain) == before


def test_habits_files_are_read_or_refused_with_the_reason() -> None:
    assert read_habits(json.dumps({"habits": {"pair_weight": 7.5, "no_stock": 20}})) == \
        {"pair_weight": 7.5, "no_stock": 20.0}
    for text, reason in [("{", "is JSON"), ("[1]", "holds"), ('{"habits": {"nerve": 1}}', "unknown habit 'nerve'"),
                         ('{"habits": {"no_stock": "20"}}', "is a number"),
                         ('{"habits": {"no_stock": true}}', "is a number"),
                         ('{"habits": {"pair_weight": -1}}', "lies between 0 and 60")]:
        with pytest.raises(ValueError, match=reason):
            read_habits(text)


def test_tune_keeps_the_habits_in_their_bounds() -> None:
    from canasta.rl.tune import habits_of

    assert habits_of([0.0] * len(HABITS)) == {name: v[0] for name, v in HABITS.items()}
    high = habits_of([1e6] * len(HABITS))
    low = habits_of([-1e6] * len(HABITS))
    for name, (_, _, lo, hi, _) in HABITS.items():
        assert (low[name], high[name]) == (lo, hi)
    step = habits_of([0.37] * len(HABITS))
    for name, (_, _, _, _, whole) in HABITS.items():
        if whole:
            assert step[name] == round(step[name]), name
    assert step != habits_of([0.0] * len(HABITS))


def test_the_tuning_command_gives_the_same_habits_from_the_same_seed(tmp_path: Path) -> None:
    pytest.importorskip("cma", reason="the tuning command needs the rl extra's cma")
    from canasta.rl import tune

    outs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.json"
        tune.main(["--rules", "classic-2p", "--generations", "2", "--pairs", "2", "--population", "3",
                   "--holdout", "2", "--jobs", "1", "--seed", "9", "--out", str(out)])
        outs.append(json.loads(out.read_text(encoding="utf-8")))
    assert outs[0]["habits"] == outs[1]["habits"]
    assert outs[0]["habits"] != {name: v[0] for name, v in HABITS.items()}  # the search moved
    assert read_habits(json.dumps(outs[0])) == outs[0]["habits"]
    assert outs[0]["meta"]["held_out"]["hands"] == 4
    assert [h["generation"] for h in outs[0]["meta"]["history"]] == [0, 1]


@pytest.mark.parametrize("argv, reason", [
    (["--rules", "classic-3p-cutthroat"], "rules with two sides, not classic-3p-cutthroat (3 sides)"),
    (["--rules", "no-such-preset"], "no-such-preset"),
    (["--pairs", "0"], "must be at least 1, not 0"),
    (["--population", "1"], "--population is at least 2"),
    (["--jobs", "100000"], "at most 256 processes"),
])
def test_the_tuning_command_refuses_what_it_cannot_play(argv: list[str], reason: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from canasta.rl import tune

    with pytest.raises(SystemExit):
        tune.main([*argv, "--out", str(tmp_path / "h.json")])
    assert reason in capsys.readouterr().err
    assert not (tmp_path / "h.json").exists()


def test_the_shipped_habits_are_habits() -> None:
    for path in sorted((Path(__file__).resolve().parents[1] / "src/canasta/bots/weights").glob("habits-*.json")):
        preset = path.stem.removeprefix("habits-")
        assert RuleSet.preset(preset).name == preset
        assert shipped_habits(preset) == read_habits(path.read_text(encoding="utf-8"))


def test_the_expert_plays_with_the_preset_habits_where_its_search_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    tuned = {"pair_weight": 20.0, "take_min_size": 5.0, "out_margin": -100.0}
    monkeypatch.setattr(expert, "shipped_habits", lambda name: tuned if name == "classic-4p" else None)
    rules = RuleSet.preset("classic-4p")
    search = family_of(rules).search
    g = Game(rules, 11)
    while g.phase != MELD_PHASE or len(g.options()) < 3:  # a meld phase with choices: the search runs
        g.play(AdvancedBot(0).choose(seat_view(g, g.to_move)))
    bot = ExpertBot(3)
    for asks in (True, False, True):  # and back to the habits as shipped
        bot.tuning = replace(search, habits=asks, worlds=2)
        bot.choose(seat_view(g, g.to_move))
        expected = {**{k: v[0] for k, v in HABITS.items()}, **(tuned if asks else {})}
        for player in (bot.guide, bot.rollout):
            assert isinstance(player, AdvancedBot)
            assert _as_shipped(player) == expected


@pytest.mark.parametrize("run", ["gen1", "gen2"])
def test_the_kept_tuning_run_is_what_docs_bots_says(run: str) -> None:
    root = Path(__file__).resolve().parents[1]
    record = json.loads((root / f"docs/strength/learned/habits-classic-4p-{run}.json").read_text(encoding="utf-8"))
    assert read_habits(json.dumps(record)) == record["habits"]
    meta, held = record["meta"], record["meta"]["held_out"]
    assert len(meta["history"]) == meta["generations"]
    assert held["hands"] == 2 * int(meta["command"].split("--holdout ")[1].split()[0])
    doc = " ".join((root / "docs/bots.md").read_text(encoding="utf-8").split())
    assert f"**{held['lead']:+.1f} points a hand [{held['low']:+.1f}, {held['high']:+.1f}]**" in doc
    assert f"won {100 * held['won']:.1f}% of the hands" in doc
    assert f"{meta['hands_played']:,} hands, {meta['cpu_seconds']:,.0f} s of CPU" in doc
