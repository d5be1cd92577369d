"""The command line in English, Italian, Spanish and Brazilian Portuguese: --lang, the
environment, the remembered choice, help texts and messages, the rules pages (issues 18, 55)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from canasta.cli import main
from canasta.i18n import current, use
from canasta.i18n.settings import settings_path


@pytest.fixture(autouse=True)
def _no_saved_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    use("en")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_in_italian(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["rules", "italian-4p", "--lang", "it"], capsys)
    assert code == 0
    assert out.startswith("italian-4p: Canasta italiana, 4 giocatori (2 coppie)")
    assert "punteggio limite 15.000" in out
    assert "I-O8   Modi di prendere il pozzo: solo con una coppia naturale [predefinito; B.10.3" in out


def test_lang_applies_to_its_command_only(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    code, out, _ = _run(["--lang", "it", "rules"], capsys)
    assert code == 0 and "Canasta classica" in out
    assert not settings_path().exists()  # --lang is not remembered
    _, out, _ = _run(["rules"], capsys)
    assert "Classic Canasta" in out


def test_config_lang_remembers_explicitly_and_says_where(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["config", "lang", "it"], capsys)
    assert code == 0 and str(settings_path()) in out
    assert json.loads(settings_path().read_text(encoding="utf-8")) == {"lang": "it"}
    _, out, _ = _run(["rules"], capsys)  # remembered
    assert "Canasta classica" in out
    _, out, _ = _run(["rules", "--lang=en"], capsys)  # this command only
    assert "Classic Canasta" in out
    _, out, _ = _run(["rules"], capsys)
    assert "Canasta classica" in out
    code, out, _ = _run(["config", "lang"], capsys)
    assert code == 0 and "it" in out and str(settings_path()) in out
    code, out, _ = _run(["config", "lang", "auto"], capsys)
    assert code == 0 and json.loads(settings_path().read_text(encoding="utf-8")) == {}
    _, out, _ = _run(["rules"], capsys)
    assert "Classic Canasta" in out


@pytest.mark.parametrize("argv", [["--lang", "fr", "rules"], ["rules", "--lang=fr"], ["config", "lang", "fr"]])
def test_an_unknown_language_is_refused_with_the_known_ones(argv: list[str],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "'fr'" in err and "en, es, it, pt_BR" in err, err
    assert not settings_path().exists()


def test_environment(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "it_IT.UTF-8")
    _, out, _ = _run(["rules"], capsys)
    assert "Canasta classica" in out
    assert not settings_path().exists()  # only an explicit choice is remembered


def test_corrupt_settings_are_ignored_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    code, out, err = _run(["rules"], capsys)
    assert code == 0 and "Classic Canasta" in out
    assert "warning: ignoring the settings file" in err
    path.write_text("[1, 2]", encoding="utf-8")
    code, out, err = _run(["rules"], capsys)
    assert code == 0 and "not a JSON object" in err
    _run(["config", "lang", "it"], capsys)  # rewritten by the next choice
    assert json.loads(path.read_text(encoding="utf-8")) == {"lang": "it"}


def test_help_and_argparse_in_italian(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--lang", "it", "rules", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("uso: canasta rules")
    assert "opzioni:" in out and "mostra questo messaggio di aiuto ed esci" in out
    assert "scrivi le regole in FILE (.toml o .json)" in out
    with pytest.raises(SystemExit) as stop:
        main(["--lang", "it", "verify"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "errore: sono richiesti i seguenti argomenti: file (vedi 'canasta verify --help')" in err


def test_messages_in_italian(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = _run(["--lang", "it", "verify", str(tmp_path / "none.cgn")], capsys)
    assert code == 2 and err.startswith("canasta: errore: ")
    code, out, _ = _run(["--lang", "it", "demo", "--seed", "3"], capsys)
    assert code == 0
    assert "la smazzata è finita: chiusura (posto 2)" in out
    assert "squadra 0: carte calate 425" in out and "totale 1.220" in out
    assert current().lang == "it"


@pytest.mark.parametrize(("n", "en", "it"), [(0, "0 hands", "0 smazzate"), (1, "1 hand", "1 smazzata"),
                                             (2, "2 hands", "2 smazzate"), (1500, "1,500 hands", "1.500 smazzate")])
def test_counts(n: int, en: str, it: str) -> None:
    from canasta.cliout import count as _count

    use("en")
    assert _count(n, "hand") == en
    use("it")
    assert _count(n, "hand") == it


def test_rules_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(["rules", "classic-4p", "--set", "C-O1=max3_only", "--markdown", "--lang", "it"], capsys)
    assert out.startswith("# Canasta classica, 4 giocatori (2 coppie) (`classic-4p`)")
    assert "| C-O1 | Matte in una combinazione | solo al massimo tre (`max3_only`) — regola della casa |" in out


def test_generated_rules_pages_are_current() -> None:
    from canasta.i18n.rulespage import pages

    stale = [str(p) for p, text in pages().items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
    assert not stale, f"regenerate with: python -m canasta.i18n.rulespage ({stale})"


# -- Spanish and Brazilian Portuguese (issue 55)

WORDS: dict[str, dict[str, Any]] = {
    "es": {"env": "es_ES.UTF-8", "classic": "Canasta clásica", "usage": "uso: canasta rules",
           "help": "muestra este mensaje de ayuda y sale", "langs": "el idioma de este comando: en, es, it, pt_BR",
           "rules": ("italian-4p: Canasta italiana, 4 jugadores (2 parejas)", "objetivo 15.000",
                     "I-O8   Formas de tomar el pozo: solo con una pareja natural [predeterminado; B.10.3"),
           "demo": ("la mano terminó: se fue (puesto 2)", "equipo 0: cartas bajadas 425", "treses rojos 100",
                    "irse 100", "total 1.220"),
           "required": "error: se requieren los siguientes argumentos: file",
           "markdown": "| C-O1 | Comodines en una combinación | solo como máximo tres (`max3_only`) — regla de la casa |"},
    "pt_BR": {"env": "pt_BR.UTF-8", "classic": "Canastra clássica", "usage": "uso: canasta rules",
              "help": "mostra esta mensagem de ajuda e sai", "langs": "o idioma deste comando: en, es, it, pt_BR",
              "rules": ("italian-4p: Canastra italiana, 4 jogadores (2 duplas)", "meta 15.000",
                        "I-O8   Modos de pegar o lixo: só com um par natural [padrão; B.10.3"),
              "demo": ("a mão terminou: bateu (lugar 2)", "equipe 0: cartas baixadas 425", "três vermelhos 100",
                       "batida 100", "total 1.220"),
              "required": "erro: os seguintes argumentos são obrigatórios: file",
              "markdown": "| C-O1 | Curingas numa combinação | só no máximo três (`max3_only`) — regra da casa |"},
}


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_rules_demo_and_help_in_spanish_and_portuguese(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    words = WORDS[lang]
    code, out, _ = _run(["rules", "italian-4p", "--lang", lang], capsys)
    assert code == 0 and all(w in out for w in words["rules"]), out
    code, out, _ = _run(["--lang", lang, "demo", "--seed", "3"], capsys)
    assert code == 0 and all(w in out for w in words["demo"]), out
    assert current().lang == lang
    _, out, _ = _run(["rules", "classic-4p", "--set", "C-O1=max3_only", "--markdown", "--lang", lang], capsys)
    assert words["markdown"] in out
    with pytest.raises(SystemExit):
        main(["--lang", lang, "rules", "--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the help to the terminal's width
    assert out.startswith(words["usage"]) and words["help"] in out and words["langs"] in out, out
    with pytest.raises(SystemExit) as stop:
        main(["--lang", lang, "verify"])
    assert stop.value.code == 2 and words["required"] in capsys.readouterr().err


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_the_environment_and_the_remembered_choice_in_spanish_and_portuguese(
        lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", WORDS[lang]["env"])
    _, out, _ = _run(["rules"], capsys)
    assert WORDS[lang]["classic"] in out
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    code, out, _ = _run(["config", "lang", WORDS[lang]["env"]], capsys)  # a locale name is understood
    assert code == 0 and json.loads(settings_path().read_text(encoding="utf-8")) == {"lang": lang}
    _, out, _ = _run(["rules"], capsys)
    assert WORDS[lang]["classic"] in out


@pytest.mark.parametrize(("lang", "forms"), [("es", ("0 manos", "1 mano", "2 manos", "1.500 manos")),
                                             ("pt_BR", ("0 mão", "1 mão", "2 mãos", "1.500 mãos"))])
def test_counts_in_spanish_and_portuguese(lang: str, forms: tuple[str, ...]) -> None:
    from canasta.cliout import count as _count

    use(lang)
    assert tuple(_count(n, "hand") for n in (0, 1, 2, 1500)) == forms
