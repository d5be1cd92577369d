"""The card room's words in Italian, the gaps found by playing it (issue 31): every text a
page script looks up is in the catalog (none hidden where the extractor does not look, as
the score sheet's "Running totals" was, inside a nested template string); *seme* only for a
suit, never for a seed; an unnamed table is named for its maker in each reader's language."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from canasta.i18n import LOCALE_DIR, WEB_DOMAIN, translator
from canasta.web.language import TABLE_OF
from test_web import room_client

STATIC = Path(__file__).parent.parent / "src" / "canasta" / "web" / "static"
JS_STRING = r'"(?:[^"\\]|\\.)*"'
# a lookup with literal arguments: _("…"), ngettext("…", "…", n), pgettext("context", "…")
LOOKUP = re.compile(rf"\b(_|gettext|ngettext|pgettext|npgettext)\(\s*({JS_STRING}(?:\s*,\s*{JS_STRING})*)")


def texts(value: object) -> list[str]:
    """A catalog entry's id or string as a list (one, or the singular and the plurals)."""
    return [str(x or "") for x in (value if isinstance(value, (tuple, list)) else (value,))]


def web_ids() -> set[str]:
    with (LOCALE_DIR / f"{WEB_DOMAIN}.pot").open("rb") as f:
        cat = read_po(f)
    ids: set[str] = set()
    for m in cat:
        ids.update(texts(m.id))
    return ids


def looked_up() -> list[tuple[str, int, str]]:
    """Every text the page scripts look up by a literal: (file, line, msgid)."""
    out = []
    for path in sorted(STATIC.glob("*.js")):
        # comment lines blanked (they show examples), so that line numbers stay
        text = re.sub(r"(?m)^\s*//.*$", "", path.read_text(encoding="utf-8"))
        for m in LOOKUP.finditer(text):
            args = [json.loads(s) for s in re.findall(JS_STRING, m.group(2))]
            if m.group(1).startswith("p"):
                args = args[1:]  # the context
            line = text.count("\n", 0, m.start()) + 1
            out += [(path.name, line, a) for a in args[:2]]
    return out


def test_every_text_a_page_script_looks_up_is_in_the_catalog() -> None:
    found = looked_up()
    assert len(found) > 200  # the scan sees the scripts' texts
    assert any(msgid == "Running totals (playing to {target})" for _, _, msgid in found)
    ids = web_ids()
    assert [f for f in found if f[2] not in ids] == []


def test_the_score_sheet_and_lobby_texts_have_italian_words() -> None:
    it = translator("it", WEB_DOMAIN)
    for msgid in ("Running totals (playing to {target})", "No hand has been scored yet.", "{name}'s table",
                  "a short beep in the last seconds of your turn", "Join the rematch"):
        assert it.has(msgid), msgid
    assert it.gettext("Running totals (playing to {target})").startswith("Totali")
    assert it.ngettext("{n} open seat", "{n} open seats", 2) == "{n} posti liberi"
    assert it.ngettext("{n} hand", "{n} hands", 1) == "{n} smazzata"


@pytest.mark.parametrize("domain", ["canasta", WEB_DOMAIN])
def test_seme_is_said_only_of_a_suit(domain: str) -> None:
    """At a card table *seme* reads as "suit": a seed is a code or a starting number."""
    with (LOCALE_DIR / "it" / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
        cat = read_po(f)
    wrong = []
    seeds = 0
    for m in cat:
        ids, strs = texts(m.id), texts(m.string)
        english = " ".join(ids).lower()
        if re.search(r"\bseeds?\b", english) and m.context != "rule sources":
            seeds += 1
        if any(re.search(r"\bsem[ei]\b", s, re.I) for s in strs) and "suit" not in english:
            wrong.append((ids[0], strs[0]))
    assert seeds > 5
    assert wrong == []
    assert translator("it").gettext("Seed") == "Numero di partenza"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with room_client(str(tmp_path / "t.db")) as c:
        yield c


def test_an_unnamed_table_is_named_for_its_maker_in_the_readers_language(client: TestClient) -> None:
    made = client.post("/api/tables", json={"preset": "classic-2p", "name": "Ann", "seat": 0,
                                            "seats": [{}, {"kind": "open"}]})
    assert made.status_code == 200, made.text
    tid = made.json()["table"]
    info = client.get(f"/api/tables/{tid}").json()
    assert info["title"] == "" and info["host"] == "Ann"  # stored without words of any language
    listed = next(t for t in client.get("/api/tables").json()["tables"] if t["table"] == tid)
    assert listed["title"] == "" and listed["host"] == "Ann"
    it = client.get(f"/t/{tid}/rules", params={"lang": "it"}).text
    en = client.get(f"/t/{tid}/rules", params={"lang": "en"}).text
    assert "Il tavolo di Ann" in it and "Ann's table" not in it
    assert "Ann&#x27;s table" in en
    assert translator("it").gettext(TABLE_OF).format(name="Bea") == "Il tavolo di Bea"
    named = client.post("/api/tables", json={"preset": "classic-2p", "name": "Ann", "seat": 0, "title": "Friday",
                                             "seats": [{}, {"kind": "open"}]}).json()["table"]
    assert "Friday" in client.get(f"/t/{named}/rules", params={"lang": "it"}).text
    quick = client.post("/api/quick", json={"name": "Ann", "preset": "classic-2p"}).json()["table"]
    assert "Partita veloce" in client.get(f"/t/{quick}/rules", params={"lang": "it"}).text
