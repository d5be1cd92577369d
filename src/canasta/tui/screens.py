"""The terminal app's pages over the table: information (rules, help), the score
sheet after a hand and the match result; and the key bar every screen shows."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Static

from canasta import present
from canasta.i18n import N_, _
from canasta.i18n.words import end_reason, seat_name
from canasta.play.table import Table
from canasta.tui.render import score_sheet, signed


@runtime_checkable
class TableHost(Protocol):
    """What the screens ask of the application that shows them (the app imports the
    screens, so they know it by this, not by its class)."""

    async def set_language(self, lang: str, remember: bool = True) -> None: ...

    def start_table(self, table: Table, game_id: str | None = None) -> None: ...

    saved_path: Path | None

    def record_path(self, game_id: str) -> Path: ...

    def write_record(self, table: Table, game_id: str) -> Path | None: ...

    def autosave(self, table: Table, game_id: str) -> Path | None: ...

    def exit(self) -> None: ...

#: a screen's keys as shown in its key bar: (key, what it does: a message id)
Keys = Sequence[tuple[str, str]]


def key_bar(keys: Keys) -> Text:
    """The keys of a screen, in the language of the moment (Textual's footer is not used:
    its texts are not translated)."""
    t = Text()
    for key, what in keys:
        t.append(f" {key} ", style="bold #000000 on #ffd000")
        t.append(f" {_(what)}  ")
    return t


class KeyBar(Static):
    """The key bar at the bottom of a screen."""

    DEFAULT_CSS = "KeyBar { dock: bottom; height: auto; background: #202830; }"

    def __init__(self, keys: Keys, **kwargs: Any) -> None:
        super().__init__(key_bar(keys), **kwargs)
        self.keys = keys

    def retranslate(self) -> None:
        self.update(key_bar(self.keys))


def side_labels(table: Table) -> list[str]:
    """A name per side of the score sheet: the player (cut-throat) or the partners."""
    names = [seat_name(n) for n in table.names]
    nsides = len(table.match.totals) if table.match.hands else len(table.rules.teams)
    if table.rules.cutthroat:
        return [names[s] for s in range(nsides)]
    return [" & ".join(names[s] for s in members) for members in table.rules.teams][:nsides]


def winner_line(table: Table, labels: Sequence[str]) -> str:
    winner = table.match.winner
    if winner == -1:
        return _("The match is drawn.")
    return _("{side} win the match!").format(side=labels[winner or 0])


# ======================================================== modal information

class InfoScreen(ModalScreen[None]):
    """A scrolling page (rules, help) closed with Escape.  ``title`` and ``body`` are
    functions, so that the page can be written again in another language."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,r,question_mark", "dismiss_info", "Close")]

    def __init__(self, title: Any, body: Any) -> None:
        super().__init__()
        self.title_of = title if callable(title) else (lambda: title)
        self.body_of = body if callable(body) else (lambda: body)

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog"):
            yield Static(Text(self.title_of(), style="bold reverse"))
            yield Static(self.body_of())
            yield Static(Text(_("Escape: back to the table"), style="italic"))

    async def retranslate(self) -> None:
        await self.recompose()

    def action_dismiss_info(self) -> None:
        self.dismiss(None)


HELP = N_("""Selecting cards
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
                 (the notation's words are English: draw take meld discard ask yes no end open)
Table
  h hints on/off   r rules in force   c last score sheet   w save   ? help   ctrl+q save and quit
  F2 language (English / Español / Italiano / Português), remembered for the next game
  page up / page down   scroll the melds when they do not all fit (a small terminal)
""")


