"""Pure rendering of a seat's view as Rich text: cards, melds, the pile, seats,
the score sheet and the rules screen.  Shared by ``canasta play`` and
``canasta replay``; nothing here touches the engine's state, only a
:class:`~canasta.views.seat.SeatView` (what one seat may know) and public data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.table import Table as RichTable
from rich.text import Text

from canasta import present
from canasta.engine.cards import (
    CARD_RANK,
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    RANK_NAMES,
    SUIT_NAMES,
    Card,
    sort_key,
)
from canasta.engine.game import family_of
from canasta.engine.moves import Move
from canasta.engine.rules import RuleSet
from canasta.engine.scoring import SideScore
from canasta.i18n import _, current, nplural, pgettext
from canasta.i18n.words import canasta_kind, score_label, seat_name
from canasta.views.seat import SeatView, pile_note_list, table_note_list

SUIT_SYMBOLS = "♠♥♦♣"
#: suit colours: two-colour deck (red/black) and four-colour deck (spades black,
#: hearts red, diamonds blue, clubs green); every card also shows its suit symbol
#: and letter, so colour is never the only cue
TWO_COLOUR = ("#000000", "#b00000", "#b00000", "#000000")
FOUR_COLOUR = ("#000000", "#b00000", "#0038a8", "#006400")
CARD_BG = "#ffffff"
WILD_BG = "#ffe24d"  # wild cards: yellow face and a star, never colour alone


@dataclass(frozen=True)
class Style:
    """How cards are drawn."""

    four_colour: bool = False

    def suit_colour(self, card: Card) -> str:
        if card == JOKER:
            return "#6a00a8"
        return (FOUR_COLOUR if self.four_colour else TWO_COLOUR)[card & 3]


def card_label(card: Card) -> str:
    """``10♥`` / ``JK★``: rank and suit symbol (the suit letter is shown on hand cards)."""
    if card == JOKER:
        return "JK★"
    star = "★" if IS_WILD[card] else ""
    return f"{RANK_NAMES[card >> 2]}{SUIT_SYMBOLS[card & 3]}{star}"


def card_text(card: Card, style: Style = Style(), letter: bool = False) -> Text:
    """One card, bold on a white (wild: yellow) face."""
    label = card_label(card)
    if letter and card != JOKER:
        label += SUIT_NAMES[card & 3]
    bg = WILD_BG if IS_WILD[card] else CARD_BG
    return Text(f" {label} ", style=f"bold {style.suit_colour(card)} on {bg}")


def cards_text(cards: Sequence[Card], style: Style = Style(), letter: bool = False) -> Text:
    out = Text()
    for i, c in enumerate(sorted(cards, key=sort_key)):
        if i:
            out.append(" ")
        out.append_text(card_text(c, style, letter))
    return out


# ----------------------------------------------------------------- the hand

GroupKey = tuple[int, int]  # (display order, rank) ; red threes apart from black threes


def group_key(card: Card) -> GroupKey:
    rank = CARD_RANK[card]
    if IS_RED_THREE[card]:
        return (sort_key(card)[0], 100)
    return (sort_key(card)[0], rank)


def group_hand(hand: Sequence[Card]) -> list[tuple[GroupKey, list[Card]]]:
    """The hand grouped by rank (wild cards first, then ace down to three), each
    group's cards sorted by suit."""
    groups: dict[GroupKey, list[Card]] = {}
    for c in sorted(hand, key=sort_key):
        groups.setdefault(group_key(c), []).append(c)
    return sorted(groups.items())


def group_title(cards: Sequence[Card]) -> str:
    c = cards[0]
    if c == JOKER:
        return "JK"
    return RANK_NAMES[CARD_RANK[c]]


