"""The terminal app in Italian, Spanish, Brazilian Portuguese and the pseudo-language (issues 18,
55): no text bypasses the catalog, a whole match can be played in each language with no English
word left on its screens, the language switches live."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")

from textual.widget import Widget
from textual.widgets import Select

from canasta.engine.moves import ASK, DISCARD, DRAW, NO, YES
from canasta.engine.rules import RuleSet
from canasta.i18n import PSEUDO_CLOSE, PSEUDO_OPEN, current, use
from canasta.i18n.settings import settings_path
from canasta.play.table import Table
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

SIZE = (130, 50)



def screen_texts(app: Any) -> list[str]:
    """What each widget of the screen shows (its region of the screen, borders and titles
    included), as plain text; widgets side by side are read apart."""
    strips = app.screen._compositor.render_strips()
    out = []
    for widget in app.screen.walk_children(Widget):
        if widget.children or not widget.display or not widget.region.area:
            continue
        r = widget.region
        lines = ["".join(seg.text for seg in strips[y].crop(r.x, r.x + r.width)) for y in range(r.y, r.bottom)
                 if 0 <= y < len(strips)]
        out.append("\n".join(lines))
    return out


#: what may be read outside the markers: card notation and suit letters, rank notation on the
#: card faces, numbers, the hexadecimal commitment, preset and rule ids, key names, the brand,
#: the languages' own names in the language menu
ALLOWED = re.compile(
    r"^(?:(?:10|[2-9AKQJ])[SHDC]?|JK|[SHDC]|[0-9a-f]{6,}|[0-9]+[a-z]?|canasta|classic|italian|cutthroat|"
    r"English|Español|Italiano|Português|Pseudo|"
    r"[ABCI]|O[0-9]+|[a-z]|F2|Esc|Enter|ctrl|PgDn|PgUp|M|q)$")  # M: the key shift+m


def unmarked_words(text: str) -> list[str]:
    """The words of ``text`` outside the pseudo-language's markers (which may nest and wrap)."""
    depth = 0
    outside = []
    for ch in text:
        if ch == PSEUDO_OPEN:
            depth += 1
            outside.append(" ")
        elif ch == PSEUDO_CLOSE:
            depth = max(0, depth - 1)
            outside.append(" ")
        elif depth == 0:
            outside.append(ch)
    words = re.findall(r"[^\W_]+", "".join(outside))
    return [w for w in words if not ALLOWED.match(w)]


def assert_all_marked(app: Any, where: str) -> None:
    leaks = {w: t for t in screen_texts(app) for w in unmarked_words(t)}
    assert not leaks, f"{where}: text outside the catalog: " + "; ".join(
        f"{w!r} in {t[:200]!r}" for w, t in list(leaks.items())[:8])


async def settle(pilot: Any, table: Table, limit: int = 400) -> None:
    for _ in range(limit):
        await pilot.pause()
        screen = pilot.app.screen
        if not isinstance(screen, TableScreen):
            return
        if table.hand_over or (not table.bot_to_move() and not screen._bot_busy):
            return
    raise AssertionError("the bots did not finish their moves")


async def person_plays(pilot: Any, table: Table) -> None:
    """The hint bot's move for the person, through the keyboard (takes and melds typed)."""
    from canasta.engine.cards import CARD_RANK, JOKER, RANK_NAMES

    move = table.hint(0)
    before = table.version
    if move.kind == DRAW:
        await pilot.press("d")
    elif move.kind == DISCARD:
        await pilot.press("escape")
        c = move.groups[0][0]
        name = "JK" if c == JOKER else RANK_NAMES[CARD_RANK[c]]
        await pilot.press({"JK": "asterisk", "10": "0"}.get(name, name.lower()))
        await pilot.press("x")
    elif move.kind == ASK:
        await pilot.press("s")
    elif move.kind in (YES, NO):
        await pilot.press("y" if move.kind == YES else "n")
    else:
        await pilot.press("colon")
        await pilot.press(*list(str(move)))
        await pilot.press("enter")
    await pilot.pause()
    assert table.version > before, f"{move} was not played"


@pytest.mark.slow
def test_the_pseudo_language_marks_every_text_of_the_app(tmp_path: Path) -> None:
    async def run() -> None:
        use("qps")
        table = build_table(RuleSet.preset("classic-2p").with_options({"target": 50}), ["basic"], seed=5,
                            hint_level="basic")
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang="qps", hints=True), table, "p1")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, table)
            for _ in range(10):
                await pilot.pause(0.02)
            assert_all_marked(app, "the table")
            await pilot.press("x")  # nothing selected: a message
            await pilot.press("t")  # a refusal, by its code
            await pilot.pause()
            assert_all_marked(app, "a refusal")
            for key, where in (("r", "the rules"), ("question_mark", "the help")):
                await pilot.press(key)
                await pilot.pause()
                assert isinstance(app.screen, InfoScreen)
                assert_all_marked(app, where)
                await pilot.press("escape")
            moves = 0
            while not table.hand_over:
                await settle(pilot, table)
                if table.hand_over:
                    break
                await person_plays(pilot, table)
                moves += 1
                if moves in (1, 2, 5):
                    assert_all_marked(app, f"the table after {moves} moves")
            await pilot.pause()
            assert isinstance(app.screen, ScoreScreen)
            assert_all_marked(app, "the score sheet")

    asyncio.run(run())


