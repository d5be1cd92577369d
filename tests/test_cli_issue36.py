"""Files and commands a newcomer can trust (issue 36): a record says whether its game is
complete, no file is overwritten without --force or left half written, and bad budgets,
rules files and languages are refused with what is allowed."""

from __future__ import annotations

import json
import multiprocessing
import signal
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

import canasta.cli as cli
import canasta.engine.files as files
import canasta.tools.arena as arena
from canasta.cli import main
from canasta.engine.files import atomic_file, write_text_atomic
from canasta.engine.rules import RuleSet
from canasta.play.record import FINAL_TAG, cut_short, parse_records, read_file, verify
from canasta.tools.arena import GameResult, Interrupted, run_arena, tally


@pytest.fixture(autouse=True)
def _quiet_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def _error_line(code: int, out: str, err: str) -> str:
    assert code != 0 and "Traceback" not in out + err
    lines = err.rstrip("\n").splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def run_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two whole classic-2p games (several hands each) of a seeded arena run."""
    save = tmp_path_factory.mktemp("run") / "run.cgn"
    run_arena(RuleSet.preset("classic-2p"), ("advanced", "basic"), games=2, seed=1, jobs=1, max_hands=60, save=save)
    return save


def _lines_before_hand(text: str, game: int, hand: int) -> int:
    """How many lines come before game ``game``'s hand ``hand`` (a cut at a hand's start)."""
    lines = text.splitlines()
    seen = 0
    for i, line in enumerate(lines):
        if line == '[Hand "1"]':
            seen += 1
        if seen == game and line == f'[Hand "{hand}"]':
            return i
    raise AssertionError("no such hand")


# -- item 1: a record says whether its game is complete ----------------------------------------------


def test_a_record_ends_each_game_with_the_final_tag_the_replay_reaches(run_file: Path) -> None:
    games, errors = read_file(run_file)
    assert errors == [] and len(games) == 2
    for game in games:
        assert game.final == game.headers["Result"] != "*"
        assert verify(game) == []
    assert run_file.read_text().count(f"[{FINAL_TAG} ") == 2


def test_a_file_cut_between_hands_is_not_a_finished_game(run_file: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    text = run_file.read_text()
    cut = tmp_path / "cut.cgn"
    cut.write_text("\n".join(text.splitlines()[:_lines_before_hand(text, 1, 3)]) + "\n")  # `head -n`
    code, out, _ = _run(["verify", str(cut)], capsys)
    assert code == 1 and "cut short" in out and "verified" not in out, out
    code, out, err = _run(["arena", "--tally", str(cut), "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["games"] == 0 and data["cut_off_games_not_counted"] == [f"{cut}, game 1"], err
    code, out, err = _run(["replay", str(cut)], capsys)
    line = _error_line(code, out, err)
    assert "cut short" in line and "verify" in line


def test_a_file_cut_inside_a_line_is_not_a_finished_game(run_file: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    text = run_file.read_text()
    for size in (5000, text.index(f"[{FINAL_TAG} ") + 3, len(text) - 3):  # `head -c`: mid-move, mid-Final
        cut = tmp_path / f"cut-{size}.cgn"
        cut.write_text(text[:size])
        games, errors = read_file(cut)
        assert any("cut short" in e for e in errors), errors
        code, out, _ = _run(["verify", str(cut)], capsys)
        assert code == 1 and "cut short" in out, out
        report = tally(games, [f"game {i}" for i in range(1, len(games) + 1)])
        assert report.cut_off == [f"game {len(games)}"], (size, report.cut_off)
        assert report.games == len(games) - 1


def test_a_final_tag_that_the_replay_does_not_reach_is_damage(run_file: Path) -> None:
    text = run_file.read_text()
    first = text.index(f"[{FINAL_TAG} ")
    end = text.index("\n", first)
    wrong = text[:first] + f'[{FINAL_TAG} "draw"]' + text[end:]
    games, _ = parse_records(wrong)
    problems = verify(games[0])
    assert problems and not cut_short(problems) and "draw" in problems[0]
    with pytest.raises(Exception, match="damaged"):
        tally(games)


def test_a_record_without_the_tag_is_whole_only_when_its_content_proves_it(run_file: Path) -> None:
    """Records written before the tag: the match's end reached by the replay, or (a run
    stopped at its hand limit) an unfinished match as long as another one of the file."""
    old = "\n".join(line for line in run_file.read_text().splitlines() if not line.startswith(f"[{FINAL_TAG} "))
    games, _ = parse_records(old + "\n")
    assert [g.final for g in games] == [None, None] and all(verify(g) == [] for g in games)
    lines = old.splitlines()
    games, _ = parse_records("\n".join(lines[:_lines_before_hand(old, 2, 3)]) + "\n")
    assert verify(games[0]) == [] and cut_short(verify(games[1]))
    lines_score = [i for i, line in enumerate(lines) if line.startswith("[Score ")]
    games, _ = parse_records("\n".join(lines[:lines_score[-1]]) + "\n")  # the last hand lost its score
    assert cut_short(verify(games[1]))

    limited = tmp_run = Path(run_file.parent / "limited.cgn")
    run_arena(RuleSet.preset("classic-2p"), ("advanced", "basic"), games=4, seed=2, jobs=1, max_hands=2,
              save=tmp_run)
    text = "\n".join(line for line in limited.read_text().splitlines() if not line.startswith(f"[{FINAL_TAG} "))
    games, _ = parse_records(text + "\n")
    assert all(g.headers["Result"] == "*" for g in games)
    before = tally(parse_records(limited.read_text())[0]).as_dict()
    assert tally(games).as_dict() == before  # stopped at the hand limit: counted as before
    short = text.splitlines()[:_lines_before_hand(text, 4, 2)]
    report = tally(parse_records("\n".join(short) + "\n")[0])
    assert report.cut_off == ["game 4"] and report.games == 3
    alone, _ = parse_records("\n".join(text.splitlines()[:_lines_before_hand(text, 2, 1)]) + "\n")
    assert cut_short(verify(alone[0]))  # one unfinished game alone proves nothing


# -- item 2: no silent overwrite, no half-written file ------------------------------------------------


def test_rules_save_refuses_to_overwrite_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    house = tmp_path / "house.toml"
    house.write_text("# my hand-edited rules\n")
    code, out, err = _run(["rules", "classic-4p", "--save", str(house)], capsys)
    line = _error_line(code, out, err)
    assert "--force" in line and out == ""
    assert house.read_text() == "# my hand-edited rules\n"
    code, out, err = _run(["rules", "classic-2p", "--save", str(house), "--force"], capsys)
    assert code == 0 and 'name = "classic-2p"' in house.read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_an_interrupted_save_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    house = tmp_path / "house.toml"
    house.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_file(house) as out:
        out.write("half of the ne")
        raise RuntimeError("the disk is full")
    assert house.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "config") == ["house.toml"]

    def stopped(tmp: Path, target: Path) -> None:  # Ctrl-C once the new text is written, before the rename
        assert tmp.read_text().startswith("# canasta rules file")
        raise KeyboardInterrupt

    monkeypatch.setattr(files, "_publish", stopped)
    code, _, _ = _run(["rules", "classic-4p", "--save", str(house), "--force"], capsys)
    assert code == 130 and house.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "config") == ["house.toml"]
    monkeypatch.undo()
    write_text_atomic(house, "new\n")
    assert house.read_text() == "new\n"


_REAL_MAP = arena._map


def _fake_results(count: int, stop: type[BaseException]) -> Any:
    """A ``_map`` that plays ``count`` seeded games, then is stopped by ``stop``."""
    def fake(tasks: list[Any], jobs: int, heard: Any = None) -> Generator[list[GameResult], None, None]:
        played = _REAL_MAP(tasks, 1, heard)
        for _ in range(count):
            yield next(played)
        raise stop

    return fake


def test_ctrl_c_in_arena_keeps_the_finished_games_and_says_how_to_tally_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(arena, "_map", _fake_results(1, KeyboardInterrupt))
    save = tmp_path / "stopped.cgn"
    code, _, err = _run(["arena", "--rules", "classic-2p", "--bots", "basic,random", "--games", "6", "--jobs", "1",
                           "--max-hands", "2", "--save", str(save)], capsys)
    assert code == 130 and "Traceback" not in err
    assert f"canasta arena --tally {save}" in err and "2 finished games" in err, err
    games, errors = read_file(save)
    assert errors == [] and len(games) == 2 and all(verify(g) == [] for g in games)

    monkeypatch.setattr(arena, "_map", _fake_results(0, KeyboardInterrupt))
    code, _, err = _run(["arena", "--rules", "classic-2p", "--bots", "basic,random", "--games", "6", "--jobs", "1",
                           "--max-hands", "2", "--save", str(save), "--force"], capsys)
    assert code == 130 and "nothing was saved" in err
    assert len(read_file(save)[0]) == 2  # the earlier file is as it was


def test_a_run_that_fails_before_any_game_leaves_the_earlier_file(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    save = tmp_path / "games.cgn"
    save.write_text("earlier\n")
    monkeypatch.setattr(arena, "_map", _fake_results(0, RuntimeError))
    with pytest.raises(RuntimeError):
        run_arena(RuleSet.preset("classic-2p"), ("basic", "random"), 2, 1, 1, 2, save)
    assert save.read_text() == "earlier\n"
    monkeypatch.setattr(arena, "_map", _fake_results(1, KeyboardInterrupt))
    with pytest.raises(Interrupted) as stop:
        run_arena(RuleSet.preset("classic-2p"), ("basic", "random"), 6, 1, 1, 2, save)
    assert stop.value.save == save and stop.value.report.games == 2


def _sigint_handler() -> Any:
    return signal.getsignal(signal.SIGINT)


def test_arena_workers_ignore_ctrl_c() -> None:
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1, initializer=arena._init_worker, initargs=(None,)) as pool:
        assert pool.apply(_sigint_handler) == signal.SIG_IGN


def test_ladder_refuses_to_overwrite_an_earlier_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["ladder", "--rules", "classic-2p", "--bots", "random,basic", "--games", "2", "--max-hands", "1",
            "--jobs", "1", "--seed", "5", "--save-dir", str(tmp_path)]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    (kept,) = tmp_path.glob("ladder-*.cgn")
    before = kept.read_text()
    code, out, err = _run(argv, capsys)
    line = _error_line(code, out, err)
    assert kept.name in line and "--force" in line
    assert kept.read_text() == before
    code, out, err = _run([*argv, "--force"], capsys)
    assert code == 0, err


# -- item 3: rules files -------------------------------------------------------------------------------


def test_rules_save_refuses_an_unknown_ending(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["rules", "classic-4p", "--save", str(tmp_path / "house.txt")], capsys)
    line = _error_line(code, out, err)
    assert ".toml" in line and ".json" in line and out == ""
    assert not (tmp_path / "house.txt").exists()


@pytest.mark.parametrize(("name", "text"), [("empty.toml", ""), ("comment.toml", "# nothing\n"), ("empty.json", "{}")])
def test_an_empty_rules_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                         text: str) -> None:
    (tmp_path / name).write_text(text)
    code, out, err = _run(["demo", "--rules", str(tmp_path / name)], capsys)
    line = _error_line(code, out, err)
    assert "empty" in line and name in line


# -- items 5, 7, 8: budgets, install advice, one-line errors ------------------------------------------


@pytest.mark.parametrize("budget", ["i0", "-1", "0", "i-2", "nan", "inf", "ix"])
def test_an_expert_budget_outside_its_range_is_refused(budget: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["demo", "--bot", f"expert:{budget}"], capsys)
    line = _error_line(code, out, err)
    assert repr(budget) in line and "from 1" in line and "above 0" in line


def test_install_advice_fits_a_checkout_or_an_installed_package(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    hint = "the terminal interface needs Textual: pip install 'canasta[play]'"
    root = Path(cli.__file__).resolve().parents[2]
    assert cli._checkout() == root  # the tests run from the checkout
    monkeypatch.chdir(root)
    assert cli._install_advice(hint).endswith("pip install -e '.[play]'")
    monkeypatch.chdir(tmp_path)
    assert cli._install_advice(hint).endswith(f"pip install -e '.[play]' (in {root})")
    monkeypatch.setattr(cli, "_checkout", lambda: None)
    assert cli._install_advice("needs numpy: pip install -e '.[rl]'").endswith("pip install 'canasta[rl]'")


def test_a_database_error_is_one_line() -> None:
    text = ("cannot open database 'sqlite:////proc/x.db': (sqlite3.OperationalError) unable to open database file\n"
            "(Background on this error at: https://sqlalche.me/e/20/e3q8)")
    assert cli._one_line(text) == ("cannot open database 'sqlite:////proc/x.db': (sqlite3.OperationalError) "
                                   "unable to open database file")
