"""Issue 51: the terminal app plays Modern American Canasta (american-4p) as a person sees it, in
Textual's pilot: the table shows and explains the talons, the turn card, one card drawn, the
opening by score with its clean triple, the rule of five, dead ranks and the empty tray, in English
and in Italian; turns are played through the keyboard; the score sheet names the threes' line."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual.widgets import Static

from canasta.engine.cards import ACE, CARD_RANK, IS_NATURAL, IS_WILD, SEVEN
from canasta.engine.errors import IllegalMoveError
from canasta.engine.moves import Move, make_group
from canasta.engine.rules import RuleSet
from canasta.i18n import translator
from canasta.play.table import Table
from canasta.tui.app import CanastaApp, PlayConfig, build_table
from canasta.tui.screens import InfoScreen, ScoreScreen
from canasta.views.seat import table_note_list
from test_tui import _text, aio, person_plays, plain, settle

#: where screenshots go to be looked at (CANASTA_SHOTS=dir keeps them; else the test's folder)
SHOTS = os.environ.get("CANASTA_SHOTS", "")


def _table(seed: int = 7) -> Table:
    return build_table(RuleSet.preset("american-4p"), ["basic"], seed=seed, hint_level="basic")


def _shot(app: CanastaApp, tmp_path: Path, name: str) -> Path:
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return Path(app.save_screenshot(filename=f"{name}.svg", path=str(folder)))


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("size", [(130, 50), (80, 24)], ids=["wide", "compact"])
@aio
async def test_the_table_explains_modern_american(tmp_path: Path, lang: str, size: tuple[int, int]) -> None:
    table = _table()
    tr = translator(lang)
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang=lang), table, f"am-{lang}")
    async with app.run_test(size=size) as pilot:
        await settle(pilot, table)
        pile = " ".join(_text(app, "#seats").split())  # under the players, where they fit
        if size[0] < 100:  # a compact table has no room for them: the rules screen (r) says them first
            assert "◦" not in pile and tr.gettext("r: the rules, and what the table says now") in pile, pile
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, InfoScreen)
            pile = " ".join(" ".join(plain(w.content) for w in app.screen.query(Static)).split())
            assert pile.index(tr.gettext("At this table now")) < pile.index("M-O1 ")
        said = [tr.table_note(n) for n in table_note_list(table.view(0))]
        keys = [n.key for n in table_note_list(table.view(0))]
        assert {"draw_one", "talon_next", "turn_card_ahead", "go_out"} <= set(keys), keys
        for text in said:  # every note of the family is on the table, in the language
            assert " ".join(text.split()) in pile, (text, pile)
        if lang == "it":  # translated, not English left in an Italian table
            english = [translator("en").table_note(n) for n in table_note_list(table.view(0))]
            assert all(a != b for a, b in zip(said, english, strict=True)), said
        _shot(app, tmp_path, f"tui-american-{lang}-{size[0]}x{size[1]}")


@aio
async def test_turns_of_american_played_from_the_keyboard(tmp_path: Path) -> None:
    """Turns played by the person with the keyboard (the hint bot's moves): the hand moves on,
    the notes follow the table (the turn card counts down, a talon once given is named), and a
    hand played to its end shows the score sheet with the threes' line of Part C."""
    table = _table(seed=11)
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "am-play")
    async with app.run_test(size=(130, 50)) as pilot:
        await settle(pilot, table)
        first_stock = table.view(0).stock_size
        seen_keys: set[str] = set()
        for _ in range(400):
            await settle(pilot, table)
            if table.hand_over:
                break
            seen_keys |= {n.key for n in table_note_list(table.view(0))}
            await person_plays(pilot, table)
        await settle(pilot, table)
        assert table.hand_over, "the hand reached its end"
        assert first_stock > table.view(0).stock_size
        assert {"talon_next", "turn_card_ahead"} <= seen_keys, seen_keys
        assert seen_keys & {"talon_own", "talon_other", "turn_card_drawn", "dead"}, seen_keys
        await pilot.pause()
        assert isinstance(app.screen, ScoreScreen)
        sheet = _text(app, "#scores")
        assert "Threes" in sheet and "Red threes" not in sheet, sheet
        _shot(app, tmp_path, "tui-american-score-sheet")


