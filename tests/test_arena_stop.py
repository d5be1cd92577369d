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
