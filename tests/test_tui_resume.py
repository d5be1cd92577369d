"""Issue 29: a game resumed at any hand survives every key of the table (seeded)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("textual")

from canasta.rules import RuleSet
from canasta.table import Table
from canasta.tui.app import CanastaApp, PlayConfig, TableScreen, build_table

from tests.test_tui import SIZE, aio, settle


def _saved_at_hand(tmp_path: Path, hand: int) -> Path:
    """A classic 2-player game played by the hint bot and a bot until hand ``hand``, a few moves in."""
    rules = RuleSet.preset("classic-2p").with_options({"target": 1_000_000})
    table = build_table(rules, ["basic"], seed=11, hint_level="basic")
    while table.hand_number < hand or table.hand_over:
        if table.hand_over:
            table.next_hand()
            continue
        table.play(0, table.hint(0)) if not table.bot_to_move() else table.play_bot()
    for _ in range(3):
        table.play(0, table.hint(0)) if not table.bot_to_move() else table.play_bot()
    path = tmp_path / f"hand{hand}.json"
    table.save(path)
    return path


@pytest.mark.parametrize("hand", [1, 2, 5])
@aio
async def test_every_table_key_after_a_resume(tmp_path: Path, hand: int) -> None:
    table = Table.load(_saved_at_hand(tmp_path, hand))
    assert table.hand_number == hand
    app = CanastaApp(PlayConfig(save_dir=tmp_path / "saves", delay=0), table, f"g{hand}")
    keys: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        for binding in screen.BINDINGS:
            key_names = binding.key.split(",") if not isinstance(binding, tuple) else [binding[0]]  # type: ignore[union-attr]
            for key in key_names:
                if key == "ctrl+q":
                    continue
                keys.append(key)
                await pilot.press(key)
                await pilot.pause()
                if key == "colon":
                    await pilot.press("escape")
                while not isinstance(app.screen, TableScreen):
                    await pilot.press("escape")
                    await pilot.pause()
                await settle(pilot, table)
        assert app.is_running, f"the app stopped after {keys}"
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code in (0, None)
    assert len(keys) > 20
    assert Table.load(tmp_path / "saves" / f"g{hand}.json").hand_number >= hand
