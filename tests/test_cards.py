"""Card notation and card values (SPEC A.1.4, A.2, card notation conventions)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta.engine.cards import (
    BLACK_THREES,
    CARD_VALUE,
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    NUM_CARDS,
    RED_THREES,
    card_str,
    cards_of,
    cards_str,
    counts_of,
    make_deck,
    parse_card,
    parse_cards,
    parse_rank,
    rank_str,
)
from canasta.engine.errors import CanastaError, NotationError

RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
SUITS = ("S", "H", "D", "C")
ALL_STRINGS = [r + s for r in RANKS for s in SUITS] + ["JK"]

# SPEC A.2, written out independently of the engine's tables.
SPEC_VALUES: dict[str, int] = {"JK": 50}
for _s in SUITS:
    SPEC_VALUES["A" + _s] = 20
    SPEC_VALUES["2" + _s] = 20
    for _r in ("K", "Q", "J", "10", "9", "8"):
        SPEC_VALUES[_r + _s] = 10
    for _r in ("7", "6", "5", "4"):
        SPEC_VALUES[_r + _s] = 5
SPEC_VALUES["3S"] = 5
SPEC_VALUES["3C"] = 5
SPEC_VALUES["3H"] = 0  # red three: bonus card, no card value
SPEC_VALUES["3D"] = 0


def test_fifty_three_distinct_card_strings() -> None:
    codes = [parse_card(s) for s in ALL_STRINGS]
    assert len(set(codes)) == 53 == NUM_CARDS
    assert sorted(codes) == list(range(NUM_CARDS))


@pytest.mark.parametrize("text", ALL_STRINGS)
def test_every_card_string_round_trips(text: str) -> None:
    card = parse_card(text)
    assert card_str(card) == text
    assert parse_card(card_str(card)) == card


@pytest.mark.parametrize("code", range(NUM_CARDS))
def test_every_card_code_round_trips(code: int) -> None:
    assert parse_card(card_str(code)) == code


@pytest.mark.parametrize("text", ALL_STRINGS)
def test_lowercase_and_padding_accepted(text: str) -> None:
    assert parse_card(f"  {text.lower()} ") == parse_card(text)


def test_joker_spellings() -> None:
    assert parse_card("JK") == JOKER
    assert parse_card("jk") == JOKER
    assert card_str(JOKER) == "JK"


def test_red_and_black_threes_notation() -> None:
    assert sorted(parse_card(s) for s in ("3H", "3D")) == sorted(RED_THREES)
    assert sorted(parse_card(s) for s in ("3S", "3C")) == sorted(BLACK_THREES)


@pytest.mark.parametrize("text", ALL_STRINGS)
def test_card_values_match_spec_a2(text: str) -> None:
    assert CARD_VALUE[parse_card(text)] == SPEC_VALUES[text]


@pytest.mark.parametrize("text", ALL_STRINGS)
def test_card_classes_match_spec_a1_4(text: str) -> None:
    card = parse_card(text)
    rank = text[:-1] if text != "JK" else "JK"
    assert IS_WILD[card] == (rank in ("2", "JK"))
    assert IS_RED_THREE[card] == (text in ("3H", "3D"))
    assert IS_BLACK_THREE[card] == (text in ("3S", "3C"))
    assert IS_NATURAL[card] == (rank not in ("2", "3", "JK"))


def test_deck_sizes_and_composition() -> None:
    for packs, size in ((2, 108), (3, 162)):
        deck = make_deck(packs)
        assert len(deck) == size
        counts = Counter(card_str(c) for c in deck)
        assert counts["JK"] == 2 * packs
        assert all(counts[s] == packs for s in ALL_STRINGS if s != "JK")
        wild = sum(1 for c in deck if IS_WILD[c])
        assert wild == 6 * packs  # A.1.4: 12 wild cards in the 108-card pack


def test_several_pack_list_round_trip() -> None:
    text = "AS AS AS JK JK JK JK 10H 10H 3D 3D 2C"
    cards = parse_cards(text)
    assert len(cards) == 12
    assert cards_str(cards) == text
    assert parse_cards(cards_str(cards)) == cards
    assert parse_cards(text.split()) == cards
    assert parse_cards(text.replace(" ", ", ")) == cards


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=NUM_CARDS - 1), max_size=40))
def test_card_list_round_trip_property(codes: list[int]) -> None:
    text = cards_str(codes)
    assert parse_cards(text) == codes
    assert cards_str(parse_cards(text)) == text
    assert parse_cards([card_str(c) for c in codes]) == codes
    assert cards_of(counts_of(codes)) == sorted(codes)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.text(max_size=6))
def test_parse_card_never_raises_anything_but_notation_error(text: str) -> None:
    try:
        card = parse_card(text)
    except NotationError as exc:
        assert "expected" in str(exc)
        return
    # whatever is accepted prints canonically and reads back to the same card
    assert 0 <= card < NUM_CARDS
    assert parse_card(card_str(card)) == card


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.text(alphabet="AKQJT1234567890SHDCX *,jkJK", max_size=20))
def test_parse_cards_near_misses(text: str) -> None:
    try:
        cards = parse_cards(text)
    except NotationError as exc:
        assert "expected" in str(exc)
        return
    assert parse_cards(cards_str(cards)) == cards


BAD_CARDS = [
    "", " ", "A", "S", "1S", "11H", "1H", "0S", "AX", "ZS", "10", "JKS", "KK", "AS AS", "3", "-1S", "A-S",
    "10HH", "13S", "AS,", "AJ",
]


@pytest.mark.parametrize("text", BAD_CARDS)
def test_bad_card_strings_refused_with_message(text: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_card(text)
    message = str(info.value)
    assert "expected" in message
    assert "rank" in message and "suit" in message
    assert isinstance(info.value, CanastaError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("text", ["AS XX 10H", "AS 11S", "JK J", "AS,,ZZ"])
def test_bad_card_in_list_refused(text: str) -> None:
    with pytest.raises(NotationError, match="expected"):
        parse_cards(text)


@pytest.mark.parametrize("code", [-1, 53, 54, 100])
def test_card_str_refuses_bad_codes(code: int) -> None:
    with pytest.raises(NotationError):
        card_str(code)


@pytest.mark.parametrize("text", ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2", "JK"])
def test_rank_round_trip(text: str) -> None:
    assert rank_str(parse_rank(text)) == text
    assert parse_rank(text.lower()) == parse_rank(text)


@pytest.mark.parametrize("text", ["", "1", "11", "X", "AS", "0", "JKK"])
def test_bad_ranks_refused(text: str) -> None:
    with pytest.raises(NotationError, match="expected one of"):
        parse_rank(text)
