"""Languages: choosing one, the catalogs, cards, numbers, plurals and refusals in English, Italian,
Spanish and Brazilian Portuguese; the catalog check refuses a missing or stale string in any language."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from canasta.engine.cards import ACE, JOKER, KING, TWO, parse_card
from canasta.engine.errors import IllegalMoveError
from canasta.i18n import DOMAIN, DOMAINS, LANGUAGES, PSEUDO, negotiate, pseudo, translator


def test_languages() -> None:
    assert LANGUAGES == ("en", "es", "it", "pt_BR")


@pytest.mark.parametrize(("requested", "accept", "env", "expected"), [
    ("it", None, {}, "it"),
    ("en", "it", {"LANG": "it_IT.UTF-8"}, "en"),
    ("it_IT.UTF-8", None, {}, "it"),
    ("IT", None, {}, "it"),
    ("qps", None, {}, PSEUDO),
    ("fr", None, {}, "en"),
    ("fr", "it-IT,it;q=0.9,en;q=0.8", {}, "it"),
    (None, "fr-FR, en;q=0.5, it;q=0.8", {}, "it"),
    (None, "de, *;q=0.1", {"LANG": "it_IT.UTF-8"}, "en"),
    (None, "qps", {"LANG": "it_IT.UTF-8"}, "it"),
    (None, None, {"LANG": "it_IT.UTF-8"}, "it"),
    (None, None, {"LC_ALL": "it_CH.UTF-8", "LANG": "en_US.UTF-8"}, "it"),
    (None, None, {"LC_MESSAGES": "it_IT", "LANG": "en_US"}, "it"),
    (None, None, {"LANGUAGE": "fr:it", "LANG": "en_US.UTF-8"}, "it"),
    (None, None, {"LANG": "C"}, "en"),
    (None, None, {"LANG": "fr_FR.UTF-8"}, "en"),
    (None, None, {}, "en"),
    ("es", None, {}, "es"),
    ("es_ES.UTF-8", None, {}, "es"),
    ("pt_BR", None, {}, "pt_BR"),
    ("pt-br", None, {}, "pt_BR"),
    ("pt_PT.UTF-8", None, {}, "pt_BR"),  # the one Portuguese catalog stands for every Portuguese
    (None, "pt-BR,pt;q=0.9,en;q=0.5", {}, "pt_BR"),
    (None, "es-AR,es;q=0.9", {}, "es"),
    (None, "fr, pt;q=0.8", {}, "pt_BR"),
    (None, None, {"LANG": "es_ES.UTF-8"}, "es"),
    (None, None, {"LANG": "es_MX.UTF-8"}, "es"),
    (None, None, {"LANG": "pt_BR.UTF-8"}, "pt_BR"),
    (None, None, {"LC_ALL": "pt_BR.UTF-8", "LANG": "it_IT.UTF-8"}, "pt_BR"),
    (None, None, {"LANGUAGE": "pt_BR:es", "LANG": "en_US.UTF-8"}, "pt_BR"),
])
def test_negotiate(requested: str | None, accept: str | None, env: dict[str, str], expected: str) -> None:
    assert negotiate(requested, accept, env) == expected


def test_cards_and_ranks() -> None:
    en, it = translator("en"), translator("it")
    assert en.card(parse_card("KH")) == "the king of hearts"
    assert it.card(parse_card("KH")) == "il re di cuori"
    assert it.card(parse_card("AS")) == "l'asso di picche"
    assert it.card(parse_card("QD")) == "la donna di quadri"
    assert it.card(parse_card("JC")) == "il fante di fiori"
    assert it.card(parse_card("2H")) == "la pinella di cuori"
    assert it.card(JOKER) == "il jolly" and en.card(JOKER) == "the joker"
    assert it.card(parse_card("8S"), article=False) == "otto di picche"
    assert [it.rank(r, n) for r, n in ((KING, 1), (KING, 2), (ACE, 1), (ACE, 3), (TWO, 1), (TWO, 2))] == \
        ["re", "re", "asso", "assi", "pinella", "pinelle"]
    assert en.rank(ACE, 0) == "aces" and en.rank(ACE, 1) == "ace"


@pytest.mark.parametrize(("n", "en", "it"), [
    (0, "0 players", "0 giocatori"),
    (1, "1 player", "1 giocatore"),
    (2, "2 players", "2 giocatori"),
    (12345, "12,345 players", "12.345 giocatori"),
])
def test_numbers_and_plurals(n: int, en: str, it: str) -> None:
    assert translator("en").nplural("{n} player", "{n} players", n) == en
    assert translator("it").nplural("{n} player", "{n} players", n) == it


@pytest.mark.parametrize(("lang", "cards"), [
    ("es", {"KH": "el rey de corazones", "AS": "el as de picas", "QD": "la dama de diamantes",
            "JC": "la jota de tréboles", "2H": "el dos de corazones", "JK": "el joker"}),
    ("pt_BR", {"KH": "o rei de copas", "AS": "o ás de espadas", "QD": "a dama de ouros",
               "JC": "o valete de paus", "2H": "o dois de copas", "JK": "o joker"}),
])
def test_cards_in_spanish_and_portuguese(lang: str, cards: dict[str, str]) -> None:
    t = translator(lang)
    assert {code: t.card(parse_card(code)) for code in cards} == cards
    assert t.card(parse_card("8S"), article=False) == {"es": "ocho de picas", "pt_BR": "oito de espadas"}[lang]
    assert [t.rank(KING, 1), t.rank(KING, 2), t.rank(ACE, 3)] == \
        {"es": ["rey", "reyes", "ases"], "pt_BR": ["rei", "reis", "ases"]}[lang]


@pytest.mark.parametrize(("lang", "forms"), [
    # Spanish: the singular for 1 only; Brazilian Portuguese: for 0 and 1 (plural=(n > 1))
    ("es", ("0 jugadores", "1 jugador", "2 jugadores", "12.345 jugadores")),
    ("pt_BR", ("0 jogador", "1 jogador", "2 jogadores", "12.345 jogadores")),
])
def test_plurals_in_spanish_and_portuguese(lang: str, forms: tuple[str, ...]) -> None:
    assert tuple(translator(lang).nplural("{n} player", "{n} players", n) for n in (0, 1, 2, 12345)) == forms


def test_number_formats() -> None:
    assert translator("en").number(1234567) == "1,234,567"
    assert translator("it").number(1234567) == "1.234.567"
    assert translator("it").number(-1500) == "-1.500"
    assert translator("it").number(1234.5, 1) == "1.234,5"
    assert translator("en").number(999) == "999"
    for lang in ("es", "pt_BR"):  # as the players write scores: 5.000, 1.234,5
        assert translator(lang).number(1234567) == "1.234.567"
        assert translator(lang).number(-1500) == "-1.500"
        assert translator(lang).number(1234.5, 1) == "1.234,5"


def _refusal(key: str, **params: int | str) -> IllegalMoveError:
    return IllegalMoveError(key, **params)  # type: ignore[arg-type,unused-ignore]


def test_refusals_in_italian() -> None:
    it, en = translator("it"), translator("en")
    err = _refusal("WILDS_EXCEED_NATURALS")
    assert en.refusal(err) == str(err)
    assert it.refusal(err) == "in una combinazione le matte non possono superare le carte naturali (regola A.5.4)"
    err = _refusal("NEEDS_NATURAL_PAIR", need=3, rank=ACE)
    assert it.refusal(err) == ("per prendere il pozzo ti servono 3 assi naturali dalla tua mano, calati con la "
                               "sua prima carta (regola B.10.3)")
    err = _refusal("INITIAL_MELD_TOO_LOW.italian", value=1250, need=1500)
    assert it.refusal(err) == "la tua apertura vale 1.250; alla tua squadra servono 1.500 punti. (regola B.9.1)"
    err = _refusal("CARD_NOT_IN_HAND", card=parse_card("QH"))
    assert it.refusal(err) == "non hai la donna di cuori (QH)"
    assert en.refusal(err) == str(err)
    err = _refusal("MIXED_RANKS.italian", ranks=f"{KING} {ACE}")
    assert it.refusal(err) == "una combinazione è di un solo valore; questo gruppo mescola re e assi (regola B.6.1)"


def test_every_refusal_formats_in_every_language() -> None:
    """Each registered form, with params of the right kind, gives a sentence without a
    leftover field, and the English one is the engine's own."""
    from canasta.engine import errors

    forms = getattr(errors, "REFUSAL_FORMS", {})
    for key, form in forms.items():
        params: dict[str, int | str] = {}
        for name in form.fields:
            if name == "ranks":
                params[name] = f"{KING} {ACE}"
            elif name.endswith("card"):
                params[name] = parse_card("7H")
            elif name.endswith("rank"):
                params[name] = KING
            else:
                params[name] = 3
        err = _refusal(key, **params)
        assert translator("en").refusal(err) == str(err), key
        for lang in (*LANGUAGES[1:], PSEUDO):
            text = translator(lang).refusal(err)
            assert "{" not in text and text != str(err), (lang, key, text)


