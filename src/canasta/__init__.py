"""canasta: a rules engine for Classic Canasta (and a home for its variants).

::

    from canasta import Game, seat_view
    game = Game("classic-4p", seed=7)
    game.push("draw")                       # a move or its text, checked
    view = seat_view(game, game.to_move)    # what one seat may know
    saved = game.to_dict()                  # the whole table, JSON-ready; Game.from_dict(saved) reads it

The names below are the library (``docs/api.md``, generated from their
docstrings by ``python -m canasta.tools.apidoc --write docs/api.md``).  One convention
throughout: objects are written with ``to_dict()`` (JSON-ready) and ``to_json()``
(text) and read with ``from_dict()`` (either); cards are card codes (ints) in every
Python value and strings (``"10H"``) in every written form; every method that takes
a move takes a :class:`Move` or its text.
"""

from canasta import families as families  # registers the built-in families
from canasta.bots import Bot, make_bot
from canasta.engine import compiled_pickle
from canasta.engine.cards import Card, card_str, cards_str, parse_card, parse_cards
from canasta.engine.errors import (
    REFUSALS,
    CanastaError,
    IllegalMoveError,
    NotationError,
    PositionError,
    Refusal,
    RulesError,
)
from canasta.engine.game import FAMILIES, Game, LegalMoves, RuleFamily, family_of, register_family
from canasta.engine.moves import Move
from canasta.engine.rules import PRESETS, RuleSet, load_rules, save_rules
from canasta.play.table import Table
from canasta.views.position import game_from_position, position_json, position_of
from canasta.views.seat import SeatView, seat_view

compiled_pickle.register()  # the compiled engine's objects pickle and copy (nothing is done for the pure one)

__all__ = [
    "FAMILIES", "PRESETS", "REFUSALS", "Bot", "CanastaError", "Card", "Game", "IllegalMoveError", "LegalMoves",
    "Move", "NotationError", "PositionError", "Refusal", "RuleFamily", "RuleSet", "RulesError", "SeatView", "Table",
    "card_str", "cards_str", "family_of", "game_from_position", "load_rules", "make_bot", "parse_card",
    "parse_cards", "position_json", "position_of", "register_family", "save_rules", "seat_view",
]
__version__ = "0.1.0"