def group_face(cards: Sequence[Card], selected: int, style: Style = Style(), cursor: bool = False) -> Text:
    """A large card face for a group of one rank: rank, the suits (symbol and
    letter), the count and how many are selected; the keyboard cursor shows as
    pointers on a yellow title row."""
    first = cards[0]
    wild = IS_WILD[first]
    bg = WILD_BG if wild else CARD_BG
    t = Text()
    title = group_title(cards) + ("★" if wild else "")
    if cursor:
        t.append(f"▶{title:^6}◀\n", style="bold #000000 on #ffd000")
    else:
        t.append(f"{title:^8}\n", style=f"bold #000000 on {bg}")
    suits: list[Text] = []
    for c in cards[:6]:
        if c == JOKER:
            suits.append(Text("★J", style=f"bold {style.suit_colour(c)} on {bg}"))
        else:
            suits.append(Text(SUIT_SYMBOLS[c & 3] + SUIT_NAMES[c & 3], style=f"bold {style.suit_colour(c)} on {bg}"))
    lines = [suits[0:3], suits[3:6]]
    for line in lines:
        row = Text(style=f"on {bg}")
        for i, s in enumerate(line):
            if i:
                row.append(" ", style=f"on {bg}")
            row.append_text(s)
        width = row.cell_len
        pad_left = (8 - width) // 2
        t.append(" " * pad_left, style=f"on {bg}")
        t.append_text(row)
        t.append(" " * (8 - width - pad_left) + "\n", style=f"on {bg}")
    count = f"×{len(cards)}"
    t.append(f"{count:^8}\n", style=f"bold #000000 on {bg}")
    if selected:
        t.append(f"{'✔ ' + str(selected):^8}", style="bold #ffffff on #0040b0")
    else:  # the table's background: a gap under the face, so that rows of faces stay apart
        t.append(" " * 8)
    return t


# ------------------------------------------------------------------- melds

def meld_rank(cards: Sequence[Card]) -> int | None:
    """The rank of a meld (None: a meld of wild cards only)."""
    for c in cards:
        if IS_NATURAL[c] or IS_BLACK_THREE[c]:
            return CARD_RANK[c]
    return None


def meld_status(rules: RuleSet, cards: Sequence[Card], concealed: bool) -> str:
    """``natural canasta``, ``mixed canasta (concealed)``, ``5 of 7`` ..."""
    wild = sum(1 for c in cards if IS_WILD[c])
    n = len(cards)
    size = present.canasta_size(rules)
    if n >= size:
        kind = present.family_words(rules).canastas[1 if wild else 0]
        text = {"natural": _("★ NATURAL CANASTA"), "mixed": _("★ MIXED CANASTA"), "clean": _("★ CLEAN CANASTA"),
                "dirty": _("★ DIRTY CANASTA")}.get(kind, "★ " + kind.upper())
    else:
        text = _("{n} of {size}").format(n=n, size=size) + (", " + nplural("{n} wild", "{n} wild", wild) if wild else "")
    if concealed:
        text += " " + _("(laid concealed)")
    return text


def rank_title(rank: int | None) -> str:
    """A meld's name: "Kings" / "Re"; a meld of wild cards only: "Wild cards" / "Matte"."""
    if rank is None:
        return _("Wild cards")
    word = current().rank(rank, 2)
    return word[:1].upper() + word[1:]


def meld_lines(view: SeatView, side: int, style: Style = Style()) -> list[Text]:
    """One line per meld of a side (and per closed canasta, Italian)."""
    out: list[Text] = []
    melds = view.melds[side] if side < len(view.melds) else ()
    for cards, concealed, _owner, _turn in sorted(melds, key=lambda m: -(meld_rank(m[0]) or 99)):
        name = rank_title(meld_rank(cards))
        line = Text()
        line.append(f"{name:<10}", style="bold")
        line.append_text(cards_text(cards, style))
        line.append(f"  {meld_status(view.rules, cards, concealed)}",
                    style="bold #000000 on #7fdc7f" if len(cards) >= present.canasta_size(view.rules) else "")
        out.append(line)
    every_closed = view.part_value("closed", ())  # a family that closes canastas (B.7.2) lists them
    closed = every_closed[side] if side < len(every_closed) else ()
    for cards in closed:
        name = rank_title(meld_rank(cards))
        wild = any(IS_WILD[c] for c in cards)
        text = (_("▣ CLOSED dirty canasta of {n} cards") if wild else
                _("▣ CLOSED clean canasta of {n} cards")).format(n=len(cards))
        line = Text()
        line.append(f"{name:<10}", style="bold")
        line.append(text, style="bold #000000 on #7fdc7f")
        out.append(line)
    if not out:
        out.append(Text(_("no melds yet"), style="italic"))
    return out


