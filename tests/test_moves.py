"""Move notation: ``Move.parse(str(m)) == m`` for every generated move, and
malformed move strings refused with NotationError (never another exception)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta.engine.cards import JOKER, parse_card, parse_cards
from canasta.engine.errors import NotationError
from canasta.engine.game import Game
from canasta.engine.moves import DISCARD, DRAW, MELD, TAKE, Move, make_group
from canasta.engine.rules import PRESETS, RuleSet
from conftest import MAX_MOVES, SEEDS

# the Classic presets (SPEC Part A); other families are out of scope here
PRESET_NAMES = sorted(n for n, r in PRESETS.items() if r.family == "classic")


def _check_round_trip(move: Move) -> None:
    text = str(move)
    back = Move.parse(text)
    assert back == move, f"{text!r} read back as {back!r}"
    assert str(back) == text
    assert hash(back) == hash(move)
    assert eval(repr(move), {"Move": Move}) == move


def _playout_round_trips(rules: RuleSet, seed: int) -> int:
    """Play a seeded random hand; round-trip every move the generator yields."""
    rng = random.Random(seed)
    game = Game(rules, seed, dealer=seed % rules.players)
    checked = 0
    for _ in range(MAX_MOVES):
        if game.is_over():
            break
        moves = list(game.legal_moves)
        for m in moves:
            _check_round_trip(m)
            checked += 1
        game.push(moves[rng.randrange(len(moves))])
    assert game.is_over(), f"{rules.name} seed {seed}: hand did not end in {MAX_MOVES} moves"
    return checked


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(max_examples=6, derandomize=True, deadline=None)
@given(seed=SEEDS)
def test_generated_moves_round_trip(preset: str, seed: int) -> None:
    assert _playout_round_trips(RuleSet.preset(preset), seed) > 0


def test_text_moves_can_be_pushed() -> None:
    """The text form of a generated move is accepted by push as is."""
    rules = RuleSet.preset("classic-4p")
    for seed in range(3):
        rng = random.Random(seed)
        game = Game(rules, seed)
        while not game.is_over():
            moves = list(game.legal_moves)
            move = moves[rng.randrange(len(moves))]
            assert str(move) in game.legal_moves
            game.push(str(move))
            assert game.pop() == move
            game.push(move)


CANONICAL = [
    "draw", "take", "take 8H 8S", "take 8H 8S + KH KS 2C", "take + KH KS KD", "meld 8H 8S 2C",
    "meld 8:2C + QH QS QD", "meld 8:JK", "discard 9C", "discard JK", "discard 3S", "ask", "yes", "no",
    "end", "meld 3S 3C 3S", "take 8:8H 8S", "meld AS AH AD AC AS 2C JK",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_moves_round_trip(text: str) -> None:
    move = Move.parse(text)
    assert str(move) == text
    _check_round_trip(move)


def test_parse_builds_the_expected_moves() -> None:
    assert Move.parse("draw") == Move.draw()
    assert Move.parse("  DRAW ") == Move.draw()
    assert Move.parse("discard 9c") == Move.discard(parse_card("9C"))
    assert Move.parse("take") == Move.take()
    assert Move.parse("take 8H 8S") == Move.take(parse_cards("8H 8S"))
    assert Move.parse("take 8H 8S + KH KS 2C") == Move.take(
        parse_cards("8H 8S"), tuple(parse_cards("KH KS 2C")))
    assert Move.parse("meld 8:2C + QH QS QD") == Move.meld(
        make_group([parse_card("2C")], 6), tuple(parse_cards("QH QS QD")))
    assert Move.parse("meld 8:JK") == Move.meld(make_group([JOKER], 6))
    assert Move.parse("ask") == Move.ask()
    assert Move.parse("yes") == Move.answer(True)
    assert Move.parse("no") == Move.answer(False)
    assert Move.parse("end") == Move.end()
    assert Move.parse("discard 9C").kind == DISCARD
    assert Move.parse("draw").kind == DRAW
    assert Move.parse("take").kind == TAKE
    assert Move.parse("meld 8H 8S 2C").kind == MELD


def test_order_inside_groups_does_not_matter() -> None:
    assert Move.parse("meld 8H 2C 8S") == Move.parse("meld 8S 8H 2C")
    assert Move.parse("meld QH QS QD + 8:2C") == Move.parse("meld 8:2C + QH QS QD")
    assert Move.parse("take 8H 8S + KH KS KD + 5H 5S 5C") == Move.parse("take 8S 8H + 5H 5S 5C + KH KS KD")
    # but the group shown with the pile's top card is not interchangeable with the others
    assert Move.parse("take 8H 8S + KH KS KD") != Move.parse("take KH KS KD + 8H 8S")
    assert Move.parse("meld 8H 8S 2C") != Move.parse("meld 8H 8S 2D")
    assert Move.parse("discard 9C") != Move.parse("discard 9D")


BAD_MOVES = [
    "", "   ", "foo", "drwa", "discard", "discard AS KS", "discard XX", "discard 1S", "meld", "meld +",
    "meld AS AS +", "meld + AS AS AH", "meld AS ZZ", "take + ", "take AS + + KS", "take 8H 8S +",
    "draw AS", "ask now", "yes please", "no 8H", "end now", "meld 8:", "meld X:2C", "meld :2C",
    "meld 8:2C + ", "meld 8:2C:3C", "take 8:", "meld 11:2C", "discard JKK", "meld 8H,,8S",
    "take 8H 8S + 9:",
]


@pytest.mark.parametrize("text", BAD_MOVES)
def test_malformed_moves_refused(text: str) -> None:
    with pytest.raises(NotationError) as info:
        Move.parse(text)
    assert str(info.value), "the error must say what was expected"


@pytest.mark.parametrize("text", ["foo", "", "drwa 8H"])
def test_unknown_move_word_lists_the_move_words(text: str) -> None:
    with pytest.raises(NotationError, match="expected draw, take, meld, discard"):
        Move.parse(text)


def test_discard_error_gives_an_example() -> None:
    with pytest.raises(NotationError, match="discard 9C"):
        Move.parse("discard AS KS")


@pytest.mark.parametrize("value", [None, 5, b"draw", ["draw"]])
def test_non_text_refused(value: object) -> None:
    with pytest.raises(NotationError):
        Move.parse(value)


MOVE_ALPHABET = "drawtkemlscinoyu AKQJ1023456789SHDCJK+:,"


@settings(max_examples=500, derandomize=True, deadline=None)
@given(st.one_of(st.text(max_size=30), st.text(alphabet=MOVE_ALPHABET, max_size=30)))
def test_parse_random_text(text: str) -> None:
    try:
        move = Move.parse(text)
    except NotationError:
        return
    _check_round_trip(move)


WORDS = ["draw", "take", "meld", "discard", "ask", "yes", "no", "end"]
TOKENS = ["8H", "8S", "2C", "JK", "10D", "3S", "3H", "8:", "K:", "+", "AS", "xx", ":", "1S", "JK:"]


@settings(max_examples=500, derandomize=True, deadline=None)
@given(st.sampled_from(WORDS), st.lists(st.sampled_from(TOKENS), max_size=8))
def test_parse_token_soup(word: str, tokens: list[str]) -> None:
    text = word + " " + " ".join(tokens)
    try:
        move = Move.parse(text)
    except NotationError:
        return
    _check_round_trip(move)
