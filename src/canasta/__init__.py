"""canasta: a rules engine for Classic Canasta (and a home for its variants)."""

from canasta.cards import Card, card_str, cards_str, parse_card, parse_cards
from canasta.errors import CanastaError, IllegalMoveError, NotationError, PositionError, RulesError
from canasta.game import Game, LegalMoves
from canasta.moves import Move
from canasta.rules import PRESETS, RuleSet, load_rules, save_rules

__all__ = [
    "PRESETS", "CanastaError", "Card", "Game", "IllegalMoveError", "LegalMoves", "Move",
    "NotationError", "PositionError", "RuleSet", "RulesError", "card_str", "cards_str",
    "load_rules", "parse_card", "parse_cards", "save_rules",
]
__version__ = "0.1.0"