def meld_chip(rules: RuleSet, cards: Sequence[Card], concealed: bool = False, closed: bool = False,
              style: Style = Style()) -> Text:
    """A meld in short form: its rank as on a card, how many cards, how many wild ones
    (``K×3``, ``10×6, 3 wild``); a canasta says its kind on green (``J×8 ★ mixed``),
    a closed one (Italian) starts with ▣."""
    rank = meld_rank(cards)
    wild = sum(1 for c in cards if IS_WILD[c])
    canasta = len(cards) >= present.canasta_size(rules)
    chip = Text()
    face = "★" if rank is None else RANK_NAMES[rank]
    chip.append(face, style=f"bold #000000 on {WILD_BG if rank is None else CARD_BG}")  # one word with ×n
    rest = ("▣" if closed else "") + f"×{len(cards)}"
    if canasta:
        kind = present.family_words(rules).canastas[1 if wild else 0]
        rest += " ★ " + canasta_kind(kind)
    elif wild:
        rest += ", " + nplural("{n} wild", "{n} wild", wild)
    if concealed:
        rest += " " + _("(laid concealed)")
    chip.append(rest, style="bold #000000 on #7fdc7f" if canasta else "bold")
    return chip


def meld_chips(view: SeatView, side: int, style: Style = Style()) -> Text:
    """A side's melds in short form, on as few lines as the width allows."""
    out = Text()
    melds = view.melds[side] if side < len(view.melds) else ()
    chips = [meld_chip(view.rules, cards, concealed, style=style)
             for cards, concealed, _owner, _turn in sorted(melds, key=lambda m: -(meld_rank(m[0]) or 99))]
    every_closed = view.part_value("closed", ())
    chips += [meld_chip(view.rules, cards, closed=True, style=style)
              for cards in (every_closed[side] if side < len(every_closed) else ())]
    for i, chip in enumerate(chips):
        if i:
            out.append("   ")
        out.append_text(chip)
    if not chips:
        out.append(_("no melds yet"), style="italic")
    return out


# ------------------------------------------------------------------- pile

def pile_top(view: SeatView) -> Card | None:
    for c in reversed(view.pile):
        return c
    return None


def cards_count(n: int) -> str:
    return nplural("{n} card", "{n} cards", n)


def pile_word(view: SeatView) -> str:
    """What the discard pile is called: the pile / il pozzo (the family's word for it)."""
    return present.pile_phrase(view.rules, "the")


def pile_notes(view: SeatView) -> list[str]:
    """The discard pile's (or pozzo's) state in words, for this seat (A.8, A.9, B.10):
    canasta.views.seat.pile_note_list in the language of the moment."""
    tr = current()
    return [tr.pile_note(note) for note in pile_note_list(view)]


def table_notes(view: SeatView) -> list[str]:
    """What the family says to this seat about the table beyond the pile (Modern American: its
    talons, the turn card, dead ranks, the opening it needs ...): canasta.views.seat.table_note_list
    in the language of the moment."""
    tr = current()
    return [tr.table_note(note) for note in table_note_list(view)]


def pile_panel(view: SeatView, style: Style = Style()) -> Text:
    """The pile's top card, size and state, and the stock size."""
    pile = Text(_("Top: "))
    pile.append_text(pile_face(view, style))
    pile.append("   " + present.pile_size(view.rules, len(view.pile)) + "\n", style="bold")
    for note in pile_notes(view):
        pile.append(f"• {note}\n")
    pile.append(_("Stock: {cards}").format(cards=cards_count(view.stock_size)), style="bold")
    return pile


