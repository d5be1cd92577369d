"""Computer players.  ``make_bot("advanced", seed=3)``, ``make_bot("cmd:python my_bot.py")`` or
``make_bot("policy:runs/policy.npz")`` (a trained policy, :mod:`canasta.rl.policy`).

Levels: ``random``, ``basic``, ``advanced``, ``expert`` (``expert:0.2`` sets its
time budget in seconds, ``expert:i50`` a number of sampled worlds); beside them ``ismcts``
(OpenSpiel's ISMCTS, an outside yardstick: ``ismcts:200`` simulations a decision,
``ismcts:0.5s`` CPU seconds a decision; needs the rl extra, :mod:`canasta.bots.ismcts`).  A bot gets
only a :class:`~canasta.views.seat.SeatView` and returns a legal move.

A bot of your own is a :class:`Bot` subclass (:mod:`canasta.bots.base`); a
:class:`~canasta.play.table.Table` seat and :func:`canasta.tools.arena.run_arena` take it,
or an object of it, wherever they take a name (:data:`BotLike`, :func:`as_bot`).
"""

from __future__ import annotations

import math
import re
from typing import cast

from canasta.bots.base import Bot, BotLike, Budget, RandomBot, legal_moves, world
from canasta.bots.expert import ExpertBot
from canasta.bots.heuristic import AdvancedBot, BasicBot
from canasta.engine.errors import CanastaError
from canasta.engine.rules import RuleSet

#: the engine's own levels (what the terminal and the web offer); ``ismcts``, ``policy:`` and
#: ``cmd:`` are specs beside them, for the arena, tables and the ladder
LEVELS = ("random", "basic", "advanced", "expert")


class BotSpecError(CanastaError):
    """A bot name that is not understood."""


def make_bot(spec: str, seed: int = 0) -> Bot:
    """A bot from its name: a level, ``expert:SECONDS``, ``expert:iN``, ``ismcts:N``,
    ``ismcts:SECONDSs`` or ``cmd:COMMAND LINE`` for an external bot speaking the protocol."""
    text = spec.strip()
    if text.startswith(PYTHON_PREFIX):
        raise BotSpecError(f"{spec!r} names a Python bot object that was seated in code: it cannot be built "
                           "from its name; pass the object again (e.g. Table.load(path, bots={seat: bot}))")
    if text.startswith("cmd:"):
        from canasta.bots.external import ExternalBot, command_words

        try:
            command_words(text[4:])
        except CanastaError as exc:
            raise BotSpecError(str(exc)) from None
        return ExternalBot(text[4:], seed=seed)
    if text.startswith("policy:"):
        return _policy_bot(text[7:], seed)
    name, _, arg = text.partition(":")
    name = name.lower()
    if name == "random":
        return RandomBot(seed)
    if name == "basic":
        return BasicBot(seed)
    if name == "advanced":
        return AdvancedBot(seed)
    if name == "expert":
        return ExpertBot(seed, parse_budget(arg) if arg else None)
    if name == "expert-policy":  # the expert whose rollouts the shipped policy network plays (issue 54)
        return ExpertBot(seed, parse_budget(arg) if arg else None, rollout="policy")
    if name == "ismcts":
        return _ismcts_bot(arg, seed)
    raise BotSpecError(f"unknown bot {spec!r}: choose {', '.join(LEVELS)}, expert:SECONDS, ismcts:N, "
                       "cmd:COMMAND or policy:PATH")


#: how a Python bot object is labelled in records and saved tables (``python:NAME``)
PYTHON_PREFIX = "python:"


def bot_label(player: BotLike) -> str:
    """How a player is named in records, saved tables and reports: a spec string as
    given; a bot object or factory as ``python:NAME`` (its ``name``, or its class's)."""
    if isinstance(player, str):
        return player.strip()
    name = getattr(player, "name", None)
    if not isinstance(name, str) or not name.strip():
        name = getattr(player, "__name__", None) or type(player).__name__
    return PYTHON_PREFIX + (re.sub(r"[\s=]+", "-", str(name).strip()) or "bot")


def as_bot(player: BotLike, seed: int = 0) -> tuple[Bot, bool]:
    """The bot for a seat, and whether the caller made it (and so closes it): a spec
    string is built by :func:`make_bot`, a factory (a :class:`Bot` subclass, or any
    function of a seed) is called with ``seed``; a bot object is used as it is (yours
    to close).  Anything else is a TypeError saying what to pass."""
    if isinstance(player, str):
        return make_bot(player, seed=seed), True
    if not isinstance(player, type) and callable(getattr(player, "choose", None)):
        return cast(Bot, player), False
    if callable(player):
        bot = player(seed)
        if not callable(getattr(bot, "choose", None)):
            raise TypeError(f"{bot_label(player)} made {type(bot).__name__!r}, which has no choose(view) method")
        return bot, True
    raise TypeError(f"a bot is a name such as 'advanced' or 'cmd:COMMAND', a Bot object or a Bot subclass, "
                    f"not {type(player).__name__}")


#: the most seconds an expert may think per decision (``expert:SECONDS``)
MAX_SECONDS = 3600.0