def test_refusals_in_spanish_and_portuguese() -> None:
    es, pt = translator("es"), translator("pt_BR")
    err = _refusal("WILDS_EXCEED_NATURALS")
    assert es.refusal(err) == "en una combinación los comodines no pueden superar a las cartas naturales (regla A.5.4)"
    assert pt.refusal(err) == ("numa combinação os curingas não podem ser mais numerosos que as cartas naturais "
                               "(regra A.5.4)")
    err = _refusal("NEEDS_NATURAL_PAIR", need=3, rank=ACE)
    assert es.refusal(err) == ("para tomar el pozo necesitas 3 ases naturales de tu mano, que se bajan con su "
                               "carta de arriba (regla B.10.3)")
    assert pt.refusal(err) == ("para pegar o lixo você precisa de 3 ases naturais da sua mão, que se baixam com a "
                               "carta do topo (regra B.10.3)")
    err = _refusal("INITIAL_MELD_TOO_LOW.italian", value=1250, need=1500)
    assert es.refusal(err) == "tu apertura vale 1.250; tu equipo necesita 1.500. (regla B.9.1)"
    assert pt.refusal(err) == "a sua abertura vale 1.250; a sua equipe precisa de 1.500. (regra B.9.1)"
    err = _refusal("CARD_NOT_IN_HAND", card=parse_card("QH"))
    assert es.refusal(err) == "no tienes la dama de corazones (QH)"
    assert pt.refusal(err) == "você não tem a dama de copas (QH)"
    err = _refusal("MIXED_RANKS.italian", ranks=f"{KING} {ACE}")
    assert es.refusal(err) == "una combinación es de un solo valor; este grupo mezcla reyes y ases (regla B.6.1)"
    assert pt.refusal(err) == "uma combinação é de um só valor; este grupo mistura reis e ases (regra B.6.1)"