def notes_text(view: SeatView) -> Text | None:
    """The family's notes on the table (:func:`table_notes`) as lines under the players, or None
    for a family that has none."""
    notes = table_notes(view)
    if not notes:
        return None
    text = Text()
    for k, note in enumerate(notes):
        text.append(("\n" if k else "") + f"◦ {note}", style="italic")
    return text


def pile_line(view: SeatView, style: Style = Style()) -> Text:
    """The pile in one paragraph (a narrow or low window): its top card, its size, the
    stock, then its state."""
    line = Text(_("Top: "), style="bold")
    line.append_text(pile_face(view, style))
    line.append("  " + present.pile_size(view.rules, len(view.pile)), style="bold")
    line.append("  ·  " + _("Stock: {cards}").format(cards=cards_count(view.stock_size)), style="bold")
    for note in pile_notes(view):
        line.append(f"  ·  {note}")
    return line  # (the family's notes on the table: in the rules screen, r, where there is room)


def pile_face(view: SeatView, style: Style = Style()) -> Text:
    top = pile_top(view) if view.pile else None
    t = Text()
    if not view.pile:
        t.append("  " + _("(empty)") + "  ", style="italic")
    elif top is None:
        t.append(" ▒▒▒ ", style="bold #ffffff on #1f3f8f")
    else:
        t.append_text(card_text(top, style, letter=True))
    return t


# -------------------------------------------------------------------- seats

def sides_of(view: SeatView) -> list[list[int]]:
    """Seats by side, side 0 first."""
    n = max(view.side_of) + 1 if view.side_of else 0
    return [[s for s, side in enumerate(view.side_of) if side == k] for k in range(n)]


def score_slot(view: SeatView, side: int) -> int:
    """The index into ``view.scores`` for a side (players in cut-throat)."""
    if len(view.scores) == len(view.side_of) and len(view.scores) != len(sides_of(view)):
        members = sides_of(view)[side]
        return members[0]
    return side


def side_score(view: SeatView, side: int) -> str:
    number = current().number
    if view.rules.cutthroat:
        return " / ".join(number(view.scores[s]) for s in sides_of(view)[side])
    return number(view.scores[side]) if side < len(view.scores) else "0"


def side_title(view: SeatView, side: int, names: Sequence[str], short: bool = False) -> str:
    """``Your side (South & North): score 0, minimum 50, has melded``; ``short``: without the
    partners' names where two sides make them plain (yours and theirs)."""
    members = " & ".join(seat_name(names[s]) for s in sides_of(view)[side])
    if view.seat >= 0 and side == view.side:
        who = _("Your side")
    elif view.seat >= 0 and len(sides_of(view)) == 2:
        who = _("Their side")
    else:
        who = _("Side {n}").format(n=side)
    opened = ""
    if view.opened and side < len(view.opened):
        if present.family_words(view.rules).opened == "opened":
            opened = _(", has opened") if view.opened[side] else _(", not opened yet")
        else:
            opened = _(", has melded") if view.opened[side] else _(", not melded yet")
    if short and view.seat >= 0 and len(sides_of(view)) == 2:
        return _("{who}: score {score}, minimum {minimum}{opened}").format(
            who=who, score=side_score(view, side), minimum=view.minimum(sides_of(view)[side][0]), opened=opened)
    return _("{who} ({members}): score {score}, minimum {minimum}{opened}").format(
        who=who, members=members, score=side_score(view, side), minimum=view.minimum(sides_of(view)[side][0]),
        opened=opened)


