"""``canasta replay FILE``: step through a game record hand by hand and move
by move, the table face up or as any one seat saw it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from canasta import present
from canasta.engine.errors import CanastaError, IllegalMoveError
from canasta.engine.game import Game
from canasta.engine.moves import Move
from canasta.engine.rules import RuleSet
from canasta.engine.scoring import SideScore
from canasta.i18n import N_, _, current, nplural
from canasta.i18n.words import seat_name
from canasta.play.record import GameRecord, read_file
from canasta.play.table import seat_names
from canasta.present import describe, pile_phrase, proposal
from canasta.review import MARK_NAMES, MARK_SYMBOLS, DecisionReview
from canasta.review.commands import stored_decisions
from canasta.tui.app import CSS
from canasta.tui.render import (
    Style,
    meld_lines,
    phase_text,
    pile_panel,
    rules_text,
    score_sheet,
    seat_lines,
    side_title,
    sides_of,
)
from canasta.tui.screens import InfoScreen, KeyBar, Keys
from canasta.tui.widgets import HandView
from canasta.views.seat import SeatView, seat_view, spectator_view


@dataclass
class HandReplay:
    number: int
    proof: str  # the revealed seed or secret and the commitment shown before the hand
    commitment: str
    positions: list[Game]  # positions[i]: before move i (the last: after every move)
    moves: list[tuple[int, Move]]
    scores: list[SideScore] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)


@dataclass
class Replay:
    rules: RuleSet
    names: list[str]
    players: list[str]
    hands: list[HandReplay]
    headers: dict[str, str]
    #: the decisions a stored review of this game holds, by (hand number, the move's index in it)
    reviewed: dict[tuple[int, int], DecisionReview] = field(default_factory=dict)
    review_problem: str = ""  # why a stored review beside the record could not be read


def build_replay(record: GameRecord) -> Replay:
    """Replay a record through the engine, keeping every position.  An illegal
    or out-of-turn move is refused with its line number."""
    match = record.match()
    rules = match.rules
    seated = record.seated()
    players = [seated.get(seat, "?") for seat in range(rules.players)]
    names = list(seat_names(rules.players))
    for s, who in enumerate(players):
        if who.startswith("human:"):
            names[s] = who.removeprefix("human:").replace("_", " ")
    hands: list[HandReplay] = []
    for number, hand in enumerate(record.hands, start=1):
        if match.over:
            break
        g = match.next_hand(hand.fair_deal(number, rules.players))
        replay = HandReplay(g.hand_number, hand.proof(), hand.tags.get("Commitment", "?"), [g.copy()], [])
        for seat, move, _note, line in hand.moves:
            if g.is_over():
                raise CanastaError(_("line {line}: a move after the hand ended").format(line=line))
            if seat != g.to_move:
                raise CanastaError(_("line {line}: seat {seat} moved, but it was seat {other}'s move").format(
                    line=line, seat=seat, other=g.to_move))
            try:
                g.push(move)
            except IllegalMoveError as exc:
                raise CanastaError(_("line {line}: illegal move {move}: {why}").format(
                    line=line, move=move, why=current().refusal(exc))) from None
            replay.moves.append((seat, move))
            replay.positions.append(g.copy())
        hands.append(replay)
        if not g.is_over():
            break  # an unfinished hand is shown as far as it goes
        rec = match.record_hand()
        replay.scores = list(rec.scores)
        replay.totals = list(match.totals)
    if not hands:
        raise CanastaError(_("the record holds no hand to replay"))
    return Replay(rules, names, players, hands, dict(record.headers))


def load_replay(path: str | Path, game: int = 1) -> Replay:
    records, errors = read_file(path)
    if errors:
        more = len(errors) - 1
        raise CanastaError(f"{path}: {errors[0]}" + (" " + nplural("(and {n} more problem)", "(and {n} more problems)",
                                                                     more) if more else ""))
    if not records:
        raise CanastaError(_("{file}: no game record found").format(file=path))
    if not 1 <= game <= len(records):
        raise CanastaError(nplural("{file} holds {n} game; --game must be from 1 to {n}",
                                   "{file} holds {n} games; --game must be from 1 to {n}", len(records), file=path))
    replay = build_replay(records[game - 1])
    try:
        replay.reviewed = stored_decisions(path, records[game - 1], game)
    except CanastaError as exc:  # a damaged review beside the record: the replay goes on without its marks
        replay.review_problem = str(exc)
    return replay


class ReplayApp(App[None]):
    """Step through a record."""

    TITLE = "canasta replay"
    CSS = CSS
    ENABLE_COMMAND_PALETTE = False
    KEYS: ClassVar[Keys] = (("→", N_("Next move")), ("←", N_("Back")), ("PgDn/PgUp", N_("Next / previous hand")),
                            ("m/M", N_("Next / previous mark")), ("v", N_("Face up / seat")), ("r", N_("Rules")),
                            ("F2", N_("Language")), ("q", N_("Quit")))

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,space", "step(1)", "Next move"),
        Binding("left,backspace", "step(-1)", "Back"),
        Binding("pagedown,n", "hand(1)", "Next hand"),
        Binding("pageup,p", "hand(-1)", "Prev hand"),
        Binding("home", "edge(0)", "Start", show=False, priority=True),
        Binding("end", "edge(1)", "End of hand", show=False, priority=True),
        Binding("m", "mark(1)", "Next mark"),
        Binding("M", "mark(-1)", "Previous mark"),
        Binding("v", "view", "Face up / seat"),
        Binding("r", "rules", "Rules"),
        Binding("q,escape", "quit", "Quit"),
        Binding("f2", "next_language", "Language", priority=True),
    ]

    def __init__(self, replay: Replay, seat: int | None = None, four_colour: bool = False) -> None:
        super().__init__()
        self.replay = replay
        self.seat = seat  # None: face up
        self.hand = 0
        self.index = 0
        self.card_style = Style(four_colour=four_colour)

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        with VerticalScroll(id="tablearea"), Horizontal(id="middle"):
            with Vertical(id="left"):
                yield Static(id="seats", classes="panel")
                yield Static(id="melds", classes="panel")
            with Vertical(id="right"):
                yield Static(id="pile", classes="panel")
                yield Static(id="log", classes="panel")
        yield Static(id="status")
        yield HandView(self.card_style, id="hand")
        yield KeyBar(self.KEYS, id="keys")

    def on_mount(self) -> None:
        self.show()

    async def action_next_language(self) -> None:
        """F2: the next language, on every screen open (and remembered)."""
        from canasta.i18n import LANGUAGES, current, use
        from canasta.i18n.settings import remember_language

        now = current().lang
        lang = LANGUAGES[(LANGUAGES.index(now) + 1) % len(LANGUAGES)] if now in LANGUAGES else LANGUAGES[0]
        use(lang)
        remember_language(lang)
        for screen in list(self.screen_stack):
            if isinstance(screen, InfoScreen):
                await screen.retranslate()
        self.query_one("#keys", KeyBar).retranslate()
        self.show()

    @property
    def current(self) -> HandReplay:
        return self.replay.hands[self.hand]

    def view(self) -> tuple[SeatView, list[list[int]] | None]:
        game = self.current.positions[self.index]
        if self.seat is None:
            return spectator_view(game), [game.hand(s) for s in range(game.players)]
        return seat_view(game, self.seat), None

    def show(self) -> None:
        rp = self.replay
        hr = self.current
        view, hands = self.view()
        style = self.card_style
        self.query_one("#seats").border_title = _("Players")
        self.query_one("#melds").border_title = _("Melds")
        self.query_one("#pile").border_title = pile_phrase(rp.rules, "panel")
        self.query_one("#log").border_title = _("Moves")
        looking = _("face up") if self.seat is None else _("as {name} saw it").format(name=seat_name(rp.names[self.seat]))
        top = Text()
        top.append(" " + _("replay") + " ", style="bold #000000 on #ffd000")
        top.append(" " + _("{rules}  hand {n} of {hands}  move {i} of {moves}  table {looking}  commitment {commitment}…"
                           ).format(rules=rp.rules.name, n=hr.number, hands=len(rp.hands), i=self.index,
                                    moves=len(hr.moves), looking=looking, commitment=hr.commitment[:16]) + " ",
                   style="bold")
        self.query_one("#topbar", Static).update(top)
        levels: list[str | None] = [None if p.startswith("human:") else p for p in rp.players]
        self.query_one("#seats", Static).update(
            Group(*seat_lines(view, rp.names, levels, hands, style, you=_("viewing"))))
        parts: list[Text] = []
        for k, members in enumerate(sides_of(view)):
            if not members:
                continue  # cut-throat: a side nobody is on (yet)
            parts.append(Text(side_title(view, k, rp.names), style="bold underline"))
            parts.extend(meld_lines(view, k, style))
        self.query_one("#melds", Static).update(Group(*parts))
        self.query_one("#pile", Static).update(pile_panel(view, style))
        log = Text()
        start = max(0, self.index - 12)
        for i in range(start, self.index):
            seat, move = hr.moves[i]
            log.append(f"{i + 1:>3}. {describe(move, rp.rules, rp.names[seat])}{self._symbol(i)}\n",
                       style="bold reverse" if i == self.index - 1 else "")
        if self.index < len(hr.moves):
            seat, move = hr.moves[self.index]
            log.append(_("next: {move}").format(move=describe(move, rp.rules, rp.names[seat])) + self._symbol(self.index)
                       + "\n", style="italic")
        self.query_one("#log", Static).update(log)
        status: list[object] = [Text(phase_text(view, rp.names), style="bold")]
        if self.index == len(hr.moves) and hr.scores:
            nsides = len(hr.scores)
            names = [seat_name(n) for n in rp.names]
            labels = ([names[s] for s in range(nsides)] if rp.rules.cutthroat else
                      [" & ".join(names[s] for s in members) for members in rp.rules.teams][:nsides])
            before = [t - s.total for t, s in zip(hr.totals, hr.scores, strict=True)]
            status.append(score_sheet(hr.scores, labels, before, hr.totals, present.family_words(rp.rules).laid_out))
            status.append(Text(_("Deal revealed: {proof}").format(proof=hr.proof)))
        said = self._review_text()
        if said is not None:
            status.append(said)
        hand_seat = self.seat if self.seat is not None else view.to_move
        status.append(Text(_("Below: {name}'s hand").format(name=seat_name(rp.names[hand_seat])), style="bold"))
        status.append(Text(_("→ next move  ← back  PgDn/PgUp hand  m/M next/previous mark  v face up / each seat  "
                             "r rules  q quit"), style="italic"))
        self.query_one("#status", Static).update(Group(*status))  # type: ignore[arg-type]
        game = hr.positions[self.index]
        self.query_one("#hand", HandView).set_hand(game.hand(hand_seat) if self.seat is None else view.hand)

    def _decision(self, index: int) -> DecisionReview | None:
        return self.replay.reviewed.get((self.current.number, index))

    def _symbol(self, index: int) -> str:
        """A reviewed move's mark as the move list shows it (`` ??``), or nothing."""
        d = self._decision(index)
        return f" {MARK_SYMBOLS[d.mark]}" if d is not None and d.mark in MARK_SYMBOLS else ""

    def _review_text(self) -> Text | None:
        """What the stored review says of the move about to be played (else of the last one):
        its mark, the points it lost by the seat's own knowledge, and the better choice."""
        if self.replay.review_problem:
            return Text(self.replay.review_problem, style="italic")
        for index in (self.index, self.index - 1):
            d = self._decision(index)
            if d is None or not d.mark:
                continue
            rules, names = self.replay.rules, self.replay.names
            better = proposal(Move.parse(d.best), rules) if d.best else "?"
            text = _("Review: {move}: {mark} ({symbol}), {loss} points lost (± {stderr}) by what {name} knew; "
                     "better: {better}").format(
                move=proposal(Move.parse(d.move), rules), mark=_(MARK_NAMES[d.mark]), symbol=MARK_SYMBOLS[d.mark],
                loss=current().number(round(d.loss)), stderr=current().number(round(d.stderr)),
                name=seat_name(names[d.seat]), better=better)
            return Text(text, style="bold #000000 on #ffb0b0")
        return None

    def action_mark(self, delta: int) -> None:
        """The next (``delta`` 1) or previous (-1) marked decision, in any hand: the position
        before it, as that seat had it to decide."""
        marked = sorted(k for k, d in self.replay.reviewed.items() if d.mark)
        numbers = [h.number for h in self.replay.hands]
        here = (self.current.number, self.index)
        found = [k for k in marked if (k > here if delta > 0 else k < here) and k[0] in numbers]
        if not found:
            self.notify(_("no further marked move") if marked else _(
                "no stored review of this game: run canasta review FILE first"))
            return
        hand, index = found[0] if delta > 0 else found[-1]
        self.hand, self.index = numbers.index(hand), index
        self.show()

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(len(self.current.moves), self.index + delta))
        self.show()

    def action_hand(self, delta: int) -> None:
        self.hand = max(0, min(len(self.replay.hands) - 1, self.hand + delta))
        self.index = 0
        self.show()

    def action_edge(self, end: int) -> None:
        self.index = len(self.current.moves) if end else 0
        self.show()

    def action_view(self) -> None:
        n = self.replay.rules.players
        self.seat = 0 if self.seat is None else (None if self.seat + 1 >= n else self.seat + 1)
        self.show()

    def action_rules(self) -> None:
        rules = self.replay.rules
        self.push_screen(InfoScreen(lambda: _("The rules of this game: {rules}").format(rules=rules.name),
                                    lambda: rules_text(rules)))
