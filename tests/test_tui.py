"""The terminal app, driven headless through Textual's Pilot: a complete hand
against bots, illegal moves explained and not played, undo, hints, save and
resume, the new-game and rules screens, and the replay."""

from __future__ import annotations

import asyncio
import functools
import io
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import pytest

pytest.importorskip("textual")

from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Button, Input, Select, Static

from canasta.engine.cards import CARD_RANK, JOKER, RANK_NAMES
from canasta.engine.moves import ASK, DISCARD, DRAW, MELD, NO, TAKE, YES, Move, group_cards, group_target
from canasta.engine.rules import RuleSet
from canasta.play.record import read_file, verify
from canasta.play.table import Table
from canasta.present import proposal
from canasta.tui.app import (
    CanastaApp,
    InfoScreen,
    NewGameScreen,
    PlayConfig,
    ResultScreen,
    ScoreScreen,
    TableScreen,
    build_table,
)
from canasta.tui.widgets import HandView

SIZE = (120, 50)
P = ParamSpec("P")
T = TypeVar("T")


def aio(fn: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, T]:
    """Run an async test with asyncio (no plugin needed)."""
    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        return asyncio.run(fn(*args, **kwargs))
    return wrapper


def plain(content: object) -> str:
    """What a widget's content reads as, without styles."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


def _text(app: CanastaApp, selector: str) -> str:
    return plain(app.screen.query_one(selector, Static).content)


async def settle(pilot: Pilot[None], table: Table, limit: int = 400) -> None:
    """Wait until the person is to move, the hand is over, or a screen is up."""
    for _ in range(limit):
        await pilot.pause()
        screen = pilot.app.screen
        if not isinstance(screen, TableScreen):
            return
        if table.hand_over or (not table.bot_to_move() and not screen._bot_busy):
            return
    raise AssertionError("the bots did not finish their moves")


async def select_cards(pilot: Pilot[None], cards: tuple[int, ...]) -> None:
    """Select cards with the rank keys (0 = ten, * = joker)."""
    for c in cards:
        name = "JK" if c == JOKER else RANK_NAMES[CARD_RANK[c]]
        key = {"JK": "asterisk", "10": "0"}.get(name, name.lower())
        await pilot.press(key)


async def person_plays(pilot: Pilot[None], table: Table) -> None:
    """Play the person's move the hint bot suggests, through the keyboard."""
    move = table.hint(0)
    before = table.version
    if move.kind == DRAW:
        await pilot.press("d")
    elif move.kind == DISCARD:
        await pilot.press("escape")
        await select_cards(pilot, move.groups[0])
        await pilot.press("x")
    elif move.kind == ASK:
        await pilot.press("s")
    elif move.kind in (YES, NO):
        await pilot.press("y" if move.kind == YES else "n")
    else:  # takes and melds: typed in notation
        await pilot.press("colon")
        await pilot.press(*list(str(move)))
        await pilot.press("enter")
    await pilot.pause()
    assert table.version > before, f"{move} was not played: {_text(pilot.app, '#status')}"  # type: ignore[arg-type]


@pytest.fixture
def table() -> Table:
    return build_table(RuleSet.preset("classic-4p"), ["basic"], seed=7, hint_level="basic")


@aio
async def test_a_complete_hand_against_bots_ends_on_the_score_sheet(tmp_path: Path, table: Table) -> None:
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "g1")
    async with app.run_test(size=SIZE) as pilot:
        commitment = table.commitment()
        assert commitment[:16] in _text(app, "#topbar")
        for _ in range(300):
            await settle(pilot, table)
            if table.hand_over:
                break
            await person_plays(pilot, table)
        await pilot.pause()
        assert isinstance(app.screen, ScoreScreen)
        sheet = _text(app, "#scores")
        assert "Score sheet" in sheet and "Canasta bonuses" in sheet and "Cards left in hand" in sheet
        assert commitment in sheet and str(table.match.hands[0].seed) in sheet
        # the record was written when the hand ended, and it verifies
        records, errors = read_file(tmp_path / "g1.cgn")
        assert errors == [] and len(records) == 1 and verify(records[0]) == []
        assert records[0].hands[0].tags["Commitment"] == commitment
        await pilot.press("enter")
        await settle(pilot, table)
        assert isinstance(app.screen, TableScreen)
        assert table.hand_number == 2 and not table.hand_over
        assert "hand 2" in _text(app, "#topbar")
        # save, then resume in a new app: the same table
        await pilot.press("w")
        await pilot.pause()
        assert "--resume" in _text(app, "#status")
    saved = Table.load(tmp_path / "g1.json")
    assert saved.to_dict() == table.to_dict()


