"""Issue 29: the interfaces ask the table, never the engine's game behind it, and none
describes a move itself (:mod:`canasta.present` does, once)."""

from __future__ import annotations

import re
from pathlib import Path

from canasta.engine.rules import RuleSet
from canasta.play.table import Table

SRC = Path(__file__).resolve().parent.parent / "src" / "canasta"
READS_GAME = re.compile(r"\btable\.game\b|\bt\.game\b|self\.table\.game\b")
INTERFACES = ("tui", "web")
# the words of a move's description, anywhere but canasta.present: a second describer
DESCRIBES = re.compile(r"takes the (pile|pozzo)|\"\{name\} draws|\bmoveText\b|\bdescribe_move\b|"
                       r"_\(\"(draws|melds \{|discards \{)")


# a family named in code (not a preset's name, "italian-4p"): the family's words say it instead
NAMES_A_FAMILY = re.compile(r"\.(italian|american)\b|\b(italian|american)\(\)|"
                            r"family\s*[!=]==?\s*[\"'](italian|classic|american)[\"']")


def lines_matching(pattern: re.Pattern[str], suffixes: tuple[str, ...]) -> list[str]:
    return [f"{path.relative_to(SRC)}:{n}" for part in INTERFACES for path in sorted((SRC / part).rglob("*"))
            if path.suffix in suffixes
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]


def test_no_interface_module_reads_table_game() -> None:
    assert lines_matching(READS_GAME, (".py",)) == []


def test_no_interface_describes_a_move_itself() -> None:
    assert lines_matching(DESCRIBES, (".py", ".js")) == []


def test_no_interface_tests_a_family_by_name() -> None:
    assert lines_matching(NAMES_A_FAMILY, (".py", ".js")) == []


def test_the_family_grep_finds_a_family_named() -> None:
    assert NAMES_A_FAMILY.search("if view.rules.italian:")
    assert NAMES_A_FAMILY.search('const italian = () => !!rules && rules.family === "italian";')
    assert NAMES_A_FAMILY.search("x = 5 if italian() else 3")
    assert not NAMES_A_FAMILY.search('preset = "italian-4p"')


def test_the_describer_grep_finds_a_describer() -> None:
    assert DESCRIBES.search('const pile = italian ? _("takes the pozzo") : _("takes the pile");')
    assert DESCRIBES.search('return _("{name} draws").format(name=who)')
    assert DESCRIBES.search('    case "draw": what = _("draws"); break;')
    assert not DESCRIBES.search('describe(move, rules, who)')


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


def test_a_move_out_of_turn_is_refused_once_with_one_code_and_one_wording() -> None:
    from canasta.i18n import translator
    from canasta.play.table import TURN_REFUSALS, TableError

    table = Table(RuleSet.preset("classic-2p"), [None, None], seed=5)
    mover, other = table.to_move, 1 - table.to_move
    why = table.why_not(other, "draw")
    assert isinstance(why, TableError) and why.code == "NOT_YOUR_TURN" and why.fields == {"name": table.names[mover]}
    assert str(why) == TURN_REFUSALS["NOT_YOUR_TURN"].format(name=table.names[mover])
    try:
        table.play(other, "draw")
    except TableError as exc:
        assert (exc.code, exc.fields, str(exc)) == (why.code, why.fields, str(why))
    else:
        raise AssertionError("a move out of turn was played")
    said = translator("it").gettext(TURN_REFUSALS["NOT_YOUR_TURN"])
    assert said != TURN_REFUSALS["NOT_YOUR_TURN"] and "{name}" in said  # translated from its code, fields kept
    assert table.turn_refusal(mover) is None and table.why_not(mover, "draw") is None


def test_a_bots_answer_is_played_only_while_its_turn_is_still_the_decision() -> None:
    table = Table(RuleSet.preset("classic-2p"), ["basic", "basic"], seed=9)
    turn = table.turn()
    assert turn is not None and turn.seat == table.to_move and table.still(turn)
    late = table.bot_move()
    assert table.play_turn(turn, late) and not table.still(turn)  # played once; the next decision is new
    assert not table.play_turn(turn, late)  # an answer to a decision the table has moved past: dropped
    fresh = table.turn()
    assert fresh is not None and fresh.version == table.version and table.still(fresh)
