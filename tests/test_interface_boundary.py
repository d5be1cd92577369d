"""Issue 29: the interfaces ask the table, never the engine's game behind it."""

from __future__ import annotations

import re
from pathlib import Path

from canasta.rules import RuleSet
from canasta.table import Table

SRC = Path(__file__).resolve().parent.parent / "src" / "canasta"
READS_GAME = re.compile(r"\btable\.game\b|\bt\.game\b|self\.table\.game\b")


def test_no_terminal_module_reads_table_game() -> None:
    found = [f"{path.relative_to(SRC)}:{n}" for path in sorted((SRC / "tui").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if READS_GAME.search(line)]
    assert found == []


def test_the_grep_finds_a_read() -> None:
    assert READS_GAME.search("if table.game.to_move != PERSON:")
    assert READS_GAME.search("seat = t.game.to_move")
    assert not READS_GAME.search("table.game_id")


def test_the_table_says_whose_turn_the_turn_and_the_minimum() -> None:
    table = Table(RuleSet.preset("classic-2p"), [None, "basic"], seed=5)
    assert table.to_move == table.view(0).to_move
    assert table.turn_number == table.view(0).turn_number
    assert table.minimum(0) == 50
    before = table.to_move
    table.play(before, table.hint(before)) if not table.bot_to_move() else table.play_bot()
    assert table.turn_number >= 1
