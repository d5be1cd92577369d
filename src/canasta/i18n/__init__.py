"""Languages: English, Spanish, Italian, Brazilian Portuguese (and any language that gets a catalog).

Every text a person reads goes through a :class:`Translator`; the engine keeps
English messages and stable codes, and the text is translated at the edge::

    from canasta.i18n import negotiate, translator

    t = translator(negotiate(args.lang))
    print(t.gettext("Your turn"))
    print(t.card(48))                     # "the ace of spades" / "l'asso di picche"
    print(t.refusal(err))                 # an IllegalMoveError in this language, with its rule

Only the standard library's :mod:`gettext` is used at run time; the compiled
catalogs (``.mo``) ship inside the package, under ``canasta/locale``.  Babel is
needed only to extract, update and compile them (``python -m
canasta.i18n.catalog``, see docs/languages.md).

Two domains: ``canasta`` (this package's Python sources and the engine's data:
rule options, refusals) and ``canasta-web`` (the browser's strings).

:data:`PSEUDO` (``qps``) is a pseudo-language made at run time from the English
message ids: every translated text comes out visibly marked (``⟦Ŧĥé ŝţöçķ⟧``),
so a test can find any text that bypassed the catalog.
"""

from __future__ import annotations

import functools
import gettext as _gettext
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from canasta.engine.cards import JOKER, NUM_CARDS

if TYPE_CHECKING:
    from canasta.engine.errors import IllegalMoveError
    from canasta.engine.family import PileNote, TableNote

#: where the catalogs live: locale/<lang>/LC_MESSAGES/<domain>.po/.mo and locale/<domain>.pot
LOCALE_DIR: Final = Path(__file__).resolve().parent.parent / "locale"
DOMAIN: Final = "canasta"
WEB_DOMAIN: Final = "canasta-web"
DOMAINS: Final = (DOMAIN, WEB_DOMAIN)
DEFAULT: Final = "en"
PSEUDO: Final = "qps"
#: pgettext's separator between context and message id in a compiled catalog (and in :meth:`Translator.catalog`)
CONTEXT_SEP: Final = "\x04"


