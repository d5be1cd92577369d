"""The table every interface drives: turns, undo, hints, save/load, records."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from canasta.engine.errors import IllegalMoveError
from canasta.engine.moves import DISCARD, MELD, Move
from canasta.engine.rules import RuleSet
from canasta.i18n import translator
from canasta.play.record import verify
from canasta.play.table import Table, TableError
from canasta.present import describe


def _person_plays(table: Table, rng: random.Random, undo_every_meld: bool = False) -> int:
    """Play the current hand: seat 0 at random, bots elsewhere.  Returns undos done."""
    undos = 0
    while not table.hand_over:
        if table.bot_to_move():
            table.play_bot()
            continue
        move = table.game.random_move(rng)
        table.play(0, move)
        if undo_every_meld and move.kind == MELD and table.undoable(0):
            before = table.version
            assert table.undo(0) == move
            assert table.version == before + 1
            table.play(0, move)
            undos += 1
    return undos


@pytest.mark.parametrize("preset", ["classic-4p", "classic-2p", "italian-4p", "classic-3p-cutthroat"])
def test_hands_played_at_a_table_verify_as_records(preset: str) -> None:
    rules = RuleSet.preset(preset)
    table = Table(rules, [None] + ["basic"] * (rules.players - 1), seed=5)
    rng = random.Random(5)
    for _ in range(2):
        _person_plays(table, rng)
        if table.match_over:
            break
        table.next_hand()
    record = table.record()
    assert len(record.hands) == len(table.match.hands) >= 1
    assert verify(record) == []


def test_undo_takes_back_melds_and_restores_the_table_exactly() -> None:
    rules = RuleSet.preset("classic-4p")
    table = Table(rules, [None, "basic", "basic", "basic"], seed=11)
    undos = _person_plays(table, random.Random(2), undo_every_meld=True)
    assert undos > 0
    replayed = Table.from_dict(table.to_dict())
    assert replayed.game.result == table.game.result


def test_undo_is_refused_for_draws_discards_and_other_seats() -> None:
    table = Table(RuleSet.preset("classic-4p"), [None, "basic", "basic", "basic"], seed=3)
    table.play_bots()
    assert table.game.to_move == 0
    with pytest.raises(TableError, match="nothing to undo"):
        table.undo(0)  # nothing played yet
    table.play(0, "draw")
    assert table.undoable(0) == 0
    with pytest.raises(TableError, match="nothing to undo"):
        table.undo(0)
    with pytest.raises(TableError, match="nothing to undo"):
        table.undo(1)
    discard = next(m for m in table.game.legal_moves if m.kind == DISCARD)
    table.play(0, discard)
    with pytest.raises(TableError):
        table.undo(0)


def test_refusals_change_nothing() -> None:
    table = Table(RuleSet.preset("classic-4p"), [None, "basic", "basic", "basic"], seed=3)
    table.play_bots()
    before = json.dumps(table.to_dict())
    version = table.version
    with pytest.raises(TableError, match="South's move"):
        table.play(1, "draw")
    with pytest.raises(TableError, match="expected"):
        table.play(0, "dance")
    with pytest.raises(IllegalMoveError):
        table.play(0, "discard 5H")  # before drawing
    with pytest.raises(TableError, match="no seat"):
        table.view(7)
    with pytest.raises(TableError, match="not a bot"):
        table.bot_move()
    assert json.dumps(table.to_dict()) == before
    assert table.version == version


def test_hint_is_a_legal_move_for_the_seat_to_move() -> None:
    table = Table(RuleSet.preset("italian-4p"), [None, "basic", "basic", "basic"], seed=8)
    rng = random.Random(8)
    for _ in range(30):
        if table.hand_over:
            break
        if table.bot_to_move():
            table.play_bot()
            continue
        hint = table.hint(0)
        assert hint in table.game.legal_moves
        table.play(0, table.game.random_move(rng))
    with pytest.raises(TableError):
        if table.game.to_move != 0:
            table.hint(0)
        else:
            table.hint(1)


def test_views_hide_other_hands() -> None:
    table = Table(RuleSet.preset("classic-4p"), [None, "basic", "basic", "basic"], seed=4)
    table.play_bots()
    mine = table.view(0)
    assert sorted(mine.hand) == sorted(table.game.hand(0))
    assert mine.hand_sizes[1] == len(table.game.hand(1))
    watcher = table.spectator_view()
    assert watcher.hand == () and watcher.seat == -1 and watcher.side == -1
    assert "hand" in watcher.to_dict() and watcher.to_dict()["hand"] == []


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    table = Table(RuleSet.preset("classic-4p").with_options({"target": 9000}),
                  [None, "advanced", "basic", "random"], seed=21, names=["Ann", "Bob", "Cy", "Di"])
    _person_plays(table, random.Random(1))
    table.next_hand()
    table.play_bots()
    path = tmp_path / "game.json"
    table.save(path)
    loaded = Table.load(path)
    assert loaded.to_dict() == table.to_dict()
    assert loaded.names == ["Ann", "Bob", "Cy", "Di"]
    assert loaded.rules.target == 9000
    assert loaded.view(0) == table.view(0)


@pytest.mark.parametrize(("text", "message"), [
    ("not json", "not a saved table"),
    ('{"format": "something-else"}', "not a saved canasta table"),
    ('{"format": "canasta-table/1", "rules": {"name": "classic-4p"}}', "lacks"),
])
def test_malformed_save_files_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(TableError, match=message):
        Table.load(path)


def test_a_save_with_an_illegal_move_names_it(tmp_path: Path) -> None:
    table = Table(RuleSet.preset("classic-4p"), [None, "basic", "basic", "basic"], seed=3)
    table.play_bots()
    data = table.to_dict()
    data["hands"][0].append("0: discard 5H")
    with pytest.raises(TableError, match=r"hand 1, move \d+ \(0: discard 5H\)"):
        Table.from_dict(data)
    with pytest.raises(TableError, match="cannot read"):
        Table.load(tmp_path / "missing.json")


def test_the_log_lists_the_hands_moves_with_their_numbers() -> None:
    table = Table(RuleSet.preset("classic-4p"), [None, "basic", "basic", "basic"], seed=3)
    while table.bot_to_move():
        table.play_bot()
    table.play(0, "draw")
    entries = table.log()
    assert [e.number for e in entries] == list(range(1, len(entries) + 1)) and entries[-1].seat == 0
    assert entries[-1].move == Move.parse("draw") and table.log(last=2) == entries[-2:]
    assert describe(entries[-1].move, table.rules, table.names[0], translator("en")) == "South draws"


def test_wrong_number_of_seats_is_refused() -> None:
    with pytest.raises(TableError, match="4 players"):
        Table(RuleSet.preset("classic-4p"), [None, "basic"], seed=1)


def test_why_not_explains_without_changing_anything() -> None:
    table = Table(RuleSet.preset("classic-4p"), [None, "basic", "basic", "basic"], seed=3)
    table.play_bots()
    version = table.version
    err = table.why_not(0, "discard 5H")
    assert isinstance(err, IllegalMoveError) and err.rule == "A.4.1"
    assert "South's move" in str(table.why_not(1, "draw"))
    assert "unknown move" in str(table.why_not(0, "xx"))
    assert table.why_not(0, "draw") is None
    assert table.version == version


def test_rename_and_a_stand_in_for_a_person() -> None:
    from canasta.bots import make_bot

    table = Table(RuleSet.preset("classic-4p"), [None, "basic", "basic", "basic"], seed=3)
    table.rename(0, "  Ann   Lee ")
    assert table.names[0] == "Ann Lee" and describe(Move.parse("draw"), table.rules, table.names[0]) == "Ann Lee draws"
    with pytest.raises(TableError, match="empty"):
        table.rename(0, "   ")
    table.play_bots()
    with pytest.raises(TableError, match="not a bot"):
        table.bot_move()
    move = table.bot_move(stand_in=make_bot("basic", seed=1))
    assert move in table.game.legal_moves
    assert "rules" not in table.view(0).to_dict(include_rules=False)
    assert table.view(0).to_dict()["rules"]["name"] == "classic-4p"


def test_replay_yields_every_deal_and_move_in_order() -> None:
    table = Table(RuleSet.preset("classic-4p"), [None, "basic", "basic", "basic"], seed=13)
    _person_plays(table, random.Random(13))
    table.next_hand()
    table.play_bots()
    data = table.to_dict()
    steps = [(seat, None if move is None else str(move)) for _, seat, move in Table.replay(data)]
    deals = [i for i, (seat, move) in enumerate(steps) if move is None]
    assert len(deals) == 2 and deals[0] == 0 and steps[deals[0]][0] == -1
    played = [f"{seat}: {move}" for seat, move in steps if move is not None]
    assert played == data["hands"][0] + data["hands"][1]


def test_an_interrupted_save_leaves_the_earlier_save_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from canasta.engine import files

    table = Table(RuleSet.preset("classic-2p"), [None, "basic"], seed=4)
    path = tmp_path / "game.json"
    table.save(path)
    before = path.read_text(encoding="utf-8")
    table.play_bots() if table.bot_to_move() else table.play(0, "draw")

    def stopped(tmp: Path, target: Path) -> None:  # the new text written, the machine stops before the rename
        assert tmp.read_text(encoding="utf-8") != before
        raise KeyboardInterrupt

    monkeypatch.setattr(files, "_publish", stopped)
    with pytest.raises(KeyboardInterrupt):
        table.save(path)
    assert path.read_text(encoding="utf-8") == before and [p.name for p in tmp_path.iterdir()] == ["game.json"]
    monkeypatch.undo()
    table.save(path)
    assert Table.load(path).to_dict() == table.to_dict()
