"""The error hierarchy, and the registry of every refusal the rules engine can give.

Every error is a ``ValueError`` whose message says why.

* :class:`NotationError`: a card, move or record string could not be read.
* :class:`IllegalMoveError`: a well-formed move that the rules forbid here; it
  carries a stable ``code`` (e.g. ``"WILDS_EXCEED_NATURALS"``), the spec rule it
  breaks (e.g. ``"A.5.4"``) and the ``params`` of its sentence, so an interface
  can explain it in any language.
* :class:`RulesError`: a rule set or rules file that is malformed or inconsistent.
* :class:`PositionError`: a position (JSON) that is malformed or impossible.

The refusal registry
--------------------
:data:`REFUSAL_FORMS` holds every sentence the engine can refuse a move with, as a
:class:`Refusal`: its ``code``, the spec ``rule`` and the English ``text``, a
:meth:`str.format` template with named fields.  A code whose sentence or rule
differs between situations (Classic and Italian, the pile and the pozzo ...) has
one *form* per situation, told apart by a ``variant`` id: the form's ``key`` is
``"CODE"`` for the main form and ``"CODE.variant"`` for the others (e.g.
``"STOCK_EMPTY"`` at A.13.2, ``"STOCK_EMPTY.italian"`` at B.14).  :data:`REFUSALS`
maps each code to its main form.  An error names its form in ``err.key`` (and
``err.variant``), so a translation is looked up by key; ``python -m canasta.engine.errors``
prints the table (docs/refusals.md is generated from it).

Params (``err.params``, a ``dict[str, int | str]``) follow one naming convention,
which the translating edge relies on:

* ``card`` or a name ending in ``_card``: a card (an ``int`` of :mod:`canasta.engine.cards`).
  In the English templates ``{card}`` is written as its code (``7H``) and
  ``{card:name}`` as its name (``seven of hearts``).
* ``rank`` or a name ending in ``_rank``: a rank (an ``int``: ``cards.TWO`` ...
  ``cards.JOKER_RANK``), written in English as its plural (``sevens``).
* ``ranks``: several ranks, a ``str`` of rank ints separated by spaces (``"5 6"``),
  written in English as ``fives and sixes``.
* every other param is a number (an ``int``: a count, a point value, a limit).

No param holds an English word: a sentence that varies by a word is a separate form.
"""

from __future__ import annotations

import string
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from canasta.engine.cards import RANK_PLURALS, card_name, card_str
from canasta.engine.exceptions import CanastaError as CanastaError
from canasta.engine.exceptions import NotationError as NotationError
from canasta.engine.exceptions import PositionError as PositionError
from canasta.engine.exceptions import RulesError as RulesError


@dataclass(frozen=True)
class Refusal:
    """One sentence the engine can refuse a move with."""

    code: str  #: stable code, e.g. "WILDS_EXCEED_NATURALS"
    rule: str  #: spec section, e.g. "A.5.4" ("" when none)
    text: str  #: English sentence, a str.format template with named fields
    variant: str = ""  #: "" for a code's main form, else the id of this situation

    @property
    def key(self) -> str:
        """``CODE`` or ``CODE.variant``: the name of this form."""
        return f"{self.code}.{self.variant}" if self.variant else self.code

    @property
    def fields(self) -> frozenset[str]:
        """The params its text names."""
        return frozenset(f.split(".")[0].split("[")[0] for _, f, _, _ in string.Formatter().parse(self.text) if f)


def _forms(*rows: tuple[str, str, str]) -> dict[str, Refusal]:
    out: dict[str, Refusal] = {}
    for key, rule, text in rows:
        code, _, variant = key.partition(".")
        if key in out:
            raise AssertionError(f"refusal {key} registered twice")
        out[key] = Refusal(code, rule, text, variant)
    return out


_NOT_GOING_OUT = "black threes may be melded only in the turn you go out"
_MUST_TAKE = "the stock is empty and the discard fits one of your melds: you must take it"

