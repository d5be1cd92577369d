"""``canasta play``: the Textual application.

Screens: a new-game screen (preset, house rules with their sourced defaults,
target, seats and bot levels), the table (your hand as large cards grouped by
rank, both sides' melds, red threes, the pile and its state, the log, a move
preview that names the rule a move would break), a score sheet after each
hand (with the deal commitment and the revealed seed), the match result, the
rules in force, and help.  The app only reads :meth:`Table.view` for seat 0:
other hands stay hidden.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from canasta.bots import LEVELS
from canasta.cards import CARD_RANK, IS_WILD, RANK_NAMES, Card
from canasta.errors import CanastaError, IllegalMoveError
from canasta.moves import Move, make_group
from canasta.rules import PRESETS, RuleSet
from canasta.table import Table, TableError, seat_names
from canasta.tui.render import (
    Style,
    card_label,
    meld_lines,
    meld_rank,
    phase_text,
    pile_panel,
    rules_text,
    score_sheet,
    seat_lines,
    side_title,
    sides_of,
)
from canasta.tui.widgets import HandView

PERSON = 0


def default_save_dir() -> Path:
    """Where records and saved games go: ``$XDG_DATA_HOME/canasta/games``
    (``~/.local/share/canasta/games`` when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "canasta" / "games"


@dataclass
class PlayConfig:
    """What ``canasta play`` was asked for; anything unset is chosen on the new-game screen."""

    rules: RuleSet | None = None
    seed: int | None = None
    bots: list[str] | None = None
    target: int | None = None
    name: str = "South"
    resume: Path | None = None
    save_dir: Path = field(default_factory=default_save_dir)
    delay: float = 0.6
    hints: bool = False
    four_colour: bool = False
    hint_level: str = "advanced"

    @property
    def ready(self) -> bool:
        """Enough was given on the command line to skip the new-game screen."""
        return self.resume is not None or self.rules is not None or self.bots is not None or self.seed is not None


def build_table(rules: RuleSet, bots: list[str], seed: int, name: str = "South",
                hint_level: str = "advanced") -> Table:
    """A table with the person at seat 0 and bots (by level) at the others."""
    if len(bots) == 1 and rules.players > 2:
        bots = bots * (rules.players - 1)
    if len(bots) != rules.players - 1:
        raise CanastaError(f"{rules.name} needs {rules.players - 1} bot levels (one per other seat), "
                           f"not {len(bots)}")
    for level in bots:
        if level.split(":")[0] not in LEVELS:
            raise CanastaError(f"unknown bot level {level!r}: choose from {', '.join(LEVELS)}")
    table = Table(rules, [None, *bots], seed=seed, hint_level=hint_level, event="canasta play")
    if name:
        table.rename(PERSON, name)
    return table


# ============================================================ new-game screen

class NewGameScreen(Screen[None]):
    """Choose the preset, the house rules, the target and the seats."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "Start the game", priority=True),
        Binding("escape,q", "app.quit", "Quit"),
    ]

    def __init__(self, config: PlayConfig) -> None:
        super().__init__()
        self.config = config
        self.preset = (config.rules.name if config.rules is not None and config.rules.name in PRESETS
                       else "classic-4p")
        self._generation = 0

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="newgame"):
            yield Static(Text("canasta — a new game", style="bold"), id="ng-title")
            with Horizontal(classes="ng-row"):
                yield Label("Rules preset ", classes="ng-label")
                yield Select([(name, name) for name in sorted(PRESETS)], value=self.preset,
                             allow_blank=False, id="ng-preset")
            with Horizontal(classes="ng-row"):
                yield Label("Your name ", classes="ng-label")
                yield Input(self.config.name, id="ng-name")
            with Horizontal(classes="ng-row"):
                yield Label("Target score ", classes="ng-label")
                yield Input("", placeholder="preset default", id="ng-target", type="integer")
            with Horizontal(classes="ng-row"):
                yield Label("Seed ", classes="ng-label")
                yield Input("", placeholder="random", id="ng-seed", type="integer")
            yield Static(Text("Seats", style="bold underline"))
            yield Vertical(id="ng-seats")
            yield Button("Start the game", id="ng-start", variant="success")
            yield Static(Text("House rules (the sourced default is marked; the rules screen, key r, "
                              "shows them all during play)", style="bold underline"))
            yield Vertical(id="ng-options")
        yield Footer()

    async def on_mount(self) -> None:
        await self._fill(self.preset)

    async def _fill(self, preset: str) -> None:
        rules = RuleSet.preset(preset)
        self._generation += 1
        gen = self._generation
        seats = self.query_one("#ng-seats", Vertical)
        options = self.query_one("#ng-options", Vertical)
        await seats.remove_children()
        await options.remove_children()
        names = seat_names(rules.players)
        given = self.config.bots or []
        rows = []
        for s in range(1, rules.players):
            level = given[s - 1] if s - 1 < len(given) else ("advanced" if s % 2 == 0 else "basic")
            row = Horizontal(
                Label(f"{names[s]:<12}", classes="ng-label"),
                Select([(lv, lv) for lv in LEVELS], value=level if level in LEVELS else "basic",
                       allow_blank=False, id=f"ng-seat-{gen}-{s}"),
                classes="ng-row")
            rows.append(row)
        await seats.mount_all(rows)
        opt_rows = []
        for o in rules.options:
            choices = [(f"{v!r}" + ("  ← sourced default" if i == 0 else ""), i) for i, v in enumerate(o.choices)]
            current = o.choices.index(getattr(rules, o.field)) if getattr(rules, o.field) in o.choices else 0
            opt_rows.append(Horizontal(
                Label(f"{o.id:<6} {o.topic} [{o.rule}; {o.sources}]", classes="ng-opt-label"),
                Select(choices, value=current, allow_blank=False, id=f"ng-opt-{gen}-{o.id}"),
                classes="ng-row"))
        await options.mount_all(opt_rows)
        self.query_one("#ng-target", Input).placeholder = f"{rules.target} (preset default)"

    async def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "ng-preset" and isinstance(event.value, str) and event.value != self.preset:
            self.preset = event.value
            await self._fill(self.preset)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ng-start":
            self.action_start()

    def on_input_submitted(self, _: Input.Submitted) -> None:
        self.action_start()

    def chosen(self) -> tuple[RuleSet, list[str], int, str]:
        """The rules, bot levels, seed and name chosen on the screen."""
        rules = RuleSet.preset(self.preset)
        gen = self._generation
        changes: dict[str, Any] = {}
        for o in rules.options:
            sel = self.query_one(f"#ng-opt-{gen}-{o.id}", Select)
            value = o.choices[int(str(sel.value))]
            if value != getattr(rules, o.field):
                changes[o.id] = value
        target = self.query_one("#ng-target", Input).value.strip()
        if target:
            changes["target"] = int(target)
        if changes:
            rules = rules.with_options(changes)
        bots = [str(self.query_one(f"#ng-seat-{gen}-{s}", Select).value) for s in range(1, rules.players)]
        seed_text = self.query_one("#ng-seed", Input).value.strip()
        seed = int(seed_text) if seed_text else int.from_bytes(os.urandom(4), "big")
        name = self.query_one("#ng-name", Input).value.strip() or "South"
        return rules, bots, seed, name

    def action_start(self) -> None:
        try:
            rules, bots, seed, name = self.chosen()
            table = build_table(rules, bots, seed, name, self.config.hint_level)
        except (CanastaError, ValueError) as exc:
            self.notify(str(exc), severity="error", timeout=8)
            return
        app = self.app
        assert isinstance(app, CanastaApp)
        app.start_table(table)


# ======================================================== modal information

class InfoScreen(ModalScreen[None]):
    """A scrolling page (rules, help) closed with Escape."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,r,question_mark", "dismiss_info", "Close")]

    def __init__(self, title: str, body: Any) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog"):
            yield Static(Text(self.title_text, style="bold reverse"))
            yield Static(self.body)
            yield Static(Text("Escape: back to the table", style="italic"))

    def action_dismiss_info(self) -> None:
        self.dismiss(None)


