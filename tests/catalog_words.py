"""Whether a text shown in a language still holds English: the words of the catalogs' English
ids (both domains) that no translation of that language uses.  A screen of the Spanish game that
shows "stock" or "pile" or "Your" shows English; "no", "total" or "canasta", words of both
languages, prove nothing and are not counted.  Shared by the terminal and the browser tests."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from babel.messages.pofile import read_po

from canasta.i18n import DOMAINS, LOCALE_DIR

#: a word as the tests read it: letters (any alphabet), digits joined to them
WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
#: what a screen shows that is not words: card codes (AS, 10H, JK), a file's path, a command
#: ('canasta replay FILE'), the text a deal's seed is hashed from ('canasta-deal:123')
_NOTATION = re.compile(r"\b(?:10|[2-9AKQJ])[SHDC]\b|\bJK\b|\S*/\S*|\bcanasta [a-z]+\b|\bcanasta-deal:\d+"
                       r"|\b(?:classic|italian|american)-[\w-]+")  # (a preset's id)
#: fields, markup and notation inside a message id, which are not words a person reads
_NOT_WORDS = re.compile(r"\{[^{}]*\}|%\(\w+\)[sdr]|%[sdr]|\[/?[a-z ]*\]|`[^`]*`|'[^']*'|--[\w-]+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(_NOT_WORDS.sub(" ", text))}


def _messages(path: str) -> list[tuple[list[str], list[str]]]:
    with open(path, "rb") as f:
        cat = read_po(f)
    out = []
    for m in cat:
        if not m.id:
            continue
        ids = list(m.id) if isinstance(m.id, (tuple, list)) else [m.id]
        strings = list(m.string) if isinstance(m.string, (tuple, list)) else [m.string]
        out.append((ids, [s or "" for s in strings]))
    return out


@functools.cache
def english_only(lang: str) -> frozenset[str]:
    """The words of the English ids that no translation into ``lang`` uses."""
    english: set[str] = set()
    translated: set[str] = set()
    for domain in DOMAINS:
        for ids, strings in _messages(str(LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po")):
            for i in ids:
                english |= _words(i)
            for s in strings:
                translated |= _words(s)
    return frozenset(english - translated)


def english_left(texts: Iterable[str], lang: str, allowed: Iterable[str] = ()) -> dict[str, str]:
    """Each English word found in ``texts`` (and one text it was found in), but the ``allowed``
    ones (names, notation the test knows of)."""
    known = english_only(lang) - {a.lower() for a in allowed}
    found: dict[str, str] = {}
    for text in texts:
        for w in WORD.findall(_NOTATION.sub(" ", text)):
            if len(w) > 1 and w.lower() in known and w.lower() not in found:
                found[w.lower()] = text.strip()[:160]
    return found