#: Every refusal form, by key (``CODE`` or ``CODE.variant``): the shared ones here, then those
#: a family registers (:func:`register_refusals`; Italian's in ``canasta/families/italian/refusals.py``).
REFUSAL_FORMS: Final[dict[str, Refusal]] = _forms(
    # -- any move
    ("NOT_A_MOVE", "", "not a move"),
    ("NOT_A_CARD", "", "{card} is not a card"),
    ("CARD_NOT_IN_HAND", "", "you do not hold the {card:name} ({card})"),
    ("CARD_NOT_IN_HAND.some", "", "you hold only {count} of the {card:name} ({card})"),
    ("HAND_OVER", "", "the hand is over"),
    # -- turn order (A.4, A.12.3, A.13)
    ("ANSWER_PENDING", "A.12.3", "your partner asked \"may I go out?\": answer yes or no"),
    ("NOTHING_TO_ANSWER", "A.12.3", "nobody asked to go out"),
    ("STOCK_EMPTY", "A.13.2", "the stock is empty"),
    ("MUST_TAKE", "A.13.2", _MUST_TAKE),
    ("CANNOT_END", "A.4.1", "the hand continues: meld or discard"),
    ("CANNOT_END.stock", "A.13.2", "you can end the hand only when the stock is empty"),
    ("MUST_DRAW_FIRST", "A.4.1", "first draw from the stock or take the discard pile"),
    ("FINAL_MELD_ONLY", "A.13.1",
     "you drew a red three as the last card: you may meld, then the hand ends (no discard)"),
    ("FINAL_KEEP_CARD", "A.13.1", "after the last stock card you may meld but must keep a card"),
    ("ALREADY_DREW", "A.4.1", "you have already drawn this turn"),
    ("DISCARD_ONE", "", "discard exactly one card"),
    # -- asking to go out (A.12.3)
    ("NO_PARTNER", "A.12.3", "you have no partner to ask"),
    ("ALREADY_ASKED", "A.12.3", "you have already asked this turn"),
    ("ASK_TOO_LATE", "A.12.3", "ask before you are down to your last card"),
    ("CANNOT_GO_OUT", "A.12.3", "ask only when you can go out now"),
    ("PARTNER_SAID_NO", "A.12.3", "your partner said no: you may not go out this turn"),
    ("MUST_GO_OUT", "A.12.3", "your partner said yes: you must go out this turn"),
    ("MUST_GO_OUT.after", "A.12.3",
     "your partner said yes: you must go out this turn, and after this you could not"),
    ("MUST_GO_OUT.pile_below_minimum", "A.7.7",
     "you took the pile below the minimum to go out concealed: you must go out this turn"),
    ("MUST_GO_OUT.pile_below_minimum_after", "A.7.7",
     "you took the pile below the minimum to go out concealed: you must go out this turn, and after this you "
     "could not"),
    ("BOUND_TO_GO_OUT", "A.7.7",
     "you took the pile below the minimum to go out concealed: go out now, without asking"),
    # -- going out (A.12)
    ("NEEDS_CANASTA", "A.12.2", "you cannot go out: your side needs a canasta first, so keep a card to discard"),
    ("NEEDS_CANASTA.two_hands", "A.16.3",
     "you cannot go out: your side needs {need} canastas first, so keep a card to discard"),
    ("NEEDS_CANASTA.partners", "A.18.2",
     "you cannot go out: your side needs {need} canastas first, so keep a card to discard"),
    # -- melds (A.5, A.10, A.11; a form of variant pile or pozzo is said in the words of a family whose
    # -- pile is called so, RuleFamily.pile_word)
    ("EMPTY_MELD", "A.5.1", "meld needs cards"),
    ("EMPTY_MELD.group", "A.5.1", "a meld group needs cards"),
    ("EMPTY_MELD.new", "A.5.1", "a meld needs cards"),
    ("RED_THREE_MELD", "A.10.1", "red threes are never melded; they are laid out as bonus cards"),
    ("MIXED_RANKS", "A.5.1", "a meld is made of one rank; this group mixes {ranks} (sequences are not melds)"),
    ("MIXED_RANKS.new", "A.5.1",
     "a meld is made of one rank; these are {ranks} (sequences and mixed ranks are not melds)"),
    ("WRONG_TARGET", "A.5.7", "these cards are {rank}, not {target_rank}"),
    ("WRONG_TARGET.pile", "A.9.1", "the cards shown with the pile's top card go on its rank's meld"),
    ("WRONG_TARGET.pozzo", "B.10.3", "the cards shown with the pozzo's top card go on its rank's meld"),
    ("WRONG_RANK", "A.9.1",
     "to take the pile you meld its top card ({top_card}) with {rank} and wild cards; {card} does not "
     "belong (other melds go after '+')"),
    ("WRONG_RANK.pozzo", "B.10.3",
     "to take the pozzo you meld its top card ({top_card}) with {rank} and wild cards; {card} does not "
     "belong (other melds go after '+')"),
    ("ALL_WILD_MELD", "A.5.5", "a meld made only of wild cards is not allowed in Classic Canasta"),
    ("ALL_WILD_MELD.name_it", "A.5.5",
     "a meld made only of wild cards is not allowed; to add wild cards to a meld name it, e.g. 'meld 8:2C'"),
    ("ALL_WILD_MELD.group", "A.5.5", "a meld made only of wild cards is not allowed"),
    ("ONE_MELD_PER_RANK", "A.5.7", "put all the {rank} in one group: a side has one meld of each rank"),
    ("BLACK_THREE_MIXED", "A.11.2", "black threes are melded without wild cards"),
    ("BLACK_THREE_MIXED.new", "A.11.2",
     "black threes can only be melded on their own, with no wild cards and no other rank"),
    ("BLACK_THREES_NOT_GOING_OUT", "A.11.2", _NOT_GOING_OUT),
    ("BLACK_THREE_COUNT", "A.11.2", "a black-three meld has three or four black threes"),
    ("NEEDS_TWO_NATURALS", "A.5.2", "a meld needs at least two natural cards"),
    ("NEEDS_TWO_NATURALS.new_meld", "A.5.2",
     "your side has no meld of {rank}; a new meld needs at least two natural cards"),
    ("MELD_TOO_SMALL", "A.5.1", "a meld needs at least three cards"),
    ("TOO_MANY_WILDS", "A.5.3", "a meld may hold at most three wild cards"),
    ("WILDS_EXCEED_NATURALS", "A.5.4", "wild cards may not outnumber the natural cards in a meld"),
    # -- the initial meld (A.7)
    ("INITIAL_MELD_TOO_LOW", "A.7.1",
     "your initial meld counts {value}; your side needs at least {need} (lay all the melds of your initial "
     "meld in one move)"),
    ("INITIAL_MELD_TOO_LOW.pile", "A.7.4",
     "your initial meld counts {value}; you need {need}. Only the pile's top card and cards from your hand "
     "count, and they must be shown before you pick up the pile"),
    ("INITIAL_MELD_TOO_LOW.pozzo", "B.9.6",
     "your opening counts {value}; your team needs {need}. The cards that take the pozzo and the pozzo's "
     "top card do not count."),
    ("NO_ANNOUNCED_OPENING", "B.5.1",
     "'open' is for the rule I-O31 (an opening turn draws one card), not in force here"),
    # -- taking the pile (A.8, A.9)
    ("PILE_BLOCKED", "A.13.2", "you cannot take the pile: the pile is empty"),
    ("PILE_BLOCKED.wild", "A.8.1", "you cannot take the pile: a wild card is on top of the pile"),
    ("PILE_BLOCKED.black_three", "A.8.1", "you cannot take the pile: a black three is on top of the pile"),
    ("PILE_BLOCKED.red_three", "A.8.1", "you cannot take the pile: a red three is on top of the pile"),
    ("ONE_CARD_PILE", "A.9.5", "with one card in hand you may not take a pile of one card"),
    ("FROZEN_NEEDS_NATURAL_PAIR", "A.9.2",
     "the pile is frozen (it holds a wild card): you can take it only with a natural pair of {rank} from "
     "your hand"),
    ("FROZEN_NEEDS_NATURAL_PAIR.unmelded", "A.8.4",
     "the pile is frozen (your side has not made its initial meld): you can take it only with a natural "
     "pair of {rank} from your hand"),
    ("FROZEN_NEEDS_NATURAL_PAIR.pozzo", "B.10.4",
     "to take the pozzo you need {need} natural {rank} (the pozzo is frozen) from your hand, melded with "
     "its top card"),
    ("NO_MATCH_FOR_TOP", "A.9.3",
     "to take the pile you need two natural {rank}, or one and a wild card, or a meld of {rank} to add the "
     "top card to"),
    ("NO_MATCH_FOR_TOP.pozzo", "A.9.3",
     "to take the pozzo you need two natural {rank}, or one and a wild card, or an open meld of that rank"),
)