HELP = """Selecting cards
  ← →            move the cursor (yellow) along your hand
  space, ↑       select one more card of the rank under the cursor; ↓ one fewer
  A K Q J 0 9 … 4 3 2 *   select one more card of that rank (0 = ten, * = joker)
  mouse          click a card to select one more of it (right click: one fewer)
  escape         clear the selection and the staged groups
Moves (a move that breaks a rule is explained and NOT played)
  d              draw from the stock
  t              take the pile: the selected cards meld with its top card;
                 staged groups (+) are laid with it (an initial meld)
  m              meld the selection (and the staged groups); adds to your meld of that rank
  +              stage the selection as one group of a composite meld or take
  l              choose the meld that selected wild cards go on (cycles your melds)
  x              discard the one selected card (your last card: going out)
  s              ask your partner "may I go out?";  y / n  answer your partner
  e              end the hand (when the rules allow);  o  open (Italian, I-O31)
  u              undo your last meld this turn (until you discard)
  :              type a move in notation, e.g.  meld 8H 8S 2C + KH KS KD
Table
  h hints on/off   r rules in force   c last score sheet   w save   ? help   ctrl+q save and quit
"""


KEY_HINTS = {
    "draw": "d: draw · select a pair and t: take the pile · ?: help",
    "meld": "select cards (← → space, or A K Q … 2 *): m meld · + stage a group · x discard · s ask partner · u undo",
    "answer": "y: yes, you may go out · n: no",
    "final": "m: meld what you can · e: end the hand",
}


