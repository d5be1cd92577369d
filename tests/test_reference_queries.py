"""Read-only queries a client needs (issue 12, part 4): the count of a proposed
initial meld or opening and the minimum that applies to it, the cards drawn per
turn, the undoubled penalty in the Italian breakdown, and a deal described
directly (``Game(rules, deck=..., cut=...)``)."""

from __future__ import annotations

import pytest

from canasta.engine.cards import IS_WILD, card_str, make_deck, parse_card
from canasta.engine.game import Game
from canasta.engine.rules import RuleSet
from canasta.views.position import game_from_position


def _classic(hand: list[str], **extra: object) -> Game:
    p: dict[str, object] = {"rules": "classic-4p", "dealer": 3, "turn": 0, "phase": "meld",
                            "hands": [hand, [], [], []], "pile": ["4S"], "stock_seed": 2}
    p.update(extra)
    return game_from_position(p)


def test_classic_initial_meld_count_and_minimum() -> None:
    game = _classic(["KS", "KH", "KD", "5C", "5D", "2C", "9H", "4C", "6D"])
    mc = game.meld_count("meld KS KH KD + 5C 5D 2C")
    assert (mc.count, mc.minimum, mc.applies) == (30 + 10 + 20, 50, True)
    assert mc.enough
    assert game.why_illegal("meld KS KH KD + 5C 5D 2C") is None
    low = game.meld_count("meld KS KH KD")
    assert (low.count, low.applies, low.enough) == (30, True, False)
    assert game.why_illegal("meld KS KH KD") is not None  # the count agrees with push
    # a side with a higher score has a higher minimum (A.7.1)
    rich = _classic(["KS", "KH", "KD"], scores=[3000, 0])
    assert rich.meld_count("meld KS KH KD").minimum == 120


def test_classic_take_counts_the_top_card() -> None:
    game = _classic(["KS", "KH", "AS", "AH", "AD", "9C", "8C"], phase="draw", pile=["4S", "KD"])
    mc = game.meld_count("take KS KH + AS AH AD")
    assert mc.count == 10 + 20 + 60  # the top card and the hand's cards (A.7.4)
    assert mc.applies


def test_minimum_does_not_apply_once_melded_or_when_going_out_concealed() -> None:
    opened = _classic(["KS", "KH", "KD", "9C"], melds=[[["8S", "8H", "8D"]], []])
    mc = opened.meld_count("meld KS KH KD")
    assert not mc.applies and mc.enough and "already melded" in mc.why_not
    # C-O5: going out concealed with a canasta in one turn is exempt
    hand = ["5S", "5H", "5D", "5C", "5S", "5H", "2C", "9C"]
    concealed = _classic(hand)
    out = concealed.meld_count("meld 5S 5H 5D 5C 5S 5H 2C")
    assert out.count == 50 and not out.applies and "C-O5" in out.why_not
    strict = _classic(hand, rules=RuleSet.preset("classic-4p", {"C-O5": False}).to_dict())
    assert strict.meld_count("meld 5S 5H 5D 5C 5S 5H 2C").applies


def test_italian_opening_count_leaves_out_the_taking_cards() -> None:
    game = game_from_position({
        "rules": "italian-4p", "dealer": 3, "turn": 0, "phase": "draw",
        "hands": [["10S", "10S", "10H", "10D", "KS", "KH", "KD"], [], [], []],
        "pile": ["4S", "10C"], "stock_seed": 1})
    mc = game.meld_count("take 10S 10H 10D 10S + KS KH KD")
    assert (mc.count, mc.minimum, mc.applies) == (20 + 30, 50, True)  # B.9.6
    assert game.meld_count("take 10S 10H + KS KH KD").count == 30
    with pytest.raises(ValueError, match="lays no cards"):
        game.meld_count("draw")


@pytest.mark.parametrize(("preset", "options", "draw", "take", "open_"), [
    ("classic-4p", {}, 1, 0, 1), ("classic-2p", {}, 2, 0, 1), ("classic-3p-cutthroat", {}, 2, 0, 1),
    ("italian-4p", {}, 2, 1, 1), ("italian-4p", {"I-O31": True}, 2, 1, 1)])