#: the key hints by phase (the draw phase's names the discards: canasta.present.PILE_PHRASES)
KEY_HINTS = {
    "meld": N_("select cards (← → space, or A K Q … 2 *): m meld · + stage a group · x discard · s ask partner · "
               "u undo"),
    "answer": N_("y: yes, you may go out · n: no"),
    "final": N_("m: meld what you can · e: end the hand"),
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
        labels = side_labels(table)[:nsides]
        after = [sum(h.scores[i].total for h in table.match.hands[: self.hand_index + 1]) for i in range(nsides)]
        before = [a - hr.scores[i].total for i, a in enumerate(after)]
        went = (_("{name} went out").format(name=seat_name(table.names[hr.went_out])) if hr.went_out >= 0
                else _("nobody went out"))
        if hr.went_out >= 0 and (hr.end_reason or "went out") == "went out":  # said once, not twice
            head = Text(present.hand_phrase(table.rules, "over", n=hr.hand_number, went=went), style="bold")
        else:  # in the family's word for a hand (a smazzata in an Italian game, said in Italian)
            head = Text(present.hand_phrase(table.rules, "over_why", n=hr.hand_number,
                                            reason=end_reason(hr.end_reason or "ended"), went=went), style="bold")
        check = Text()
        check.append(_("Fair deal: "), style="bold")
        shown = table.revealed()[self.hand_index]
        check.append(_("the commitment shown at the deal was {commitment}").format(
            commitment=shown["commitment"]) + "\n")
        if "secret" in shown:
            check.append(_("the secret is now revealed: {secret} (its sha256 is that commitment)").format(
                secret=shown["secret"]) + "\n")
        else:
            check.append(_("the seed is now revealed: {seed} (sha256 of '{text}' is that commitment)").format(
                seed=hr.seed, text=f"canasta-deal:{hr.seed}") + "\n")
        if self.record_path is not None:
            check.append(_("Record written to {file}").format(file=self.record_path) + "\n"
                         + _("check it with:  {command}").format(command=f"canasta verify {self.record_path}")
                         + "\n")
        last = self.hand_index == len(table.match.hands) - 1
        if last and table.match_over:
            foot = Text(winner_line(table, labels) + "  " + _("Enter: the match result"), style="bold reverse")
        elif last:
            foot = Text(_("Enter: deal the next hand"), style="bold reverse")
        else:
            foot = Text(_("Escape: back"), style="bold")
        with VerticalScroll(classes="dialog"):
            yield Static(Group(head, score_sheet(hr.scores, labels, before, after, present.family_words(table.rules).laid_out), check, foot), id="scores")
            yield Button(_("Continue"), id="score-continue", variant="primary")

    async def retranslate(self) -> None:
        await self.recompose()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_close()

    def action_close(self) -> None:
        self.dismiss(None)


class ResultScreen(Screen[None]):
    """The match result: every hand's score and the totals."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,q,escape", "app.quit", "Quit")]
    KEYS: ClassVar[Keys] = (("Enter", N_("Quit")), ("F2", N_("Language")))

    def __init__(self, table: Table, record_path: Path | None) -> None:
        super().__init__()
        self.table = table
        self.record_path = record_path

    def compose(self) -> ComposeResult:
        from rich.table import Table as RichTable

        from canasta.i18n import current

        table = self.table
        labels = side_labels(table)
        grid = RichTable(title=_("Match result"), header_style="bold")
        grid.add_column(_("Hand"))
        for label in labels:
            grid.add_column(label, justify="right")
        for h in table.match.hands:
            grid.add_row(str(h.hand_number), *[signed(s.total) for s in h.scores])
        grid.add_row(Text(_("Total"), style="bold"),
                     *[Text(current().number(t), style="bold reverse") for t in table.match.totals])
        foot = Text("\n" + winner_line(table, labels) + "\n", style="bold")
        if self.record_path is not None:
            foot.append(_("The game record is {file}").format(file=self.record_path) + "\n"
                        + _("Replay it:  {command}").format(command=f"canasta replay {self.record_path}") + "\n")
        foot.append(_("Enter or q: quit"))
        with VerticalScroll(classes="dialog"):
            yield Static(Group(grid, foot), id="result")
        yield KeyBar(self.KEYS)

    async def retranslate(self) -> None:
        await self.recompose()
