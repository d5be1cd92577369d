"""The card room in the player's language.

The pages carry their own texts (the ``canasta-web`` catalog, loaded by
``static/i18n.js`` from ``/i18n/catalog.json``); what the server says to one
client (why a move is refused, why a message is refused: the ``canasta``
catalog) is put into that client's language here, when it is sent: :func:`say_error` keeps the English text's
template and fields beside it, :func:`localize` turns them into the language and
strips them.  An engine refusal is translated from its code and fields
(:meth:`canasta.i18n.Translator.refusal`), so its code and rule stay as they are.
"""

from __future__ import annotations

import gettext
import re
from typing import Any, Final

from canasta.engine.errors import IllegalMoveError
from canasta.engine.family import PILE_NOTES, table_note_texts
from canasta.i18n import (
    DEFAULT,
    LANGUAGE_NAMES,
    LANGUAGES,
    N_,
    PSEUDO,
    WEB_DOMAIN,
    Translator,
    negotiate,
    translator,
)
from canasta.i18n.words import END_REASONS, seat_name

TEMPLATE: Final = "_template"  # an error's English template and its fields, until it is sent
REFUSAL: Final = "_refusal"  # an engine refusal (IllegalMoveError), until it is sent
PLURAL_SPAN: Final = 200  # plural forms are sent for 0..199; larger counts use 100 + n % 100
QUICK_PLAY: Final = "Quick play"  # the stored title of a quick game (said in each reader's language)
#: the name of a table its maker left unnamed: stored as the maker's name alone ("host")
TABLE_OF: Final = N_("{name}'s table")


def table_title(config: dict[str, Any], tr: Translator) -> str:
    """A table's name as ``tr``'s reader sees it: the name its maker gave; a quick game's
    or an unnamed table's ("Ann's table") said in the reader's language."""
    title, host = config.get("title"), config.get("host")
    if title == QUICK_PLAY:
        return tr.gettext(N_("Quick play"))
    if isinstance(title, str) and title:
        return title
    return tr.gettext(TABLE_OF).format(name=host) if isinstance(host, str) and host else ""


def choose(requested: Any = None, accept_language: str | None = None) -> str:
    """A client's language: its own choice, else its browser's Accept-Language; never
    the server's environment (a server in Italy still greets a visitor in English)."""
    asked = requested if isinstance(requested, str) and len(requested) <= 20 else None
    return negotiate(asked, accept_language, environ={})


def plural_forms(lang: str) -> list[int]:
    """The plural form's index for the counts 0..199 in ``lang`` (from its catalog's
    Plural-Forms rule), so that a page chooses plurals without evaluating code."""
    rule = translator(lang, WEB_DOMAIN).plural_rule()
    found = re.search(r"plural\s*=\s*([^;]+)", rule)
    try:
        index = gettext.c2py(found.group(1) if found else "n != 1")
    except (ValueError, SyntaxError):  # a malformed rule: English's
        return [0 if n == 1 else 1 for n in range(PLURAL_SPAN)]
    return [int(index(n)) for n in range(PLURAL_SPAN)]


def catalog(lang: str) -> dict[str, Any]:
    """What ``static/i18n.js`` loads: the language, the menu of languages, the page texts."""
    return {
        "lang": lang,
        "languages": [[code, LANGUAGE_NAMES.get(code, code)] for code in LANGUAGES]
        + ([[PSEUDO, LANGUAGE_NAMES.get(PSEUDO, PSEUDO)]] if lang == PSEUDO else []),
        # the pseudo-language is made by the page itself from the English texts
        "messages": {} if lang in (DEFAULT, PSEUDO) else translator(lang, WEB_DOMAIN).catalog(),
        "plural": plural_forms(lang),
        # the notes on the pile (canasta.views.seat.pile_note_list), from the engine's catalog;
        # a state's "pile_note_keys" says which, with their {n} and {rank}
        "pile_notes": {key: translator(lang).pgettext("pile note", text) for key, text in PILE_NOTES.items()},
        # a family's notes on the table (canasta.views.seat.table_note_list): a state's "table_note_keys"
        "table_notes": {key: translator(lang).pgettext("table note", text) for key, text in table_note_texts().items()},
        # why a hand ended with nobody out (Game.end_reason, a state's sheet), English -> the language
        "end_reasons": {text: translator(lang).gettext(text) for text in END_REASONS},
    }


def say_error(code: str, template: str, args: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """An error message to a client: ``message`` in English now; in the client's
    language when it is sent (:func:`localize`).  ``template`` is the English text with
    ``{field}`` places filled from ``args``; mark it ``N_("...")`` where it is written,
    so that it is extracted into the ``canasta`` catalog."""
    fields = args or {}
    return {"type": "error", "code": code, "message": template.format(**fields) if fields else template,
            **extra, TEMPLATE: (template, fields)}


def refused(exc: IllegalMoveError, **extra: Any) -> dict[str, Any]:
    """An engine refusal as an error message (its code in ``reason``, its rule in ``rule``)."""
    return {"type": "error", "code": "ILLEGAL", "message": str(exc), "rule": exc.rule, "reason": exc.code,
            **extra, REFUSAL: exc}


def _say(msg: dict[str, Any], lang: str) -> dict[str, Any]:
    template = msg.pop(TEMPLATE, None)
    exc = msg.pop(REFUSAL, None)
    if lang == DEFAULT:
        return msg
    if isinstance(exc, IllegalMoveError):
        msg["message"] = translator(lang).refusal(exc)
    elif template is not None:
        text, fields = template
        tr = translator(lang)
        # a seat's compass name ("it is East's move") in the reader's language, as the log says it
        fields = {k: seat_name(v, tr) if k == "name" and isinstance(v, str) else v for k, v in fields.items()}
        said = tr.gettext(text)
        try:
            msg["message"] = said.format(**fields) if fields else said
        except (KeyError, IndexError, ValueError):  # a translation that lost a field: English rather than nothing
            msg["message"] = text.format(**fields) if fields else text
    return msg


def localize(msg: dict[str, Any], lang: str) -> dict[str, Any]:
    """``msg`` ready to send to a client whose language is ``lang`` (a copy where it
    changes): its error texts in that language (a check's results too), the templates
    kept for that stripped."""
    if TEMPLATE in msg or REFUSAL in msg:
        msg = _say(dict(msg), lang)
    results = msg.get("results")
    if isinstance(results, list) and any(isinstance(r, dict) and (TEMPLATE in r or REFUSAL in r) for r in results):
        msg = dict(msg)
        msg["results"] = [_say(dict(r), lang) if isinstance(r, dict) else r for r in results]
    return msg