#: Every code the engine can refuse a move with, by code: its main form.
REFUSALS: Final[dict[str, Refusal]] = {}
for _form in REFUSAL_FORMS.values():
    REFUSALS.setdefault(_form.code, _form)
del _form


def register_refusals(*rows: tuple[str, str, str]) -> None:
    """Add a family's own refusal forms (``(key, rule, text)``, as above) to the
    registry; a key already registered is an error.  A family words or cites a
    shared refusal its own way with the variant of its ``refusal_variant``
    (``CODE.italian``: :meth:`canasta.engine.game.RuleFamily.refusal`)."""
    forms = _forms(*rows)
    for key, form in forms.items():
        if key in REFUSAL_FORMS:
            raise AssertionError(f"refusal {key} registered twice")
        REFUSAL_FORMS[key] = form
        if not form.variant or form.code not in REFUSALS:  # a code's base form, whichever family came first
            REFUSALS[form.code] = form


class _Word:
    """A param as the English templates write it (see the module docstring)."""

    __slots__ = ("name", "value")

    def __init__(self, name: str, value: int | str) -> None:
        self.name = name
        self.value = value

    def __format__(self, spec: str) -> str:
        name, v = self.name, self.value
        if name == "card" or name.endswith("_card"):
            if not isinstance(v, int) or not 0 <= v < 54:
                return repr(v)
            return card_name(v) if spec == "name" else card_str(v)
        if name == "rank" or name.endswith("_rank"):
            return RANK_PLURALS[int(v)]
        if name == "ranks":
            return " and ".join(RANK_PLURALS[int(x)] for x in str(v).split())
        return format(v, spec)


