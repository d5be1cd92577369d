"""The table, seen from seat 0: your hand as large cards grouped by rank, both
sides' melds, red threes, the pile and its state, the log, and a move preview
that names the rule a move would break (in the language in use)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from rich.console import Console, Group, RenderableType
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Static

from canasta.engine.cards import Card
from canasta.engine.errors import CanastaError, IllegalMoveError, NotationError
from canasta.engine.moves import Move
from canasta.i18n import LANGUAGE_NAMES, LANGUAGES, N_, _, current
from canasta.i18n.words import seat_name
from canasta.play.table import TURN_REFUSALS, Table, TableError, Turn
from canasta.present import (
    PILE_PHRASES,
    Selection,
    candidates,
    describe,
    pile_phrase,
    proposal,
    proposals,
    take_move,
)
from canasta.present import pile_word as present_pile_word
from canasta.tui.config import PERSON, PlayConfig, language_named
from canasta.tui.render import (
    Style,
    card_label,
    level_name,
    meld_chips,
    meld_lines,
    meld_rank,
    notes_text,
    phase_text,
    pile_line,
    pile_panel,
    pile_word,
    rules_text,
    seat_lines,
    side_title,
    sides_of,
    table_notes,
)
from canasta.tui.screens import (
    HELP,
    KEY_HINTS,
    InfoScreen,
    KeyBar,
    Keys,
    ResultScreen,
    ScoreScreen,
    TableHost,
)
from canasta.tui.widgets import HandView
from canasta.views.seat import SeatView

# ================================================================ the table


class TableScreen(Screen[None]):
    """The table, seen from seat 0."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "draw", "Draw"),
        Binding("t", "take", "Take pile"),
        Binding("m", "meld", "Meld"),
        Binding("x", "discard", "Discard"),
        Binding("plus", "stage", "+Group"),
        Binding("l", "target", "On meld", show=False),
        Binding("s", "ask", "Ask partner", show=False),
        Binding("y", "answer(True)", "Yes", show=False),
        Binding("n", "answer(False)", "No", show=False),
        Binding("e", "end", "End", show=False),
        Binding("o", "open", "Open", show=False),
        Binding("u", "undo", "Undo"),
        Binding("h", "hints", "Hints"),
        Binding("r", "rules", "Rules"),
        Binding("c", "scores", "Scores", show=False),
        Binding("w,ctrl+s", "save", "Save"),
        Binding("colon", "type_move", "Type move", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("ctrl+q", "quit_table", "Save+quit", priority=True),
        Binding("escape", "clear", "Clear", show=False),
        Binding("pageup", "scroll_melds(-1)", show=False),
        Binding("pagedown", "scroll_melds(1)", show=False),
        Binding("left", "cursor(-1)", show=False),
        Binding("right", "cursor(1)", show=False),
        Binding("space,up", "more(1)", show=False),
        Binding("down,backspace", "more(-1)", show=False),
        *[Binding(key, f"rank('{name}')", show=False) for key, name in (
            ("a", "A"), ("k", "K"), ("q", "Q"), ("j", "J"), ("0", "10"), ("9", "9"), ("8", "8"), ("7", "7"),
            ("6", "6"), ("5", "5"), ("4", "4"), ("3", "3"), ("2", "2"), ("asterisk", "JK"))],
    ]

    KEYS: ClassVar[Keys] = (
        ("d", N_("Draw")), ("t", N_("Take pile")), ("m", N_("Meld")), ("x", N_("Discard")), ("+", N_("+Group")),
        ("u", N_("Undo")), ("h", N_("Hints")), ("r", N_("Rules")), ("w", N_("Save")), ("?", N_("Help")),
        ("F2", N_("Language")), ("^q", N_("Save+quit")),
    )
    BUTTONS: ClassVar[tuple[tuple[str, str], ...]] = (
        (N_("Draw"), "draw"), (N_("Take pile"), "take"), (N_("Meld"), "meld"), (N_("+ Group"), "stage"),
        (N_("Discard"), "discard"), (N_("Undo"), "undo"), (N_("Ask"), "ask"), (N_("Yes"), "yes"), (N_("No"), "no"),
        (N_("End"), "end"), (N_("Hint"), "hints"), (N_("Rules"), "rules"), (N_("Save"), "save"),
    )

    def __init__(self, table: Table, config: PlayConfig, game_id: str) -> None:
        super().__init__()
        self.table = table
        self.config = config
        self.game_id = game_id
        self.card_style = Style(four_colour=config.four_colour)
        self.staged: list[list[Card]] = []
        self.target: int | None = None  # rank of the meld wild cards go on
        self.message: Text | None = None
        self.hints = config.hints or table.hints_shown
        table.hints_shown = self.hints
        self.hint_text: str | None = None
        self.hint_move: Move | None = None
        self._hint_version = -1
        self._quit_unsaved = False
        self._bot_busy = False
        # a game saved as its hand ended shows that hand's score sheet again on resuming
        self._shown_scores = len(table.match.hands) - (1 if table.hand_over else 0)
        #: the log's own lines, each said in the language of the moment (F2 retranslates them)
        self.notes: list[Callable[[], str]] = []

    # -- layout -------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        yield Static(id="toosmall")
        with Vertical(id="board"):
            with Horizontal(id="top"):
                yield Static(id="seats", classes="panel")
                yield Static(id="pile", classes="panel")
            with Horizontal(id="middle"):
                with MeldScroll(id="meldscroll", classes="panel"):
                    yield FitView(self._draw_melds, id="melds")
                yield FitView(self._draw_log, id="log", classes="panel")
            with Horizontal(id="buttons"):
                for label, action in self.BUTTONS:
                    button = Button(self._button_label(label), id=f"b-{action}", classes="cmd")
                    button.can_focus = False  # keys keep going to the hand, not to the last button clicked
                    yield button
        yield Static(id="status")
        yield Input(id="moveinput")
        yield HandView(self.card_style, id="hand")
        yield KeyBar(self._keys(), id="keys")

    def _keys(self) -> Keys:
        """The key bar's keys, "t" saying what it takes in the family's word (the pile, the pozzo)."""
        take = PILE_PHRASES[present_pile_word(self.table.rules)]["take"]
        return tuple((key, take if key == "t" else label) for key, label in self.KEYS)

    def _button_label(self, label: str) -> str:
        if label == "Take pile":
            return pile_phrase(self.table.rules, "take")
        return _(label)

    def _app(self) -> TableHost:
        app = self.app
        assert isinstance(app, TableHost)
        return app

    def _labels(self) -> None:
        """The texts that are not redrawn with the table (titles, buttons, the move input)."""
        self.query_one("#seats").border_title = _("Players")
        self.query_one("#pile").border_title = pile_phrase(self.table.rules, "panel")
        self.query_one("#log").border_title = _("Last moves")
        self.query_one("#meldscroll").border_title = _("Melds")
        self.query_one("#moveinput", Input).placeholder = _(
            "type a move in notation, e.g. meld 8H 8S 2C + KH KS KD  (Enter plays, Escape cancels)")
        for label, action in self.BUTTONS:
            self.query_one(f"#b-{action}", Button).label = self._button_label(label)
        self._fit(self.app.size.width, self.app.size.height)

    def retranslate(self) -> None:
        """Everything written again in the language now in use."""
        self._labels()
        self.query_one("#keys", KeyBar).retranslate()
        if self.hint_move is not None:
            self.hint_text = proposal(self.hint_move, self.table.rules)
        self.message = None
        self.refresh_table()

    def _dealt_note(self) -> None:
        n, commitment = self.table.hand_number, self.table.commitment()[:16]
        self.notes.append(lambda: _("Hand {n} dealt; deal commitment {commitment}…").format(
            n=n, commitment=commitment))

    #: below this width the table is one column: the players, the pile in a paragraph, then the
    #: melds (and the last moves where there is room); below this height the panels lose their
    #: borders and the buttons give way to the key bar, which names the same keys
    COMPACT_BELOW: ClassVar[tuple[int, int]] = (110, 34)
    #: below this size not everything fits: a line says so (the table goes on, shortened)
    SMALLEST: ClassVar[tuple[int, int]] = (80, 24)

    def _fit(self, width: int, height: int) -> None:
        narrow, short = width < self.COMPACT_BELOW[0], height < self.COMPACT_BELOW[1]
        self.set_class(narrow, "narrow")
        self.set_class(short, "short")
        self.set_class(narrow or short, "compact")
        small = width < self.SMALLEST[0] or height < self.SMALLEST[1]
        self.set_class(small, "toosmall")
        self.query_one("#toosmall", Static).update(Text(_(
            "Window too small ({width}×{height}): the table needs {least}; enlarge it").format(
            width=width, height=height, least="{}×{}".format(*self.SMALLEST)), style="bold #ffffff on #a00000")
            if small else "")
        # a button label is never cut: when the row of buttons (label, padding, margin) is wider
        # than the screen, the row gives way to the key bar, which names the same keys
        row = sum(max(len(self._button_label(label)) + 2, 6) + 1 for label, _action in self.BUTTONS)
        self.set_class(row > width, "nobuttons")
        if self.is_mounted:
            self._draw_top()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def on_mount(self) -> None:
        self._fit(self.app.size.width, self.app.size.height)
        self._labels()
        self.query_one("#moveinput", Input).display = False
        self._dealt_note()
        self.refresh_table()
        self.query_one("#hand", HandView).focus()
        self.advance()

    # -- drawing --------------------------------------------------------------------

    def refresh_table(self) -> None:
        table = self.table
        view = table.view(PERSON)
        names = table.names
        number = current().number
        top = Text()
        top.append(" canasta ", style="bold #000000 on #ffd000")
        if not table.hand_over:  # whose turn it is comes first: it stays on screen at any width
            mover = _("you") if view.to_move == PERSON else seat_name(names[view.to_move])
            top.append(" " + _("to move: {name}").format(name=mover) + " ", style="bold #000000 on #80c0ff")
        top.append(" " + _("{rules}  hand {n}  target {target}  hints {hints}  deal commitment {commitment}…").format(
            rules=table.rules.name, n=table.hand_number, target=number(table.rules.target),
            hints=_("on") if self.hints else _("off"), commitment=table.commitment()[:16]) + " ", style="bold")
        self.query_one("#topbar", Static).update(top)
        self._draw_top()
        for panel in self.query(FitView):
            panel.redraw()
        hand = self.query_one("#hand", HandView)
        hand.set_hand(view.hand)
        self.update_status()

    def _draw_top(self) -> None:
        """The players (every seat's hand size, red threes and last move) and the pile: never
        cut, whatever the size of the window."""
        table = self.table
        view = table.view(PERSON)
        wide = not self.has_class("narrow")
        seats: list[RenderableType] = list(seat_lines(
            view, table.names, table.seats, None, self.card_style, show_levels=self.app.size.width >= 100,
            last={seat: e.move for seat, e in table.last_moves().items()}))
        notes = notes_text(view)
        if notes is not None:  # the family's notes under the players, where they fit; else the rules screen has them
            width = self.query_one("#seats", Static).content_region.width
            fits = (wide and width > 0 and not self.has_class("short")
                    and len(seats) + len(notes.wrap(self.app.console, width)) <= self.app.size.height * 2 // 5)
            seats.append(notes if fits else Text(_("r: the rules, and what the table says now"), style="italic"))
        self.query_one("#seats", Static).update(Group(*seats))
        self.query_one("#pile", Static).update(pile_panel(view, self.card_style) if wide else
                                               pile_line(view, self.card_style))

    def _side_parts(self, view: SeatView, short: set[int]) -> list[Text]:
        """Each side's title and melds, your side first; the sides in ``short`` in short form."""
        parts: list[Text] = []
        sides = sides_of(view)
        order = [view.side] + [k for k in range(len(sides)) if k != view.side]
        if view.side in short:  # every side in short form: the others' first, so that theirs stay in view
            order = order[1:] + order[:1]
        for k in order:
            if not sides[k]:
                continue  # cut-throat: a side nobody is on (yet)
            title = Text()
            title.append(side_title(view, k, self.table.names, short=k in short), style="bold underline")
            if k in short:  # a side that has no meld says so in its title already ("not melded yet")
                line = title
                closed = view.part_value("closed", ())
                if view.melds[k] or (k < len(closed) and closed[k]):
                    line.append("  ")
                    line.append_text(meld_chips(view, k, self.card_style))
                parts.append(line)
            else:
                parts.append(title)
                parts.extend(meld_lines(view, k, self.card_style))
        return parts

    def _draw_melds(self, width: int, height: int) -> RenderableType:
        """Both sides' melds in full when they fit, else the other sides' in short form, else
        every side's; the last moves below them where rows are left (one column)."""
        view = self.table.view(PERSON)
        others = {k for k in range(len(sides_of(view))) if k != view.side}
        parts: list[Text] = []
        for short in (set(), others, others | {view.side}):
            parts = self._side_parts(view, short)
            if _rows(self.app.console, parts, width) <= height:
                break
        spare = height - _rows(self.app.console, parts, width)
        if spare < 0 and height >= 4:  # not even in short form: all of them, page up / page down scroll them
            parts.insert(0, Text("▼ " + _("more melds than room: page down / page up scroll them"),
                                 style="bold #000000 on #ffd000"))
        elif self.has_class("narrow") and spare >= 3:
            parts.append(Text(_("Last moves"), style="bold underline"))
            parts.extend(_last_rows(self._log_lines(), self.app.console, width, spare - 1))
        return Group(*parts)

    def _log_lines(self) -> list[Text]:
        table = self.table
        lines = [Text(note(), style="italic") for note in self.notes[-3:]]
        lines += [Text(("› " if entry.seat == PERSON else "  ") + describe(entry.move, table.rules,
                                                                           table.names[entry.seat]))
                  for entry in table.log(last=max(10, self.app.size.height))]
        return lines

    def _draw_log(self, width: int, height: int) -> RenderableType:
        """The last moves, as many as the panel has rows for."""
        return Group(*_last_rows(self._log_lines(), self.app.console, width, height))

    def selection(self) -> Selection:
        """The cards picked: the staged groups, the cards selected now, the wild cards' meld."""
        return Selection.of(self.staged, self.query_one("#hand", HandView).selection(), self.target)

    def pending_meld(self) -> Move | None:
        """The meld the selection and the staged groups make, if any."""
        return candidates(self.table.view(PERSON), self.selection()).get("meld")

    def pending_take(self) -> Move:
        """Take the pile with the picked cards (:func:`canasta.present.take_move`)."""
        return take_move(self.table.view(PERSON), self.selection())

    def update_status(self) -> None:
        table = self.table
        view = table.view(PERSON)
        t = Text()
        t.append(phase_text(view, table.names) + "\n", style="bold")
        if not table.hand_over and view.to_move == PERSON:
            hint = pile_phrase(table.rules, "draw_keys") if view.phase == "draw" else (
                _(KEY_HINTS[view.phase]) if view.phase in KEY_HINTS else "")
            if hint:
                t.append(hint + "\n", style="italic")
        if self.staged:
            t.append(_("Staged groups: {groups}").format(
                groups=" + ".join(" ".join(_short(c) for c in g) for g in self.staged)) + "\n")
        if self.target is not None:
            t.append(_("Wild cards go on your {rank} (l to change)").format(rank=current().rank(self.target, 2))
                     + "\n")
        preview = self.preview()
        if preview is not None:
            t.append_text(preview)
            t.append("\n")
        if self.message is not None:
            t.append_text(self.message)
            t.append("\n")
        if self.hints and self.hint_text:
            t.append(_("Hint ({level} bot): {move}").format(level=level_name(table.hint_level), move=self.hint_text)
                     + "\n", style="bold #000000 on #9fd8ff")
        if table.undoable(PERSON):
            t.append(_("u: undo your last meld") + "\n", style="italic")
        t.rstrip()  # no blank row under the last line
        self.query_one("#status", Static).update(t)

    def preview(self) -> Text | None:
        """What the current selection would do, and whether the rules allow it."""
        table = self.table
        if table.hand_over or table.to_move != PERSON:
            return None
        keys = {"take": "t", "meld": "m", "discard": "x"}
        moves = [(keys[action], move) for action, move in proposals(table.view(PERSON), self.selection())]
        if not moves:
            return None
        out = Text()
        for key, move in moves:
            err = table.why_not(PERSON, move)
            if out:
                out.append("\n")
            if err is None:
                out.append(f" {key}: {proposal(move, table.rules)} ", style="bold #000000 on #7fdc7f")
                out.append("  " + _("allowed"))
            else:
                out.append(f" {key}: {proposal(move, table.rules)} ", style="bold #ffffff on #a00000")
                out.append("  " + explain(err))
        return out

    # -- the game flow --------------------------------------------------------------

    def advance(self) -> None:
        """After every change: let a bot move, show the score sheet, or fetch a hint."""
        table = self.table
        app = self._app()
        if table.hand_over:
            if self._shown_scores < len(table.match.hands):
                self._shown_scores = len(table.match.hands)
                path = app.write_record(table, self.game_id)
                app.autosave(table, self.game_id)
                self.app.push_screen(ScoreScreen(table, len(table.match.hands) - 1, path), self._after_scores)
            return
        turn = table.turn()
        if turn is not None and table.bot_to_move():
            if not self._bot_busy:
                self._bot_busy = True
                self.bot_worker(turn)
            return
        if self.hints and self._hint_version != table.version:
            self._hint_version = table.version
            self.hint_text = None
            self.hint_worker(table.version)

    @work(thread=True, exclusive=True, group="bot")
    def bot_worker(self, turn: Turn) -> None:
        start = time.monotonic()
        try:
            move = self.table.bot_move()
        except CanastaError as exc:
            self.app.call_from_thread(self._bot_failed, str(exc))
            return
        rest = self.config.delay - (time.monotonic() - start)
        if rest > 0:
            time.sleep(rest)
        with contextlib.suppress(RuntimeError):  # the app closed while the bot was thinking
            self.app.call_from_thread(self._bot_ready, turn, move)

    def _bot_failed(self, message: str) -> None:
        self._bot_busy = False
        self.message = Text(_("The bot could not move: {message}").format(message=message),
                            style="bold #ffffff on #a00000")
        self.update_status()

    def _bot_ready(self, turn: Turn, move: Move) -> None:
        self._bot_busy = False
        if self.table.bot_to_move():
            self.table.play_turn(turn, move)  # dropped if the table moved on meanwhile
        self.refresh_table()
        self.advance()

    @work(thread=True, exclusive=True, group="hint")
    def hint_worker(self, version: int) -> None:
        try:
            move = self.table.hint(PERSON)
        except CanastaError:
            return
        with contextlib.suppress(RuntimeError):  # the app closed meanwhile
            self.app.call_from_thread(self._hint_ready, version, move)

    def _hint_ready(self, version: int, move: Move) -> None:
        if version == self.table.version:
            self.hint_move = move
            self.hint_text = proposal(move, self.table.rules)
            self.update_status()

    def _after_scores(self, _: None = None) -> None:
        table = self.table
        app = self._app()
        if table.match_over:
            self.app.push_screen(ResultScreen(table, app.record_path(self.game_id)))
            return
        if table.hand_over:
            table.next_hand()
            self._dealt_note()
            app.autosave(table, self.game_id)
        self.staged = []
        self.target = None
        self.message = None
        self.refresh_table()
        self.advance()

    def try_play(self, move: Move | str) -> bool:
        """Play the person's move if the rules allow it; otherwise explain why, changing nothing."""
        table = self.table
        err = table.why_not(PERSON, move)
        if err is not None:
            self.message = Text(_("Not played: {why}").format(why=explain(err)), style="bold #ffffff on #a00000")
            self.update_status()
            return False
        table.play(PERSON, move)
        self.message = None
        self.staged = []
        self.target = None
        self.hint_text = None
        self.hint_move = None
        hand = self.query_one("#hand", HandView)
        hand.selected = {}
        self.refresh_table()
        hand._rebuild()
        self.advance()
        return True

    # -- actions --------------------------------------------------------------------

    def action_draw(self) -> None:
        self.try_play(Move.draw())

    def action_take(self) -> None:
        self.try_play(self.pending_take())

    def action_meld(self) -> None:
        move = self.pending_meld()
        if move is None:
            self.message = Text(_("Select the cards to meld first (or stage groups with +)."), style="bold")
            self.update_status()
            return
        self.try_play(move)

    def action_discard(self) -> None:
        sel = self.query_one("#hand", HandView).selection()
        if len(sel) != 1:
            self.message = Text(_("Select exactly one card to discard."), style="bold")
            self.update_status()
            return
        self.try_play(Move.discard(sel[0]))

    def action_stage(self) -> None:
        hand = self.query_one("#hand", HandView)
        sel = hand.selection()
        if not sel:
            self.message = Text(_("Select cards first, then + stages them as one group."), style="bold")
        else:
            self.staged.append(sel)
            self.message = Text(_("Staged group {n}: {cards}. Select the next group, then m (meld) or t (take {pile})."
                                  ).format(n=len(self.staged), cards=" ".join(_short(c) for c in sel),
                                           pile=pile_word(self.table.view(PERSON))))
            hand.selected = {}
            hand._rebuild()
        self.update_status()

    def action_target(self) -> None:
        view = self.table.view(PERSON)
        ranks = sorted({r for cards, *_ in view.melds[view.side] if (r := meld_rank(cards)) is not None})
        if not ranks:
            self.target = None
            self.message = Text(_("Your side has no meld for wild cards to go on yet."))
        elif self.target not in ranks:
            self.target = ranks[-1]
        else:
            i = ranks.index(self.target)
            self.target = ranks[i - 1] if i > 0 else None
        self.update_status()

    def action_ask(self) -> None:
        self.try_play(Move.ask())

    def action_answer(self, yes: bool) -> None:
        self.try_play(Move.answer(yes))

    def action_end(self) -> None:
        self.try_play(Move.end())

    def action_open(self) -> None:
        self.try_play(Move.open())

    def action_undo(self) -> None:
        try:
            move = self.table.undo(PERSON)
        except TableError as exc:
            self.message = Text(explain(exc), style="bold")
        else:
            self.message = Text(_("Taken back: {move}").format(move=proposal(move, self.table.rules)))
            self.refresh_table()
        self.update_status()

    def action_hints(self) -> None:
        self.hints = not self.hints
        self.table.hints_shown = self.hints
        self._hint_version = -1
        self.hint_text = None
        self.hint_move = None
        self.refresh_table()
        self.advance()

    def action_rules(self) -> None:
        rules = self.table.rules
        view = self.table.view(PERSON)
        self.app.push_screen(InfoScreen(lambda: _("The rules in force: {rules}").format(rules=rules.name),
                                        lambda: rules_text(rules, table_notes(view))))

    def action_help(self) -> None:
        self.app.push_screen(InfoScreen(lambda: _("Keys and mouse"), lambda: Text(_(HELP))))

    def action_scores(self) -> None:
        if self.table.match.hands:
            app = self.app
            assert isinstance(app, TableHost)
            self.app.push_screen(ScoreScreen(self.table, len(self.table.match.hands) - 1,
                                             app.record_path(self.game_id)))
        else:
            self.message = Text(_("No hand has been scored yet."))
            self.update_status()

    def action_save(self) -> None:
        app = self._app()
        path = app.autosave(self.table, self.game_id)
        if path is None:
            self.message = Text(_("The game could not be saved; it stays open here."), style="bold red")
        else:
            self.message = Text(_("Saved to {file}; resume with: {command}").format(
                file=path, command=f"canasta play --resume {path}"), style="bold")
        self.update_status()

    def action_quit_table(self) -> None:
        """ctrl+q: save, then quit; when the save fails, ask first (a second ctrl+q quits unsaved)."""
        app = self._app()
        path = app.autosave(self.table, self.game_id)
        if path is None and not self._quit_unsaved:
            self._quit_unsaved = True
            self.message = Text(_("The game could not be saved: press ctrl+q again to quit without saving."),
                                style="bold red")
            self.update_status()
            return
        app.saved_path = path
        app.exit()

    def action_clear(self) -> None:
        inp = self.query_one("#moveinput", Input)
        if inp.display:
            inp.display = False
            self._keys_to_table()
        self.staged = []
        self.target = None
        self.message = None
        self.query_one("#hand", HandView).clear()
        self.update_status()

    def action_scroll_melds(self, direction: int) -> None:
        """page up / page down: the melds, when they do not all fit."""
        melds = self.query_one("#meldscroll", VerticalScroll)
        if direction > 0:
            melds.scroll_page_down()
        else:
            melds.scroll_page_up()

    def action_cursor(self, delta: int) -> None:
        self.query_one("#hand", HandView).move_cursor(delta)

    def action_more(self, delta: int) -> None:
        hand = self.query_one("#hand", HandView)
        hand.pick(hand.cursor, delta)

    def action_rank(self, name: str) -> None:
        hand = self.query_one("#hand", HandView)
        before = sum(hand.selected.values())
        held = hand.pick_rank(name)
        if held is None:
            self.message = Text(_("You hold no {rank}.").format(rank=name))
            self.update_status()
        elif sum(hand.selected.values()) == before:
            self.message = Text(_("All your {rank} cards are selected already ({count}).").format(
                rank=name, count=held))
            self.update_status()

    def action_type_move(self) -> None:
        inp = self.query_one("#moveinput", Input)
        inp.display = True
        inp.value = ""
        inp.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "moveinput":
            return
        text = event.value.strip().removeprefix(":").strip()  # ":lang it" typed whole is understood too
        if text.lower().startswith(("lang ", "lingua ")):
            self._switch_language(text.split()[-1])
            event.input.value = ""
            event.input.display = False
            self._keys_to_table()
            return
        if text and self.try_play(text):
            event.input.value = ""
            event.input.display = False
            self._keys_to_table()

    def _keys_to_table(self) -> None:
        """The move input closed: the keys go to the table again (nothing else on it takes the
        focus, so it must not stay on the hidden input)."""
        self.query_one("#hand", HandView).focus()
        if isinstance(self.focused, Input):
            self.set_focus(None)

    def _switch_language(self, asked: str) -> None:
        """``:lang it``: that language from now on; one the project has no catalog for is
        refused in one line, and the language in use stays."""
        lang = language_named(asked)
        if lang is None:
            now = current().lang
            self.message = Text(_("No catalog for {lang}: the game stays in {language} "
                                  "(available: {languages}; F2 switches)").format(
                lang=repr(asked), language=LANGUAGE_NAMES.get(now, now), languages=", ".join(LANGUAGES)),
                style="bold #ffffff on #a00000")
            self.update_status()
            return
        self.run_worker(self._app().set_language(lang))

    def on_hand_view_changed(self, _: HandView.Changed) -> None:
        self.message = None
        self.update_status()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        action = (event.button.id or "").removeprefix("b-")
        if action == "yes":
            self.action_answer(True)
        elif action == "no":
            self.action_answer(False)
        elif action:
            getattr(self, f"action_{action}")()


class FitView(Static):
    """A panel drawn for the room it has: ``draw(width, height)`` gives its content, again
    whenever its size changes."""

    def __init__(self, draw: Callable[[int, int], RenderableType], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.draw = draw

    def redraw(self) -> None:
        if self.is_mounted:
            box = self.parent
            # in a scrolling panel: the room the panel shows; else its own
            size = box.scrollable_content_region.size if isinstance(box, VerticalScroll) else self.content_region.size
            self.update(self.draw(size.width, size.height))

    def on_resize(self, _event: events.Resize) -> None:
        if not isinstance(self.parent, VerticalScroll):
            self.redraw()


class MeldScroll(VerticalScroll):
    """The melds' panel: it draws them again for the room it has whenever its size changes."""

    def on_resize(self, _event: events.Resize) -> None:
        self.call_after_refresh(self._redraw)  # once the resize is laid out

    def _redraw(self) -> None:
        for view in self.query(FitView):
            view.redraw()


def _rows(console: Console, parts: Sequence[Text], width: int) -> int:
    """How many rows ``parts`` take at ``width`` columns."""
    return sum(len(part.wrap(console, max(1, width))) for part in parts)


def _last_rows(lines: Sequence[Text], console: Console, width: int, height: int) -> list[Text]:
    """The last of ``lines`` that fit in ``height`` rows of ``width`` columns."""
    out: list[Text] = []
    used = 0
    for line in reversed(lines):
        rows = len(line.wrap(console, max(1, width)))
        if used + rows > height:
            break
        out.append(line)
        used += rows
    return out[::-1]


def _short(card: Card) -> str:
    return card_label(card)


def explain(err: CanastaError) -> str:
    """Why a move is refused, in the language in use: an engine refusal from its code,
    with its rule; a table's or notation's message translated when the catalog has it."""
    t = current()
    if isinstance(err, IllegalMoveError):
        return t.refusal(err)
    text = str(err)
    if isinstance(err, TableError) and err.code in TURN_REFUSALS:  # said from its code, as the card room does
        said = t.gettext(TURN_REFUSALS[err.code])
        return said.format(**{k: seat_name(v) for k, v in err.fields.items()})
    if t.has(text):
        return t.gettext(text)
    if isinstance(err, NotationError):  # the notation's own message stays as the engine wrote it
        return _("cannot read the move: {detail}").format(detail=text)
    return text