def _play_until(table: Table, refused: Callable[[Table], Move | None], limit: int = 600) -> Move | None:
    """Play the hand (the person's seat by its hint, the bots by themselves) until ``refused`` finds,
    for the person to move, a move the rules refuse; that move, or None."""
    for _ in range(limit):
        if table.hand_over:
            return None
        if table.to_move == 0:
            found = refused(table)
            if found is not None:
                return found
            table.play(0, table.hint(0))
        else:
            table.play_bot()
    return None


def _wild_under_five(table: Table) -> Move | None:
    """A wild card of the person's hand put on a meld of the side with fewer than five natural cards."""
    v = table.view(0)
    if v.phase != "meld" or not v.opened[v.side]:
        return None
    for wild in (c for c in v.hand if IS_WILD[c]):
        for cards, *_rest in v.melds[v.side]:
            rank = next((CARD_RANK[c] for c in cards if IS_NATURAL[c]), None)
            if rank is not None and rank not in (ACE, SEVEN) and len(cards) < 7:
                move = Move.meld(make_group((wild,), rank))
                err = table.why_not(0, move)
                if isinstance(err, IllegalMoveError) and err.code == "RULE_OF_FIVE":
                    return move
    return None


def _barred_on_the_empty_pile(table: Table) -> Move | None:
    """A seven, ace or wild card discarded by the person on an empty pile."""
    v = table.view(0)
    if v.phase != "meld" or v.pile:
        return None
    for card in v.hand:
        move = Move.discard(card)
        err = table.why_not(0, move)
        if isinstance(err, IllegalMoveError) and err.code == "EMPTY_TRAY_BARRED":
            return move
    return None


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize(("bar", "rule"), [(_wild_under_five, "C.5.5"), (_barred_on_the_empty_pile, "C.10.3")],
                         ids=["rule-of-five", "empty-pile"])
@aio
async def test_a_move_part_c_bars_is_refused_with_its_rule(tmp_path: Path, lang: str,
                                                           bar: Callable[[Table], Move | None], rule: str) -> None:
    """The rule of five barring a wild card, the empty pile barring a seven, an ace or a wild card:
    typed at the table, the move is not played and the status says why, with its rule, in the
    language (seeded hands searched in order; the first that comes to it is played)."""
    for seed in range(1, 60):
        table = _table(seed)
        move = _play_until(table, bar)
        if move is not None:
            break
    else:
        raise AssertionError("no seeded hand came to the bar")
    app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang=lang), table, f"bar-{lang}")
    async with app.run_test(size=(130, 50)) as pilot:
        await settle(pilot, table)
        before = table.version
        await pilot.press("colon")
        await pilot.press(*list(str(move)))
        await pilot.press("enter")
        await pilot.pause()
        assert table.version == before, "the barred move was not played"
        status = " ".join(_text(app, "#status").split())
        err = table.why_not(0, move)
        assert isinstance(err, IllegalMoveError)
        assert rule in status and " ".join(translator(lang).refusal(err).split()) in status, status
        _shot(app, tmp_path, f"tui-american-{lang}-{rule}")


def test_the_american_score_lines_have_names_in_every_language() -> None:
    """The family's own lines of the score (C.13.3, C.14.1 b and f) and its threes' line are named in
    each language, never left as their keys."""
    from canasta.i18n.words import score_label

    keys = ("unfinished_melds", "aces_sevens_held", "special_hand", "red_threes")
    english = [score_label(k, translator("en"), "threes") for k in keys]
    assert english == ["unfinished melds of aces, sevens or wild cards", "three or more aces or sevens held",
                       "special hand", "threes"]
    for lang in ("it", "es", "pt_BR"):
        said = [score_label(k, translator(lang), "threes") for k in keys]
        assert all(a != b for a, b in zip(said, english, strict=True)), (lang, said)