def english(form: Refusal, params: dict[str, int | str]) -> str:
    """The English sentence of a refusal form with these params."""
    return form.text.format_map({k: _Word(k, v) for k, v in params.items()})


class IllegalMoveError(CanastaError):
    """A move the rules forbid in the current position.  The game is unchanged.

    Built from the registry: ``IllegalMoveError.of("CODE", card=c)`` or
    ``raise refuse("CODE.variant", n=3)``.  ``str(err)`` is the English sentence
    followed by `` (rule X)``; ``err.code``, ``err.variant``, ``err.key``,
    ``err.rule`` and ``err.params`` let an interface say it its own way.
    """

    code: str
    variant: str
    rule: str
    params: dict[str, int | str]

    def __init__(self, key: str, /, **params: int | str) -> None:
        form = REFUSAL_FORMS[key]
        super().__init__(key)
        self.code = form.code
        self.variant = form.variant
        self.rule = form.rule
        self.params = params

    @classmethod
    def of(cls, key: str, /, **params: int | str) -> IllegalMoveError:
        """The error of this registered form (``CODE`` or ``CODE.variant``)."""
        return cls(key, **params)

    @property
    def key(self) -> str:
        """The registry key of its form: ``CODE`` or ``CODE.variant``."""
        return f"{self.code}.{self.variant}" if self.variant else self.code

    @property
    def refusal(self) -> Refusal:
        """Its registry entry."""
        return REFUSAL_FORMS[self.key]

    @property
    def message(self) -> str:
        """The English sentence, without the rule."""
        return english(self.refusal, self.params)

    def __str__(self) -> str:
        text = self.message
        return f"{text} (rule {self.rule})" if self.rule else text

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.key, self.params))


def _rebuild(key: str, params: dict[str, int | str]) -> IllegalMoveError:
    return IllegalMoveError(key, **params)


def refuse(key: str, /, **params: int | str) -> IllegalMoveError:
    """``IllegalMoveError.of(key, **params)``, to be raised or returned."""
    return IllegalMoveError(key, **params)


def refusals_markdown() -> str:
    """The table of refusals (docs/refusals.md)."""
    lines = [
        "# Refusals",
        "",
        "Every reason the rules engine can refuse a move, generated by `python -m canasta.engine.errors`",
        "from `canasta.engine.errors.REFUSAL_FORMS` (do not edit by hand). The key is `CODE` or",
        "`CODE.variant`; the sentence is a template whose `{fields}` are the error's params.",
        "",
        "| key | code | rule | sentence |",
        "|---|---|---|---|",
    ]
    for form in REFUSAL_FORMS.values():
        text = form.text.replace("|", "\\|")
        lines.append(f"| `{form.key}` | {form.code} | {form.rule or '-'} | {text} |")
    return "\n".join(lines) + "\n"


def read_text(path: str | Path, what: str, error: type[CanastaError] = CanastaError) -> str:
    """A user's text file (``what``: "rules file", "record" ...), or ``error``
    with a message a person can act on (missing, unreadable, not text)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot read the {what} {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise error(f"{str(path)!r} is not a {what}: it is not UTF-8 text") from None


if __name__ == "__main__":  # pragma: no cover
    # the registry the families added their forms to is the imported module's, not __main__'s
    from canasta.engine import errors as _registry

    sys.stdout.write(_registry.refusals_markdown())
