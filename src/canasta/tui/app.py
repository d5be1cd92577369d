"""``canasta play``: the Textual application.

Screens: a new-game screen (language, preset, house rules with their sourced
defaults, target, seats and bot levels: :mod:`canasta.tui.newgame`), the table
(:mod:`canasta.tui.table_screen`), a score sheet after each hand (with the deal
commitment and the revealed seed), the match result, the rules in force, and help
(:mod:`canasta.tui.screens`).  The app only reads :meth:`Table.view` for seat 0:
other hands stay hidden.

Every text is in the language chosen (``--lang``, the remembered choice, the
environment); F2 switches language live on any screen (and remembers it), as does
typing ``:lang it`` at the table.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from canasta.engine.files import write_text_atomic
from canasta.i18n import LANGUAGE_NAMES, LANGUAGES, PSEUDO, _, current, use
from canasta.play.table import Table
from canasta.tui.config import PERSON, PlayConfig, build_table, default_save_dir
from canasta.tui.newgame import NewGameScreen
from canasta.tui.screens import HELP, KEY_HINTS, InfoScreen, ResultScreen, ScoreScreen
from canasta.tui.table_screen import TableScreen

__all__ = [
    "HELP", "KEY_HINTS", "PERSON", "CanastaApp", "InfoScreen", "NewGameScreen", "PlayConfig", "ResultScreen",
    "ScoreScreen", "TableScreen", "build_table", "default_save_dir",
]

CSS = """
Screen { background: #101418; }
#topbar { height: 1; background: #202830; }
#tablearea { height: 1fr; }
#middle { height: auto; }
#left { width: 2fr; height: auto; }
#right { width: 1fr; min-width: 34; height: auto; }
.panel { border: round #8090a0; padding: 0 1; height: auto; }
#status { height: auto; min-height: 2; padding: 0 1; background: #182028; }
#moveinput { margin: 0 1; }
#hand { margin: 1 0 0 0; max-height: 50%; }
#status { max-height: 8; }
#buttons { height: auto; }
Button.cmd { min-width: 6; height: 1; border: none; margin: 0 1 0 0; }
.dialog { background: #182028; border: thick #ffd000; padding: 1 2; width: 90%; height: 90%; }
InfoScreen, ScoreScreen { align: center middle; }
#newgame { padding: 1 2; }
.keybar { dock: bottom; }
TableScreen #toosmall { display: none; height: auto; }
TableScreen.toosmall #toosmall { display: block; }
TableScreen #board { height: 1fr; }
TableScreen #top { height: auto; }
TableScreen #seats { width: 2fr; }
TableScreen #pile { width: 1fr; min-width: 34; }
TableScreen #middle { height: 1fr; }
TableScreen #meldscroll { width: 2fr; height: 1fr; }
TableScreen #melds { height: auto; }
TableScreen #log { width: 1fr; min-width: 34; height: 1fr; }
TableScreen.narrow #top { layout: vertical; }
TableScreen.narrow #seats, TableScreen.narrow #pile, TableScreen.narrow #meldscroll { width: 1fr; }
TableScreen.narrow #log { display: none; }
TableScreen.short .panel { border: none; padding: 0 1; }
TableScreen.short #top { background: #1a2634; }
TableScreen.short #buttons { display: none; }
TableScreen.short #hand { margin: 0; grid-gutter: 0 1; }
TableScreen.short #status { max-height: 5; }
TableScreen.nobuttons #buttons { display: none; }
.ng-row { height: auto; }
#ng-seats, #ng-options { height: auto; }
#ng-start { margin: 1 0; }
.ng-label { width: 16; padding: 1 0; }
.ng-opt-label { width: 1fr; padding: 1 0; }
.ng-row Select { width: 40; }
.ng-row Input { width: 40; }
"""



class CanastaApp(App[None]):
    """``canasta play``."""

    TITLE = "canasta"
    CSS = CSS
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f2", "next_language", "Language", priority=True)]

    def __init__(self, config: PlayConfig, table: Table | None = None, game_id: str | None = None) -> None:
        super().__init__()
        self.config = config
        self.table: Table | None = table
        self.game_id = game_id
        self.saved_path: Path | None = None
        if config.lang is not None:
            use(config.lang)

    async def set_language(self, lang: str, remember: bool = True) -> None:
        """Use ``lang`` from now on, on every screen open (and remember it for the next game)."""
        from canasta.i18n import negotiate
        from canasta.i18n.settings import remember_language

        lang = negotiate(lang, environ={})
        use(lang)
        self.config.lang = lang
        if remember and lang != PSEUDO:
            remember_language(lang)
        for screen in list(self.screen_stack):
            retranslate = getattr(screen, "retranslate", None)
            if retranslate is not None:
                result = retranslate()
                if result is not None:
                    await result
        self.notify(_("Language") + ": " + LANGUAGE_NAMES.get(lang, lang), timeout=3)

    async def action_next_language(self) -> None:
        """F2: the next language (English, Italiano, ...)."""
        now = current().lang
        following = LANGUAGES[(LANGUAGES.index(now) + 1) % len(LANGUAGES)] if now in LANGUAGES else LANGUAGES[0]
        await self.set_language(following)

    def on_mount(self) -> None:
        if self.table is not None:
            self.start_table(self.table, self.game_id)
        else:
            self.push_screen(NewGameScreen(self.config))

    def start_table(self, table: Table, game_id: str | None = None) -> None:
        self.table = table
        self.game_id = game_id or time.strftime("%Y%m%d-%H%M%S") + f"-seed{table.seed}"
        screen = TableScreen(table, self.config, self.game_id)
        if isinstance(self.screen, NewGameScreen):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    async def action_quit(self) -> None:
        """ctrl+q: save the game being played (if any), then quit (the table asks first
        when the save cannot be written)."""
        if isinstance(self.screen, TableScreen):
            self.screen.action_quit_table()
            return
        if self.table is not None and self.game_id is not None:
            self.saved_path = self.autosave(self.table, self.game_id)
        self.exit()

    def record_path(self, game_id: str) -> Path:
        return self.config.save_dir / f"{game_id}.cgn"

    def save_path(self, game_id: str) -> Path:
        return self.config.save_dir / f"{game_id}.json"

    def write_record(self, table: Table, game_id: str) -> Path | None:
        """Write the record of the finished hands (called when a hand ends)."""
        path = self.record_path(game_id)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, table.record().to_text())  # whole or not at all
        except OSError as exc:
            self.notify(_("could not write the record {file}: {why}").format(file=path, why=exc.strerror),
                        severity="error")
            return None
        return path

    def autosave(self, table: Table, game_id: str) -> Path | None:
        path = self.save_path(game_id)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            table.save(path)
        except OSError as exc:
            self.notify(_("could not save {file}: {why}").format(file=path, why=exc.strerror), severity="error")
            return None
        return path
