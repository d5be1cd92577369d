"""canasta: a rules engine for Classic Canasta (and a home for its variants)."""

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
from canasta.game import Game, Hand, LegalMoves
from canasta.moves import Move
from canasta.rules import PRESETS, RuleSet, load_rules, save_rules

__all__ = [
    "PRESETS", "REFUSALS", "CanastaError", "Card", "Game", "Hand", "IllegalMoveError", "LegalMoves", "Move",
    "NotationError", "PositionError", "Refusal", "RuleSet", "RulesError", "card_str", "cards_str",
    "load_rules", "parse_card", "parse_cards", "save_rules",
]
__version__ = "0.1.0"