@aio
async def test_an_illegal_move_is_explained_and_not_played(tmp_path: Path, table: Table) -> None:
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "g2")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        assert table.view(0).phase == "draw"
        version = table.version
        hand = app.screen.query_one("#hand", HandView)
        await pilot.press("space")  # one card of the first rank
        assert len(hand.selection()) == 1
        await pilot.press("x")  # discarding before drawing
        await pilot.pause()
        status = _text(app, "#status")
        assert "Not played" in status and "rule A.4.1" in status
        assert table.version == version
        # a typed move that is not notation is refused with what was expected
        await pilot.press("colon", *list("dance"), "enter")
        await pilot.pause()
        assert "unknown move" in _text(app, "#status") and table.version == version
        await pilot.press("escape")
        assert not app.screen.query_one("#moveinput", Input).display


@aio
async def test_selection_preview_names_the_rule_before_anything_is_committed(tmp_path: Path) -> None:
    table = build_table(RuleSet.preset("classic-4p"), ["basic"], seed=7)
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "g3")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        await pilot.click("#b-draw")  # the mouse: the Draw button
        await settle(pilot, table)
        assert table.view(0).phase == "meld"
        hand = app.screen.query_one("#hand", HandView)
        ranks = [cards[0] for _, cards in hand.groups if cards[0] != JOKER and CARD_RANK[cards[0]] >= 2]
        await select_cards(pilot, (ranks[0], ranks[1]))  # two different ranks: not a meld
        await pilot.pause()
        status = _text(app, "#status")
        assert "m: meld" in status and "rule A.5" in status
        version = table.version
        await pilot.press("m")
        assert table.version == version
        assert "Not played" in _text(app, "#status")
        # the mouse: clicking a card face selects one more of it
        await pilot.press("escape")
        assert hand.selection() == []
        await pilot.click("CardGroup", offset=(2, 1))
        await pilot.pause()
        assert len(hand.selection()) == 1


@aio
async def test_undo_takes_back_a_meld_until_the_discard(tmp_path: Path) -> None:
    # find a seed where the person can meld on the first turn after drawing
    for seed in range(1, 60):
        table = build_table(RuleSet.preset("classic-4p"), ["basic"], seed=seed)
        table.play_bots()
        table.play(0, "draw")
        melds = [m for m in table.game.legal_moves if m.kind == MELD]
        if melds:
            break
    else:  # pragma: no cover - the seeds above contain one
        pytest.fail("no seed with a first-turn meld")
    meld = melds[0]
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "g4")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        hand_before = table.view(0).hand
        await pilot.press("colon", *list(str(meld)), "enter")
        await pilot.pause()
        assert table.undoable(0) == 1
        assert "undo" in _text(app, "#status")
        await pilot.press("u")
        await pilot.pause()
        assert table.view(0).hand == hand_before
        assert "Taken back" in _text(app, "#status")


@aio
async def test_hints_show_the_hint_bots_move(tmp_path: Path, table: Table) -> None:
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, hints=False), table, "g5")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        assert "Hint" not in _text(app, "#status")
        await pilot.press("h")
        for _ in range(100):
            await pilot.pause(0.01)
            if "Hint (basic bot)" in _text(app, "#status"):
                break
        status = _text(app, "#status")
        assert f"Hint (basic bot): {proposal(table.hint(0), table.rules)}" in status
        await pilot.press("h")
        assert "Hint" not in _text(app, "#status")


@aio
async def test_rules_and_help_screens(tmp_path: Path) -> None:
    rules = RuleSet.preset("classic-4p", {"C-O1": "max3_only"})
    table = build_table(rules, ["basic"], seed=3)
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "g6")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        await pilot.press("r")
        assert isinstance(app.screen, InfoScreen)
        body = "".join(plain(w.content) for w in app.screen.query(Static))
        assert "HOUSE RULE (sourced default: no more wild than natural)" in body
        assert "C-O14" in body and "SEED-001" in body
        await pilot.press("escape")
        await pilot.press("question_mark")
        assert isinstance(app.screen, InfoScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)