def seat_lines(view: SeatView, names: Sequence[str], levels: Sequence[str | None],
               hands: Sequence[Sequence[Card]] | None = None, style: Style = Style(),
               you: str = "", last: Mapping[int, Move] | None = None, seats: Sequence[int] | None = None,
               show_levels: bool = True) -> list[Text]:
    """One line per seat (``seats``: only those): who, level, hand size, red threes, whose
    move, its last move; the names padded alike so that the hand sizes line up."""
    out: list[Text] = []
    you = you or _("you")
    labels: dict[int, str] = {}
    for s, name in enumerate(names):
        label = seat_name(name)
        if s == view.seat:
            label += f" ({you})"
        elif view.seat >= 0 and view.side_of[s] == view.side:
            label += " (" + _("partner") + ")"
        level = levels[s] if s < len(levels) else None
        if level and show_levels:
            label += f" [{level_name(level)}]"
        labels[s] = label
    shown = list(range(len(names))) if seats is None else list(seats)
    pad = max((len(labels[s]) for s in shown), default=0)
    for s in shown:
        line = Text()
        mover = s == view.to_move and view.phase != "over"
        line.append("▶ " if mover else "  ", style="bold #ffd000")
        line.append(f"{labels[s]:<{pad}}", style="bold reverse" if mover else "bold")
        line.append(f"  {cards_count(view.hand_sizes[s]):>8}", style="bold")
        if s == view.dealer:
            line.append("  " + _("dealer"))
        reds = view.red_threes[s]
        if reds:
            line.append("  " + (_("3s: ") if present.family_words(view.rules).laid_out == "threes" else _("red 3s: ")))
            line.append_text(cards_text(reds, style))
        known = view.known[s] if s != view.seat else ()
        if known and hands is None:
            line.append("  " + _("known: "))
            line.append_text(cards_text(known, style))
        if last and s in last:
            line.append("  · " + present.describe(last[s], view.rules), style="italic")
        if hands is not None and s != view.seat:
            line.append("\n      ")
            line.append_text(cards_text(hands[s], style))
        out.append(line)
    return out


def level_name(level: str) -> str:
    """A bot's level in words (``expert:0.5`` keeps its budget)."""
    base, sep, rest = level.partition(":")
    words = {"random": pgettext("bot level", "random"), "basic": pgettext("bot level", "basic"),
             "advanced": pgettext("bot level", "advanced"), "expert": pgettext("bot level", "expert")}
    return words.get(base, base) + sep + rest


def phase_text(view: SeatView, names: Sequence[str]) -> str:
    """Whose move and what is expected, in words."""
    from canasta.i18n.words import end_reason

    who = seat_name(names[view.to_move])
    you = view.seat >= 0 and view.to_move == view.seat
    subject = _("Your move") if you else _("{name}'s move").format(name=who)
    if view.phase == "over":
        return present.hand_phrase(view.rules, "over_now", reason=end_reason(view.end_reason or "ended"))
    if view.phase == "draw":
        what = present.pile_phrase(view.rules, "draw_or_take")
    elif view.phase == "meld":
        what = _("meld, then discard") if view.ask != "pending" else _("waiting for the partner's answer")
        if view.ask == "yes":
            what = _("your partner said YES: you must go out") if you else _("partner said yes: must go out")
        elif view.ask == "no":
            what = _("your partner said NO: you may not go out") if you else _("partner said no")
    elif view.phase == "answer":
        asker = seat_name(names[view.turn % len(names)]) if 0 <= view.turn < len(names) else _("your partner")
        what = _("{name} asks: may I go out? (yes/no)").format(name=asker)
    elif view.phase == "final":
        what = _("last red three drawn: meld, then end the hand")
    else:
        what = view.phase
    return _("{subject}: {what}").format(subject=subject, what=what)


# --------------------------------------------------------------- score sheet

def score_sheet(scores: Sequence[SideScore], labels: Sequence[str], before: Sequence[int],
                after: Sequence[int], laid_out: str = "red_threes") -> RichTable:
    """The full breakdown of one hand, side by side, with running totals (a family's own
    lines, such as Italian's five-canasta bonus, only where a side scored one)."""
    number = current().number
    t = RichTable(title=_("Score sheet"), show_lines=False, header_style="bold")
    t.add_column("", style="bold")
    for label in labels:
        t.add_column(label, justify="right")
    rows = [k for k, _v in scores[0].lines()] if scores else []
    own = {k for s in scores for k, _v in s.bonuses}
    for key in rows:
        values = [dict(s.lines()).get(key, 0) for s in scores]
        if key in own and not any(values):
            continue
        name = score_label(key, laid_out=laid_out)
        t.add_row(name[:1].upper() + name[1:], *[signed(v) if v else "0" for v in values])
    t.add_row(_("Canastas"), *[", ".join(canasta_kind(x) for x in s.canastas) or _("none") for s in scores])
    t.add_row(Text(_("This hand"), style="bold"), *[Text(signed(s.total), style="bold") for s in scores])
    t.add_row(_("Before"), *[number(v) for v in before])
    t.add_row(Text(_("Total"), style="bold"), *[Text(number(v), style="bold reverse") for v in after])
    return t


