"""No interface decides a family's shape or words: the terminal app, the card room's server,
the command line and the review ask the family (``RuleFamily.canasta_size``, ``pile_word``,
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
#: a branch on a family's word, or on the name of a built-in family
WORD_BRANCH = re.compile(r"""(==|!=)\s*["'](pozzo|pile|italian|classic)["']|["'](pozzo|pile|italian|classic)["']\s*(==|!=)""")
#: a canasta's size written in: a meld's length compared with seven
SEVEN = re.compile(r"""(len\([^)]*\)|size|\bn)\s*(>=|<|==|>)\s*7\b""")


@pytest.mark.parametrize("path", INTERFACES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_interface_branches_on_a_familys_words_or_shape(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    words = [m.group(0) for m in WORD_BRANCH.finditer(text)]
    sevens = [m.group(0) for m in SEVEN.finditer(text)]
    assert not words, f"{path.name} chooses by a family's word: {words} (ask canasta.present)"
    assert not sevens, f"{path.name} writes a canasta's size in: {sevens} (ask canasta.present.canasta_size)"


def test_the_check_finds_a_branch() -> None:
    assert WORD_BRANCH.search('if present.pile_word(rules) == "pozzo":')
    assert SEVEN.search("canasta = len(cards) >= 7")