def _languages() -> tuple[str, ...]:
    """English first, then every language with a compiled catalog of the Python domain."""
    found: list[str] = []
    if LOCALE_DIR.is_dir():
        found = sorted(d.name for d in LOCALE_DIR.iterdir()
                       if (d / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file() and d.name not in (DEFAULT, PSEUDO))
    return (DEFAULT, *found)


#: the real languages: a new one is a new catalog and nothing else
LANGUAGES: Final[tuple[str, ...]] = _languages()
#: each language's name in itself (for a language menu); a language not listed shows its code
LANGUAGE_NAMES: Final[dict[str, str]] = {"en": "English", "es": "Español", "it": "Italiano",
                                          "pt_BR": "Português", PSEUDO: "Pseudo"}


# -- markers: the extractor finds these; at run time they return their arguments unchanged

def N_(msgid: str) -> str:
    """Mark a message id for extraction; it is translated later, where it is shown."""
    return msgid


def NP_(context: str, msgid: str) -> str:
    """Mark a message id with a context (translated later with ``pgettext(context, msgid)``)."""
    return msgid


def NN_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a plural pair (translated later with ``ngettext``)."""
    return singular, plural


def NNP_(context: str, singular: str, plural: str) -> tuple[str, str]:
    """Mark a plural pair with a context (translated later with ``npgettext``)."""
    return singular, plural


# -- choosing a language

def _normalize(tag: str | None) -> str | None:
    """``"it_IT.UTF-8"`` -> ``"it"``; ``"en-GB"`` -> ``"en"``; ``"pt-br"`` -> ``"pt_BR"``; a
    language whose only catalog is a region's stands for every region of it (``"pt_PT"``,
    ``"pt"`` -> ``"pt_BR"``); a language without a catalog -> None."""
    if not tag:
        return None
    t = tag.strip().split(".")[0].split("@")[0].replace("-", "_").lower()
    if t == PSEUDO:
        return PSEUDO
    base = t.split("_")[0]
    if base in ("c", "posix"):
        return DEFAULT
    known = {code.lower(): code for code in LANGUAGES}
    if t in known:
        return known[t]
    if base in known:
        return known[base]
    return next((code for code in LANGUAGES if code.split("_")[0].lower() == base), None)


def _accept_language(header: str) -> list[str]:
    """The languages of an ``Accept-Language`` header, best first (ties keep their order)."""
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")):
        fields = part.strip().split(";")
        tag = fields[0].strip()
        if not tag:
            continue
        q = 1.0
        for f in fields[1:]:
            k, _, v = f.strip().partition("=")
            if k.strip() == "q":
                try:
                    q = float(v)
                except ValueError:
                    q = 0.0
        if q > 0:
            ranked.append((-q, i, tag))
    return [tag for _, _, tag in sorted(ranked)]


def negotiate(requested: str | None = None, accept_language: str | None = None,
              environ: Mapping[str, str] | None = None) -> str:
    """The language to use: an explicit choice (``--lang``, a saved setting, the page's
    menu), then the ``Accept-Language`` header, then the environment (``LANGUAGE``,
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext reads them); English otherwise.
    The pseudo-language is chosen only explicitly."""
    lang = _normalize(requested)
    if lang is not None:
        return lang
    if accept_language:
        for tag in _accept_language(accept_language):
            if tag == "*":
                return DEFAULT
            lang = _normalize(tag)
            if lang is not None and lang != PSEUDO:
                return lang
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if not value:
            continue
        for tag in value.split(":"):  # LANGUAGE is a list: it:en
            lang = _normalize(tag)
            if lang is not None and lang != PSEUDO:
                return lang
        if var != "LANGUAGE":
            break  # the first of LC_ALL, LC_MESSAGES, LANG that is set decides, as in gettext
    return DEFAULT


# -- pseudo-language

_PSEUDO_MAP: Final = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àƀçđéƒĝĥîĵķľɱñöþǫŕŝţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĽṀÑÖÞǪŔŜŦÛṼŴẊÝŽ",
)
PSEUDO_OPEN: Final = "⟦"
PSEUDO_CLOSE: Final = "⟧"


def pseudo(text: str) -> str:
    """``"The stock"`` -> ``"⟦Ŧĥé ŝţöçķ⟧"``: letters accented, placeholders (``{name}``,
    ``%(name)s``, ``%s``, ``%d``) and markup (``[b]``) kept as they are."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        end = -1
        if (ch == "{" and text.startswith("{{", i)) or (ch == "}" and text.startswith("}}", i)):
            end = i + 2
        elif ch in "{[":
            close = text.find("}" if ch == "{" else "]", i)
            end = close + 1 if close > 0 else -1
        elif ch == "%" and i + 1 < len(text):
            if text[i + 1] == "(":
                close = text.find(")", i)
                end = close + 2 if close > 0 else -1
            else:
                end = i + 2
        if end > i:
            out.append(text[i:end])
            i = end
        else:
            out.append(ch.translate(_PSEUDO_MAP))
            i += 1
    return PSEUDO_OPEN + "".join(out) + PSEUDO_CLOSE


