"""canasta.present: one rule for what picked cards make, one describer in every language."""

from __future__ import annotations

import dataclasses

import pytest

from canasta.engine.cards import parse_card, parse_rank
from canasta.engine.game import Game
from canasta.engine.moves import Move
from canasta.engine.rules import RuleSet
from canasta.i18n import Translator, translator
from canasta.present import Selection, candidates, dealt, describe, proposal, proposals, take_move
from canasta.views.seat import SeatView, seat_view

CLASSIC = RuleSet.preset("classic-4p")
ITALIAN = RuleSet.preset("italian-4p")
EN, IT = translator("en"), translator("it")


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in text.split())


def view_with_top(top: str, rules: RuleSet = CLASSIC, phase: str = "draw") -> SeatView:
    view = seat_view(Game(rules, seed=3), 0)
    return dataclasses.replace(view, pile=(*view.pile, parse_card(top)), phase=phase)


@pytest.mark.parametrize(("move", "rules", "t", "who", "text"), [
    ("draw", CLASSIC, EN, "West", "West draws"),
    ("draw", CLASSIC, IT, "West", "Ovest pesca"),
    ("take 8H 8S", CLASSIC, EN, "Ann", "Ann takes the pile with 8H 8S"),
    ("take 8H 8S", ITALIAN, EN, "Ann", "Ann takes the pozzo with 8H 8S"),
    ("take 8H 8S + KH KS KD", ITALIAN, IT, "Ann", "Ann prende il pozzo con 8H 8S e cala KH KS KD"),
    ("meld 8H 8S 2C + K:JK", CLASSIC, EN, None, "melds 8H 8S 2C, JK on the kings"),
    ("discard 9C", CLASSIC, IT, "Bea", "Bea scarta 9C"),
    ("ask", CLASSIC, EN, "North", "North asks: may I go out?"),
])
def test_a_move_reads_the_same_wherever_it_is_shown(move: str, rules: RuleSet, t: Translator, who: str | None,
                                                     text: str) -> None:
    assert describe(Move.parse(move), rules, who, t) == text


def test_a_move_to_make_and_a_new_hand_in_both_languages() -> None:
    assert proposal(Move.parse("take 8H 8S + KH KS KD"), CLASSIC, EN) == "take the pile with 8H 8S, melding KH KS KD"
    assert proposal(Move.parse("meld 8H 8S 2C"), ITALIAN, IT) == "cala 8H 8S 2C"
    assert proposal(Move.parse("take"), ITALIAN, EN) == "take the pozzo"
    assert dealt(2, EN) == "Hand 2 dealt" and dealt(2, IT) == "Smazzata 2 distribuita"


def test_the_take_goes_with_the_group_matching_the_top_card_wherever_it_was_picked() -> None:
    view = view_with_top("8D")
    staged_first = Selection.of([cards("8H 8S"), cards("KH KS KD")], cards("QH QS QC"))
    assert take_move(view, staged_first) == Move.parse("take 8H 8S + KH KS KD + QH QS QC")
    picked_last = Selection.of([cards("KH KS KD")], cards("8H 8S"))
    assert take_move(view, picked_last) == Move.parse("take 8H 8S + KH KS KD")
    none_match = Selection.of([cards("KH KS KD")], cards("QH QS"))  # no eight: the cards picked now go with it
    assert take_move(view, none_match) == Move.parse("take QH QS + KH KS KD")
    assert take_move(view, Selection()) == Move.parse("take")


def test_wild_cards_alone_join_their_target_and_each_action_gets_its_move() -> None:
    view = view_with_top("8D", phase="meld")
    sel = Selection.of([cards("2C JK")], cards("9H"), target=None, staged_targets=[parse_rank("K")])
    made = candidates(view, sel)
    assert made["meld"] == Move.parse("meld K:2C JK + 9H")
    assert "discard" not in made  # one card picked, but groups are staged
    assert made["ask"] == Move.ask() and "open" not in made  # classic-4p: a partner, no I-O31
    one = Selection.of((), cards("9H"))
    assert [a for a, _m in proposals(view, one)] == ["meld", "discard"]
    assert proposals(view_with_top("8D"), one) == [("take", Move.parse("take 9H"))]
    assert proposals(view, Selection()) == []


def test_a_hand_ends_in_the_familys_word_for_a_hand() -> None:
    """The family declares its word for a hand (RuleFamily.hand_word, as it does pile_word): an
    Italian game's hand is a smazzata, and the end of one says so in Italian (issue 55); a Classic
    hand says the language's usual words, and English says "hand" for both."""
    from canasta.engine.game import family_of
    from canasta.present import HAND_PHRASES, hand_phrase, hand_word

    assert (family_of(CLASSIC).hand_word, family_of(ITALIAN).hand_word) == ("hand", "smazzata")
    assert (hand_word(CLASSIC), hand_word(ITALIAN)) == ("hand", "smazzata")
    fields = {"n": 2, "went": "Ann went out", "reason": "the stock ran out"}
    for key in ("over", "over_why", "over_now"):
        english = HAND_PHRASES["hand"][key].format(**fields)
        assert hand_phrase(CLASSIC, key, EN, **fields) == hand_phrase(ITALIAN, key, EN, **fields) == english
        italian = hand_phrase(ITALIAN, key, IT, **fields)
        assert "smazzata" in italian.lower() and "mano" not in italian, italian
        assert hand_phrase(CLASSIC, key, IT, **fields) == IT.gettext(HAND_PHRASES["hand"][key]).format(**fields)
    assert hand_phrase(ITALIAN, "over", IT, **fields) == "La smazzata 2 è finita: Ann went out."
    assert hand_phrase(ITALIAN, "over", translator("es"), **fields) == hand_phrase(CLASSIC, "over", translator("es"), **fields)


def test_the_card_room_is_told_the_familys_word_for_a_hand() -> None:
    pytest.importorskip("fastapi")
    from canasta.web.sockets import words_of

    assert (words_of(CLASSIC)["hand"], words_of(ITALIAN)["hand"]) == ("hand", "smazzata")