class ScoreScreen(ModalScreen[None]):
    """The score sheet after a hand, with the deal check."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,space,escape", "close", "Continue")]

    def __init__(self, table: Table, hand_index: int, record_path: Path | None) -> None:
        super().__init__()
        self.table = table
        self.hand_index = hand_index
        self.record_path = record_path

    def compose(self) -> ComposeResult:
        table = self.table
        hr = table.match.hands[self.hand_index]
        nsides = len(hr.scores)
        if table.rules.cutthroat:
            labels = [table.names[s] for s in range(nsides)]
        else:
            labels = [" & ".join(table.names[s] for s in members) for members in table.rules.teams][:nsides]
        after = [sum(h.scores[i].total for h in table.match.hands[: self.hand_index + 1]) for i in range(nsides)]
        before = [a - hr.scores[i].total for i, a in enumerate(after)]
        went = f"{table.names[hr.went_out]} went out" if hr.went_out >= 0 else "nobody went out"
        head = Text(f"Hand {hr.hand_number} is over: {hr.end_reason or 'ended'}; {went}.", style="bold")
        check = Text()
        check.append("Fair deal: ", style="bold")
        shown = table.revealed()[self.hand_index]
        check.append(f"the commitment shown at the deal was {shown['commitment']}\n")
        if "secret" in shown:
            check.append(f"the secret is now revealed: {shown['secret']} (its sha256 is that commitment)\n")
        else:
            check.append(f"the seed is now revealed: {hr.seed} (sha256 of 'canasta-deal:{hr.seed}' is that commitment)\n")
        if self.record_path is not None:
            check.append(f"Record written to {self.record_path}\ncheck it with:  canasta verify {self.record_path}\n")
        last = self.hand_index == len(table.match.hands) - 1
        if last and table.match_over:
            winner = table.match.winner
            result = "The match is drawn." if winner == -1 else f"{labels[winner or 0]} win the match!"
            foot = Text(result + "  Enter: the match result", style="bold reverse")
        elif last:
            foot = Text("Enter: deal the next hand", style="bold reverse")
        else:
            foot = Text("Escape: back", style="bold")
        with VerticalScroll(classes="dialog"):
            yield Static(Group(head, score_sheet(hr.scores, labels, before, after), check, foot), id="scores")
            yield Button("Continue", id="score-continue", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_close()

    def action_close(self) -> None:
        self.dismiss(None)


class ResultScreen(Screen[None]):
    """The match result: every hand's score and the totals."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,q,escape", "app.quit", "Quit")]

    def __init__(self, table: Table, record_path: Path | None) -> None:
        super().__init__()
        self.table = table
        self.record_path = record_path

    def compose(self) -> ComposeResult:
        from rich.table import Table as RichTable

        table = self.table
        nsides = len(table.match.totals)
        labels = ([table.names[s] for s in range(nsides)] if table.rules.cutthroat else
                  [" & ".join(table.names[s] for s in members) for members in table.rules.teams][:nsides])
        grid = RichTable(title="Match result", header_style="bold")
        grid.add_column("Hand")
        for label in labels:
            grid.add_column(label, justify="right")
        for h in table.match.hands:
            grid.add_row(str(h.hand_number), *[f"{s.total:+d}" for s in h.scores])
        grid.add_row(Text("Total", style="bold"), *[Text(str(t), style="bold reverse") for t in table.match.totals])
        winner = table.match.winner
        line = "The match is drawn." if winner == -1 else f"{labels[winner or 0]} win the match."
        foot = Text(f"\n{line}\n", style="bold")
        if self.record_path is not None:
            foot.append(f"The game record is {self.record_path}\nReplay it:  canasta replay {self.record_path}\n")
        foot.append("Enter or q: quit")
        with VerticalScroll(classes="dialog"):
            yield Static(Group(grid, foot), id="result")


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
        Binding("left", "cursor(-1)", show=False),
        Binding("right", "cursor(1)", show=False),
        Binding("space,up", "more(1)", show=False),
        Binding("down,backspace", "more(-1)", show=False),
        *[Binding(key, f"rank('{name}')", show=False) for key, name in (
            ("a", "A"), ("k", "K"), ("q", "Q"), ("j", "J"), ("0", "10"), ("9", "9"), ("8", "8"), ("7", "7"),
            ("6", "6"), ("5", "5"), ("4", "4"), ("3", "3"), ("2", "2"), ("asterisk", "JK"))],
    ]

    def __init__(self, table: Table, config: PlayConfig, game_id: str) -> None:
        super().__init__()
        self.table = table
        self.config = config
        self.game_id = game_id
        self.card_style = Style(four_colour=config.four_colour)
        self.staged: list[list[Card]] = []
        self.target: int | None = None  # rank of the meld wild cards go on
        self.message: Text | None = None
        self.hints = config.hints
        self.hint_text: str | None = None
        self._hint_version = -1
        self._bot_busy = False
        # a game saved as its hand ended shows that hand's score sheet again on resuming
        self._shown_scores = len(table.match.hands) - (1 if table.hand_over else 0)
        self.notes: list[str] = []

    # -- layout -------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        with VerticalScroll(id="tablearea"):
            with Horizontal(id="middle"):
                with Vertical(id="left"):
                    yield Static(id="seats", classes="panel")
                    yield Static(id="melds", classes="panel")
                with Vertical(id="right"):
                    yield Static(id="pile", classes="panel")
                    yield Static(id="log", classes="panel")
            with Horizontal(id="buttons"):
                for label, action in (("Draw", "draw"), ("Take pile", "take"), ("Meld", "meld"),
                                      ("+ Group", "stage"), ("Discard", "discard"), ("Undo", "undo"),
                                      ("Ask", "ask"), ("Yes", "yes"), ("No", "no"), ("End", "end"),
                                      ("Hint", "hints"), ("Rules", "rules"), ("Save", "save")):
                    button = Button(label, id=f"b-{action}", classes="cmd")
                    button.can_focus = False  # keys keep going to the hand, not to the last button clicked
                    yield button
        yield Static(id="status")
        yield Input(placeholder="type a move, e.g. meld 8H 8S 2C + KH KS KD  (Enter plays, Escape cancels)",
                    id="moveinput")
        yield HandView(self.card_style, id="hand")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#seats").border_title = "Players"
        self.query_one("#pile").border_title = "Pile and stock"
        self.query_one("#log").border_title = "Last moves"
        self.query_one("#moveinput", Input).display = False
        self.notes.append(f"Hand {self.table.hand_number} dealt; deal commitment {self.table.commitment()[:16]}…")
        self.refresh_table()
        self.query_one("#hand", HandView).focus()
        self.advance()

    # -- drawing --------------------------------------------------------------------

    def refresh_table(self) -> None:
        table = self.table
        view = table.view(PERSON)
        names = table.names
        style = self.card_style
        hints = "on" if self.hints else "off"
        top = Text()
        top.append(" canasta ", style="bold #000000 on #ffd000")
        top.append(f" {table.rules.name}  hand {table.hand_number}  target {table.rules.target}  "
                   f"hints {hints}  deal commitment {table.commitment()[:16]}… ", style="bold")
        self.query_one("#topbar", Static).update(top)
        levels = table.seats
        self.query_one("#seats", Static).update(Group(*seat_lines(view, names, levels, None, style)))
        parts: list[Text] = []
        sides = sides_of(view)
        order = [view.side] + [k for k in range(len(sides)) if k != view.side]
        for k in order:
            if not sides[k]:
                continue  # cut-throat: a side nobody is on (yet)
            parts.append(Text(side_title(view, k, names), style="bold underline"))
            parts.extend(meld_lines(view, k, style))
        self.query_one("#melds", Static).update(Group(*parts))
        self.query_one("#melds").border_title = "Melds"
        self.query_one("#pile", Static).update(pile_panel(view, style))
        log = Text()
        for note in self.notes[-3:]:
            log.append(note + "\n", style="italic")
        for entry in table.log(last=10):
            log.append(("› " if entry.seat == PERSON else "  ") + entry.text + "\n")
        self.query_one("#log", Static).update(log)
        hand = self.query_one("#hand", HandView)
        hand.set_hand(view.hand)
        self.update_status()

    def pending_meld(self) -> Move | None:
        """The meld the selection and the staged groups make, if any."""
        groups = [g for g in self.staged if g]
        sel = self.query_one("#hand", HandView).selection()
        if sel:
            groups.append(sel)
        if not groups:
            return None
        built = []
        for g in groups:
            target = self.target if all(IS_WILD[c] for c in g) else None
            built.append(make_group(g, target))
        return Move.meld(*built)

    def pending_take(self) -> Move:
        """Take the pile: the group holding the top card's rank goes with the top
        card (else the current selection); the other groups are laid first."""
        sel = self.query_one("#hand", HandView).selection()
        groups = [list(g) for g in self.staged if g] + ([sel] if sel else [])
        view = self.table.view(PERSON)
        top = view.pile[-1] if view.pile else None
        head: list[Card] = sel
        if top is not None:
            for g in groups:
                if any(CARD_RANK[c] == CARD_RANK[top] for c in g):
                    head = g
                    break
        rest = [tuple(g) for g in groups if g is not head]
        return Move.take(head, *rest)

    def update_status(self) -> None:
        table = self.table
        view = table.view(PERSON)
        t = Text()
        t.append(phase_text(view, table.names) + "\n", style="bold")
        if not table.hand_over and view.to_move == PERSON:
            t.append(KEY_HINTS.get(view.phase, "") + "\n", style="italic")
        if self.staged:
            t.append("Staged groups: " + " + ".join(" ".join(_short(c) for c in g) for g in self.staged) + "\n")
        if self.target is not None:
            t.append(f"Wild cards go on your {RANK_NAMES[self.target]}s (l to change)\n")
        preview = self.preview()
        if preview is not None:
            t.append_text(preview)
            t.append("\n")
        if self.message is not None:
            t.append_text(self.message)
            t.append("\n")
        if self.hints and self.hint_text:
            t.append(f"Hint ({table.hint_level} bot): {self.hint_text}\n", style="bold #000000 on #9fd8ff")
        if table.undoable(PERSON):
            t.append("u: undo your last meld\n", style="italic")
        self.query_one("#status", Static).update(t)

    def preview(self) -> Text | None:
        """What the current selection would do, and whether the rules allow it."""
        table = self.table
        if table.hand_over or table.game.to_move != PERSON:
            return None
        sel = self.query_one("#hand", HandView).selection()
        view = table.view(PERSON)
        candidates: list[tuple[str, Move]] = []
        if view.phase == "draw" and (sel or self.staged):
            candidates.append(("t", self.pending_take()))
        elif view.phase in ("meld", "final"):
            meld = self.pending_meld()
            if meld is not None:
                candidates.append(("m", meld))
            if len(sel) == 1 and not self.staged:
                candidates.append(("x", Move.discard(sel[0])))
        if not candidates:
            return None
        out = Text()
        for key, move in candidates:
            err = table.why_not(PERSON, move)
            if out:
                out.append("\n")
            if err is None:
                out.append(f" {key}: {move} ", style="bold #000000 on #7fdc7f")
                out.append("  allowed")
            else:
                out.append(f" {key}: {move} ", style="bold #ffffff on #a00000")
                out.append("  " + _explain(err))
        return out

    # -- the game flow --------------------------------------------------------------

    def advance(self) -> None:
        """After every change: let a bot move, show the score sheet, or fetch a hint."""
        table = self.table
        app = self.app
        assert isinstance(app, CanastaApp)
        if table.hand_over:
            if self._shown_scores < len(table.match.hands):
                self._shown_scores = len(table.match.hands)
                path = app.write_record(table, self.game_id)
                app.autosave(table, self.game_id)
                self.app.push_screen(ScoreScreen(table, len(table.match.hands) - 1, path), self._after_scores)
            return
        if table.bot_to_move():
            if not self._bot_busy:
                self._bot_busy = True
                self.bot_worker(table.version)
            return
        if self.hints and self._hint_version != table.version:
            self._hint_version = table.version
            self.hint_text = None
            self.hint_worker(table.version)

    @work(thread=True, exclusive=True, group="bot")
    def bot_worker(self, version: int) -> None:
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
            self.app.call_from_thread(self._bot_ready, version, move)

    def _bot_failed(self, message: str) -> None:
        self._bot_busy = False
        self.message = Text(f"The bot could not move: {message}", style="bold #ffffff on #a00000")
        self.update_status()

    def _bot_ready(self, version: int, move: Move) -> None:
        self._bot_busy = False
        table = self.table
        if table.version == version and table.bot_to_move():
            table.play(table.game.to_move, move)
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
            self.hint_text = str(move)
            self.update_status()

    def _after_scores(self, _: None = None) -> None:
        table = self.table
        app = self.app
        assert isinstance(app, CanastaApp)
        if table.match_over:
            app.push_screen(ResultScreen(table, app.record_path(self.game_id)))
            return
        if table.hand_over:
            table.next_hand()
            self.notes.append(f"Hand {table.hand_number} dealt; deal commitment {table.commitment()[:16]}…")
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
            self.message = Text("Not played: " + _explain(err), style="bold #ffffff on #a00000")
            self.update_status()
            return False
        table.play(PERSON, move)
        self.message = None
        self.staged = []
        self.target = None
        self.hint_text = None
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
            self.message = Text("Select the cards to meld first (or stage groups with +).", style="bold")
            self.update_status()
            return
        self.try_play(move)

    def action_discard(self) -> None:
        sel = self.query_one("#hand", HandView).selection()
        if len(sel) != 1:
            self.message = Text("Select exactly one card to discard.", style="bold")
            self.update_status()
            return
        self.try_play(Move.discard(sel[0]))

    def action_stage(self) -> None:
        hand = self.query_one("#hand", HandView)
        sel = hand.selection()
        if not sel:
            self.message = Text("Select cards first, then + stages them as one group.", style="bold")
        else:
            self.staged.append(sel)
            self.message = Text(f"Staged group {len(self.staged)}: " + " ".join(_short(c) for c in sel)
                                +
                                ". Select the next group, then m (meld) or t (take the pile).")
            hand.selected = {}
            hand._rebuild()
        self.update_status()

    def action_target(self) -> None:
        view = self.table.view(PERSON)
        ranks = sorted({r for cards, *_ in view.melds[view.side] if (r := meld_rank(cards)) is not None})
        if not ranks:
            self.target = None
            self.message = Text("Your side has no meld for wild cards to go on yet.")
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
            self.message = Text(str(exc), style="bold")
        else:
            self.message = Text(f"Taken back: {move}")
            self.refresh_table()
        self.update_status()

    def action_hints(self) -> None:
        self.hints = not self.hints
        self._hint_version = -1
        self.hint_text = None
        self.refresh_table()
        self.advance()

    def action_rules(self) -> None:
        self.app.push_screen(InfoScreen(f"The rules in force: {self.table.rules.name}", rules_text(self.table.rules)))

    def action_help(self) -> None:
        self.app.push_screen(InfoScreen("Keys and mouse", Text(HELP)))

    def action_scores(self) -> None:
        if self.table.match.hands:
            app = self.app
            assert isinstance(app, CanastaApp)
            self.app.push_screen(ScoreScreen(self.table, len(self.table.match.hands) - 1,
                                             app.record_path(self.game_id)))
        else:
            self.message = Text("No hand has been scored yet.")
            self.update_status()

    def action_save(self) -> None:
        app = self.app
        assert isinstance(app, CanastaApp)
        path = app.autosave(self.table, self.game_id)
        self.message = Text(f"Saved to {path}; resume with: canasta play --resume {path}", style="bold")
        self.update_status()

    def action_quit_table(self) -> None:
        app = self.app
        assert isinstance(app, CanastaApp)
        app.saved_path = app.autosave(self.table, self.game_id)
        app.exit()

    def action_clear(self) -> None:
        inp = self.query_one("#moveinput", Input)
        if inp.display:
            inp.display = False
            self.query_one("#hand", HandView).focus()
        self.staged = []
        self.target = None
        self.message = None
        self.query_one("#hand", HandView).clear()
        self.update_status()

    def action_cursor(self, delta: int) -> None:
        self.query_one("#hand", HandView).move_cursor(delta)

    def action_more(self, delta: int) -> None:
        hand = self.query_one("#hand", HandView)
        hand.pick(hand.cursor, delta)

    def action_rank(self, name: str) -> None:
        if not self.query_one("#hand", HandView).pick_rank(name):
            self.message = Text(f"You hold no {name}.")
            self.update_status()

    def action_type_move(self) -> None:
        inp = self.query_one("#moveinput", Input)
        inp.display = True
        inp.value = ""
        inp.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "moveinput":
            return
        text = event.value.strip()
        if text and self.try_play(text):
            event.input.value = ""
            event.input.display = False
            self.query_one("#hand", HandView).focus()

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


def _short(card: Card) -> str:
    return card_label(card)


def _explain(err: CanastaError) -> str:
    if isinstance(err, IllegalMoveError) and err.rule:
        return f"rule {err.rule}: {CanastaError.__str__(err)}"
    return str(err)


# ===================================================================== the app

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

    def __init__(self, config: PlayConfig, table: Table | None = None, game_id: str | None = None) -> None:
        super().__init__()
        self.config = config
        self.table: Table | None = table
        self.game_id = game_id
        self.saved_path: Path | None = None

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
        """ctrl+q: save the game being played (if any), then quit."""
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
            path.write_text(table.record().to_text(), encoding="utf-8")
        except OSError as exc:
            self.notify(f"could not write the record {path}: {exc.strerror}", severity="error")
            return None
        return path

    def autosave(self, table: Table, game_id: str) -> Path | None:
        path = self.save_path(game_id)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            table.save(path)
        except OSError as exc:
            self.notify(f"could not save {path}: {exc.strerror}", severity="error")
            return None
        return path