def parse_budget(text: str) -> Budget:
    """An expert's budget: ``0.5`` (seconds a decision, more than 0 and at most an hour) or
    ``i50`` (sampled worlds a decision, a whole number from 1); anything else is refused
    with the allowed range."""
    allowed = (f"give seconds above 0 and at most {MAX_SECONDS:.0f} (expert:0.5) or a whole number of worlds "
               "from 1 (expert:i50)")
    if text.lower().startswith("i"):
        try:
            worlds = int(text[1:])
        except ValueError:
            worlds = 0
        if worlds < 1:
            raise BotSpecError(f"expert budget {text!r}: {allowed}")
        return Budget(iterations=worlds)
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_SECONDS:
        raise BotSpecError(f"expert budget {text!r}: {allowed}")
    return Budget(seconds=seconds)


def parse_ismcts_budget(text: str) -> Budget:
    """An ismcts budget: ``200`` (simulations a decision, a whole number from 1) or ``0.5s``
    (CPU seconds a decision, more than 0 and at most an hour); anything else is refused with
    the allowed range."""
    from canasta.bots.ismcts import MAX_SECONDS as ISMCTS_SECONDS
    from canasta.bots.ismcts import MAX_SIMULATIONS

    allowed = (f"give a whole number of simulations from 1 to {MAX_SIMULATIONS} (ismcts:200) or CPU seconds "
               f"above 0 and at most {ISMCTS_SECONDS:.0f} followed by s (ismcts:0.5s)")
    body = text.strip().lower()
    if body.endswith("s"):
        try:
            seconds = float(body[:-1])
        except ValueError:
            seconds = math.nan
        if not 0 < seconds <= ISMCTS_SECONDS:
            raise BotSpecError(f"ismcts budget {text!r}: {allowed}")
        return Budget(seconds=seconds)
    simulations = int(body) if re.fullmatch(r"[0-9]{1,7}", body) else 0
    if not 1 <= simulations <= MAX_SIMULATIONS:
        raise BotSpecError(f"ismcts budget {text!r}: {allowed}")
    return Budget(iterations=simulations)


def _ismcts_bot(arg: str, seed: int) -> Bot:
    """``ismcts[:N|:SECONDSs]``: OpenSpiel's ISMCTS on the engine's OpenSpiel game (the rl extra)."""
    from canasta.bots.ismcts import DEFAULT_SIMULATIONS, IsmctsBot, OpenSpielMissing

    budget = parse_ismcts_budget(arg) if arg else Budget(iterations=DEFAULT_SIMULATIONS)
    try:
        return IsmctsBot(seed, budget)
    except OpenSpielMissing as exc:
        raise BotSpecError(str(exc)) from None


def check_bot(spec: str, rules: RuleSet) -> None:
    """Refuse, before any game, a spec that cannot play ``rules``: an unknown name, a bad
    budget, a missing policy file or one trained for rules whose observations differ, an
    empty or unreadable ``cmd:`` command (whose program is not started here)."""
    text = spec.strip()
    if text.startswith("cmd:"):
        from canasta.bots.external import command_words

        try:
            command_words(text[4:])
        except CanastaError as exc:
            raise BotSpecError(str(exc)) from None
        return
    bot = make_bot(text)
    try:
        if text.startswith("policy:"):
            _check_policy(text, bot, rules)
        if text.lower().partition(":")[0] == "expert-policy":
            from canasta.rl.policy import WEIGHTS, resolve

            if not resolve(rules.name).exists():
                shipped = ", ".join(sorted(p.stem for p in WEIGHTS.glob("*.npz")))
                raise BotSpecError(f"expert-policy plays its rollouts by the shipped policy of the rules, and "
                                   f"{rules.name} has none (shipped: {shipped})")
    finally:
        bot.close()


def _check_policy(spec: str, bot: Bot, rules: RuleSet) -> None:
    """A policy reads the observations of the rules it was trained for: others of another size
    are refused, naming both rule sets."""
    from canasta.rl.encoding import Observer

    policy = getattr(bot, "policy", None)
    inputs = getattr(policy, "inputs", None)
    size = Observer(rules).size
    if inputs is None or inputs == size:
        return
    trained = str(getattr(policy, "rules", "") or "other rules")
    raise BotSpecError(f"{spec} was trained for {trained} ({inputs} features) and cannot play {rules.name} "
                       f"({size} features): choose a policy trained for {rules.name}, or play {trained}")


def _policy_bot(path: str, seed: int) -> Bot:
    """``policy:PATH``: a trained policy saved by ``canasta.rl`` (plays with numpy only)."""
    import importlib.util

    if importlib.util.find_spec("numpy") is None:
        raise BotSpecError("policy bots need numpy: pip install -e '.[rl]'")
    from canasta.rl.policy import PolicyBot

    try:
        return PolicyBot(path.strip(), seed=seed)
    except (OSError, ValueError) as exc:
        raise BotSpecError(f"policy:{path}: {exc}") from None


__all__ = ["LEVELS", "PYTHON_PREFIX", "AdvancedBot", "BasicBot", "Bot", "BotLike", "BotSpecError", "Budget",
           "ExpertBot", "RandomBot", "as_bot", "bot_label", "check_bot", "legal_moves", "make_bot", "parse_budget",
           "parse_ismcts_budget", "world"]
