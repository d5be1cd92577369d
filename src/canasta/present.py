"""What the table means to a person, said once for every interface.

The terminal app, the card room (its server, and through it the page) and the
replay viewers show the same table; what a gesture means and how a move reads
are decided here, from a seat's view and a family's words, so that no interface
decides them again:

* :class:`Selection` and :func:`candidates`: the move each action would make from
  the cards a person has picked (one rule for the head of a take, the same
  everywhere); :func:`proposals`: the moves the selection makes in this phase.
* :func:`describe`: a move as a line of the log ("West takes the pozzo with 8H 8S"),
  and :func:`proposal`: a move as something to do ("meld 8H 8S 2C"), in the
  language of a :class:`~canasta.i18n.Translator` (the current one by default),
  with the family's words (the pile or the pozzo).
* :func:`dealt`: the log line of a new hand; :func:`pile_word`, :func:`hand_word` and
  :func:`family_words`: what the family calls the discards, a hand, its canastas, a side that
  has opened; :func:`hand_phrase`: the end of a hand said in the family's word for it;
  :func:`pile_phrase` and :func:`pile_size`: what an interface says of the discards, in the
  family's word for them.

Cards are written in the notation (``8H``); an interface draws them as it likes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from canasta.engine.cards import CARD_RANK, IS_NATURAL, IS_WILD, Card, Rank, cards_str
from canasta.engine.family import FamilyWords
from canasta.engine.game import family_of
from canasta.engine.moves import (
    ASK,
    DISCARD,
    DRAW,
    END,
    MELD,
    NO,
    OPEN,
    TAKE,
    YES,
    Group,
    Move,
    group_cards,
    group_target,
    make_group,
)
from canasta.engine.rules import RuleSet
from canasta.i18n import N_, NN_, NP_, Translator, current
from canasta.i18n.words import seat_name
from canasta.views.seat import SeatView

# ------------------------------------------------------------------ the words

#: a move as the log says it, without its player; ``{name} {move}`` puts the player first
DOES: Final = {
    DRAW: NP_("move", "draws"), MELD: NP_("move", "melds {melds}"), DISCARD: NP_("move", "discards {card}"),
    ASK: NP_("move", "asks: may I go out?"), YES: NP_("move", "answers: yes"), NO: NP_("move", "answers: no"),
    END: NP_("move", "ends the hand"), OPEN: NP_("move", "announces an opening"),
}
#: taking the discards, by the family's word for them (RuleFamily.pile_word)
TAKES: Final = {"pile": NP_("move", "takes the pile"), "pozzo": NP_("move", "takes the pozzo")}
#: a move as something to do (a preview, a hint)
TO_DO: Final = {
    DRAW: NP_("proposal", "draw"), MELD: NP_("proposal", "meld {melds}"), DISCARD: NP_("proposal", "discard {card}"),
    ASK: NP_("proposal", "ask to go out"), YES: NP_("proposal", "answer yes"), NO: NP_("proposal", "answer no"),
    END: NP_("proposal", "end the hand"), OPEN: NP_("proposal", "announce an opening"),
}
TAKE_TO_DO: Final = {"pile": NP_("proposal", "take the pile"), "pozzo": NP_("proposal", "take the pozzo")}
#: what an interface says of the discards, by the family's word for them: the pile itself, the
#: panel that shows it with the stock, the button that takes it, what to do in the draw phase
#: and the keys that do it (the terminal app's)
PILE_PHRASES: Final = {
    "pile": {"the": N_("the pile"), "panel": N_("Pile and stock"), "take": N_("Take pile"),
             "draw_or_take": N_("draw from the stock or take the pile"),
             "draw_keys": N_("d: draw · select a pair and t: take the pile · ?: help")},
    "pozzo": {"the": N_("the pozzo"), "panel": N_("Pozzo and stock"), "take": N_("Take pozzo"),
              "draw_or_take": N_("draw from the stock or take the pozzo"),
              "draw_keys": N_("d: draw · select a pair and t: take the pozzo · ?: help")},
}
#: the discards' size, by the family's word for them
PILE_SIZE: Final = {"pile": NN_("{n} card in the pile", "{n} cards in the pile"),
                    "pozzo": NN_("{n} card in the pozzo", "{n} cards in the pozzo")}
#: what an interface says when a hand ends, by the family's word for a hand (RuleFamily.hand_word):
#: the same English, but the family's own word has a context of its own, so that a language says it
#: ("La smazzata 2 è finita" in an Italian game) where its usual word for a hand differs
HAND_PHRASES: Final = {
    "hand": {"over": N_("Hand {n} is over: {went}."), "over_why": N_("Hand {n} is over: {reason}; {went}."),
             "over_now": N_("The hand is over ({reason})")},
    "smazzata": {"over": NP_("smazzata", "Hand {n} is over: {went}."),
                 "over_why": NP_("smazzata", "Hand {n} is over: {reason}; {went}."),
                 "over_now": NP_("smazzata", "The hand is over ({reason})")},
}
WITH: Final = NP_("move", "{takes} with {cards}")
MELDING: Final = NP_("move", "{move}, melding {melds}")
ON_MELD: Final = NP_("move", "{cards} on the {rank}")
WHO_DOES: Final = NP_("move", "{name} {move}")
DEALT: Final = NP_("move", "Hand {hand} dealt")


def pile_word(rules: RuleSet) -> str:
    """The family's word for the discards: ``"pile"`` or ``"pozzo"`` (:attr:`RuleFamily.pile_word`)."""
    word = family_of(rules).pile_word
    return word if word in TAKES else "pile"


