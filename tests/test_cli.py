"""The ``canasta`` command line, in-process (capsys) and once as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from canasta.cli import main
from canasta.engine.rules import PRESETS, RuleSet, load_rules, save_rules
from canasta.tools.bench import run_bench

PRESET_NAMES = sorted(PRESETS)
BENCH_KEYS = {"hands_per_s", "decisions_per_s", "decisions_per_hand"}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse exits on bad arguments
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def _bench_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code, out, err = _run(["bench", "--json", *argv], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 1, f"--json prints exactly one line, got {out!r}"
    data = json.loads(lines[0])
    assert isinstance(data, dict)
    return data


def test_bench_prints_rates(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["bench", "--hands", "4", "--seed", "3"], capsys)
    assert code == 0, err
    assert "hands/s" in out and "decisions/s" in out and "decisions per hand" in out
    assert "Traceback" not in out + err
    dph = next(line for line in out.splitlines() if "decisions per hand" in line)
    assert float(dph.split()[-1]) > 0


def test_bench_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = _bench_json(["--hands", "5", "--seed", "7"], capsys)
    assert set(data) >= BENCH_KEYS
    assert data["hands"] == 5
    assert data["rules"] == "classic-4p"
    values = {k: data[k] for k in BENCH_KEYS}
    assert all(isinstance(v, (int, float)) and v > 0 for v in values.values())
    hps, dps, dph = (float(data[k]) for k in ("hands_per_s", "decisions_per_s", "decisions_per_hand"))  # type: ignore[arg-type]
    assert dps / hps == pytest.approx(dph, rel=0.01)  # decisions/s ÷ hands/s is decisions per hand
    # the count of decisions does not depend on the clock: the same seed gives the same number
    again = _bench_json(["--hands", "5", "--seed", "7"], capsys)
    assert again["decisions_per_hand"] == data["decisions_per_hand"]
    res = run_bench(RuleSet.preset("classic-4p"), 5, 7)
    assert round(res.decisions / 5, 2) == data["decisions_per_hand"]


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_bench_accepts_every_preset(preset: str, capsys: pytest.CaptureFixture[str]) -> None:
    data = _bench_json(["--hands", "2", "--rules", preset], capsys)
    assert data["rules"] == preset
    assert data["hands"] == 2
    assert set(data) >= BENCH_KEYS


def test_bench_accepts_a_rules_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "house.toml"
    save_rules(RuleSet.preset("classic-3p", {"C-O1": "max3_only"}), path)
    data = _bench_json(["--hands", "2", "--rules", str(path)], capsys)
    assert data["rules"] == "classic-3p"
    jpath = tmp_path / "house.json"
    save_rules(RuleSet.preset("classic-6p"), jpath)
    assert _bench_json(["--hands", "1", "--rules", str(jpath)], capsys)["rules"] == "classic-6p"


def test_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    data = _bench_json(["--hands", "2", "--runs", "3"], capsys)
    runs = data["runs_hands_per_s"]
    assert isinstance(runs, list) and len(runs) == 3


def test_demo_and_rules_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["demo", "--seed", "4", "--rules", "classic-2p"], capsys)
    assert code == 0, err
    assert "hand ended" in out and "side 0" in out and "side 1" in out
    code, out, err = _run(["rules", "classic-6p"], capsys)
    assert code == 0, err
    assert "6 players" in out and all(f"C-O{i} " in out for i in range(1, 15))
    path = tmp_path / "saved.toml"
    code, out, err = _run(["rules", "classic-4p", "--set", "C-O1=max3_only", "--set", "target=3000",
                           "--set", "black_three_freezes=true", "--save", str(path)], capsys)
    assert code == 0, err
    saved = load_rules(path)
    assert saved == RuleSet.preset("classic-4p", {"C-O1": "max3_only", "target": 3000, "C-O2": True})


def test_arena_then_a_tally_of_its_saved_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "run.cgn"
    code, out, _ = _run(["arena", "--rules", "classic-2p", "--bots", "basic,random", "--games", "2",
                         "--jobs", "1", "--seed", "3", "--max-hands", "2", "--save", str(save), "--json"], capsys)
    assert code == 0
    played = json.loads(out)
    code, out, _ = _run(["arena", "--tally", str(save), "--json"], capsys)
    assert code == 0
    counted = json.loads(out)
    for key in ("games", "hands", "mean_score_diff_per_hand_A_minus_B"):
        assert counted[key] == played[key], key
    assert counted["A"]["hands_won"] == played["A"]["hands_won"]
    for side in "AB":  # the record keeps every decision's time (to 0.01 ms), so a tally has them too
        # (the worst is shown to 0.1 ms: a time kept as 1.95 may show as 2.0 where the run showed 1.9)
        assert counted[side]["worst_decision_ms"] == pytest.approx(played[side]["worst_decision_ms"], abs=0.11), side
        assert counted[side]["mean_decision_ms"] == pytest.approx(played[side]["mean_decision_ms"], abs=0.011), side
    text = save.read_text(encoding="utf-8")
    assert text.count("[DecisionMs ") == played["hands"]
    # a record without the times (an older one) counts as before, without decision times
    bare = tmp_path / "bare.cgn"
    bare.write_text("\n".join(line for line in text.splitlines() if not line.startswith("[DecisionMs ")) + "\n",
                    encoding="utf-8")
    code, out, _ = _run(["arena", "--tally", str(bare), "--json"], capsys)
    assert code == 0
    assert json.loads(out)["A"]["mean_decision_ms"] is None and json.loads(out)["hands"] == played["hands"]
    # times that do not match the moves are refused, naming the file and the hand
    first = next(line for line in text.splitlines() if line.startswith("[DecisionMs "))
    for bad_tag in ('[DecisionMs "1.0"]', '[DecisionMs "' + first[13:-2].replace(" ", " x", 1) + '"]'):
        damaged = tmp_path / "damaged.cgn"
        damaged.write_text(text.replace(first, bad_tag, 1), encoding="utf-8")
        code, out, err = _run(["arena", "--tally", str(damaged), "--json"], capsys)
        assert code == 2 and out == "" and "damaged.cgn, game 1, hand 1" in err and "DecisionMs" in err, err
    # the same games given twice are counted once (issue 56), the repeats listed
    code, out, _ = _run(["arena", "--tally", str(save), str(save), "--json"], capsys)
    assert code == 0
    twice = json.loads(out)
    assert (twice["games"], twice["hands"]) == (played["games"], played["hands"])
    assert twice["A"]["hands_won"] == played["A"]["hands_won"]
    assert len(twice["repeated_games_not_counted"]) == played["games"]


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run([], capsys)
    assert code == 0
    assert "bench" in out


def _bad_inputs(tmp_path: Path) -> list[tuple[list[str], tuple[str, ...]]]:
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("players = = 4\n[[[\n")
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('preset = "classic-4p"\nC-O77 = true\n')
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json")
    return [
        (["bench", "--rules", "classic-5p"], ("classic-5p",)),
        (["bench", "--rules", "nope"], ("nope",)),
        (["demo", "--rules", "classic-99p"], ("classic-99p",)),
        (["rules", "classic-7p"], ("classic-7p",)),
        (["bench", "--hands", "abc"], ("abc",)),
        (["bench", "--hands", "0"], ("0",)),
        (["bench", "--hands", "-3"], ("-3",)),
        (["bench", "--hands", "2.5"], ("2.5",)),
        (["bench", "--seed", "x"], ("x",)),
        (["bench", "--runs", "0"], ("0",)),
        (["demo", "--seed", "1e3"], ("1e3",)),
        (["bench", "--rules", str(tmp_path / "missing.toml")], ("missing.toml",)),
        (["rules", str(tmp_path / "missing.json")], ("missing.json",)),
        (["bench", "--rules", str(bad_toml)], ("bad.toml",)),
        (["bench", "--rules", str(bad_json)], ("bad.json",)),
        (["bench", "--rules", str(unknown)], ("C-O77",)),
        (["rules", "--set", "C-O1=bogus"], ("C-O1", "bogus")),
        (["rules", "--set", "C-O1"], ("OPTION=VALUE",)),
        (["rules", "--set", "C-O99=1"], ("C-O99",)),
        (["rules", "--set", "target=lots"], ("target",)),
        (["rules", "classic-4p", "--set", "C-O10=true"], ("C-O10",)),
        (["rules", "--set", "hand_size=40"], ("hand_size",)),
        (["bench", "--bogus"], ("--bogus",)),
        (["frobnicate"], ("frobnicate",)),
        (["arena", "--bots", "grandmaster,basic", "--games", "2"], ("grandmaster",)),
        (["arena", "--bots", "basic", "--games", "2"], ("two bots",)),
        (["arena", "--bots", "expert:soon,basic", "--games", "2"], ("soon",)),
        (["arena", "--games", "2"], ("--bots",)),
        (["arena", "--tally", str(tmp_path / "missing.cgn")], ("missing.cgn",)),
        (["arena", "--tally", str(bad_json)], ("no game record",)),
        (["selfcheck", "--hands", "0"], ("0",)),
        (["verify", str(tmp_path / "missing.cgn")], ("missing.cgn",)),
        (["verify", str(bad_json)], ("bad.json",)),
    ]


def test_bad_input_exits_nonzero_with_an_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, words in _bad_inputs(tmp_path):
        code, out, err = _run(argv, capsys)
        assert code != 0, argv
        assert "Traceback" not in out + err, argv
        assert out == "", f"{argv}: errors go to stderr"
        error_lines = [line for line in err.splitlines() if "error" in line]
        assert len(error_lines) == 1, f"{argv}: {err!r}"
        assert err.rstrip("\n").splitlines()[-1] == error_lines[0], f"{argv}: the error is the last line"
        for w in words:
            assert w in error_lines[0], f"{argv}: {error_lines[0]!r} should mention {w!r}"


def test_bad_input_message_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole of stderr is one line (no multi-line usage dump)."""
    offenders = []
    for argv, _ in _bad_inputs(tmp_path):
        _, _, err = _run(argv, capsys)
        if len(err.rstrip("\n").splitlines()) != 1:
            offenders.append((argv, err))
    assert not offenders, f"{len(offenders)} bad inputs print more than one line, e.g. {offenders[0]!r}"


def _command() -> list[str]:
    script = Path(sys.executable).parent / "canasta"
    return [str(script)] if script.exists() else [sys.executable, "-m", "canasta.cli"]


def test_real_process() -> None:
    done = subprocess.run([*_command(), "bench", "--hands", "3", "--json", "--rules", "classic-2p"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert set(data) >= BENCH_KEYS and data["rules"] == "classic-2p" and data["hands"] == 3
    bad = subprocess.run([sys.executable, "-m", "canasta.cli", "bench", "--rules", "nope.toml"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert bad.returncode != 0
    assert "Traceback" not in bad.stderr + bad.stdout
    assert "nope.toml" in bad.stderr