def test_cards_drawn_per_turn(preset: str, options: dict[str, object], draw: int, take: int, open_: int) -> None:
    game = Game(RuleSet.preset(preset, options), 3)
    assert (game.cards_to_draw("draw"), game.cards_to_draw("take"), game.cards_to_draw("open")) == (draw, take, open_)
    before = game.hand_sizes[game.turn]
    game.push("draw")
    assert game.hand_sizes[game.turn] == before + draw or game.red3[game.turn]  # red threes are replaced on top
    with pytest.raises(ValueError, match="not a way to draw"):
        game.cards_to_draw("discard 9C")


def test_italian_breakdown_gives_the_undoubled_penalty() -> None:
    rules = RuleSet.preset("italian-4p")
    game = game_from_position({
        "rules": "italian-4p", "dealer": 3, "turn": 0, "phase": "meld",
        "hands": [["9S"], ["KS", "JK"], [], []],
        "closed": [[["5S", "5S", "5H", "5H", "5D", "5D", "5C"], ["6S", "6S", "6H", "6H", "6D", "6C", "2C"]], []],
        "stock_seed": 4})
    game.push("discard 9S")
    assert game.is_over() and game.went_out == 0
    result = game.result
    assert result is not None
    other = result[1]
    assert other.penalty_doubled and other.hand_penalty == -120 and other.undoubled_penalty == -60
    d = other.as_dict()
    assert d["cards_in_hand"] == -120 and d["cards_in_hand_undoubled"] == -60
    assert not result[0].penalty_doubled and "cards_in_hand_undoubled" not in result[0].as_dict()
    assert result[0].undoubled_penalty == result[0].hand_penalty
    assert rules.get("unopened_pays_double")


def test_a_classic_deal_described_directly() -> None:
    """``deck`` is the pack top first, dealt one card at a time from the dealer's left."""
    rules = RuleSet.preset("classic-4p")
    pack = make_deck(2)
    order = sorted(pack, key=lambda c: (IS_WILD[c] or c in (5, 6), c))  # no red three or wild dealt or turned
    game = Game(rules, 0, dealer=3, deck=order)
    for seat in range(4):
        assert sorted(game.hand(seat)) == sorted(order[seat:44:4])
    assert game.pile == [order[44]]
    assert Game(rules, 0, dealer=3, deck=order).hand(0) == game.hand(0)  # the same deal every time
    with pytest.raises(ValueError, match="108 cards"):
        Game(rules, 0, deck=order[:-1])
    with pytest.raises(ValueError, match="Italian"):
        Game(rules, 0, deck=order, cut=40)


def test_an_italian_deal_and_cut_described_directly() -> None:
    rules = RuleSet.preset("italian-4p")
    pack = make_deck(3)
    order = [c for c in pack if not IS_WILD[c] and c not in (5, 6)] + [c for c in pack if IS_WILD[c] or c in (5, 6)]
    lift = 40  # the cutter lifts 40 cards; the rest is dealt from
    game = Game(rules, 0, dealer=0, deck=order, cut=lift)
    rest = order[lift:] + order[:lift]
    assert sorted(game.hand(1)) == sorted(rest[0:60:4])  # 15 each, from the dealer's left
    assert game.shown_at_deal() == []
    again = Game(rules, 0, dealer=0, deck=order, cut=lift)
    assert [card_str(c) for c in again.pile] == [card_str(c) for c in game.pile]
    # a lifted packet whose bottom card is wild: the cutter takes it (B.3.2)
    joker = parse_card("JK")
    wild_cut = list(order)
    wild_cut.remove(joker)
    wild_cut.insert(lift - 1, joker)  # the bottom card of the lifted packet
    cutter = Game(rules, 0, dealer=0, deck=wild_cut, cut=lift)
    assert cutter.shown_at_deal() == [joker] and joker in cutter.hand(cutter.cutter)
    with pytest.raises(ValueError, match="cut"):
        Game(rules, 0, deck=order, cut=0)
