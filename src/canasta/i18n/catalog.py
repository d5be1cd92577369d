"""The catalogs' tooling (needs Babel, in the ``dev`` extra)::

    python -m canasta.i18n.catalog extract   # sources -> locale/<domain>.pot
    python -m canasta.i18n.catalog update    # .pot -> locale/<lang>/LC_MESSAGES/<domain>.po (new ids empty)
    python -m canasta.i18n.catalog compile   # .po -> .mo (committed: a wheel needs no build step)
    python -m canasta.i18n.catalog check     # nonzero, listing them, if any id lacks a translation,
                                             # a .pot misses a string of the sources or a .mo is stale
    python -m canasta.i18n.catalog init LANG # a new language: its empty catalogs

Two domains:

* ``canasta``: the Python sources under src/canasta (keywords ``gettext``, ``ngettext``,
  ``pgettext``, ``npgettext``, ``_``, and the markers ``N_``, ``NP_``, ``NN_``, ``NNP_``),
  plus the engine's data, read from the objects themselves at extract time: every rule
  option's description, choices and sources (:mod:`canasta.engine.rules`) and every refusal's
  sentence (``canasta.engine.errors.REFUSALS``, context ``refusal CODE``).
* ``canasta-web``: src/canasta/web/static/``*.js`` (Babel's JavaScript extractor, keywords
  ``_``, ``gettext``, ``ngettext``, ``pgettext``, ``npgettext``) and ``*.html`` (the value of
  every ``data-i18n*`` attribute, and inline scripts as JavaScript).
"""

from __future__ import annotations

import argparse
import datetime
import io
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

try:
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract, extract_from_dir
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po, write_po
except ImportError:  # pragma: no cover
    raise SystemExit("the catalog tooling needs Babel: pip install -e '.[dev]' (or pip install babel)") from None

from canasta.i18n import DEFAULT, DOMAIN, DOMAINS, LOCALE_DIR, WEB_DOMAIN

PACKAGE_DIR = LOCALE_DIR.parent
WEB_STATIC = PACKAGE_DIR / "web" / "static"
#: fixed dates in the headers, so that re-running the tooling changes nothing when no text changed
_DATE = datetime.datetime(2026, 11, 30, 0, 0, tzinfo=datetime.UTC)

