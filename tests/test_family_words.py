"""No interface, and nothing of the core, decides a family's shape or words: the terminal app,
the card room's server and page, the command line, the review, the engine, the views and the
tools ask the family (``RuleFamily.canasta_size``, ``pile_word``,
``words``) through the presentation layer (:mod:`canasta.present`), never by comparing a
family's word or by a canasta's size written into them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "canasta"
#: the interfaces' Python sources
INTERFACES = sorted(p for d in ("tui", "web", "review", "rl", "bots") for p in (SRC / d).rglob("*.py")) + [
    SRC / "cli.py", SRC / "cliout.py"]
#: the core beside them: the engine, the views, the play service, the tools and the presentation
CORE = sorted(p for d in ("engine", "views", "play", "tools") for p in (SRC / d).rglob("*.py")) + [SRC / "present.py"]
#: the page's scripts: they look the family's words up in words.js's tables by the word the
#: server names, and compare no word (``===`` too)
PAGE = sorted((SRC / "web" / "static").glob("*.js"))
#: a branch on a family's word, or on the name of a built-in family
WORD_BRANCH = re.compile(r"""(==|!=)=?\s*["'](pozzo|pile|smazzata|italian|classic)["']|["'](pozzo|pile|smazzata|italian|classic)["']\s*(==|!=)""")
#: a canasta's size written in: a meld's length compared with seven
SEVEN = re.compile(r"""(len\([^)]*\)|size|\bn)\s*(>=|<|==|>)\s*7\b""")


@pytest.mark.parametrize("path", INTERFACES + PAGE + CORE, ids=lambda p: str(p.relative_to(SRC)))
def test_no_interface_branches_on_a_familys_words_or_shape(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    words = [m.group(0) for m in WORD_BRANCH.finditer(text)]
    sevens = [m.group(0) for m in SEVEN.finditer(text)]
    assert not words, f"{path.name} chooses by a family's word: {words} (ask canasta.present)"
    assert not sevens, f"{path.name} writes a canasta's size in: {sevens} (ask canasta.present.canasta_size)"


def test_the_check_finds_a_branch() -> None:
    assert WORD_BRANCH.search('if present.pile_word(rules) == "pozzo":')
    assert WORD_BRANCH.search('if family.hand_word != "smazzata":')
    assert WORD_BRANCH.search('const pozzo = () => words.pile === "pozzo";')
    assert SEVEN.search("canasta = len(cards) >= 7")
