"""``canasta ladder`` (issue 17, item 5): pairs played or tallied, Bradley–Terry ratings with
intervals, the Markdown table of docs/strength.md, the plot; ``policy:PATH`` bots through make_bot."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from canasta import cli
from canasta.bots import BotSpecError, make_bot
from canasta.engine.errors import CanastaError
from canasta.tools.ladder import Pair, fit, rate


def _pair(a: str, b: str, hands: int, share: float) -> Pair:
    won = round(hands * share)
    return Pair(a, b, hands, won, hands - won, hands // 6, "test")


def test_fit_recovers_the_rating_differences() -> None:
    # 76% of hands is 200 Elo (1 / (1 + 10 ** (-200 / 400)) = 0.760); 64% is 100 Elo
    pairs = [_pair("x", "y", 20000, 0.760), _pair("y", "z", 20000, 0.640), _pair("x", "z", 20000, 0.849)]
    z, y, x = fit(["z", "y", "x"], pairs)  # in the order the bots are listed, the first at 0
    assert z == 0.0
    assert y == pytest.approx(100, abs=5) and x == pytest.approx(300, abs=5)


def test_intervals_cover_the_estimate_and_shrink_with_hands() -> None:
    small = rate(["a", "b"], [_pair("a", "b", 100, 0.4)], seed=3, samples=200)
    large = rate(["a", "b"], [_pair("a", "b", 4000, 0.4)], seed=3, samples=200)
    for r in (small[1], large[1]):
        assert r.low <= r.elo <= r.high and r.elo > 0
    assert large[1].high - large[1].low < (small[1].high - small[1].low) / 3
    # a bot that won every hand still gets a finite rating
    sweep = rate(["a", "b"], [_pair("a", "b", 50, 0.0)], seed=3, samples=50)
    assert math.isfinite(sweep[1].elo) and sweep[1].elo > 400


def test_unlinked_bots_are_refused() -> None:
    with pytest.raises(CanastaError, match="connected"):
        fit(["a", "b", "c", "d"], [_pair("a", "b", 10, 0.5), _pair("c", "d", 10, 0.5)])


def test_ladder_command_plays_then_tallies_the_same_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["ladder", "--rules", "classic-2p", "--bots", "random,basic,advanced", "--games", "2", "--seed", "5",
            "--max-hands", "2", "--jobs", "1", "--json"]
    assert cli.main(args + ["--save-dir", str(tmp_path)]) == 0
    played = json.loads(capsys.readouterr().out)
    assert [r["bot"] for r in played["ratings"]] == ["random", "basic", "advanced"]
    assert len(played["pairs"]) == 3 and all(p["hands"] >= 2 for p in played["pairs"])
    files = sorted(str(f) for f in tmp_path.glob("ladder-classic-2p-*.cgn"))
    assert len(files) == 3

    def no_play(*a: object, **k: object) -> None:
        raise AssertionError("a tallied pair was played again")

    monkeypatch.setattr("canasta.tools.ladder.run_arena", no_play)
    assert cli.main(args + ["--tally", *files]) == 0
    tallied = json.loads(capsys.readouterr().out)
    assert tallied["ratings"] == played["ratings"]
    for p, q in zip(played["pairs"], tallied["pairs"], strict=True):
        assert (p["a"], p["b"], p["hands"], p["won_a"], p["won_b"]) == (q["a"], q["b"], q["hands"], q["won_a"],
                                                                         q["won_b"])
    assert cli.main(args[:-1] + ["--markdown", "--tally", *files]) == 0
    md = capsys.readouterr().out
    assert md.startswith("`canasta ladder --rules classic-2p --bots random,basic,advanced --seed 5")
    assert "--games" not in md.splitlines()[0], "a ladder tallied whole plays no games: its command names none"
    assert "| rank | bot | Elo | 95% interval | hands played |" in md and "| random vs basic |" in md


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="--plot needs the arena extra")
def test_ladder_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "ladder.png"
    assert cli.main(["ladder", "--rules", "classic-2p", "--bots", "random,basic", "--games", "2", "--max-hands", "1",
                     "--jobs", "1", "--save-dir", str(tmp_path), "--plot", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert "rank" in capsys.readouterr().out


def test_ladder_plot_without_matplotlib_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("canasta.tools.arena.plot_needs", lambda: "--plot needs matplotlib: pip install -e '.[arena]'")
    assert cli.main(["ladder", "--bots", "random,basic", "--games", "2", "--save-dir", str(tmp_path),
                     "--plot", str(tmp_path / "x.png")]) == 2
    assert capsys.readouterr().err.strip() == "canasta: error: --plot needs matplotlib: pip install -e '.[arena]'"
    assert list(tmp_path.iterdir()) == []  # refused before any game


@pytest.mark.skipif(importlib.util.find_spec("numpy") is None, reason="policy bots need the rl extra (numpy)")
def test_a_saved_policy_is_a_bot_and_climbs_the_ladder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import numpy as np

    from canasta.engine.rules import RuleSet
    from canasta.rl.encoding import NUM_ACTIONS, Observer
    from canasta.rl.policy import NumpyPolicy, PolicyBot

    inputs = Observer(RuleSet.preset("classic-2p")).size
    rng = np.random.default_rng(1)
    policy = NumpyPolicy([(rng.normal(size=(8, inputs)).astype(np.float32), np.zeros(8, dtype=np.float32)),
                          (rng.normal(size=(NUM_ACTIONS, 8)).astype(np.float32),
                           np.zeros(NUM_ACTIONS, dtype=np.float32))], rules="classic-2p")
    path = tmp_path / "p.npz"
    policy.save(path)
    assert isinstance(make_bot(f"policy:{path}"), PolicyBot)
    with pytest.raises(BotSpecError, match="policy:"):
        make_bot(f"policy:{tmp_path / 'missing.npz'}")
    assert cli.main(["ladder", "--rules", "classic-2p", "--bots", f"random,policy:{path}", "--games", "2",
                     "--max-hands", "1", "--jobs", "1", "--save-dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["bot"] for r in out["ratings"]] == ["random", f"policy:{path}"]


def test_adjacent_pairs_play_one_rung_at_a_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["ladder", "--rules", "classic-2p", "--bots", "random,basic,advanced", "--pairs", "adjacent",
                     "--games", "2", "--max-hands", "1", "--jobs", "1", "--save-dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(p["a"], p["b"]) for p in out["pairs"]] == [("random", "basic"), ("basic", "advanced")]
    assert len(out["ratings"]) == 3


def test_a_ladder_by_matches_counts_whole_matches_and_refuses_matches_cut_short(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    whole, short = tmp_path / "whole", tmp_path / "short"
    whole.mkdir()
    short.mkdir()
    base = ["ladder", "--rules", "classic-2p", "--bots", "random,basic", "--games", "2", "--seed", "5", "--jobs", "1"]
    assert cli.main(base + ["--by", "matches", "--save-dir", str(whole), "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    pair = played["pairs"][0]
    assert played["by"] == "matches" and pair["hands"] == pair["games"] == 2
    assert pair["won_a"] + pair["won_b"] <= 2 and pair["won_b"] >= 1  # basic wins a match against random
    files = [str(f) for f in whole.glob("*.cgn")]
    monkeypatch.setattr("canasta.tools.ladder.run_arena", lambda *a, **k: pytest.fail("a tallied pair was played"))
    assert cli.main(base + ["--by", "matches", "--tally", *files, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pairs"][0]["won_b"] == pair["won_b"]
    # by hands, the same records count their hands
    assert cli.main(base + ["--tally", *files, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pairs"][0]["hands"] > 2
    # a name only tallied need not be a bot this program can make (a variant's record, say)
    assert cli.main(base[:4] + ["random,basic,python:not-a-bot", "--pairs", "adjacent", "--by", "matches",
                                "--tally", *files, "--json"]) == 2
    assert "python:not-a-bot" in capsys.readouterr().err  # its pair is not in the records: it would be played
    monkeypatch.undo()
    assert cli.main(base[:-2] + ["--jobs", "1", "--max-hands", "1", "--save-dir", str(short), "--json"]) == 0
    capsys.readouterr()
    cut = [str(f) for f in short.glob("*.cgn")]
    assert cli.main(base + ["--by", "matches", "--tally", *cut, "--json"]) != 0
    err = capsys.readouterr().err
    assert "whole matches only" in err and "Traceback" not in err
    # and it plays none cut short
    assert cli.main(base + ["--by", "matches", "--max-hands", "3", "--save-dir", str(short), "--json"]) == 2
    assert "--max-hands" in capsys.readouterr().err


def test_same_counts_a_records_player_as_another_bot(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    base = ["ladder", "--rules", "classic-2p", "--games", "2", "--seed", "5", "--max-hands", "1", "--jobs", "1"]
    assert cli.main(base + ["--bots", "random,basic", "--save-dir", str(tmp_path), "--json"]) == 0
    played = json.loads(capsys.readouterr().out)["pairs"][0]
    files = [str(f) for f in tmp_path.glob("*.cgn")]
    monkeypatch.setattr("canasta.tools.ladder.run_arena", lambda *a, **k: pytest.fail("a tallied pair was played"))
    # the record's "basic" counted as "python:basic-renamed": the same hands, under the new name
    assert cli.main(base + ["--bots", "random,python:basic-renamed", "--same", "basic=python:basic-renamed",
                            "--tally", *files, "--json"]) == 0
    renamed = json.loads(capsys.readouterr().out)["pairs"][0]
    assert (renamed["a"], renamed["b"]) == ("random", "python:basic-renamed")
    assert (renamed["hands"], renamed["won_a"], renamed["won_b"]) == (played["hands"], played["won_a"],
                                                                       played["won_b"])
    assert cli.main(base + ["--bots", "random,python:basic-renamed", "--same", "basic=python:basic-renamed",
                            "--markdown", "--tally", *files]) == 0
    assert "--same basic=python:basic-renamed --tally" in capsys.readouterr().out.splitlines()[0]
    # refused: both players made one bot, a word that is not LABEL=BOT, --same without records
    assert cli.main(base + ["--bots", "random,basic", "--same", "basic=random", "--tally", *files, "--json"]) == 2
    assert "both of its players 'random'" in capsys.readouterr().err
    for bad in (["--same", "basic"], ["--same", "basic=basic"], ["--same", "=random"]):
        with pytest.raises(SystemExit):
            cli.main(base + ["--bots", "random,basic", *bad, "--tally", *files])
        assert "is not LABEL=BOT" in capsys.readouterr().err
    assert cli.main(base + ["--bots", "random,basic", "--same", "basic=x", "--json"]) == 2
    assert "--same renames the players of --tally records" in capsys.readouterr().err