def pile_phrase(rules: RuleSet, key: str, t: Translator | None = None) -> str:
    """One of :data:`PILE_PHRASES` (``"the"``, ``"panel"``, ``"take"``, ``"draw_or_take"``,
    ``"draw_keys"``) in the
    family's word for the discards, translated: an interface never chooses between the words."""
    return (t if t is not None else current()).gettext(PILE_PHRASES[pile_word(rules)][key])


def pile_size(rules: RuleSet, n: int, t: Translator | None = None) -> str:
    """"12 cards in the pile" / "12 cards in the pozzo", translated."""
    singular, plural = PILE_SIZE[pile_word(rules)]
    return (t if t is not None else current()).nplural(singular, plural, n)


def hand_word(rules: RuleSet) -> str:
    """The family's word for a hand (one deal): ``"hand"`` or ``"smazzata"`` (:attr:`RuleFamily.hand_word`)."""
    word = family_of(rules).hand_word
    return word if word in HAND_PHRASES else "hand"


def hand_phrase(rules: RuleSet, key: str, t: Translator | None = None, **fields: object) -> str:
    """One of :data:`HAND_PHRASES` (``"over"``, ``"over_why"``, ``"over_now"``) in the family's
    word for a hand, translated and filled in: an interface never chooses between the words."""
    t = t if t is not None else current()
    text = HAND_PHRASES[hand_word(rules)][key]
    said = t.gettext(text) if hand_word(rules) == "hand" else t.pgettext(hand_word(rules), text)
    try:
        return said.format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation that lost a field: English rather than nothing
        return text.format(**fields)


def family_words(rules: RuleSet) -> FamilyWords:
    """What the family calls its canastas, an opened side, ... (:attr:`RuleFamily.words`)."""
    return family_of(rules).words


def canasta_size(rules: RuleSet) -> int:
    """The cards a meld needs to be a canasta in these rules' family (:attr:`RuleFamily.canasta_size`)."""
    return family_of(rules).canasta_size


def _group(g: Group, t: Translator) -> str:
    cards = cards_str(group_cards(g))
    target = group_target(g)
    if target is None:
        return cards
    return _said(t, ON_MELD, cards=cards, rank=t.rank(target, 2))


def _said(t: Translator, text: str, context: str = "move", **fields: str) -> str:
    said = t.pgettext(context, text)
    try:
        return said.format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation that lost a field: English rather than nothing
        return text.format(**fields)


def _take(move: Move, rules: RuleSet, t: Translator, words: dict[str, str], context: str, joiner: str) -> str:
    takes = _said(t, words[pile_word(rules)], context)
    first = group_cards(move.groups[0]) if move.groups else ()
    text = _said(t, WITH, takes=takes, cards=cards_str(first)) if first else takes
    rest = [_group(g, t) for g in move.groups[1:]]
    return _said(t, MELDING, move=text, melds=joiner.join(rest)) if rest else text


def describe(move: Move, rules: RuleSet, who: str | None = None, t: Translator | None = None) -> str:
    """``move`` as a line of the log: "West melds 8H 8S 2C", "Ovest prende il pozzo con 8H 8S";
    without ``who``, the move alone ("draws").  A seat's compass name is translated, a name a
    person chose stays as it is."""
    t = t if t is not None else current()
    k = move.kind
    if k == TAKE:
        what = _take(move, rules, t, TAKES, "move", ", ")
    elif k == MELD:
        named = family_of(rules).meld_note(rules, move)
        what = t.table_note(named) if named is not None else _said(t, DOES[MELD], melds=", ".join(
            _group(g, t) for g in move.groups))
    elif k == DISCARD:
        what = _said(t, DOES[DISCARD], card=cards_str(group_cards(move.groups[0])))
    else:
        what = _said(t, DOES[k]) if k in DOES else str(move)
    return what if who is None else _said(t, WHO_DOES, name=seat_name(who, t), move=what)


