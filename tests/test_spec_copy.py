"""The specification the engine follows is in the repository (``docs/rules/SPEC.md``), a
copy of the authoritative ``../shared/rules/SPEC.md`` that must match it when it is there;
the README and the docs link the copy, never the rules outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "rules" / "SPEC.md"  # the repository's copy
SHARED_SPEC = ROOT.parent / "shared" / "rules" / "SPEC.md"  # authoritative, when present


def test_the_specification_is_in_the_repository() -> None:
    assert SPEC.is_file(), f"{SPEC} is missing: cp ../shared/rules/SPEC.md docs/rules/SPEC.md"
    text = SPEC.read_text(encoding="utf-8")
    assert "Part A" in text and "C-O1" in text and "I-O1" in text


@pytest.mark.skipif(not SHARED_SPEC.is_file(), reason=f"no shared rules beside the repository ({SHARED_SPEC})")
def test_the_copy_matches_the_shared_specification() -> None:
    assert SPEC.read_bytes() == SHARED_SPEC.read_bytes(), (
        f"{SPEC} differs from the authoritative {SHARED_SPEC}: refresh the copy with "
        "cp ../shared/rules/SPEC.md docs/rules/SPEC.md")


def test_the_docs_link_the_copy_of_the_rules() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    outside = [f"{page.relative_to(ROOT)}: {m.group(0)}" for page in pages
               for m in re.finditer(r"\.\./shared/rules/[\w/.-]*", page.read_text(encoding="utf-8"))]
    assert outside == [], outside
