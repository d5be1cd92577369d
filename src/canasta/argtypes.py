"""Command-line argument types: each turns a word into a value or says, in one
line, what was expected (argparse prints it with the command's usage)."""

from __future__ import annotations

import argparse

from canasta.engine.errors import RulesError
from canasta.engine.rules import RuleSet, resolve_rules


def rules(text: str) -> RuleSet:
    """A preset name or a .toml/.json rules file."""
    try:
        return resolve_rules(text)
    except RulesError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def two_sides(text: str) -> RuleSet:
    """Rules with two sides (a partnership game or two players; not cut-throat)."""
    value = rules(text)
    if len(value.teams) != 2 or value.cutthroat:
        raise argparse.ArgumentTypeError(f"rules with two sides, not {text} ({len(value.teams)} sides)")
    return value


def whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive(text: str) -> int:
    value = whole(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


#: the most processes a command starts at once (``--jobs``): far above any machine's cores, below a
#: number that would exhaust the system's processes
MAX_JOBS = 256


def processes(text: str) -> int:
    """``--jobs``: a whole number of processes from 1 to :data:`MAX_JOBS`."""
    value = positive(text)
    if value > MAX_JOBS:
        raise argparse.ArgumentTypeError(f"at most {MAX_JOBS} processes at once, not {value}")
    return value


def port(text: str) -> int:
    value = whole(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is from 0 to 65535, not {value}")
    return value


def seconds(text: str) -> float:
    """A duration: zero or more seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"a duration cannot be negative, not {text}")
    return value


def same_bot(text: str) -> tuple[str, str]:
    """``LABEL=BOT``: a record's name for a player and the bot it counts as."""
    label, eq, bot = (part.strip() for part in text.partition("="))
    if not eq or not label or not bot or label == bot or " " in label or " " in bot:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not LABEL=BOT: a record's player name, '=', and the bot to count it as, "
            "e.g. python:expert:i90+hand=expert:i90")
    return label, bot
