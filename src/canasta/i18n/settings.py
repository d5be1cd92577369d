"""A player's settings for the command line and the terminal app: the language chosen
explicitly to be remembered (``canasta config lang it``, or the terminal app's language
key F2), kept in ``$XDG_CONFIG_HOME/canasta/settings.json``
(``~/.config/canasta/settings.json``).  ``--lang`` on a command applies to that command only.

A settings file that cannot be read is ignored with a warning on stderr; it is
rewritten the next time a choice is saved."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from canasta.i18n import LANGUAGES, PSEUDO, negotiate


def settings_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "canasta" / "settings.json"


def load_settings(warn: bool = True) -> dict[str, Any]:
    """The saved settings ({} when there are none, or when the file is damaged: a warning)."""
    path = settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        if warn:
            print(f"canasta: warning: ignoring the settings file {str(path)!r}: {exc}", file=sys.stderr)
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        data = None
        why = f"not JSON ({exc.msg}, line {exc.lineno})"
    else:
        why = "not a JSON object"
    if not isinstance(data, dict):
        if warn:
            print(f"canasta: warning: ignoring the settings file {str(path)!r}: {why}", file=sys.stderr)
        return {}
    return data


def saved_language(warn: bool = True) -> str | None:
    """The language saved by the last explicit choice, if it is one we have."""
    lang = load_settings(warn).get("lang")
    if isinstance(lang, str) and (lang in LANGUAGES or lang == PSEUDO):
        return lang
    return None


def save_settings(**changes: Any) -> Path | None:
    """Merge ``changes`` into the settings file, a value None removing its key (None when
    it cannot be written: a warning)."""
    path = settings_path()
    data = load_settings(warn=False)
    data.update(changes)
    data = {k: v for k, v in data.items() if v is not None}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        print(f"canasta: warning: cannot save the settings to {str(path)!r}: {exc.strerror}", file=sys.stderr)
        return None
    return path


def remember_language(lang: str) -> Path | None:
    """Remember ``lang`` for later commands; the settings file it is kept in (None when
    ``lang`` is not a language we have, or the file cannot be written: a warning)."""
    if lang in LANGUAGES or lang == PSEUDO:
        return save_settings(lang=lang)
    return None


def forget_language() -> Path | None:
    """Remember no language any more (the environment chooses); the settings file."""
    return save_settings(lang=None)


def choose_language(requested: str | None = None) -> str:
    """The command line's and terminal app's language: ``requested`` (``--lang``, for
    this command only: nothing is remembered), else the choice remembered
    (:func:`remember_language`), else ``LANGUAGE``/``LC_ALL``/``LC_MESSAGES``/``LANG``,
    else English."""
    if requested:
        return negotiate(requested, environ={})
    saved = saved_language()
    if saved is not None:
        return saved
    return negotiate(None)
