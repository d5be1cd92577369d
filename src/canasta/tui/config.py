"""What ``canasta play`` was asked for, and the table it builds."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from canasta.bots import LEVELS
from canasta.engine.errors import CanastaError
from canasta.engine.rules import RuleSet
from canasta.i18n import _
from canasta.play.table import Table

PERSON = 0


def language_named(text: str) -> str | None:
    """The language ``text`` names (``it``, ``it_IT.UTF-8``, ``en-GB``, the pseudo-language
    ``qps``), or None when the project has no catalog for it (``fr``)."""
    from canasta.i18n import DEFAULT, negotiate

    lang = negotiate(text, environ={})
    if lang != DEFAULT:
        return lang
    base = text.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    return lang if base in (DEFAULT, "c", "posix") else None


def default_save_dir() -> Path:
    """Where records and saved games go: ``$XDG_DATA_HOME/canasta/games``
    (``~/.local/share/canasta/games`` when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "canasta" / "games"


@dataclass
class PlayConfig:
    """What ``canasta play`` was asked for; anything unset is chosen on the new-game screen."""

    rules: RuleSet | None = None
    seed: int | None = None
    bots: list[str] | None = None
    target: int | None = None
    name: str = "South"
    resume: Path | None = None
    save_dir: Path = field(default_factory=default_save_dir)
    delay: float = 0.6
    hints: bool = False
    four_colour: bool = False
    hint_level: str = "advanced"
    #: the language (None: the process's, canasta.i18n.current())
    lang: str | None = None

    @property
    def ready(self) -> bool:
        """Enough was given on the command line to skip the new-game screen."""
        return self.resume is not None or self.rules is not None or self.bots is not None or self.seed is not None


def build_table(rules: RuleSet, bots: list[str], seed: int, name: str = "South",
                hint_level: str = "advanced") -> Table:
    """A table with the person at seat 0 and bots (by level) at the others."""
    if len(bots) == 1 and rules.players > 2:
        bots = bots * (rules.players - 1)
    if len(bots) != rules.players - 1:
        raise CanastaError(_("{rules} needs {need} bot levels (one per other seat), not {given}").format(
            rules=rules.name, need=rules.players - 1, given=len(bots)))
    for level in bots:
        if level.split(":")[0] not in LEVELS:
            raise CanastaError(_("unknown bot level {level}: choose from {levels}").format(
                level=repr(level), levels=", ".join(LEVELS)))
    table = Table(rules, [None, *bots], seed=seed, hint_level=hint_level, event="canasta play")
    if name:
        table.rename(PERSON, name)
    return table
