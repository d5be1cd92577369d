"""A background ``canasta arena`` is stopped by a signal and keeps its record (issue 51): a shell
starts ``cmd &`` with SIGINT ignored, and ``kill`` sends SIGTERM; either ends the run as Ctrl-C
does, with the deals it finished saved."""

from __future__ import annotations

import os
import signal
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

import canasta.tools.arena as arena
from canasta.cli import main
from canasta.play.record import read_file, verify
from canasta.tools.arena import GameResult
from canasta.tools.commands import stoppable

_REAL_MAP = arena._map


def _signalled_after_one_deal(sig: int) -> Any:
    """A ``_map`` that plays one seeded deal, then gets ``sig`` as a ``kill`` would send it."""
    def fake(tasks: list[Any], jobs: int, heard: Any = None) -> Generator[list[GameResult], None, None]:
        played = _REAL_MAP(tasks, 1, heard)
        yield next(played)
        os.kill(os.getpid(), sig)
        yield next(played)  # not reached: the signal stops the run first
        raise AssertionError(f"signal {sig} was not heard")

    return fake


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_background_arena_stops_on_a_signal_and_keeps_its_record(
        sig: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setattr(arena, "_map", _signalled_after_one_deal(sig))
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell starts `canasta arena ... &`
    term = signal.getsignal(signal.SIGTERM)
    save = tmp_path / "stopped.cgn"
    try:
        code = main(["arena", "--rules", "classic-2p", "--bots", "basic,random", "--games", "6", "--jobs", "1",
                     "--max-hands", "2", "--save", str(save)])
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # the handlers are given back
        assert signal.getsignal(signal.SIGTERM) == term
    finally:
        signal.signal(signal.SIGINT, before)
    err = capsys.readouterr().err
    assert code == 130 and "Traceback" not in err and "2 finished games" in err, err
    games, errors = read_file(save)
    assert errors == [] and len(games) == 2 and all(verify(g) == [] for g in games)


def test_stoppable_turns_both_signals_into_ctrl_c() -> None:
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with pytest.raises(KeyboardInterrupt), stoppable():
                os.kill(os.getpid(), sig)
                raise AssertionError(f"signal {sig} was not heard")
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def _arena(save: Path, *more: str) -> int:
    return main(["arena", "--rules", "classic-2p", "--bots", "basic,random", "--games", "6", "--jobs", "1",
                 "--max-hands", "2", "--save", str(save), *more])


def test_a_stopped_arena_resumes_where_it_stopped_and_plays_the_same_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    whole = tmp_path / "whole.cgn"
    assert _arena(whole, "--seed", "77") == 0
    stopped = tmp_path / "stopped.cgn"
    monkeypatch.setattr(arena, "_map", _signalled_after_one_deal(signal.SIGINT))
    assert _arena(stopped, "--seed", "77") == 130
    assert len(read_file(stopped)[0]) == 2
    monkeypatch.setattr(arena, "_map", _REAL_MAP)
    played: list[int] = []

    def counting(tasks: Any, jobs: int, heard: Any = None) -> Generator[list[GameResult], None, None]:
        for results in _REAL_MAP(tasks, jobs, heard):
            played.append(results[0].index)
            yield results

    monkeypatch.setattr(arena, "_map", counting)
    capsys.readouterr()
    assert _arena(stopped, "--seed", "77", "--resume") == 0
    out = capsys.readouterr().out
    assert played == [1, 2]  # the first deal was kept, not played again
    resumed, errors = read_file(stopped)
    straight, _ = read_file(whole)
    assert errors == [] and [arena._identity(g) for g in resumed] == [arena._identity(g) for g in straight]
    assert "6 games (3 duplicate deals)" in out, out  # the table counts the kept deal too
    figures = ("games_won", "hands_won", "mean_score_diff_per_hand_A_minus_B")
    a, b = arena.tally(resumed).as_dict(), arena.tally(straight).as_dict()
    assert [a["A"].get(k, a.get(k)) for k in figures] == [b["A"].get(k, b.get(k)) for k in figures]


def test_resume_refuses_another_runs_record_and_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    save = tmp_path / "run.cgn"
    monkeypatch.setattr(arena, "_map", _signalled_after_one_deal(signal.SIGINT))
    assert _arena(save, "--seed", "5") == 130
    before = save.read_bytes()
    monkeypatch.setattr(arena, "_map", _REAL_MAP)
    capsys.readouterr()
    assert _arena(save, "--seed", "6", "--resume") != 0
    err = capsys.readouterr().err
    assert "another run" in err and "--seed" in err and "Traceback" not in err, err
    assert _arena(save, "--seed", "5", "--resume", "--max-hands", "3") != 0
    assert "another --max-hands" in capsys.readouterr().err
    assert _arena(save, "--seed", "5", "--resume", "--force") != 0
    assert "give one of them" in capsys.readouterr().err
    assert save.read_bytes() == before
