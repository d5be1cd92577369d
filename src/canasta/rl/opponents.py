"""The opponents an environment seats (Gymnasium's, the evaluation's): bots by name, made
reproducible.  Apart from :mod:`canasta.rl.core` so that the game the environments share
needs no bot level (a bot level may itself be built on an environment: ``ismcts``)."""

from __future__ import annotations

from canasta.bots.base import Bot, Budget


def opponent(spec: str, seed: int) -> Bot:
    """The bot an environment seats for ``spec`` (a :func:`~canasta.bots.make_bot` name): the same,
    except that a plain ``expert`` searches its family's fixed number of worlds with no clock, so
    that a seeded episode repeats on any machine and under any load (``expert:SECONDS`` keeps the
    wall-clock budget it asks for; ``expert:iN`` is reproducible too)."""
    from canasta.bots import make_bot
    from canasta.bots.expert import ExpertBot

    bot = make_bot(spec, seed=seed)
    if isinstance(bot, ExpertBot) and spec.strip().lower() == "expert":
        bot.budget = Budget()  # no seconds: the family's worlds alone bound a decision
    return bot
