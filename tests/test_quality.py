"""The code stays `mypy --strict` and `ruff` clean (configured in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_mypy_strict_clean() -> None:
    proc = _run("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_clean() -> None:
    proc = _run("ruff", "check", "src", "tests")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_core_uses_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"canasta"}
    for path in (ROOT / "src" / "canasta").glob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] in ("import", "from") and not line.startswith(" "):
                top = words[1].split(".")[0]
                assert top in allowed or top == "__future__", f"{path.name} imports {top}"
