"""Issue 56, item 5: the terminal app at every size, a language without a catalog,
and ``canasta play`` where there is no terminal."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual.widgets import Static

from canasta.cli import main
from canasta.engine.cards import RANK_NAMES
from canasta.engine.rules import RuleSet
from canasta.i18n import current
from canasta.i18n.settings import settings_path
from canasta.play.table import Table
from canasta.present import describe
from canasta.tui.app import CanastaApp, PlayConfig, build_table
from canasta.tui.render import meld_rank, rank_title
from canasta.tui.widgets import HandView
from test_tui import _text, aio, settle

# -------------------------------------------------------------- no terminal


class _Started(Exception):
    """The full-screen app was about to start."""


@pytest.fixture
def app_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The apps that were started (none is: their run is replaced)."""
    started: list[str] = []

    def run(self: object, *args: object, **kwargs: object) -> None:
        started.append(type(self).__name__)

    monkeypatch.setattr(CanastaApp, "run", run)
    return started


@pytest.mark.parametrize("tty", [(False, False), (True, False), (False, True)])
def test_play_without_a_terminal_refuses_in_one_line(tmp_path: Path, app_runs: list[str],
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str],
                                                     tty: tuple[bool, bool]) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: tty[0], raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty[1], raising=False)
    assert main(["play", "--seed", "1", "--delay", "0", "--save-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert app_runs == []
    assert err.count("\n") == 1 and "needs a terminal" in err, err


def test_play_in_a_terminal_starts_the_app(tmp_path: Path, app_runs: list[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert main(["play", "--seed", "1", "--delay", "0", "--save-dir", str(tmp_path)]) == 0
    assert app_runs == ["CanastaApp"]


# ------------------------------------------------- a language without a catalog


@pytest.mark.parametrize("start", ["it", "en"])
@aio
async def test_lang_without_a_catalog_says_so_and_keeps_the_language(tmp_path: Path, start: str) -> None:
    table = build_table(RuleSet.preset("classic-4p"), ["basic"], seed=7, hint_level="basic")
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang=start), table, "fr")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, table)
        before = settings_path().read_text(encoding="utf-8") if settings_path().exists() else None
        await pilot.press("colon")
        await pilot.press(*list("lang fr"), "enter")
        for _ in range(3):
            await pilot.pause()
        assert current().lang == start
        status = _text(app, "#status")
        assert "'fr'" in status and ("Tocca a te" in status if start == "it" else "Your move" in status)
        said = [line for line in status.splitlines() if "'fr'" in line]
        assert len(said) == 1 and ("Italiano" if start == "it" else "English") in said[0]
        after = settings_path().read_text(encoding="utf-8") if settings_path().exists() else None
        assert after == before
        # a language that has a catalog still switches, and is remembered
        await pilot.press("colon")
        await pilot.press(*list("lang en_GB.UTF-8" if start == "it" else "lang it"), "enter")
        for _ in range(3):
            await pilot.pause()
        assert current().lang == ("en" if start == "it" else "it")
        assert json.loads(settings_path().read_text(encoding="utf-8")) == {"lang": current().lang}


# ---------------------------------------------------------------- the layout


def _mid_hand() -> Table:
    """Classic, four players, 40 moves in (seeded): West has laid three red threes, both sides
    have melds, every seat has a last move."""
    rules = RuleSet.preset("classic-4p").with_options({"target": 1_000_000})
    table = build_table(rules, ["basic"], seed=11, hint_level="basic")
    for _ in range(40):
        table.play(0, table.hint(0)) if not table.bot_to_move() else table.play_bot()
    table.play_bots()
    return table


def _screen_rows(app: CanastaApp) -> list[str]:
    """The screen as a person reads it, row by row."""
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


def _blank(row: str) -> bool:
    return not row.strip(" │╭╮╰╯─┌┐└┘▕▏")


def _assert_essentials(app: CanastaApp, table: Table) -> None:
    """Every seat's hand size, red threes and last move, both sides' melds (in full or in short
    form), the pile and your whole hand are on screen."""
    rows = _screen_rows(app)
    screen = "\n".join(rows)
    view = table.view(0)
    last = table.last_moves()
    for seat, name in enumerate(table.names):
        line = next((r for r in rows if re.search(rf"(▶|\s){re.escape(name)}\b", r) and "cards" in r), None)
        assert line is not None, (name, screen)
        assert f"{view.hand_sizes[seat]} cards" in line, (name, line)
        if view.red_threes[seat]:
            assert "red 3s" in line and line.count("3♥") + line.count("3♦") == len(view.red_threes[seat]), line
        said = describe(last[seat].move, table.rules)
        assert said in re.sub(r"\s+", " ", screen), (said, screen)
    for side, melds in enumerate(view.melds):
        for cards, *_ in melds:
            rank = meld_rank(cards)
            assert rank is not None
            full, short = rank_title(rank), f"{RANK_NAMES[rank]}×{len(cards)}"
            assert re.search(rf"^\W*{full}\b", screen, re.M) or short in screen, (side, full, short, screen)
    assert "cards in the pile" in screen and "Stock:" in screen
    hand = app.screen.query_one("#hand", HandView)
    assert app.screen.region.contains_region(hand.region)
    assert all(app.screen.region.contains_region(group.region) for group in hand.children)


@pytest.mark.parametrize("size", [(80, 24), (100, 34), (110, 34), (160, 50)])
@aio
async def test_the_table_shows_every_player_at_every_size(tmp_path: Path, size: tuple[int, int]) -> None:
    table = _mid_hand()
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang="en"), table, "layout")
    async with app.run_test(size=size) as pilot:
        await settle(pilot, table)
        await pilot.pause()
        _assert_essentials(app, table)
        rows = _screen_rows(app)
        assert "Window too small" not in "\n".join(rows)
        # no wide blank band: the rows above the hand are used (the table, or the last moves)
        hand_top = app.screen.query_one("#hand").region.y
        band, longest = 0, 0
        for row in rows[:hand_top]:
            band = band + 1 if _blank(row) else 0
            longest = max(longest, band)
        assert longest <= 2, "\n".join(rows)