def test_unregistered_code_falls_back() -> None:
    class Odd(IllegalMoveError):
        def __init__(self) -> None:
            ValueError.__init__(self, "odd")
            self.code, self.variant, self.rule, self.params = "NO_SUCH_CODE", "", "", {}

        @property
        def key(self) -> str:
            return "NO_SUCH_CODE"

        def __str__(self) -> str:
            return "odd"

    assert translator("it").refusal(Odd()) == "odd"


def test_options_and_presets() -> None:
    it = translator("it")
    assert it.option("C-O1") == "Matte in una combinazione"
    assert it.choice(True) == "sì" and it.choice(15000) == "15.000"
    assert it.preset("classic-4p") == "Canasta classica, 4 giocatori (2 coppie)"
    assert translator("en").preset("italian-2p") == "Italian Canasta, 2 players (each for themselves)"
    assert translator("es").preset("classic-4p") == "Canasta clásica, 4 jugadores (2 parejas)"
    assert translator("pt_BR").preset("classic-4p") == "Canastra clássica, 4 jogadores (2 duplas)"
    assert translator("es").choice(15000) == translator("pt_BR").choice(15000) == "15.000"
    assert translator("es").option("C-O2") == "Un tres negro descartado congela el pozo"
    assert translator("pt_BR").option("C-O2") == "Um três preto descartado congela o lixo"


def test_pseudo() -> None:
    assert pseudo("The stock") == "⟦Ŧĥé ŝţöçķ⟧"
    assert pseudo("{n} cards of {rank:one}") == "⟦{n} çàŕđŝ öƒ {rank:one}⟧"
    t = translator(PSEUDO)
    assert t.gettext("Classic Canasta").startswith("⟦")
    assert t.card(parse_card("KH")) == "⟦ţĥé ķîñĝ öƒ ⟦ĥéàŕţŝ⟧⟧"
    assert t.number(1234) == "1,234"
    cat = t.catalog()
    assert cat and all(str(v).startswith(("⟦", "['⟦")) for v in cat.values())


def test_catalog_for_a_browser() -> None:
    cat = translator("it").catalog()
    assert cat["Classic Canasta"] == "Canasta classica"
    assert cat["rank\x04king"] == ["re", "re"]
    assert cat["suit\x04hearts"] == "cuori"
    assert translator("en").catalog() == {}


def test_catalogs_complete() -> None:
    """Every message id of both domains (the Python sources and the engine's data; the web
    pages) has a translation in every language, the .pot files hold every string of the sources, and
    the .mo files are compiled from the .po files."""
    pytest.importorskip("babel")
    from canasta.i18n.catalog import problems

    found = problems(domains=DOMAINS)
    assert not found, "\n".join(found[:40]) + "\nrun: python -m canasta.i18n.catalog all, translate, compile"


# -- the check refuses a missing or stale string in any language