def test_the_new_game_screen_in_the_pseudo_language(tmp_path: Path) -> None:
    async def run() -> None:
        use("qps")
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang="qps"))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, NewGameScreen)
            assert_all_marked(app, "the new-game screen")
            app.screen.query_one("#ng-preset", Select).value = "italian-3p"
            for _ in range(5):
                await pilot.pause()
            assert_all_marked(app, "the new-game screen, Italian Canasta")

    asyncio.run(run())


#: what the catalog-driven check lets through on the screens of a game (besides the words both
#: languages share): key names the app shows as keys, the brand
KEYS_AND_BRAND = ("Esc", "Enter", "ctrl", "PgDn", "PgUp", "Tab", "canasta")


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["it", "es", "pt_BR"])
def test_a_whole_match_in_each_language(tmp_path: Path, lang: str) -> None:
    """A whole Italian Canasta match played through the keyboard in each language: the turn,
    the panels' titles, the log, the score sheet and the result read in it, and no screen shows
    a word of the English catalog ids that the language's translations do not use."""
    from canasta.i18n import translator
    from catalog_words import english_left

    t = translator(lang)
    _ = t.gettext

    async def run() -> None:
        rules = RuleSet.preset("italian-2p").with_options({"target": 100})
        table = build_table(rules, ["basic"], seed=11, hint_level="basic")
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang=lang), table, f"{lang}1")
        seen: set[str] = set()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, table)
            text = "\n".join(screen_texts(app))
            turn = _("{subject}: {what}").format(subject=_("Your move"),
                                                 what=_("draw from the stock or take the pozzo"))
            assert turn in text, text
            assert _("Players") in text and _("Pozzo and stock") in text
            assert _("Stock: {cards}").split("{")[0] in text
            for _hand in range(8):
                for _step in range(600):
                    await settle(pilot, table)
                    if table.hand_over:
                        break
                    await person_plays(pilot, table)
                    seen.update(screen_texts(app))
                await pilot.pause()
                assert isinstance(app.screen, ScoreScreen)
                sheet = "\n".join(screen_texts(app))
                seen.add(sheet)
                assert _("Score sheet") in sheet and _("Total") in sheet
                # the hand ends in the family's word for a hand: "La smazzata 1 è finita" (issue 55)
                heads = {t.pgettext("smazzata", m).split("{n}")[0].strip()
                         for m in ("Hand {n} is over: {went}.", "Hand {n} is over: {reason}; {went}.")}
                assert any(h in sheet for h in heads), (heads, sheet)
                assert lang != "it" or "La smazzata" in sheet, sheet
                assert t.pgettext("score", "cards in melds").capitalize() in sheet, sheet
                await pilot.press("enter")
                await pilot.pause()
                if table.match_over:
                    break
            assert table.match_over and isinstance(app.screen, ResultScreen)
            result = "\n".join(screen_texts(app))
            seen.add(result)
            assert _("Match result") in result
            won = _("{side} win the match!").partition("{side}")
            assert (won[0] in result and won[2] in result) or _("The match is drawn.") in result, result
        log = "\n".join(seen)
        south, north = t.pgettext("seat", "South"), t.pgettext("seat", "North")
        assert f"{south} {t.pgettext('move', 'draws')}" in log or f"{north} {t.pgettext('move', 'draws')}" in log
        left = english_left(seen, lang, KEYS_AND_BRAND)
        assert left == {}, "\n".join(f"{w!r}: {t!r}" for w, t in left.items()) + "\n" + "\n".join(
            line for text in seen for line in text.splitlines() if any(w in line.lower() for w in left))
        assert current().lang == lang

    asyncio.run(run())


@pytest.mark.parametrize("lang", ["es", "pt_BR"])
def test_every_screen_of_a_game_in_spanish_and_portuguese(tmp_path: Path, lang: str) -> None:
    """The new-game screen, the table, a refusal, the rules and the help in Spanish and in
    Brazilian Portuguese: no English word of the catalogs left on any of them."""
    from canasta.i18n import translator
    from catalog_words import english_left

    t = translator(lang)

    async def run() -> None:
        seen: dict[str, list[str]] = {}
        use(lang)
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang=lang))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, NewGameScreen)
            seen["the new-game screen"] = screen_texts(app)
            assert t.gettext("Start the game") in "\n".join(seen["the new-game screen"])
            app.screen.query_one("#ng-preset", Select).value = "italian-3p"
            for _ in range(5):
                await pilot.pause()
            seen["the new-game screen, Italian Canasta"] = screen_texts(app)
        table = build_table(RuleSet.preset("classic-4p"), ["basic"], seed=7, hint_level="basic")
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang=lang, hints=True), table, f"{lang}3")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, table)
            for _ in range(5):
                await pilot.pause(0.02)
            seen["the table"] = screen_texts(app)
            await pilot.press("x")  # nothing selected: a message
            await pilot.pause()
            seen["a message"] = screen_texts(app)
            assert t.gettext("Select exactly one card to discard.") in "\n".join(seen["a message"])
            await pilot.press("t")  # a refusal, by its code and rule
            await pilot.pause()
            seen["a refusal"] = screen_texts(app)
            assert "(" + t.gettext("{text} (rule {rule})").split("(")[-1].split("{")[0] in "\n".join(seen["a refusal"])
            for key, where in (("r", "the rules"), ("question_mark", "the help")):
                await pilot.press(key)
                await pilot.pause()
                assert isinstance(app.screen, InfoScreen)
                seen[where] = screen_texts(app)
                await pilot.press("escape")
        for where, texts in seen.items():
            assert english_left(texts, lang, KEYS_AND_BRAND) == {}, where

    asyncio.run(run())