def proposal(move: Move, rules: RuleSet, t: Translator | None = None) -> str:
    """``move`` as something to do, for a preview or a hint: "meld 8H 8S 2C", "prendi il pozzo"."""
    t = t if t is not None else current()
    k = move.kind
    if k == TAKE:
        return _take(move, rules, t, TAKE_TO_DO, "proposal", " + ")
    if k == MELD:
        return _said(t, TO_DO[MELD], "proposal", melds=" + ".join(_group(g, t) for g in move.groups))
    if k == DISCARD:
        return _said(t, TO_DO[DISCARD], "proposal", card=cards_str(group_cards(move.groups[0])))
    return _said(t, TO_DO[k], "proposal") if k in TO_DO else str(move)


def dealt(hand: int, t: Translator | None = None) -> str:
    """The log line of a new hand: "Hand 2 dealt"."""
    return _said(t if t is not None else current(), DEALT, hand=str(hand))


# -------------------------------------------------------------- the gestures

#: the actions an interface offers, each one move (a button, a key)
ACTIONS: Final = ("draw", "take", "meld", "discard", "ask", "yes", "no", "end", "open")


@dataclass(frozen=True)
class Selection:
    """The cards a person has picked from their hand: groups set aside for a meld of
    several groups (``staged``, in the order they were set aside), the cards picked now
    (``cards``), and the rank of the meld a group of wild cards only is to join
    (``target``; a staged group may have been set aside with its own, ``staged_targets``)."""

    staged: tuple[tuple[Card, ...], ...] = ()
    cards: tuple[Card, ...] = ()
    target: Rank | None = None
    staged_targets: tuple[Rank | None, ...] = ()

    @classmethod
    def of(cls, staged: Sequence[Sequence[Card]] = (), cards: Sequence[Card] = (), target: Rank | None = None,
           staged_targets: Sequence[Rank | None] = ()) -> Selection:
        kept = [i for i, g in enumerate(staged) if g]
        targets = tuple(staged_targets[i] if i < len(staged_targets) else None for i in kept)
        return cls(tuple(tuple(staged[i]) for i in kept), tuple(cards), target,
                   targets if any(x is not None for x in targets) else ())

    @property
    def groups(self) -> tuple[tuple[Card, ...], ...]:
        """Every group, the staged ones first, the cards picked now last."""
        return self.staged + ((self.cards,) if self.cards else ())

    def group(self, index: int) -> Group:
        """Group ``index`` of :attr:`groups` as a meld's: wild cards only go on their target's meld."""
        cards = self.groups[index]
        own = self.staged_targets[index] if index < len(self.staged_targets) else None
        wild_only = bool(cards) and all(IS_WILD[c] for c in cards)
        return make_group(cards, (own if own is not None else self.target) if wild_only else None)


def take_move(view: SeatView, sel: Selection) -> Move:
    """Taking the discards with the picked cards.  The group that holds a natural card of
    the top card's rank goes with the top card (whether it was staged or picked last);
    without one, the cards picked now do; every other group is laid first, in order."""
    top = view.pile[-1] if view.pile else None
    groups = sel.groups
    head = next((i for i, g in enumerate(groups) if top is not None
                 and any(IS_NATURAL[c] and CARD_RANK[c] == CARD_RANK[top] for c in g)), None)
    if head is None and sel.cards:
        head = len(groups) - 1
    cards = groups[head] if head is not None else ()
    return Move.take(cards, *(sel.group(i) for i in range(len(groups)) if i != head))


def candidates(view: SeatView, sel: Selection = Selection()) -> dict[str, Move]:
    """The move each action (:data:`ACTIONS`) would make now from ``sel``, for the actions
    the selection and the table allow at all; whether the rules allow it is the engine's
    answer (:meth:`canasta.play.table.Table.why_not`)."""
    out: dict[str, Move] = {"draw": Move.draw(), "take": take_move(view, sel)}
    if sel.groups:
        out["meld"] = Move.meld(*(sel.group(i) for i in range(len(sel.groups))))
    if len(sel.cards) == 1 and not sel.staged:
        out["discard"] = Move.discard(sel.cards[0])
    if view.seat >= 0 and sum(1 for s in view.side_of if s == view.side) > 1:
        out["ask"] = Move.ask()
    out["yes"], out["no"], out["end"] = Move.answer(True), Move.answer(False), Move.end()
    if family_of(view.rules).has_open_move(view.rules):
        out["open"] = Move.open()
    return out


def proposals(view: SeatView, sel: Selection) -> list[tuple[str, Move]]:
    """The moves the selection itself makes in this phase (a take before drawing; a meld,
    or a discard of one card, after), for a preview of what a key would do."""
    if not sel.groups:
        return []
    every = candidates(view, sel)
    wanted = ("take",) if view.phase == "draw" else ("meld", "discard") if view.phase in ("meld", "final") else ()
    return [(action, every[action]) for action in wanted if action in every]


__all__ = ["ACTIONS", "Selection", "candidates", "dealt", "describe", "family_words", "hand_phrase", "hand_word", "pile_word", "proposal", "proposals",
           "take_move"]