class _Pseudo(_gettext.NullTranslations):
    """Every message marked: the msgid (or the plural msgid) through :func:`pseudo`."""

    def gettext(self, message: str) -> str:
        return pseudo(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return pseudo(msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return pseudo(message)

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return pseudo(msgid1 if n == 1 else msgid2)


# -- cards and ranks as words (English message ids; the catalogs translate them)

_SUITS: Final = (NP_("suit", "spades"), NP_("suit", "hearts"), NP_("suit", "diamonds"), NP_("suit", "clubs"))
#: a card's name with its article ("the king of hearts" / "il re di cuori")
_CARD_NAMES: Final = (
    NP_("card", "the two of {suit}"), NP_("card", "the three of {suit}"), NP_("card", "the four of {suit}"),
    NP_("card", "the five of {suit}"), NP_("card", "the six of {suit}"), NP_("card", "the seven of {suit}"),
    NP_("card", "the eight of {suit}"), NP_("card", "the nine of {suit}"), NP_("card", "the ten of {suit}"),
    NP_("card", "the jack of {suit}"), NP_("card", "the queen of {suit}"), NP_("card", "the king of {suit}"),
    NP_("card", "the ace of {suit}"), NP_("card", "the joker"),
)
#: a card's bare name ("king of hearts" / "re di cuori")
_BARE_NAMES: Final = (
    NP_("card", "two of {suit}"), NP_("card", "three of {suit}"), NP_("card", "four of {suit}"),
    NP_("card", "five of {suit}"), NP_("card", "six of {suit}"), NP_("card", "seven of {suit}"),
    NP_("card", "eight of {suit}"), NP_("card", "nine of {suit}"), NP_("card", "ten of {suit}"),
    NP_("card", "jack of {suit}"), NP_("card", "queen of {suit}"), NP_("card", "king of {suit}"),
    NP_("card", "ace of {suit}"), NP_("card", "joker"),
)
_RANK_WORDS: Final = (
    NNP_("rank", "two", "twos"), NNP_("rank", "three", "threes"), NNP_("rank", "four", "fours"),
    NNP_("rank", "five", "fives"), NNP_("rank", "six", "sixes"), NNP_("rank", "seven", "sevens"),
    NNP_("rank", "eight", "eights"), NNP_("rank", "nine", "nines"), NNP_("rank", "ten", "tens"),
    NNP_("rank", "jack", "jacks"), NNP_("rank", "queen", "queens"), NNP_("rank", "king", "kings"),
    NNP_("rank", "ace", "aces"), NNP_("rank", "joker", "jokers"),
)
_BOOL_WORDS: Final = (NP_("rule choice", "no"), NP_("rule choice", "yes"))


class Translator:
    """The texts of one language and one domain."""

    def __init__(self, lang: str, domain: str = DOMAIN) -> None:
        self.lang = lang
        self.domain = domain
        self._t: _gettext.NullTranslations
        if lang == PSEUDO:
            self._t = _Pseudo()
        else:
            self._t = _gettext.translation(domain, str(LOCALE_DIR), languages=[lang], fallback=True)
        self._thousands = self.pgettext("number", ",")
        self._decimal = self.pgettext("decimal point", ".")
        if lang == PSEUDO:
            self._thousands, self._decimal = ",", "."

    def __repr__(self) -> str:
        return f"Translator({self.lang!r}, {self.domain!r})"

    # -- gettext

    def gettext(self, msgid: str) -> str:
        return self._t.gettext(msgid)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._t.ngettext(singular, plural, n)

    def pgettext(self, context: str, msgid: str) -> str:
        return self._t.pgettext(context, msgid)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return self._t.npgettext(context, singular, plural, n)

    def has(self, msgid: str, context: str | None = None) -> bool:
        """Whether this catalog translates ``msgid`` (the pseudo-language: whether a real catalog has it)."""
        key = f"{context}{CONTEXT_SEP}{msgid}" if context else msgid
        t = self._t
        if self.lang == PSEUDO:  # the message ids of a real catalog
            t = translator(LANGUAGES[1] if len(LANGUAGES) > 1 else DEFAULT, self.domain)._t
        catalog = getattr(t, "_catalog", {})
        return key in catalog or (key, 0) in catalog

    # -- words of the game

    def card(self, card: int, article: bool = True) -> str:
        """A card's full name: "the king of hearts" / "il re di cuori", the joker "the joker" /
        "il jolly"; without the article with ``article=False`` ("king of hearts" / "re di cuori")."""
        if not 0 <= card < NUM_CARDS:
            return str(card)
        names = _CARD_NAMES if article else _BARE_NAMES
        if card == JOKER:
            return self.pgettext("card", names[13])
        suit = self.pgettext("suit", _SUITS[card & 3])
        return self.pgettext("card", names[card >> 2]).format(suit=suit)

    def suit(self, suit: int) -> str:
        """A suit in words: "hearts" / "cuori"."""
        return self.pgettext("suit", _SUITS[suit & 3])

    def rank(self, rank: int, count: int = 1) -> str:
        """A rank in words, singular or plural by ``count``: "king"/"kings", "re"/"re", "pinella"/"pinelle"."""
        if not 0 <= rank < len(_RANK_WORDS):
            return str(rank)
        one, many = _RANK_WORDS[rank]
        return self.npgettext("rank", one, many, count)

    def number(self, n: float, digits: int = 0) -> str:
        """1,234 / 1.234 (and 1,234.5 / 1.234,5 with ``digits``)."""
        text = f"{n:,.{digits}f}"
        if (self._thousands, self._decimal) == (",", "."):
            return text
        return text.replace(",", "\0").replace(".", self._decimal).replace("\0", self._thousands)

    def nplural(self, singular: str, plural: str, n: int, **fields: Any) -> str:
        """``ngettext`` with ``{n}`` (the number written in this language) and ``fields`` filled in."""
        return self.ngettext(singular, plural, n).format(n=self.number(n), **fields)

    def yes_no(self, value: bool) -> str:
        return self.pgettext("rule choice", _BOOL_WORDS[bool(value)])

    # -- refusals

    def ranks(self, ranks: Iterable[int]) -> str:
        """Several ranks as words: "fives and sixes" / "cinque e sei"."""
        words = [self.rank(r, 2) for r in ranks]
        if not words:
            return ""
        text = words[-1]
        for w in reversed(words[:-1]):
            text = self.pgettext("list", "{first} and {last}").format(first=w, last=text)
        return text

    def params(self, params: Mapping[str, int | str]) -> dict[str, object]:
        """A refusal's params, ready for ``str.format`` in this language (the convention of
        :mod:`canasta.engine.errors`): ``card``/``*_card`` -> ``{card}`` the notation (7H),
        ``{card:name}`` the name ("seven of hearts" / "sette di cuori"), ``{card:the}`` the
        name with its article ("il sette di cuori"); ``rank``/``*_rank`` -> its plural
        (``{rank:one}`` the singular); ``ranks`` -> "fives and sixes"; numbers in this language."""
        return {k: _Local(self, k, v) for k, v in params.items()}

    def pile_note(self, note: PileNote) -> str:
        """A note on the pile (:func:`canasta.views.seat.pile_note_list`) in this language."""
        from canasta.engine.family import PILE_NOTES

        text = self.pgettext("pile note", PILE_NOTES[note.key])
        return text.format(n=self.number(note.n), rank=self.rank(note.rank, 2) if note.rank >= 0 else "")

    def table_note(self, note: TableNote) -> str:
        """A family's note on the table (:func:`canasta.views.seat.table_note_list`) in this language."""
        from canasta.engine.family import table_note_texts

        text = self.pgettext("table note", table_note_texts()[note.key])
        try:
            return text.format(n=self.number(note.n), rank=self.rank(note.rank, 2) if note.rank >= 0 else "")
        except (KeyError, IndexError, ValueError):  # a translation that lost a field: English rather than nothing
            return note.text

    def refusal(self, err: IllegalMoveError) -> str:
        """An illegal move's refusal in this language, with its rule: "... (rule A.5.4)" /
        "... (regola A.5.4)".  An unregistered code gives ``str(err)``."""
        try:
            from canasta.engine import errors
        except ImportError:  # pragma: no cover
            return str(err)
        forms: Mapping[str, Any] = getattr(errors, "REFUSAL_FORMS", None) or getattr(errors, "REFUSALS", {})
        key = str(getattr(err, "key", None) or getattr(err, "code", ""))
        ref = forms.get(key)
        if ref is None:
            return str(err)
        fields = self.params(getattr(err, "params", None) or {})
        template = self.pgettext(f"refusal {key}", ref.text)
        try:
            text = template.format_map(_Missing(fields))
        except (ValueError, IndexError, AttributeError, KeyError, TypeError):
            return str(err)
        rule = getattr(ref, "rule", "") or getattr(err, "rule", "")
        return self.gettext("{text} (rule {rule})").format(text=text, rule=rule) if rule else text

    # -- rule options

    def option(self, option_id: str) -> str:
        """A rule option's description ("Wild cards in a meld" / "Matte in una combinazione")."""
        from canasta.engine.rules import OPTIONS_BY_ID

        info = OPTIONS_BY_ID.get(option_id)
        return self.pgettext("rule option", info.topic) if info is not None else option_id

    def choice(self, value: object) -> str:
        """A rule option's value in words: yes/no, a number, a named choice."""
        if isinstance(value, bool):
            return self.yes_no(value)
        if isinstance(value, int):
            return self.number(value)
        text = str(value).replace("_", " ")
        return self.pgettext("rule choice", text)

    def sources(self, sources: str) -> str:
        """An option's sources ("SEED-000, SAP"; some with a word of explanation)."""
        return self.pgettext("rule sources", sources) if sources else sources

    def family(self, family: str) -> str:
        """A rule family's game by name ("Classic Canasta"), as the family calls it
        (:attr:`FamilyWords.title <canasta.engine.family.FamilyWords.title>`)."""
        from canasta.engine.game import FAMILIES

        known = FAMILIES.get(family)
        title = known.words.title if known is not None else ""
        return self.gettext(title) if title else family

    def preset(self, name: str) -> str:
        """A preset's name in words: "Classic Canasta, 4 players (two partnerships)"."""
        from canasta.engine.rules import PRESETS

        rules = PRESETS.get(name)
        if rules is None:
            return name
        players = self.nplural("{n} player", "{n} players", rules.players)
        sides = len(rules.teams)
        if rules.cutthroat:
            teams = self.gettext("cut-throat")
        elif sides == rules.players:
            teams = self.gettext("each for themselves")
        elif rules.players == 2 * sides:
            teams = self.nplural("{n} partnership", "{n} partnerships", sides)
        else:
            teams = self.nplural("{n} team of {size}", "{n} teams of {size}", sides, size=rules.players // sides)
        return self.gettext("{family}, {players} ({teams})").format(
            family=self.family(rules.family), players=players, teams=teams)

    # -- the whole catalog

    def catalog(self) -> dict[str, str | list[str]]:
        """Every message id -> its translation in this domain (plural entries as the list of
        forms; a context as ``context + "\\x04" + msgid``), e.g. to send to a browser as JSON."""
        raw: dict[Any, str] = getattr(self._t, "_catalog", {})
        if self.lang == PSEUDO:  # every id of a real catalog, marked (a plural's forms: its singular)
            for lang in LANGUAGES[1:2]:
                model: dict[Any, str] = getattr(translator(lang, self.domain)._t, "_catalog", {})
                raw = {}
                for key in model:
                    if isinstance(key, tuple):
                        raw[key] = pseudo(key[0].rpartition(CONTEXT_SEP)[2])
                    elif key:
                        raw[key] = pseudo(key.rpartition(CONTEXT_SEP)[2])
        out: dict[str, str | list[str]] = {}
        plurals: dict[str, dict[int, str]] = {}
        for key, value in raw.items():
            if isinstance(key, tuple):
                plurals.setdefault(key[0], {})[key[1]] = value
            elif key:  # the header has the empty id
                out[key] = value
        for key, forms in plurals.items():
            out[key] = [forms[i] for i in sorted(forms)]
        return out

    def plural_rule(self) -> str:
        """The catalog's ``Plural-Forms`` header (for a browser to choose a plural form)."""
        info = self._t.info() if hasattr(self._t, "info") else {}
        return str(info.get("plural-forms", "nplurals=2; plural=(n != 1);"))


class _Local:
    """A refusal's param written in a language (see :meth:`Translator.params`)."""

    __slots__ = ("name", "t", "value")

    def __init__(self, t: Translator, name: str, value: int | str) -> None:
        self.t, self.name, self.value = t, name, value

    def __format__(self, spec: str) -> str:
        from canasta.engine.cards import card_str

        t, name, v = self.t, self.name, self.value
        if name == "card" or name.endswith("_card"):
            if not isinstance(v, int) or not 0 <= v < NUM_CARDS:
                return repr(v)
            if spec == "name":
                return t.card(v, article=False)
            if spec == "the":
                return t.card(v)
            return card_str(v)
        if name == "rank" or name.endswith("_rank"):
            return t.rank(int(v), 1 if spec == "one" else 2)
        if name == "ranks":
            return t.ranks(int(x) for x in str(v).split())
        if isinstance(v, int) and not spec:
            return t.number(v)
        return format(v, spec)

    def __str__(self) -> str:
        return self.__format__("")


class _Missing(dict[str, object]):
    """``str.format_map`` that leaves an unknown field as it is written."""

    def __missing__(self, key: str) -> object:
        return "{" + key + "}"


@functools.cache
def translator(lang: str, domain: str = DOMAIN) -> Translator:
    """The (cached) translator of a language; an unknown language is English."""
    if lang != PSEUDO and lang not in LANGUAGES:
        lang = DEFAULT
    return Translator(lang, domain)


__all__ = [
    "DOMAIN", "DOMAINS", "LANGUAGES", "LANGUAGE_NAMES", "LOCALE_DIR", "NNP_", "NN_", "NP_", "N_", "PSEUDO",
    "WEB_DOMAIN", "Translator", "current", "negotiate", "ngettext", "nplural", "pgettext", "pseudo", "translator",
    "use",
]


# -- one language for the whole process (the command line and the terminal app; a
#    server keeps one translator per client instead)

_current: list[Translator] = []


def use(lang: str) -> Translator:
    """Make ``lang`` the process's language (:func:`current`, :func:`_`)."""
    t = translator(lang)
    _current[:] = [t]
    return t


def current() -> Translator:
    """The process's language (English until :func:`use` is called)."""
    return _current[0] if _current else translator(DEFAULT)


def _(msgid: str) -> str:
    """``current().gettext(msgid)``."""
    return current().gettext(msgid)


def ngettext(singular: str, plural: str, n: int) -> str:
    return current().ngettext(singular, plural, n)


def pgettext(context: str, msgid: str) -> str:
    return current().pgettext(context, msgid)


def nplural(singular: str, plural: str, n: int, **fields: Any) -> str:
    """``current().nplural(...)``: a plural with ``{n}`` written in the language."""
    return current().nplural(singular, plural, n, **fields)
