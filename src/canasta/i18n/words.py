"""The engine's words that reach a person (seat names, why a hand ended, the kinds
of canasta on a score sheet, the score sheet's rows), in the language of the
moment.  The engine keeps them as English identifiers; they are listed here for
extraction and translated where they are shown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from canasta.i18n import N_, NN_, NP_, Translator, current

#: seat names given by the table (canasta.play.table.COMPASS) and their translations
SEAT_NAMES: Final = (
    NP_("seat", "South"), NP_("seat", "West"), NP_("seat", "North"), NP_("seat", "East"),
    NP_("seat", "South-west"), NP_("seat", "North-west"), NP_("seat", "North-east"), NP_("seat", "South-east"),
)

#: why a hand ended (Game.end_reason)
END_REASONS: Final = (
    N_("went out"), N_("the stock ran out"), N_("the stock ran out and the pile could not be taken"),
    N_("a red three was drawn as the last card of the stock"),
    N_("the stock ran out and the player did not take the pile"), N_("ended"),
)

#: the kinds of canasta a score sheet lists (scoring.SideScore.canastas)
CANASTA_KINDS: Final = {
    "natural": NP_("canasta kind", "natural"), "mixed": NP_("canasta kind", "mixed"),
    "natural concealed": NP_("canasta kind", "natural concealed"),
    "mixed concealed": NP_("canasta kind", "mixed concealed"),
    "clean": NP_("canasta kind", "clean"), "dirty": NP_("canasta kind", "dirty"),
    "clean_aces": NP_("canasta kind", "clean aces"), "dirty_aces": NP_("canasta kind", "dirty aces"),
    "pinellata": NP_("canasta kind", "pinellata (clean deuces)"),
    "dirty_deuces": NP_("canasta kind", "dirty deuces"),
    "toro_seduto": NP_("canasta kind", "toro seduto (clean jokers)"),
    "dirty_jokers": NP_("canasta kind", "dirty jokers"),
}

#: the score sheet's items (SideScore.as_dict keys)
SCORE_ITEMS: Final = {
    "meld_points": NP_("score", "cards in melds"),
    "canasta_bonuses": NP_("score", "canasta bonuses"),
    "red_threes": NP_("score", "red threes"),
    "threes": NP_("score", "threes"),  # the red_threes line where a family lays out every three (C.14.1 c)
    "going_out": NP_("score", "going out"),
    "five_canasta_bonus": NP_("score", "five-canasta bonus"),
    "unfinished_melds": NP_("score", "unfinished melds of aces, sevens or wild cards"),  # C.14.1 b
    "aces_sevens_held": NP_("score", "three or more aces or sevens held"),  # C.14.1 f
    "special_hand": NP_("score", "special hand"),  # C.13.3
    "cards_in_hand": NP_("score", "cards left in hand"),
    "cards_in_hand_doubled": NP_("score", "cards in hand doubled"),
    "cards_in_hand_undoubled": NP_("score", "cards in hand, not doubled"),
    "canastas": NP_("score", "canastas"),
    "total": NP_("score", "total"),
}


def _t(t: Translator | None) -> Translator:
    return t if t is not None else current()


def seat_name(name: str, t: Translator | None = None) -> str:
    """A seat's compass name in words ("West" / "Ovest"); a name a person chose stays as it is."""
    return _t(t).pgettext("seat", name) if name in SEAT_NAMES else name


def seat_label(names: Sequence[str], seat: int, t: Translator | None = None) -> str:
    return seat_name(names[seat], t) if 0 <= seat < len(names) else str(seat)


def end_reason(reason: str, t: Translator | None = None) -> str:
    return _t(t).gettext(reason) if reason in END_REASONS else reason


def canasta_kind(kind: str, t: Translator | None = None) -> str:
    msgid = CANASTA_KINDS.get(kind)
    return _t(t).pgettext("canasta kind", msgid) if msgid else kind.replace("_", " ")


def score_label(key: str, t: Translator | None = None, laid_out: str = "red_threes") -> str:
    """A score line's name; the threes' line (``red_threes``) by the family's word for the cards it
    lays out (``FamilyWords.laid_out``: ``"threes"`` where every three is laid out)."""
    msgid = SCORE_ITEMS.get(laid_out if key == "red_threes" and laid_out in SCORE_ITEMS else key)
    return _t(t).pgettext("score", msgid) if msgid else key.replace("_", " ")


def score_item(key: str, value: object, t: Translator | None = None, laid_out: str = "red_threes") -> str:
    """``canastas natural and mixed`` / ``canaste pulita e sporca``; ``total 1,250``."""
    tr = _t(t)
    if isinstance(value, (list, tuple)):
        kinds = [canasta_kind(str(v), tr) for v in value]
        text = kinds[-1] if kinds else ""
        for k in reversed(kinds[:-1]):
            text = tr.pgettext("list", "{first} and {last}").format(first=k, last=text)
    elif isinstance(value, bool):
        text = tr.yes_no(value)
    elif isinstance(value, int):
        text = tr.number(value)
    else:
        text = str(value)
    return f"{score_label(key, tr, laid_out)} {text}"


#: argparse's own texts (usage, errors), translated through it (see canasta.cli.set_language)
ARGPARSE: Final = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"), N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"), N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("argument %(argument_name)s: %(message)s"), N_("expected one argument"),
    N_("invalid %(type)s value: %(value)r"), N_("not allowed with argument %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"), N_("one of the arguments %s is required"),
    N_("expected at least one argument"), N_("expected at most one argument"), N_("ignored explicit argument %r"),
    NN_("expected %s argument", "expected %s arguments"),
)