@pytest.fixture
def locale_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the catalogs that the tooling reads instead of the package's."""
    pytest.importorskip("babel")
    from canasta.i18n import LOCALE_DIR, catalog

    where = tmp_path / "locale"
    shutil.copytree(LOCALE_DIR, where)
    monkeypatch.setattr(catalog, "LOCALE_DIR", where)
    return where


def said(copy: Path, domain: str, before: list[str] | None = None) -> list[str]:
    """What the check says of the copy, its paths from the copy's folder (``locale/...``);
    with ``before``, only what it did not say then (a string being added to the sources
    while the tests run is not this test's business)."""
    from canasta.i18n.catalog import problems

    found = [line.replace(str(copy), "locale") for line in problems(domains=[domain])]
    return [line for line in found if line not in (before or [])]


def _edit_po(path: Path, edit: Callable[[Any], None]) -> None:
    from babel.messages.pofile import read_po, write_po

    with path.open("rb") as f:
        cat = read_po(f)
    edit(cat)
    with path.open("wb") as f:
        write_po(f, cat, width=100)


def _recompile(path: Path) -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        cat = read_po(f)
    with path.with_suffix(".mo").open("wb") as f:
        write_mo(f, cat)


@pytest.mark.parametrize("lang", LANGUAGES[1:])
@pytest.mark.parametrize("domain", DOMAINS)
def test_the_check_refuses_a_missing_translation_in_any_language(locale_copy: Path, lang: str, domain: str) -> None:
    before = said(locale_copy, domain)
    assert not [line for line in before if "'Language'" in line]  # translated in the copy, as in the catalogs
    po = locale_copy / lang / "LC_MESSAGES" / f"{domain}.po"
    msgid = "Language"  # in both domains

    def blank(cat: Any) -> None:
        cat[msgid].string = ""

    _edit_po(po, blank)
    _recompile(po)
    found = said(locale_copy, domain, before)
    assert found == [f"locale/{lang}/LC_MESSAGES/{domain}.po: no translation: 'Language'"], found

    def drop(cat: Any) -> None:
        cat.delete(msgid)

    _edit_po(po, drop)
    _recompile(po)
    assert said(locale_copy, domain, before) == [
        f"locale/{lang}/LC_MESSAGES/{domain}.po: not in the catalog (run update): 'Language'"]


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_the_check_refuses_a_stale_catalog_in_any_language(locale_copy: Path, lang: str) -> None:
    """A .mo not compiled from its .po, a translation naming a field its id lacks, a .pot
    that misses a string of the sources: each is refused, in every language."""
    po = locale_copy / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    before = said(locale_copy, DOMAIN)

    def change(cat: Any) -> None:
        cat["Language"].string = cat["Language"].string + "!"

    _edit_po(po, change)
    assert said(locale_copy, DOMAIN, before) == [f"locale/{lang}/LC_MESSAGES/{DOMAIN}.mo: stale or missing: "
                                          "run compile"]

    def wrong_field(cat: Any) -> None:
        cat["{n} of {size}"].string = "{count} / {size}"

    _edit_po(po, wrong_field)
    _recompile(po)
    assert said(locale_copy, DOMAIN, before) == [f"locale/{lang}/LC_MESSAGES/{DOMAIN}.po: the fields differ "
                                          "from the message id's: '{n} of {size}'"]
    pot = locale_copy / f"{DOMAIN}.pot"

    def forget(cat: Any) -> None:
        cat.delete("Language")

    _edit_po(pot, forget)
    assert "locale/canasta.pot: not extracted yet: 'Language'" in said(locale_copy, DOMAIN, before)


# -- a seed is a number, never a plant's seed (nor, in Italian, a suit)

SEED_WORDS = {"es": ("semilla", "Número de partida"), "pt_BR": ("semente", "Número da partida")}


@pytest.mark.parametrize("lang", sorted(SEED_WORDS))
@pytest.mark.parametrize("domain", DOMAINS)
def test_a_seed_is_a_number_not_a_plants_seed(lang: str, domain: str) -> None:
    from babel.messages.pofile import read_po

    from canasta.i18n import LOCALE_DIR

    plant, word = SEED_WORDS[lang]
    with (LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
        cat = read_po(f)
    seeds, wrong = 0, []
    for m in cat:
        ids = m.id if isinstance(m.id, (tuple, list)) else (m.id,)
        strings = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
        if re.search(r"\bseeds?\b", " ".join(ids), re.I) and m.context != "rule sources":
            seeds += 1
        if any(re.search(rf"\b{plant[:-1]}", s or "", re.I) for s in strings):
            wrong.append((ids[0], strings[0]))
    assert seeds > (5 if domain == DOMAIN else 2)
    assert wrong == []
    assert translator(lang).gettext("Seed") == word
