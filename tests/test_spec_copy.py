"""The specification the engine follows is in the repository (``docs/rules/SPEC.md``).  Its Parts A
(Classic), B (Italian), D and E are a copy of the authoritative ``../shared/rules/SPEC.md`` and must
match it, part by part, when it is there; its header and Part C (Modern American Canasta) are the
project's own, written here (the shared file has only a short note in their place).  The README and
the docs link the copy, never the rules outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "rules" / "SPEC.md"  # the repository's copy
SHARED_SPEC = ROOT.parent / "shared" / "rules" / "SPEC.md"  # authoritative for Parts A, B, D and E, when present

#: the parts copied from the shared file, by the heading that opens each (a part runs to the next "## PART")
COPIED_PARTS = ("## PART A:", "## PART B:", "## PART D:", "## PART E:")
OWN_PART = "## PART C:"


def parts(text: str) -> dict[str, str]:
    """The text of each part by its heading's start (``"## PART A:"`` ...), and the header before them (``""``)."""
    starts = [m.start() for m in re.finditer(r"^## PART [A-Z]:", text, flags=re.M)]
    out = {"": text[:starts[0]] if starts else text}
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        out[text[start:start + len("## PART A:")]] = text[start:end]
    return out


def test_the_specification_is_in_the_repository() -> None:
    assert SPEC.is_file(), f"{SPEC} is missing: cp ../shared/rules/SPEC.md docs/rules/SPEC.md, then add Part C"
    text = SPEC.read_text(encoding="utf-8")
    assert "Part A" in text and "C-O1" in text and "I-O1" in text and "M-O1" in text
    assert set(parts(text)) == {"", *COPIED_PARTS, OWN_PART}, sorted(parts(text))


@pytest.mark.skipif(not SHARED_SPEC.is_file(), reason=f"no shared rules beside the repository ({SHARED_SPEC})")
@pytest.mark.parametrize("part", COPIED_PARTS)
def test_the_copied_parts_match_the_shared_specification(part: str) -> None:
    ours = parts(SPEC.read_text(encoding="utf-8"))
    shared = parts(SHARED_SPEC.read_text(encoding="utf-8"))
    assert part in shared, f"the shared specification has no {part!r}"
    assert ours[part] == shared[part], (
        f"{part} of {SPEC} differs from the authoritative {SHARED_SPEC}: copy that part from the shared file "
        "(Part C and the header are the project's own and stay)")


def test_part_c_is_the_projects_own() -> None:
    """Part C numbers every rule (C.1.1 ...) and names every option (M-O1 ...) in its summary."""
    own = parts(SPEC.read_text(encoding="utf-8"))[OWN_PART]
    assert "awareness only" not in own
    rules = re.findall(r"^\* (C\.\d+\.\d+) ", own, flags=re.M)
    assert len(rules) == len(set(rules)) >= 60, rules
    options = set(re.findall(r"\*\*OPTION (M-O\d+)", own))
    summary = set(re.findall(r"^\| (M-O\d+) \|", own, flags=re.M))
    assert options == summary and len(options) >= 26, (options ^ summary)


def test_the_docs_link_the_copy_of_the_rules() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    outside = [f"{page.relative_to(ROOT)}: {m.group(0)}" for page in pages
               for m in re.finditer(r"\.\./shared/rules/[\w/.-]*", page.read_text(encoding="utf-8"))]
    assert outside == [], outside