@aio
async def test_new_game_screen_builds_the_table_chosen(tmp_path: Path) -> None:
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        screen.query_one("#ng-preset", Select).value = "classic-2p"
        await pilot.pause()
        await pilot.pause()
        gen = screen._generation
        screen.query_one(f"#ng-seat-{gen}-1", Select).value = "random"
        screen.query_one(f"#ng-opt-{gen}-C-O1", Select).value = 1
        screen.query_one("#ng-target", Input).value = "3000"
        screen.query_one("#ng-seed", Input).value = "42"
        await pilot.click("#ng-start")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        table = app.table
        assert table is not None
        assert table.rules.players == 2 and table.rules.target == 3000
        assert table.rules.wild_ratio == "max3_only" and table.seats == [None, "random"] and table.seed == 42


def test_build_table_checks_levels_and_seats() -> None:
    from canasta.engine.errors import CanastaError

    rules = RuleSet.preset("classic-4p")
    assert build_table(rules, ["expert"], 1).seats == [None, "expert", "expert", "expert"]
    with pytest.raises(CanastaError, match="3 bot levels"):
        build_table(rules, ["basic", "basic"], 1)
    with pytest.raises(CanastaError, match="unknown bot level 'genius'"):
        build_table(rules, ["genius"], 1)


def test_a_resumed_game_is_the_saved_one(tmp_path: Path) -> None:
    from canasta.tui.commands import play_setup

    table = build_table(RuleSet.preset("italian-4p"), ["basic"], seed=5)
    table.play_bots()
    table.play(0, "draw")
    path = tmp_path / "saved.json"
    table.save(path)
    import argparse

    from canasta.cli import _parser

    args = _parser().parse_args(["play", "--resume", str(path)])
    assert isinstance(args, argparse.Namespace)
    config, resumed, game_id = play_setup(args)
    assert resumed is not None and resumed.to_dict() == table.to_dict()
    assert game_id == "saved" and config.save_dir == tmp_path
    move = Move.parse(str(next(iter(table.game.legal_moves))))
    assert resumed.why_not(0, move) is None


@aio
async def test_the_match_result_follows_the_last_score_sheet(tmp_path: Path) -> None:
    rules = RuleSet.preset("classic-3p-cutthroat").with_options({"target": 50})
    played = build_table(rules, ["basic"], seed=2, hint_level="basic")
    while not played.match_over:  # the match, played quickly without the app ...
        if played.hand_over:
            played.next_hand()
        played.play(0, played.hint(0)) if not played.bot_to_move() else played.play_bot()
    data = played.to_dict()  # ... and resumed in the app before its last move
    data["hands"][-1] = data["hands"][-1][:-1]
    table = Table.from_dict(data)
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "m1")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(6):
            for _ in range(300):
                await settle(pilot, table)
                if table.hand_over:
                    break
                await person_plays(pilot, table)
            await pilot.pause()
            assert isinstance(app.screen, ScoreScreen)
            await pilot.press("enter")
            await pilot.pause()
            if table.match_over:
                break
        assert table.match_over
        assert isinstance(app.screen, ResultScreen)
        result = _text(app, "#result")
        assert "Match result" in result and ("win the match" in result or "drawn" in result)
        assert "canasta replay" in result
    records, errors = read_file(tmp_path / "m1.cgn")
    assert errors == [] and verify(records[0]) == []
    assert records[0].headers["Result"] != "*"


@aio
async def test_a_game_saved_as_its_hand_ended_resumes_on_the_score_sheet(tmp_path: Path) -> None:
    played = build_table(RuleSet.preset("classic-2p"), ["basic"], seed=4, hint_level="basic")
    while not played.hand_over:
        played.play(0, played.hint(0)) if not played.bot_to_move() else played.play_bot()
    played.save(tmp_path / "end.json")
    table = Table.load(tmp_path / "end.json")
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "end")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ScoreScreen)
        await pilot.press("enter")
        await settle(pilot, table)
        assert isinstance(app.screen, TableScreen) and table.hand_number == 2
    assert Table.load(tmp_path / "end.json").hand_number == 2  # saved again once dealt


@aio
async def test_asking_the_partner_and_the_answer(tmp_path: Path) -> None:
    table, _ = _position_with(lambda m: m.kind == ASK)  # where South may ask
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "ask")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        await pilot.press("s")
        await settle(pilot, table)
        view = table.view(0)
        assert view.to_move == 0 and view.ask in ("yes", "no")
        assert f"partner said {view.ask.upper()}" in _text(app, "#status")
        assert "North answers" in _text(app, "#log")


