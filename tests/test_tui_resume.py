"""Issue 29: a game resumed at any hand survives every key of the table (seeded)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual.widgets import Button

from canasta.engine.cards import CARD_RANK, JOKER, RANK_NAMES
from canasta.engine.rules import RuleSet
from canasta.play.table import Table
from canasta.tui.app import CanastaApp, PlayConfig, TableScreen, build_table
from canasta.tui.widgets import HandView
from test_tui import SIZE, _text, aio, settle


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
            key_names = binding.key.split(",") if not isinstance(binding, tuple) else [binding[0]]
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


@aio
async def test_a_save_that_cannot_be_written_says_so_and_quitting_asks_first(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    table = build_table(RuleSet.preset("classic-2p"), ["basic"], seed=3, hint_level="basic")
    app = CanastaApp(PlayConfig(save_dir=blocker / "saves", delay=0), table, "nope")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        await pilot.press("w")
        await pilot.pause()
        status = _text(app, "#status")
        assert "could not be saved" in status and "None" not in status
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, TableScreen)
        assert "ctrl+q again" in _text(app, "#status")
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.saved_path is None


@aio
async def test_the_hints_setting_survives_a_resume(tmp_path: Path) -> None:
    table = build_table(RuleSet.preset("classic-2p"), ["basic"], seed=3, hint_level="basic")
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "h")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        await pilot.press("h")
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
    resumed = Table.load(tmp_path / "h.json")
    assert resumed.hints_shown
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), resumed, "h")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, resumed)
        screen = app.screen
        assert isinstance(screen, TableScreen) and screen.hints


@aio
async def test_a_rank_key_pressed_once_more_than_held_keeps_the_selection(tmp_path: Path) -> None:
    table = build_table(RuleSet.preset("classic-2p"), ["basic"], seed=3, hint_level="basic")
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "r")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        hand = app.screen.query_one("#hand", HandView)
        _, cards = next((k, c) for k, c in hand.groups if c[0] != JOKER and RANK_NAMES[CARD_RANK[c[0]]] != "10")
        name = RANK_NAMES[CARD_RANK[cards[0]]]
        for _ in range(len(cards) + 1):
            await pilot.press(name.lower())
            await pilot.pause()
        assert sum(hand.selected.values()) == len(cards)
        assert "selected already" in _text(app, "#status")


@pytest.mark.parametrize("lang", ["en", "it"])
@aio
async def test_at_80x24_your_melds_the_pile_and_the_turn_are_on_screen(tmp_path: Path, lang: str) -> None:
    table = Table.load(_saved_at_hand(tmp_path, 2))
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang=lang), table, "small")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, table)
        screen = app.screen
        assert isinstance(screen, TableScreen) and screen.has_class("compact")
        whole = screen.region
        for selector in ("#topbar", "#melds", "#pile", "#hand", "#status"):
            region = screen.query_one(selector).region
            assert region.area > 0 and whole.contains_region(region), (selector, region)
        top = _text(app, "#topbar")
        assert ("to move" if lang == "en" else "di turno") in top
        assert "you" in top or table.names[1] in top or "tu" in top
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang=lang), Table.load(tmp_path / "hand2.json"), "big")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.screen.has_class("compact")


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 50)])
@aio
async def test_button_labels_are_never_cut(tmp_path: Path, lang: str, size: tuple[int, int]) -> None:
    table = build_table(RuleSet.preset("classic-4p"), ["basic"], seed=3, hint_level="basic")
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang=lang), table, "b")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        shown = [b for b in screen.query(Button) if b.display and screen.query_one("#buttons").display]
        for button in shown:
            assert screen.region.contains_region(button.region), (str(button.label), button.region)
            assert button.content_region.width >= len(str(button.label)), str(button.label)
        assert shown or "Save" in _text(app, "#keys") or "Salva" in _text(app, "#keys")
        if size[0] >= 160:
            assert shown