def test_the_rules_screen_gives_part_c_s_numbers() -> None:
    """The rules screen of american-4p: the initial meld's minimum by score (C.7.1) and the threes,
    each colour apart (C.14.1 c), from the rule set itself."""
    from canasta.tui.render import rules_text

    text = " ".join(plain(rules_text(RuleSet.preset("american-4p"))).split())
    assert "Initial meld minimum by score: 125 from below 0, 155 from 3,000, 180 from 5,000" in text
    assert "Threes, each colour apart: 1 = 100, 2 = 300, 3 = 500, 4 = 1,000" in text
    assert "Red threes" not in text


def test_a_special_hand_laid_is_said_with_its_value() -> None:
    """Pairs laid after the draw (conformance case M-SPEC-19): the table's note names the special
    hand and what it scores, in each language, for every seat and for a spectator."""
    import json

    from canasta.engine.moves import Move as M
    from canasta.views.seat import seat_view, spectator_view
    from test_american_conformance import build

    data = json.loads((Path(__file__).parent / "data" / "cases-american.json").read_text(encoding="utf-8"))
    case = next(c for c in (data["cases"] if isinstance(data, dict) else data) if c["id"] == "M-SPEC-19")
    game = build(case)
    for text in case["setup"]["moves"]:
        game.push(M.parse(text))
    assert game.is_over()
    for view in (seat_view(game, 0), seat_view(game, 1), spectator_view(game)):
        notes = table_note_list(view)
        assert [(n.key, n.n) for n in notes] == [("special.pairs", 2500)]
        assert translator("en").table_note(notes[0]) == "a special hand was laid: Pairs, worth 2,500"
        assert "2.500" in translator("it").table_note(notes[0]) and "Pairs" in translator("it").table_note(notes[0])
    # the log says what was laid, not the fourteen cards as melds
    from canasta.present import describe

    laid = describe(M.parse(case["setup"]["moves"][-1]), game.rules, "South", translator("en"))
    assert laid == "South lays a special hand: Pairs, worth 2,500", laid
    italian = describe(M.parse(case["setup"]["moves"][-1]), game.rules, "South", translator("it"))
    assert italian == "Sud cala una mano speciale: Pairs, vale 2.500", italian
    ordinary = describe(M.parse("meld 6H 6S 6D"), game.rules, "South", translator("en"))
    assert ordinary == "South melds 6H 6S 6D", ordinary


def test_the_rules_screen_says_how_modern_american_plays() -> None:
    """The family's rules in a few sentences (RuleFamily.rule_notes), with the rule set's numbers:
    an option changes what is said (M-O6 off: no rule of five; M-O23: Garbage at 2,000)."""
    from canasta.tui.render import rules_text

    text = " ".join(plain(rules_text(RuleSet.preset("american-4p"))).split())
    assert "How this game plays" in text
    assert "Garbage: 4, 4, 3 and 3 of a kind, no wild card, worth 3,000" in text
    assert "the rule of five:" in text and "the game is to 8,500" in text
    house = " ".join(plain(rules_text(RuleSet.preset("american-4p", {"M-O6": False, "M-O23": 2000}))).split())
    assert "the rule of five:" not in house and "Garbage: 4, 4, 3 and 3 of a kind, no wild card, worth 2,000" in house
    classic = " ".join(plain(rules_text(RuleSet.preset("classic-4p"))).split())
    assert "How this game plays" not in classic


def test_the_talon_notes_follow_where_the_talon_comes_from() -> None:
    """M-O14: talons from the stock's top (the default) or the packets set aside at the deal; the
    table's note and the rules' sentence say which."""
    from canasta.tui.render import rules_text

    for source, key in (("stock_top", "talon_next"), ("set_aside", "talon_next.set_aside")):
        rules = RuleSet.preset("american-4p", {"M-O14": source})
        table = build_table(rules, ["basic"], seed=7, hint_level="basic")
        keys = [n.key for n in table_note_list(table.view(0))]
        assert key in keys, (source, keys)
        text = " ".join(plain(rules_text(rules)).split())
        assert ("set aside at the deal" in text) == (source == "set_aside"), text
