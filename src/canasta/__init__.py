"""canasta: a rules engine for Classic Canasta (and a home for its variants)."""

from canasta import compiled_pickle
from canasta import families as families  # registers the built-in families
from canasta.cards import Card, card_str, cards_str, parse_card, parse_cards
from canasta.errors import (
    REFUSALS,
    CanastaError,
    IllegalMoveError,
    NotationError,
    PositionError,
    Refusal,
    RulesError,
)
from canasta.game import FAMILIES, Game, LegalMoves, RuleFamily, family_of, register_family
from canasta.moves import Move
from canasta.rules import PRESETS, RuleSet, load_rules, save_rules

compiled_pickle.register()  # the compiled engine's objects pickle and copy (nothing is done for the pure one)

__all__ = [
    "FAMILIES", "PRESETS", "REFUSALS", "CanastaError", "Card", "Game", "IllegalMoveError", "LegalMoves", "Move",
    "NotationError", "PositionError", "Refusal", "RuleFamily", "RuleSet", "RulesError", "card_str", "cards_str",
    "family_of", "load_rules", "parse_card", "parse_cards", "register_family", "save_rules",
]
__version__ = "0.1.0"