PY_KEYWORDS: dict[str, Any] = {
    "_": None, "gettext": None, "N_": None,
    "ngettext": (1, 2), "NN_": (1, 2), "nplural": (1, 2),
    "pgettext": ((1, "c"), 2), "NP_": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3), "NNP_": ((1, "c"), 2, 3),
}
JS_KEYWORDS: dict[str, Any] = {
    "_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2), "npgettext": ((1, "c"), 2, 3),
}
_HTML_ATTR = re.compile(r"""\bdata-i18n[\w-]*\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_HTML_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script>", re.S | re.I)
_CONTEXT_ATTR = re.compile(r"^(.*?)\|(.*)$")

Message = tuple[str | tuple[str, str], str | None, str, list[str]]  # (id or (singular, plural), context, where, comments)


def pot_path(domain: str) -> Path:
    return LOCALE_DIR / f"{domain}.pot"


def po_path(lang: str, domain: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po"


def mo_path(lang: str, domain: str) -> Path:
    return po_path(lang, domain).with_suffix(".mo")


def languages() -> list[str]:
    """The languages with a catalog (English, the source language, needs none)."""
    if not LOCALE_DIR.is_dir():
        return []
    return sorted(d.name for d in LOCALE_DIR.iterdir() if (d / "LC_MESSAGES").is_dir() and d.name != DEFAULT)


# -- extraction

def _python_messages() -> Iterator[Message]:
    method_map = [("**/web/static/**", "ignore"), ("**.py", "python")]
    for filename, lineno, message, comments, context in extract_from_dir(
            str(PACKAGE_DIR), method_map, keywords=PY_KEYWORDS, comment_tags=("TRANSLATORS:",),
            strip_comment_tags=True):
        where = f"src/canasta/{Path(filename).as_posix()}:{lineno}"
        yield _message(message), context, where, list(comments)


def _message(message: Any) -> str | tuple[str, str]:
    if isinstance(message, tuple):
        return (message[0], message[1]) if len(message) > 1 and message[1] else message[0]
    return str(message)


def _data_messages() -> Iterator[Message]:
    """The engine's texts that are data: rule options, refusals, the notes on the pile, the
    table's refusals of a move out of turn and each rule family's game by name."""
    from canasta.engine import errors, family, rules
    from canasta.play import table

    for o in rules.ALL_OPTIONS:
        where = "src/canasta/engine/rules.py"
        yield o.topic, "rule option", where, [f"rule option {o.id} ({o.field}), spec {o.rule}"]
        for value in o.choices:
            if isinstance(value, str):
                yield value.replace("_", " "), "rule choice", where, [f"a value of {o.id}: {value}"]
        if o.sources:
            yield o.sources, "rule sources", where, [f"sources of {o.id}: keep the source codes as they are"]
    forms: dict[str, Any] = getattr(errors, "REFUSAL_FORMS", None) or getattr(errors, "REFUSALS", {})
    for key, ref in forms.items():
        comment = [f"refusal {key}, rule {ref.rule or '-'}; keep every {{field}}",
                   "{card} notation (7H), {card:name} its name, {card:the} with the article; "
                   "{rank} plural, {rank:one} singular; {ranks} a list of ranks; others are numbers"]
        yield ref.text, f"refusal {key}", "src/canasta/engine/errors.py", comment
    for key, note in family.PILE_NOTES.items():
        yield note, "pile note", "src/canasta/engine/family.py", [f"pile note {key}; {{n}} a number, {{rank}} a rank in the plural"]
    for key, note in family.table_note_texts().items():
        yield note, "table note", "src/canasta/engine/family.py", [f"table note {key}; {{n}} a number, {{rank}} a rank in the plural"]
    for code, text in table.TURN_REFUSALS.items():
        yield text, None, "src/canasta/play/table.py", [f"the table's refusal {code}; keep every {{field}}"]
    from canasta.engine.game import FAMILIES

    for name, fam in sorted(FAMILIES.items()):  # each family's game by name (Translator.family)
        if fam.words.title:
            yield fam.words.title, None, "src/canasta/engine/family.py", [f"the game of the rule family {name}"]


def _html_extract(fileobj: Any, keywords: Any, comment_tags: Any, options: Any) -> Iterator[Any]:
    """Babel extractor for the pages: ``data-i18n*="msgid"`` (``"context|msgid"`` for a
    context) and inline scripts as JavaScript."""
    from babel.messages.extract import extract_javascript

    text = fileobj.read().decode("utf-8")
    for m in _HTML_ATTR.finditer(text):
        value = m.group(1) if m.group(1) is not None else m.group(2)
        lineno = text.count("\n", 0, m.start()) + 1
        if not value:
            continue
        cm = _CONTEXT_ATTR.match(value)
        if cm:
            yield lineno, "pgettext", (cm.group(1), cm.group(2)), []
        else:
            yield lineno, "gettext", value, []
    for m in _HTML_SCRIPT.finditer(text):
        offset = text.count("\n", 0, m.start(1))
        for lineno, func, msg, comments in extract_javascript(
                io.BytesIO(m.group(1).encode("utf-8")), keywords, comment_tags, options):
            yield lineno + offset, func, msg, comments


def _web_messages() -> Iterator[Message]:
    if not WEB_STATIC.is_dir():
        return
    for path in sorted(WEB_STATIC.rglob("*")):
        method: str | Callable[..., Any]
        if path.suffix == ".js":
            method = "javascript"
        elif path.suffix in (".html", ".htm"):
            method = _html_extract
        else:
            continue
        with path.open("rb") as f:
            for lineno, message, comments, context in extract(
                    method, f, keywords=JS_KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True,
                    options={"template_string": "true", "parse_template_string": "true"}):
                where = f"{path.relative_to(PACKAGE_DIR.parent.parent).as_posix()}:{lineno}"
                yield _message(message), context, where, list(comments)


def messages(domain: str) -> list[Message]:
    if domain == DOMAIN:
        return [*_python_messages(), *_data_messages()]
    if domain == WEB_DOMAIN:
        return list(_web_messages())
    raise SystemExit(f"unknown domain {domain!r}: {', '.join(DOMAINS)}")


def template(domain: str) -> Catalog:
    cat = Catalog(project="canasta", version="", copyright_holder="the canasta authors",
                  msgid_bugs_address="", creation_date=_DATE, revision_date=_DATE, fuzzy=False, domain=domain)
    for msgid, context, where, comments in messages(domain):
        if not msgid or (isinstance(msgid, tuple) and not msgid[0]):
            continue
        file, _, line = where.rpartition(":") if where.rsplit(":", 1)[-1].isdigit() else (where, "", "")
        location: Any = (file, int(line) if line else None)
        old = cat.get(msgid if isinstance(msgid, str) else msgid[0], context)
        if old is not None:
            old.locations.append(location)
            continue
        cat.add(msgid, None, [location], auto_comments=comments, context=context)
    return cat


def _po_text(cat: Catalog, template_file: bool = False) -> bytes:
    buf = io.BytesIO()
    write_po(buf, cat, width=100, sort_output=False, omit_header=False, include_previous=False,
             ignore_obsolete=True, sort_by_file=False)
    return buf.getvalue()


def _mo_bytes(cat: Catalog) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, cat, use_fuzzy=False)
    return buf.getvalue()


def _read(path: Path, locale: str | None = None, domain: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale, domain=domain)


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


# -- commands

def cmd_extract(domains: Iterable[str]) -> int:
    for domain in domains:
        cat = template(domain)
        changed = _write_if_changed(pot_path(domain), _po_text(cat, True))
        print(f"{pot_path(domain).relative_to(PACKAGE_DIR.parent.parent)}: {len(cat)} messages"
              + ("" if changed else " (unchanged)"))
    return 0


def _updated(lang: str, domain: str) -> Catalog:
    tmpl = _read(pot_path(domain), domain=domain)
    po = po_path(lang, domain)
    if po.is_file():
        cat = _read(po, locale=lang, domain=domain)
    else:
        cat = Catalog(locale=lang, domain=domain, project="canasta", version="",
                      copyright_holder="the canasta authors", creation_date=_DATE, revision_date=_DATE, fuzzy=False)
    cat.update(tmpl, no_fuzzy_matching=True, update_header_comment=False)
    cat.revision_date = _DATE
    cat.creation_date = _DATE
    cat.fuzzy = False
    return cat


def cmd_update(langs: Iterable[str], domains: Iterable[str]) -> int:
    for lang in langs:
        for domain in domains:
            if not pot_path(domain).is_file():
                continue
            cat = _updated(lang, domain)
            changed = _write_if_changed(po_path(lang, domain), _po_text(cat))
            missing = sum(1 for m in cat if m.id and not _translated(m))
            print(f"{po_path(lang, domain).relative_to(PACKAGE_DIR.parent.parent)}: {len(cat)} messages, "
                  f"{missing} untranslated" + ("" if changed else " (unchanged)"))
    return 0


def cmd_init(lang: str, domains: Iterable[str]) -> int:
    if lang == DEFAULT or not re.fullmatch(r"[a-z]{2,3}(_[A-Z]{2})?", lang):
        raise SystemExit(f"not a language code for a new catalog: {lang!r}")
    return cmd_update([lang], domains)


def cmd_compile(langs: Iterable[str], domains: Iterable[str]) -> int:
    for lang in langs:
        for domain in domains:
            po = po_path(lang, domain)
            if not po.is_file():
                continue
            changed = _write_if_changed(mo_path(lang, domain), _mo_bytes(_read(po, locale=lang, domain=domain)))
            print(f"{mo_path(lang, domain).relative_to(PACKAGE_DIR.parent.parent)}"
                  + (" written" if changed else " (unchanged)"))
    return 0


def _translated(m: Any) -> bool:
    if m.fuzzy:
        return False
    if isinstance(m.string, (tuple, list)):
        return all(m.string)
    return bool(m.string)


def _key(m: Any) -> tuple[str | None, str]:
    msgid = m.id[0] if isinstance(m.id, (tuple, list)) else m.id
    return m.context, msgid


def _shown(path: Path, root: Path) -> Path:
    """A path as the check names it: from the repository's root when it is inside it."""
    return path.relative_to(root) if path.is_relative_to(root) else path


def problems(langs: Iterable[str] | None = None, domains: Iterable[str] = DOMAINS, strict: bool = False) -> list[str]:
    """Everything ``check`` refuses, one line each (``strict``: also ids the sources no longer have),
    in every language that has a catalog."""
    out: list[str] = []
    langs = languages() if langs is None else list(langs)
    root = PACKAGE_DIR.parent.parent
    for domain in domains:
        pot = pot_path(domain)
        current = {_key(m) for m in template(domain) if m.id}
        if not pot.is_file():
            if current:
                out.append(f"{domain}: no {pot.name}: run extract")
            continue
        saved = {_key(m) for m in _read(pot, domain=domain) if m.id}
        for context, msgid in sorted(current - saved, key=str):
            out.append(f"{_shown(pot, root)}: not extracted yet: {msgid!r}" + (f" (context {context!r})"
                                                                                   if context else ""))
        if strict:  # an id no longer used is harmless (a source being written may bring it back)
            for context, msgid in sorted(saved - current, key=str):
                out.append(f"{_shown(pot, root)}: no longer in the sources: {msgid!r}"
                           + (f" (context {context!r})" if context else ""))
        for lang in langs:
            po = po_path(lang, domain)
            if not po.is_file():
                out.append(f"{_shown(po, root)}: missing: run update")
                continue
            cat = _read(po, locale=lang, domain=domain)
            have = {_key(m): m for m in cat if m.id}
            for key in sorted(current, key=str):
                m = have.get(key)
                if m is None or not _translated(m):
                    context, msgid = key
                    why = "not in the catalog (run update)" if m is None else (
                        "fuzzy" if m.fuzzy else "no translation")
                    out.append(f"{_shown(po, root)}: {why}: {msgid!r}"
                               + (f" (context {context!r})" if context else ""))
            for m in cat:
                if m.id and _translated(m) and not _placeholders_match(m):
                    out.append(f"{_shown(po, root)}: the fields differ from the message id's: {_key(m)[1]!r}")
            mo = mo_path(lang, domain)
            if not mo.is_file() or mo.read_bytes() != _mo_bytes(cat):
                out.append(f"{_shown(mo, root)}: stale or missing: run compile")
    return out


_FIELD = re.compile(r"(?<!\{)\{([a-zA-Z_]\w*)[^{}]*\}(?!\})|%\((\w+)\)[sd]|%[sd]")


def _fields(text: str) -> set[str]:
    return {m.group(1) or m.group(2) or m.group(0) for m in _FIELD.finditer(text)}


def _placeholders_match(m: Any) -> bool:
    """A translation names only fields its message id names (in any format: ``{card:the}``
    for ``{card:name}``); a plural form may also name ``n``."""
    ids = m.id if isinstance(m.id, (tuple, list)) else (m.id,)
    strings = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
    allowed = set().union(*(_fields(i) for i in ids))
    if isinstance(m.id, (tuple, list)):
        allowed |= {"n", "%d"}
    return all(_fields(s) <= allowed for s in strings if s)


def cmd_check(domains: Iterable[str], strict: bool = False) -> int:
    found = problems(domains=domains, strict=strict)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} problem(s): python -m canasta.i18n.catalog extract && ... update, translate, compile",
              file=sys.stderr)
        return 1
    print("catalogs complete: " + ", ".join(f"{d} ({', '.join(languages())})" for d in domains))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m canasta.i18n.catalog", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=("extract", "update", "compile", "check", "init", "all"),
                   help="all: extract, update and compile")
    p.add_argument("lang", nargs="?", help="init: the new language's code (e.g. fr)")
    p.add_argument("--domain", choices=DOMAINS, action="append", help="one domain (default: both)")
    p.add_argument("--strict", action="store_true", help="check: also refuse ids the sources no longer have")
    args = p.parse_args(argv)
    domains = args.domain or list(DOMAINS)
    if args.command == "extract":
        return cmd_extract(domains)
    if args.command == "update":
        return cmd_update(languages(), domains)
    if args.command == "compile":
        return cmd_compile(languages(), domains)
    if args.command == "check":
        return cmd_check(domains, args.strict)
    if args.command == "init":
        if not args.lang:
            p.error("init needs a language code")
        return cmd_init(args.lang, domains)
    cmd_extract(domains)
    cmd_update(languages(), domains)
    return cmd_compile(languages(), domains)


if __name__ == "__main__":
    sys.exit(main())
