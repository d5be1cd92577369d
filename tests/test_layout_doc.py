"""docs/layout.md matches the tree: every module and package of ``src/canasta/`` is named in
its table (a package's modules in the package's row), and every file the table names exists;
every module docs/architecture.md names exists.  A module added, moved or removed without a
word in the layout fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "canasta"
DOC = ROOT / "docs" / "layout.md"
#: what the table's rows may leave out: a package's own ``__init__``/``__main__``, data folders
SKIP = {"__init__.py", "__main__.py", "py.typed"}
DATA = {"locale", "static", "weights", "__pycache__"}


def _rows() -> list[tuple[list[str], str]]:
    """(the names of the first column, the concern) of each row of the table."""
    out = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not line.startswith("|") or set(cells[0]) <= {"-"} or cells[0] == "module":
            continue
        out.append((re.findall(r"`([^`]+)`", cells[0]), cells[1]))
    return out


def _top_level() -> set[str]:
    names = {p.name for p in SRC.glob("*.py") if p.name not in SKIP}
    names |= {f"{p.name}/" for p in SRC.iterdir() if p.is_dir() and p.name not in DATA and (p / "__init__.py").exists()}
    return names


def _packages() -> list[Path]:
    return sorted(p.parent for p in SRC.rglob("__init__.py") if p.parent != SRC and "__pycache__" not in p.parts)


def test_every_top_level_module_and_package_has_a_row() -> None:
    named = {n for names, _ in _rows() for n in names}
    missing = sorted(n for n in _top_level() if n not in named and not any(
        n.startswith(x) for x in named if x.endswith("/")))
    assert not missing, f"docs/layout.md names no row for {missing}"


def test_every_name_in_the_first_column_exists() -> None:
    for names, _ in _rows():
        for n in names:
            assert (SRC / n).exists(), f"docs/layout.md names {n}, which src/canasta/ does not hold"


def test_every_module_of_a_package_is_named_in_its_row() -> None:
    """A package's module is named in the package's row, or has a row of its own
    (``engine/cards.py``); a sub-package may be described in its parent's row."""
    rows = _rows()
    for pkg in _packages():
        rel = pkg.relative_to(SRC).as_posix() + "/"
        own = [(names, concern) for names, concern in rows if any(n == rel or n.startswith(rel) for n in names)]
        if not own:  # a sub-package described in its parent's row (families/classic/ in families/)
            own = [(names, concern) for names, concern in rows
                   if any(rel.startswith(n) for n in names if n.endswith("/"))]
            assert own, f"docs/layout.md has no row for {rel}"
        text = " ".join(" ".join(names) + " " + concern for names, concern in own)
        for mod in sorted(p.name for p in pkg.glob("*.py") if p.name not in SKIP):
            assert f"`{mod}`" in text or f"{rel}{mod}" in text, f"docs/layout.md: the row of {rel} does not name {mod}"


def test_every_module_the_table_names_exists() -> None:
    for names, concern in _rows():
        dirs = [SRC / n for n in names if n.endswith("/")] + [(SRC / n).parent for n in names if n.endswith(".py")]
        for mod in re.findall(r"`([\w/]+\.py)`", concern):
            assert any((d / mod).exists() for d in dirs) or (SRC / mod).exists(), (
                f"docs/layout.md names {mod} in the row of {names}, which does not exist")


ARCHITECTURE = ROOT / "docs" / "architecture.md"


def test_every_module_architecture_names_exists() -> None:
    """docs/architecture.md's picture and text name modules that exist: a path (``engine/game.py``,
    ``tests/test_layering.py``) under the repository, ``src/`` or ``src/canasta/``; a bare name
    (``game.py`` in the picture) somewhere under ``src/canasta/``; ``families/NAME/...`` is a template."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    names = sorted(n for n in set(re.findall(r"(?<![\w./-])([\w/]+\.py)\b", text)) if "NAME" not in n)  # (a template)
    assert len(names) > 20
    bare = {p.name for p in SRC.rglob("*.py")}
    missing = [n for n in names if not (
        (ROOT / n).exists() or (ROOT / "src" / n).exists() or (SRC / n).exists() or ("/" not in n and n in bare))]
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"