def test_refusals_and_messages_in_italian(tmp_path: Path) -> None:
    async def run() -> None:
        table = build_table(RuleSet.preset("classic-4p"), ["basic"], seed=7, hint_level="basic")
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang="it"), table, "it2")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, table)
            await pilot.press("x")
            status = "\n".join(screen_texts(app))
            assert "Seleziona esattamente una carta da scartare." in status
            await pilot.press("m")
            assert "Prima seleziona le carte da calare" in "\n".join(screen_texts(app))
            card = table.view(0).hand[0]
            from canasta.engine.cards import CARD_RANK, JOKER, RANK_NAMES

            name = "JK" if card == JOKER else RANK_NAMES[CARD_RANK[card]]
            await pilot.press({"JK": "asterisk", "10": "0"}.get(name, name.lower()))
            await pilot.press("x")
            await pilot.pause()
            status = "\n".join(screen_texts(app))
            assert "Non giocata: prima pesca dal mazzo o prendi il pozzo (regola A.4.1)" in status.replace("\n", " ")

    asyncio.run(run())


def test_switching_language_live(tmp_path: Path) -> None:
    async def run() -> None:
        table = build_table(RuleSet.preset("classic-4p"), ["basic"], seed=7, hint_level="basic")
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "sw")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, table)
            assert "Your move: draw from the stock or take the pile" in "\n".join(screen_texts(app))
            await pilot.press("f2")  # the languages in turn: English, Español, Italiano, Português
            await pilot.pause()
            text = "\n".join(screen_texts(app))
            assert "Te toca: roba del mazo o toma el pozo" in text and "Tomar pozo" in text
            assert json.loads(settings_path().read_text(encoding="utf-8")) == {"lang": "es"}
            await pilot.press("r")
            await pilot.pause()
            assert "Las reglas vigentes" in "\n".join(screen_texts(app))
            for rules in ("Le regole in vigore", "As regras em vigor", "The rules in force"):
                await pilot.press("f2")  # on the rules page: the page and the table below it
                await pilot.pause()
                assert rules in "\n".join(screen_texts(app))
            await pilot.press("escape")
            await pilot.pause()
            assert "Your move" in "\n".join(screen_texts(app))
            await pilot.press("colon")
            await pilot.press(*list("lang it"))
            await pilot.press("enter")
            for _ in range(5):
                await pilot.pause()
            assert "Tocca a te" in "\n".join(screen_texts(app))

    asyncio.run(run())


def test_the_new_game_screen_switches_language(tmp_path: Path) -> None:
    async def run() -> None:
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert "a new game" in "\n".join(screen_texts(app))
            app.screen.query_one("#ng-lang", Select).value = "it"
            for _ in range(5):
                await pilot.pause()
            text = "\n".join(screen_texts(app))
            assert "una nuova partita" in text and "Inizia la partita" in text and "Matte in una combinazione" in text
            assert current().lang == "it"

    asyncio.run(run())


def test_the_replay_in_the_pseudo_language_and_in_italian(tmp_path: Path) -> None:
    from canasta.tui.replay import ReplayApp, load_replay

    table = build_table(RuleSet.preset("italian-2p").with_options({"target": 50}), ["basic"], seed=4)
    while not table.hand_over:
        table.play_bot() if table.bot_to_move() else table.play(0, table.hint(0))
    path = tmp_path / "game.cgn"
    path.write_text(table.record().to_text(), encoding="utf-8")

    async def run(lang: str) -> str:
        use(lang)
        app = ReplayApp(load_replay(path))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("right", "right", "right")
            await pilot.pause()
            if lang == "qps":
                assert_all_marked(app, "the replay")
            await pilot.press("end")
            await pilot.pause()
            if lang == "qps":
                assert_all_marked(app, "the replay's score sheet")
            await pilot.press("r")
            await pilot.pause()
            if lang == "qps":
                assert_all_marked(app, "the replay's rules")
            return "\n".join(screen_texts(app))

    asyncio.run(run("qps"))
    text = asyncio.run(run("it"))
    assert "Le regole di questa partita" in text
