"""The refusal registry: every refusal the engine raises is registered, every
registered one is raised, each formats with the params its raisers pass, and
docs/refusals.md is the current table."""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import pytest

from canasta.engine.cards import parse_card
from canasta.engine.errors import (
    REFUSAL_FORMS,
    REFUSALS,
    IllegalMoveError,
    Refusal,
    english,
    refusals_markdown,
    refuse,
)

SRC = Path(__file__).resolve().parents[1] / "src" / "canasta"
DOC = Path(__file__).resolve().parents[1] / "docs" / "refusals.md"
INTERFACES = ("tui", "web", "cli.py", "argtypes.py", "i18n")
KEY = re.compile(r"^[A-Z][A-Z_]{2,}\.[a-z_0-9]+$")


def _engine_files() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py"))
            if not any(part in INTERFACES for part in p.relative_to(SRC).parts)]


def _raises() -> list[tuple[str, str, frozenset[str]]]:
    """(where, key, param names) of every ``refuse("KEY", ...)`` / ``IllegalMoveError.of``."""
    out = []
    for path in _engine_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name not in ("refuse", "of", "IllegalMoveError"):
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                where = f"{path.name}:{node.lineno}"
                out.append((where, arg.value, frozenset(k.arg for k in node.keywords if k.arg)))
    return out


def _constants() -> set[str]:
    out: set[str] = set()
    for path in _engine_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.add(node.value)
    return out


def test_every_raised_refusal_is_registered_with_its_params() -> None:
    raises = _raises()
    assert len(raises) > 60
    for where, key, params in raises:
        assert key in REFUSAL_FORMS, f"{where}: {key} is not in REFUSAL_FORMS"
        assert params == REFUSAL_FORMS[key].fields, f"{where}: {key} raised with {sorted(params)}"


def test_every_variant_key_in_the_engine_is_registered() -> None:
    for text in _constants():
        if KEY.match(text):
            assert text in REFUSAL_FORMS, text


def test_every_registered_refusal_is_used() -> None:
    here = Path(__file__).resolve().parent
    used = _constants() | {c for p in here.glob("test_*.py") if p.name != "test_errors.py"
                           for c in re.findall(r'"([A-Z][A-Z_.a-z]+)"', p.read_text(encoding="utf-8"))}
    unused = [key for key in REFUSAL_FORMS if key not in used]
    assert not unused, unused


def test_registry_shape() -> None:
    assert len(REFUSALS) == len({f.code for f in REFUSAL_FORMS.values()}) >= 61
    for code, form in REFUSALS.items():  # a code's base form where it has one (a family's own code may have none)
        assert form.code == code
        assert form.variant == "" or code not in REFUSAL_FORMS, (code, form)
    for key, form in REFUSAL_FORMS.items():
        assert form.key == key and isinstance(form, Refusal)
        assert re.fullmatch(r"([ABC](\.\d+)+)?", form.rule), form
        for name in form.fields:  # the naming convention of params
            assert re.fullmatch(r"[a-z_]+", name), (key, name)


@pytest.mark.parametrize("key", list(REFUSAL_FORMS))
def test_every_form_formats(key: str) -> None:
    form = REFUSAL_FORMS[key]
    params: dict[str, int | str] = {}
    for name in form.fields:
        if name == "card" or name.endswith("_card"):
            params[name] = parse_card("7H")
        elif name == "rank" or name.endswith("_rank"):
            params[name] = 5
        elif name == "ranks":
            params[name] = "5 6"
        else:
            params[name] = 3
    err = refuse(key, **params)
    text = english(form, params)
    assert "{" not in text and text
    assert str(err) == (f"{text} (rule {form.rule})" if form.rule else text)
    assert err.code == form.code and err.rule == form.rule and err.key == key and err.params == params
    back = pickle.loads(pickle.dumps(err))
    assert isinstance(back, IllegalMoveError) and str(back) == str(err) and back.key == key


def test_english_words() -> None:
    c = parse_card("7H")
    assert str(refuse("CARD_NOT_IN_HAND", card=c)) == f"you do not hold the {_name(c)} (7H)"
    assert str(refuse("MIXED_RANKS.italian", ranks="5 6")).startswith(
        "a meld is made of one rank; this group mixes sevens and eights")
    assert str(IllegalMoveError.of("STOCK_EMPTY")) == "the stock is empty (rule A.13.2)"


def _name(c: int) -> str:
    from canasta.engine.cards import card_name

    return card_name(c)


def test_refusals_doc_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == refusals_markdown(), (
        "docs/refusals.md is stale: run `python -m canasta.engine.errors > docs/refusals.md`")