@aio
async def test_a_window_made_too_small_says_so_and_keeps_the_essentials(tmp_path: Path) -> None:
    table = _mid_hand()
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang="en"), table, "small")
    async with app.run_test(size=(100, 34)) as pilot:
        await settle(pilot, table)
        await pilot.resize_terminal(60, 20)
        for _ in range(3):
            await pilot.pause()
        rows = _screen_rows(app)
        said = [r for r in rows if "too small" in r]
        assert len(said) == 1 and "60×20" in said[0] and "80×24" in said[0], "\n".join(rows)
        assert "to move" in rows[0]
        for seat, name in enumerate(table.names):  # the players' hand sizes are still there
            assert any(name in r and f"{table.view(0).hand_sizes[seat]} cards" in r for r in rows), name
        hand = app.screen.query_one("#hand", HandView)
        assert app.screen.region.contains_region(hand.children[0].region)
        await pilot.resize_terminal(100, 34)  # and back: the warning goes
        for _ in range(3):
            await pilot.pause()
        assert not any("too small" in r for r in _screen_rows(app))
        _assert_essentials(app, table)


@aio
async def test_the_compact_table_in_the_pseudo_language_has_no_text_outside_the_catalog(tmp_path: Path) -> None:
    from test_tui import plain
    from test_tui_i18n import assert_all_marked, unmarked_words

    table = _mid_hand()
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang="qps"), table, "qps")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, table)
        await pilot.pause()
        assert_all_marked(app, "the table at 80x24")
        await pilot.resize_terminal(60, 20)
        for _ in range(3):
            await pilot.pause()
        for selector in ("#toosmall", "#seats", "#pile", "#melds", "#status"):  # the key bar is the keys' own
            said = plain(app.screen.query_one(selector, Static).content)
            assert said.strip() and not unmarked_words(said), (selector, said)
