"""The command line in English and Italian: --lang, the environment, the remembered choice,
help texts and messages, the rules pages (issue 18)."""

from __future__ import annotations

import json
from pathlib import Path

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
    assert err.count("\n") == 1 and "'fr'" in err and "en, it" in err, err
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
