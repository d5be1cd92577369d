"""Account names: what a name may be, when two names are the same, and when one imitates another.

* A name is taken as typed after Unicode NFKC normalisation (compatibility forms folded:
  full-width letters, ligatures, superscripts) with runs of spaces made one; it has 3 to 24
  characters: letters, digits, combining marks after a letter, and ``.``, ``_``, ``-`` or a
  space between them, beginning and ending with a letter or a digit.  Markup (``<``, ``&``,
  quotes, slashes), control and invisible characters are refused, so a name is safe wherever
  it is shown.
* Its letters come from one writing system (Japanese kana with Han characters, Korean Hangul
  with Han, count as one): ``pаypal`` with a Cyrillic ``а`` is refused outright.
* :func:`name_key` is what makes two names the same (``Ann`` and ``ANN``, ``Straße`` and
  ``STRASSE``): NFKC, then case folding.  Names are unique by it.
* :func:`skeleton` is what makes two names look alike: accents dropped, letters of other
  alphabets that look like Latin ones made Latin, digits and letters easily taken for each
  other made one (``0``/``o``, ``1``/``l``/``i``, ``rn``/``m``, ``vv``/``w``), the
  separators left out.  A name whose skeleton is another account's is refused as a
  look-alike (``Ann_1`` beside ``annl``, ``Jose`` beside ``José``).

Every refusal is a :class:`NameRefused` holding an English template marked for the
``canasta`` catalog (``N_``) and its fields, said in the player's language by the card room.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from canasta.i18n import N_

MIN_NAME = 3
MAX_NAME = 24
SEPARATORS = frozenset("._- ")
#: names nobody may take (their skeletons: a look-alike of one is refused too)
RESERVED = ("admin", "administrator", "moderator", "mod", "canasta", "system", "server", "bot", "guest",
            "deleted", "nobody", "root", "support", "staff")
#: writing systems that are written together, counted as one
SCRIPT_GROUPS = {"HIRAGANA": "HAN", "KATAKANA": "HAN", "CJK": "HAN", "HANGUL": "HAN", "IDEOGRAPHIC": "HAN"}

# letters of other alphabets drawn like Latin ones (lower case, after case folding), and
# Latin letters and digits easily read as each other; written out here, one by one
_LIKE_LATIN = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "з": "3", "і": "l", "ї": "l", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ъ": "b", "ь": "b", "ы": "bl", "ч": "4", "п": "n", "г": "r", "л": "n", "и": "u", "д": "a",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "σ": "o", "ς": "c", "μ": "u", "ϲ": "c", "ϳ": "j",
    # Latin and digits read as each other
    "0": "o", "1": "l", "i": "l", "|": "l", "!": "l", "5": "s", "8": "b", "2": "z", "9": "g", "6": "b",
    "ı": "l", "ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ŧ": "t", "ß": "ss", "æ": "ae", "œ": "oe",
}
_PAIRS = (("rn", "m"), ("vv", "w"))


class NameRefused(ValueError):
    """A name that may not be an account's: ``template`` (English, in the ``canasta``
    catalog) with ``fields``."""

    def __init__(self, template: str, **fields: Any) -> None:
        super().__init__(template.format(**fields) if fields else template)
        self.template = template
        self.fields = fields


def normalise(name: str) -> str:
    """``name`` as it will be shown: NFKC, spaces made single, ends trimmed."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def name_key(name: str) -> str:
    """What makes two names the same name: NFKC and case folding (of the shown form)."""
    return unicodedata.normalize("NFKC", normalise(name).casefold())


def script_of(ch: str) -> str | None:
    """The writing system of a letter (its Unicode name's first word, kana and Hangul with Han),
    or None for what is not a letter."""
    if not unicodedata.category(ch).startswith("L"):
        return None
    word = unicodedata.name(ch, "UNKNOWN").split()[0]
    return SCRIPT_GROUPS.get(word, word)


def skeleton(name: str) -> str:
    """What a name looks like (see the module's docstring): two names with one skeleton are
    too alike to tell apart at a glance."""
    plain = "".join(_unaccented(ch) for ch in name_key(name) if ch not in SEPARATORS)
    out = "".join(_LIKE_LATIN.get(ch, ch) for ch in plain)
    changed = True
    while changed:
        changed = False
        for pair, one in _PAIRS:
            if pair in out:
                out = out.replace(pair, one)
                changed = True
    return out


def _unaccented(ch: str) -> str:
    """A letter of the alphabets drawn alike (Latin, Greek, Cyrillic) without its accents; any
    other character as it is (a kana's voicing mark makes another syllable, not an accent)."""
    parts = unicodedata.normalize("NFKD", ch)
    if script_of(parts[0]) in ("LATIN", "GREEK", "CYRILLIC"):
        return "".join(p for p in parts if not unicodedata.combining(p))
    return ch


def check_name(raw: Any) -> str:
    """The name to keep (:func:`normalise`), or :class:`NameRefused` saying why not."""
    if not isinstance(raw, str) or not raw.strip():
        raise NameRefused(N_("pick a name"))
    name = normalise(raw)
    if not MIN_NAME <= len(name) <= MAX_NAME:
        raise NameRefused(N_("a name has {low} to {high} characters"), low=MIN_NAME, high=MAX_NAME)
    previous = ""
    for ch in name:
        cat = unicodedata.category(ch)
        ok = cat.startswith("L") or cat == "Nd" or ch in SEPARATORS or (cat.startswith("M") and previous.isalpha())
        if not ok:
            raise NameRefused(N_("a name may hold only letters, digits, spaces and . _ - (not {char})"),
                              char=repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}")
        if ch in SEPARATORS and previous in SEPARATORS and previous:
            raise NameRefused(N_("a name may not have two of . _ - or spaces in a row"))
        previous = ch
    if name[0] in SEPARATORS or name[-1] in SEPARATORS:
        raise NameRefused(N_("a name begins and ends with a letter or a digit"))
    scripts = {s for s in map(script_of, name) if s is not None}
    if len(scripts) > 1:
        raise NameRefused(N_("a name may not mix alphabets (such as Latin and Cyrillic letters)"))
    if not scripts:
        raise NameRefused(N_("a name needs at least one letter"))
    if skeleton(name) in _RESERVED_SKELETONS:
        raise NameRefused(N_("the name {name} is reserved: choose another"), name=name)
    return name


_RESERVED_SKELETONS = frozenset(skeleton(n) for n in RESERVED)

__all__ = ["MAX_NAME", "MIN_NAME", "NameRefused", "check_name", "name_key", "normalise", "skeleton"]
