"""The optional compiled engine.

``CANASTA_COMPILE=1 pip install .`` compiles the modules listed in
``src/canasta/engine/native.py`` (``COMPILED_MODULES``) with mypyc into C extensions, from the
same source.  Without the switch (and in every editable install) the package is pure
Python, the reference.  A compile that fails for any reason (no C compiler, no Python
headers, a mypyc error) prints one line and installs the pure-Python engine; the
install itself never fails for it.  ``CANASTA_COMPILE=required`` makes a failed compile
fail the install instead (for CI).
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
SWITCH = os.environ.get("CANASTA_COMPILE", "").strip().lower()
WANTED = SWITCH in ("1", "yes", "true", "on", "required")
REQUIRED = SWITCH == "required"


def compiled_modules() -> list[str]:
    """``COMPILED_MODULES`` from src/canasta/engine/native.py, read without importing the package."""
    tree = ast.parse((ROOT / "src" / "canasta" / "engine" / "native.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == "COMPILED_MODULES" and node.value is not None:
            return [f"src/{path}" for path in ast.literal_eval(node.value)]
    raise RuntimeError("src/canasta/engine/native.py has no COMPILED_MODULES")


def fall_back(reason: str) -> None:
    """The one-line notice (or, with CANASTA_COMPILE=required, the failure)."""
    reason = " ".join(reason.split())[:200] or "unknown error"
    if REQUIRED:
        raise SystemExit(f"canasta: C compile failed ({reason}) and CANASTA_COMPILE=required")
    print(f"canasta: C compile failed ({reason}), installing the pure-Python engine", file=sys.stderr)


class BuildOrFallBack(build_ext):
    """build_ext that, when the C compile or link fails, removes what it built and
    leaves the pure-Python modules (always installed beside the extensions) to run."""

    def run(self) -> None:
        try:
            super().run()
        except (Exception, SystemExit) as exc:
            for output in self.get_outputs():
                Path(output).unlink(missing_ok=True)
            fall_back(f"{type(exc).__name__}: {exc}")

    def copy_extensions_to_source(self) -> None:
        try:
            super().copy_extensions_to_source()
        except (Exception, SystemExit) as exc:
            fall_back(f"{type(exc).__name__}: {exc}")


#: the setup commands that build the package (not the metadata steps pip runs first)
BUILDS = ("bdist_wheel", "build", "build_ext", "install")


def stale_extensions() -> None:
    """A pure build removes the extension modules a compiled build left under build/ (they
    would otherwise be packed into the pure wheel beside the .py files)."""
    for lib in ROOT.glob("build/lib*"):
        for path in [*lib.glob("canasta/**/*.so"), *lib.glob("canasta/**/*.pyd"), *lib.glob("canasta__mypyc*")]:
            path.unlink()


def ext_modules() -> list[Any]:
    commands = set(sys.argv[1:])
    if "editable_wheel" in commands or not commands & set(BUILDS):
        return []  # an editable install is the pure-Python reference; metadata needs no compile
    if not WANTED:
        stale_extensions()
        return []
    try:
        from mypyc.build import mypycify

        # mypy's settings for the compile: the project's strict settings are for the source
        # (CI runs them); here only what mypyc needs, and numpy (imported by canasta.rl.encoding,
        # absent from pip's build environment) is treated as untyped
        config = ROOT / "build" / "mypyc-mypy.ini"
        config.parent.mkdir(exist_ok=True)
        config.write_text("[mypy]\nignore_missing_imports = True\n", encoding="utf-8")
        return list(mypycify(["--config-file", str(config), *compiled_modules()], opt_level="3",
                             group_name="canasta"))
    except (Exception, SystemExit) as exc:
        fall_back(f"mypyc: {type(exc).__name__}: {exc}")
        stale_extensions()
        return []


setup(ext_modules=ext_modules(), cmdclass={"build_ext": BuildOrFallBack})