def signed(value: int) -> str:
    """+1,250 / +1.250; -30."""
    return ("+" if value > 0 else "") + current().number(value)


# --------------------------------------------------------------------- rules

def rules_text(rules: RuleSet, notes: Sequence[str] = ()) -> Text:
    """The rule set in force, generated from the rule set itself; ``notes``: what the family says
    about the table now (:func:`table_notes`), first."""
    from canasta.engine.rules import PRESETS
    from canasta.i18n.rulespage import rules_header

    tr = current()
    t = Text()
    title = tr.preset(rules.name) if rules.name in PRESETS else rules.name
    t.append(f"{rules.name}: {title}\n", style="bold underline")
    if notes:
        t.append(_("At this table now") + "\n", style="bold")
        for note in notes:
            t.append(f"◦ {note}\n")
        t.append("\n")
    t.append(rules_header(rules, tr) + "\n")
    teams = ", ".join("+".join(str(s) for s in team) for team in rules.teams)
    t.append(_("Seats by side: {teams}").format(teams=teams) + "\n")
    t.append(_("{n} cards in all, jokers included").format(n=tr.number(rules.deck_size)) + "\n")
    if rules.hands_in_match():  # a match of a fixed number of hands: the minimum goes by the hand
        t.append(_("Opening minimum by hand: {list}").format(list=", ".join(
            tr.number(rules.minimum_for(0, h)) for h in range(1, rules.hands_in_match() + 1))) + "\n")
    elif present.family_words(rules).minimum_shown == "bands":
        mins = ", ".join(_("{minimum} from {score}").format(
            minimum=tr.number(rules.minimum_for(low if low > -10**8 else -1)),
            score=tr.number(low) if low > -10**8 else _("below 0")) for low, _x in rules.minimum_table)
        t.append(_("Initial meld minimum by score: {list}").format(list=mins) + "\n")
    else:
        t.append(_("Opening minimum by score: {list}").format(list=", ".join(
            _("{minimum} at {score}").format(minimum=tr.number(rules.minimum_for(s)), score=tr.number(s))
            for s in (-1, 0, 3000, 6000, 9000, 12000))) + "\n")
    threes = ", ".join(f"{k} = {tr.number(rules.red_three_points(k))}" for k in range(1, 5))
    if present.family_words(rules).laid_out == "threes":
        t.append(_("Threes, each colour apart: {list}").format(list=threes) + "\n")
    else:
        t.append(_("Red threes: {list}").format(list=threes) + "\n")
    t.append("\n")
    said = family_of(rules).rule_notes(rules)
    if said:  # the family's rules in a few sentences, with this rule set's numbers
        t.append(_("How this game plays") + "\n", style="bold underline")
        for told in said:
            t.append(f"• {tr.table_note(told)}\n")
        t.append("\n")
    t.append(_("Options (house rules are highlighted)") + "\n", style="bold underline")
    for o in rules.options:
        value = rules.get(o.field)
        default = o.choices[0]
        house = value != default
        line = Text()
        line.append(f"{o.id:<6} ", style="bold")
        line.append(f"{tr.option(o.id)}: ")
        line.append(tr.choice(value), style="bold #000000 on #ffe24d" if house else "bold")
        if house:
            line.append("  " + _("HOUSE RULE (sourced default: {value})").format(value=tr.choice(default)),
                        style="bold")
        else:
            line.append("  " + _("(sourced default)"))
        line.append(f"  [{o.rule}; {tr.sources(o.sources)}]\n", style="dim")
        t.append_text(line)
    return t
