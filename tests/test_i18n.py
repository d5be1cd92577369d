"""Languages: choosing one, the catalogs, cards, numbers, plurals and refusals in English and Italian."""

from __future__ import annotations

import pytest

from canasta.cards import ACE, JOKER, KING, TWO, parse_card
from canasta.errors import IllegalMoveError
from canasta.i18n import DOMAINS, LANGUAGES, PSEUDO, negotiate, pseudo, translator


def test_languages() -> None:
    assert LANGUAGES[:2] == ("en", "it")


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


def test_number_formats() -> None:
    assert translator("en").number(1234567) == "1,234,567"
    assert translator("it").number(1234567) == "1.234.567"
    assert translator("it").number(-1500) == "-1.500"
    assert translator("it").number(1234.5, 1) == "1.234,5"
    assert translator("en").number(999) == "999"


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
    from canasta import errors

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
        for lang in ("it", PSEUDO):
            text = translator(lang).refusal(err)
            assert "{" not in text and text != str(err), (lang, key, text)


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
    pages) has an Italian translation, the .pot files hold every string of the sources, and
    the .mo files are compiled from the .po files."""
    pytest.importorskip("babel")
    from canasta.i18n.catalog import problems

    found = problems(domains=DOMAINS)
    assert not found, "\n".join(found[:40]) + "\nrun: python -m canasta.i18n.catalog all, translate, compile"
