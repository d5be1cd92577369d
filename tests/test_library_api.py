"""The library as a program uses it (issue 36, items 9-12): one answer for one
question, names and shapes that agree, Python bots at a table and in the arena,
and a reference (docs/api.md) that is current and covers every public name."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import canasta
from canasta import (
    Bot,
    CanastaError,
    Game,
    Move,
    NotationError,
    PositionError,
    RuleSet,
    SeatView,
    Table,
    game_from_position,
    position_json,
    position_of,
    seat_view,
)
from canasta.bots import BotSpecError, legal_moves, make_bot
from canasta.tools import apidoc
from canasta.tools.arena import run_arena

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api.md"
#: a compiled engine (mypyc) keeps no docstrings: the reference is made from the pure-Python one
pure_only = pytest.mark.skipif(bool(apidoc.compiled_modules()),
                               reason="a compiled engine keeps no docstrings; docs/api.md comes from the pure one")


class FirstMove(Bot):
    """The first move of the generating set (a module-level class: it pickles)."""

    name = "first move"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.seen: list[int] = []
        self.hands_heard = 0
        self.closed = 0

    def choose(self, view: SeatView) -> Move:
        self.seen.append(view.seat)
        return legal_moves(view, self.rng)[0]

    def hand_over(self, totals: list[int]) -> None:
        self.hands_heard += 1

    def close(self) -> None:
        self.closed += 1


# -- item 9: one answer for one question ---------------------------------------------------------


def test_is_legal_takes_text_as_push_why_illegal_and_in_do() -> None:
    game = Game(RuleSet.preset("classic-4p"))
    assert game.is_legal("draw")
    assert "draw" in game.legal_moves
    assert game.why_illegal("draw") is None
    assert game.is_legal(Move.parse("draw"))
    assert not game.is_legal("discard 9C") and game.why_illegal("discard 9C") is not None
    for move in [*game.legal_moves, "draw", "discard 9C", "meld 8H 8S 2C", "take"]:
        text = str(move)
        answers = {game.is_legal(move), game.is_legal(text), text in game.legal_moves,
                   game.why_illegal(text) is None}
        assert len(answers) == 1, text
    game.push("draw")
    assert not game.is_legal("draw") and game.why_illegal("draw") is not None


# -- item 10: what a newcomer types first ------------------------------------------------------------


def test_game_takes_a_preset_name() -> None:
    by_name = Game("classic-4p", seed=7)
    by_rules = Game(RuleSet.preset("classic-4p"), seed=7)
    assert by_name.to_dict() == by_rules.to_dict()
    assert Game("italian-3p", 2).rules.family == "italian"


def test_game_refuses_what_is_not_rules_saying_what_to_pass() -> None:
    with pytest.raises(TypeError, match="RuleSet or a preset name such as 'classic-4p'"):
        Game(42)  # type: ignore[arg-type]
    with pytest.raises(CanastaError, match=r"classic-9p.*classic-4p"):
        Game("classic-9p")


def test_an_empty_position_is_refused_naming_what_is_missing() -> None:
    with pytest.raises(PositionError, match="lacks rules"):
        game_from_position({})
    with pytest.raises(PositionError, match="lacks rules"):
        Game.from_dict("{}")


def test_a_written_position_missing_fields_is_refused_naming_them() -> None:
    data = position_of(Game("classic-4p", 3))
    for key in ("turn", "hands", "scores"):
        cut = {k: v for k, v in data.items() if k != key}
        with pytest.raises(PositionError, match=rf"lacks {key}\b"):
            game_from_position(cut)
    no_stock = {k: v for k, v in data.items() if k != "stock"}
    assert game_from_position(no_stock).hand(0) == Game("classic-4p", 3).hand(0)  # the stock is refilled


def test_a_sketch_with_its_rules_is_still_read() -> None:
    game = game_from_position({"rules": "classic-4p", "turn": 1, "phase": "meld",
                               "hands": [[], ["8H", "8S", "9C"], [], []],
                               "melds": [[], [["8D", "8C", "2C"]]]})
    assert "meld 8H" in game.legal_moves


@pytest.mark.parametrize("thing", ["garbage", "", "meld ZZ", "discard", 42, None, object(), ("draw",)])
def test_what_is_not_a_move_is_not_in_legal_moves(thing: object) -> None:
    game = Game("classic-4p")
    assert thing not in game.legal_moves
    assert not game.is_legal(thing)


def test_why_illegal_and_push_say_why_text_is_not_a_move() -> None:
    game = Game("classic-4p")
    with pytest.raises(NotationError):
        game.why_illegal("garbage")
    with pytest.raises(NotationError):
        game.push("garbage")


# -- item 11: one convention -----------------------------------------------------------------------------


def test_scores_go_in_and_come_out_under_one_name() -> None:
    game = Game("classic-4p", 1, scores=[1500, 3000])
    assert game.scores == [1500, 3000] == game.start_scores  # the older name stays
    assert game.to_dict()["scores"] == [1500, 3000]
    assert seat_view(game, 0).scores == (1500, 3000)
    assert Game("classic-4p", 1, start_scores=[1500, 3000]).to_dict() == game.to_dict()
    assert game.minimum(0) == 90 and game.minimum(1) == 120
    with pytest.raises(TypeError, match="not both"):
        Game("classic-4p", scores=[0, 0], start_scores=[0, 0])
    game.scores = [0, 10]
    assert game.start_scores == [0, 10]


def test_a_game_writes_itself_as_every_object_does() -> None:
    game = Game("italian-4p", 5)
    for _ in range(3):
        game.push(next(iter(game.legal_moves)))
    assert game.to_dict() == position_of(game)
    assert game.to_json() == position_json(game)
    assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()
    assert Game.from_dict(game.to_json()).to_dict() == game.to_dict()
    view = seat_view(game, 0)
    assert SeatView.from_dict(view.to_json()) == view == SeatView.from_dict(view.to_dict())
    assert RuleSet.from_dict(game.rules.to_dict()) == game.rules


def test_cards_are_codes_in_python_and_strings_when_written() -> None:
    game = Game("classic-4p", 9)
    hand = game.hand(0)
    assert all(type(c) is int for c in hand)
    assert all(type(c) is int for c in seat_view(game, 0).hand)
    assert sorted(game.to_dict()["hands"][0]) == sorted(canasta.card_str(c) for c in hand)
    assert sorted(seat_view(game, 0).to_dict()["hand"]) == sorted(canasta.card_str(c) for c in hand)
    assert canasta.parse_cards(canasta.cards_str(hand)) == hand


# -- item 12: Python bots at a table and in the arena ---------------------------------------------------


def test_a_bot_object_and_a_bot_class_sit_at_a_table() -> None:
    mine = FirstMove(seed=5)
    table = Table("classic-4p", seats=[None, mine, "basic", FirstMove], seed=3)
    assert table.seats == [None, "python:first-move", "basic", "python:first-move"]
    assert table.is_bot(1) and table.is_bot(3) and not table.is_bot(0)
    for _ in range(60):
        table.play_bots()
        if table.hand_over:
            break
        assert table.to_move == 0
        table.play(0, next(iter(table.game.legal_moves)))
    assert mine.seen and set(mine.seen) == {1}
    made = table._bots[3]
    assert isinstance(made, FirstMove) and made is not mine
    table.close()
    assert mine.closed == 0 and made.closed == 1  # the table closes only what it made


def test_a_table_with_python_bots_is_saved_and_read_back_with_them(tmp_path: Path) -> None:
    table = Table("classic-4p", seats=[FirstMove, FirstMove, "random", FirstMove(seed=2)], seed=8)
    while not table.hand_over:
        table.play_bot()
    path = tmp_path / "table.json"
    table.save(path)
    with pytest.raises(CanastaError, match="python:first-move"):
        Table.load(path)
    again = Table.load(path, bots={0: FirstMove, 1: FirstMove, 3: FirstMove(seed=2)})
    assert again.to_dict() == table.to_dict()
    with pytest.raises(BotSpecError, match="cannot be built from its name"):
        make_bot("python:first-move")


def test_a_table_refuses_what_is_not_a_bot() -> None:
    with pytest.raises(TypeError, match="Bot object or a Bot subclass"):
        Table("classic-2p", seats=[None, 3.5])  # type: ignore[list-item]


def test_a_bot_in_the_arena_as_a_class_and_as_an_object() -> None:
    by_class = run_arena(RuleSet.preset("classic-2p"), (FirstMove, "random"), games=2, seed=4, max_hands=2)
    assert by_class.games == 2 and by_class.bots == ("python:first-move", "random")
    assert not by_class.errors
    again = run_arena("classic-2p", (FirstMove, "random"), games=2, seed=4, max_hands=2)
    assert again.diffs == by_class.diffs  # a class is made with each seat's seed: the same run
    shared = FirstMove()
    report = run_arena("classic-4p", ("random", shared), games=2, seed=1, max_hands=1)
    assert report.games == 2 and set(shared.seen) == {0, 1, 2, 3}  # both orientations, all its seats
    assert shared.hands_heard == 2 and shared.closed == 0  # heard once a hand; the caller's to close


def test_the_arena_says_when_a_bot_cannot_go_to_another_process() -> None:
    class Local(FirstMove):
        pass

    with pytest.raises(CanastaError, match="jobs=1"):
        run_arena("classic-2p", (Local, "random"), games=2, seed=1, jobs=2)


def test_the_arena_plays_spec_strings_as_before() -> None:
    report = run_arena(RuleSet.preset("classic-2p"), ("basic", "random"), games=2, seed=6, max_hands=1)
    assert report.bots == ("basic", "random")


# -- item 12: the reference ------------------------------------------------------------------------


@pure_only
def test_every_public_name_is_documented() -> None:
    assert apidoc.undocumented() == []
    for name in canasta.__all__:
        assert apidoc.doc_of(name, getattr(canasta, name)), name


@pure_only
def test_the_engine_internals_are_marked() -> None:
    text = apidoc.reference()
    game = text.split("### `Game`")[1].split("\n### ")[0]
    public, _, internals = game.partition("#### Engine internals")
    for name in ("plan", "play_unchecked", "recount_canastas"):
        assert f"Game.{name}(" in internals and f"Game.{name}(" not in public, name
    for name in ("draw_cards", "begin_turn", "end_hand", "remove_card", "add_to_hand", "go_out"):
        # the turn's mechanics are canasta.engine.turns' functions, for the engine and the families alone
        assert not hasattr(Game, name) and f"Game.{name}(" not in game, name
    for name in ("push", "pop", "is_legal", "why_illegal", "legal_moves", "is_over", "to_dict"):
        assert f"Game.{name}" in public, name
    assert not hasattr(Game, "check_still_going_out")  # nothing outside the engine called it: renamed


@pure_only
def test_docs_api_md_is_current() -> None:
    assert apidoc.render(API.read_text(encoding="utf-8")) == API.read_text(encoding="utf-8"), (
        "docs/api.md is stale: run python -m canasta.tools.apidoc --write docs/api.md")


@pure_only
def test_the_check_command_fails_on_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "api.md"
    stale.write_text(API.read_text(encoding="utf-8").replace("#### `Game.push", "#### `Game.shove"),
                     encoding="utf-8")
    run = [sys.executable, "-m", "canasta.tools.apidoc", "--check"]
    bad = subprocess.run([*run, str(stale)], capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and "stale" in bad.stderr
    good = subprocess.run([*run, str(API)], capture_output=True, text=True, check=False)
    assert good.returncode == 0, good.stderr
    fixed = subprocess.run([sys.executable, "-m", "canasta.tools.apidoc", "--write", str(stale)],
                           capture_output=True, text=True, check=False)
    assert fixed.returncode == 0 and stale.read_text(encoding="utf-8") == API.read_text(encoding="utf-8")


def test_the_tour_runs() -> None:
    tour = API.read_text(encoding="utf-8").split(apidoc.MARKER)[0]
    code = "\n".join(re.findall(r"```python\n(.*?)```", tour, re.S))
    assert "run_arena" in code and "Game.from_dict" in code and "seat_view" in code
    scope: dict[str, Any] = {"__name__": "tour"}
    exec(compile(code, str(API), "exec"), scope)
    assert json.loads(scope["game"].to_json()) == scope["saved"]
    assert scope["report"].games == 2


def test_the_command_refuses_a_compiled_engine(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
                                               ) -> None:
    monkeypatch.setattr(apidoc, "compiled_modules", lambda: ["canasta.engine.game"])
    assert apidoc.main(["--check", str(API)]) == 2
    assert "keeps no docstrings" in capsys.readouterr().err
