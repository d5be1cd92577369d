"""Issue 51: the commands play Modern American Canasta, seeded: ``canasta demo --rules american-4p``,
``canasta play`` (the terminal app gets an American table), ``canasta arena`` (games saved, tallied
and verified) and ``canasta review`` (the expert's review of a seat of an American record)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from canasta.cli import main
from canasta.play.record import read_file, verify


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_plays_a_seeded_american_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["demo", "--rules", "american-4p", "--seed", "3"], capsys)
    assert code == 0, err
    assert '[Rules "american-4p"]' in out and "hand ended" in out
    dealt = re.findall(r"seat \d is dealt ((?:\S+ ?)+)", out)
    assert len(dealt) == 4 and all(len(cards.split()) == 13 for cards in dealt), dealt  # C.1.4
    assert "the pile, bottom to top: (empty)\n" in out  # no upcard (C.1.4)
    lines = [line for line in out.splitlines() if line.strip().startswith("side ")]
    assert len(lines) == 2 and all("total" in line for line in lines)
    assert "red threes" not in out and re.search(r"side \d: .*\bthrees -?[\d,]+", out)  # every three scores (C.14.1 c)
    again = _run(["demo", "--rules", "american-4p", "--seed", "3"], capsys)[1]
    assert re.sub(r'\[Date "[^"]*"\]', "", again) == re.sub(r'\[Date "[^"]*"\]', "", out)  # seeded


def test_play_starts_the_terminal_app_on_an_american_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("textual")
    from canasta.tui.app import CanastaApp

    started: list[CanastaApp] = []
    monkeypatch.setattr(CanastaApp, "run", lambda self, *a, **k: started.append(self))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert main(["play", "--rules", "american-4p", "--seed", "5", "--delay", "0", "--save-dir", str(tmp_path)]) == 0
    assert len(started) == 1
    table = started[0].table
    assert table is not None and table.rules.name == "american-4p" and table.rules.family == "american"
    assert len(table.view(0).hand) >= 13 and table.rules.players == 4


def test_arena_plays_saves_and_tallies_american_games_and_review_reads_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "american.cgn"
    code, out, err = _run(["arena", "--rules", "american-4p", "--bots", "basic,random", "--games", "2", "--jobs", "1",
                           "--seed", "3", "--max-hands", "1", "--save", str(save), "--json"], capsys)
    assert code == 0, err
    played = json.loads(out)
    assert played["games"] == 2 and played["hands"] >= 2
    records, errors = read_file(save)
    assert errors == [] and len(records) == 2
    for record in records:
        assert record.headers["Rules"] == "american-4p" and record.rules().family == "american"
        assert verify(record) == []
    code, out, _ = _run(["arena", "--tally", str(save), "--json"], capsys)
    assert code == 0 and json.loads(out)["hands"] == played["hands"]
    # the expert reviews seat 0 of the first game's first hand, seeded: the same review twice
    one = tmp_path / "one.cgn"
    one.write_text(records[0].to_text(), encoding="utf-8")
    code, out, err = _run(["review", str(one), "--seat", "0", "--hand", "1", "--budget", "expert:i3", "--json"],
                          capsys)
    assert code == 0, err
    review = json.loads(out)
    assert review["decisions"] and all(d["seat"] == 0 for d in review["decisions"])
    again = tmp_path / "again.cgn"
    again.write_text(records[0].to_text(), encoding="utf-8")
    code, out, err = _run(["review", str(again), "--seat", "0", "--hand", "1", "--budget", "expert:i3", "--json"],
                          capsys)
    assert code == 0, err
    assert json.loads(out)["decisions"] == review["decisions"]