@aio
@pytest.mark.parametrize("yes", [True, False])
async def test_answering_the_bot_partner_s_question(tmp_path: Path, yes: bool) -> None:
    table, ask = _position_with(lambda m: m.kind == ASK, seat=2)  # where North may ask
    table.play(2, ask)
    asked_at = len(table.moves[-1])
    assert table.game.to_move == 0  # the question is South's to answer
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "ask")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        assert "y: yes" in _text(app, "#status")
        await pilot.press("y" if yes else "n")
        await pilot.pause()
        assert table.moves[-1][asked_at] == (0, Move.answer(yes))
        if isinstance(app.screen, TableScreen):  # (after a yes, North may have gone out at once)
            assert f"South answers: {'yes' if yes else 'no'}" in _text(app, "#log")
        await settle(pilot, table)
        assert table.moves[-1][asked_at + 1][0] == 2  # North plays on
        if not yes:
            assert not (table.hand_over and table.game.went_out == 2)  # and may not go out this turn


def _position_with(wanted: Callable[[Move], bool], seat: int = 0) -> tuple[Table, Move]:
    """The first position (seeded hands played by the hint policy) where
    ``seat`` (the person, or a bot) may play a move of the kind wanted."""
    for seed in range(1, 80):
        table = build_table(RuleSet.preset("classic-4p"), ["basic"], seed=seed, hint_level="basic")
        while not table.hand_over:
            if table.game.to_move == seat:
                found = [m for m in table.game.legal_moves if wanted(m)]
                if found:
                    return table, found[0]
            if table.bot_to_move():
                table.play_bot()
                continue
            table.play(0, table.hint(0))
    raise AssertionError("no position found")  # pragma: no cover


def _several_groups(kind: int) -> Callable[[Move], bool]:
    return lambda m: m.kind == kind and len(m.groups) >= 2 and all(group_cards(g) for g in m.groups)


def _wild_onto_a_meld(m: Move) -> bool:
    return m.kind == MELD and len(m.groups) == 1 and group_target(m.groups[0]) is not None


@pytest.mark.parametrize(("kind", "wanted"), [
    (MELD, _several_groups(MELD)),  # an initial meld of two melds: select, +, select, m
    (TAKE, _several_groups(TAKE)),  # take the pile with another meld laid first: +, then t
    (MELD, _wild_onto_a_meld),  # wild cards onto a chosen meld: select, l, m
], ids=["meld-groups", "take-groups", "wild-target"])
def test_composite_moves_are_built_from_staged_groups(tmp_path: Path, kind: int,
                                                      wanted: Callable[[Move], bool]) -> None:
    table, move = _position_with(wanted)
    has_target = group_target(move.groups[0]) is not None

    async def drive() -> None:
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "c")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, table)
            screen = app.screen
            assert isinstance(screen, TableScreen)
            groups = [group_cards(g) for g in move.groups]
            if kind == TAKE:  # the extra melds are staged, the pile's group is selected last
                groups = groups[1:] + groups[:1]
            for i, cards in enumerate(groups):
                await select_cards(pilot, cards)
                if i < len(groups) - 1:
                    await pilot.press("plus")
            assert len(screen.staged) == len(groups) - 1
            if has_target:
                target = group_target(move.groups[0])
                for _ in range(15):
                    if screen.target == target:
                        break
                    await pilot.press("l")
                assert screen.target == target and "Wild cards go on your" in _text(app, "#status")
            before = table.version
            await pilot.press("m" if kind == MELD else "t")
            await pilot.pause()
            assert table.version > before, _text(app, "#status")
            seat, played = table.moves[-1][-1]
            assert seat == 0 and played.kind == kind and len(played.groups) == len(move.groups)

    asyncio.run(drive())


@aio
async def test_ctrl_q_saves_before_quitting(tmp_path: Path, table: Table) -> None:
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "quit")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        await pilot.press("d")
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.saved_path == tmp_path / "quit.json"
    assert Table.load(tmp_path / "quit.json").to_dict() == table.to_dict()


@pytest.mark.parametrize(("preset", "word"), [("classic-4p", "Take pile"), ("italian-4p", "Take pozzo")])
@aio
async def test_the_key_bar_and_the_panel_name_the_discards_in_the_familys_word(tmp_path: Path, preset: str,
                                                                                  word: str) -> None:
    """The key bar's "t", the button and the panel say the pile or the pozzo as the family
    calls it (canasta.present), never Classic's word in an Italian game."""
    table = build_table(RuleSet.preset(preset), ["basic"], seed=3)
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "words")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, table)
        other = "Take pozzo" if word == "Take pile" else "Take pile"
        assert word in _text(app, "#keys") and other not in _text(app, "#keys")
        assert str(app.screen.query_one("#b-take", Button).label) == word
        assert app.screen.query_one("#pile").border_title == ("Pozzo and stock" if "pozzo" in word else "Pile and stock")
