"""A good partner (issue 17, item 4): the advanced player asks "may I go out?" when going
out pays, answers its partner's question from what it holds and sees, and respects a "no";
and (item 3) it follows a way out in Italian, where going out takes several melds."""

from __future__ import annotations

from typing import Any

from canasta.bots import make_bot
from canasta.engine.game import Game
from canasta.engine.moves import ASK, DISCARD, NO, YES, Move
from canasta.views.position import game_from_position
from canasta.views.seat import seat_view

KINGS = ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]  # a natural canasta (two packs)


def _classic(hands: list[list[str]], melds: list[list[list[str]]], phase: str = "meld", ask: str = "none",
             stock_size: int = 60, **extra: Any) -> Game:
    """classic-4p, seat 0 to move; ``stock_size`` cards left in the stock."""
    data: dict[str, Any] = {"rules": "classic-4p", "dealer": 3, "turn": 0, "phase": phase, "ask": ask,
                            "hands": hands, "melds": melds, "stock_seed": 1, "turn_number": 9,
                            "has_melded": [True] * 4, **extra}
    g = game_from_position(data)
    # keep only the first stock_size cards of the stock: the rest lie under the pile
    extra_cards = g.stock[:-stock_size] if stock_size < len(g.stock) else []
    g.stock = g.stock[-stock_size:] if stock_size else []
    g.pile = extra_cards + g.pile
    return g


OURS_AHEAD = [[KINGS, ["QH", "QS", "QD", "QC"]], [["5H", "5S", "5D"]]]
THEIRS_AHEAD = [[KINGS],
                [["QH", "QS", "QD", "QC", "QH", "QS", "QD"], ["AH", "AS", "AD", "AC", "AH", "AS", "AD"], ["JH", "JS", "JD", "JC", "JH", "JS", "JD"],
                 ["10H", "10S", "10D", "10C", "10H", "10S", "10D"], ["2C", "9H", "9S", "9D", "9C"]]]
GOING_OUT_HAND = ["8H", "8S", "8C", "4D"]  # meld the eights, discard the four: out
SMALL = ["6H", "7S", "9D"]
BIG = ["JK", "JK", "AC", "2H", "2S", "KC"]  # 50 + 50 + 20 + 20 + 20 + 10 = 170 points


def _hands(partner: list[str]) -> list[list[str]]:
    return [GOING_OUT_HAND, ["5C", "6C", "7C", "9C", "4C"], partner, ["5H", "6S", "7D", "9S", "4H"]]


def test_asks_may_i_go_out_when_going_out_wins_the_hand() -> None:
    g = _classic(_hands(SMALL), OURS_AHEAD)
    move = make_bot("advanced", seed=1).choose(seat_view(g, 0))
    assert move.kind == ASK


def test_does_not_ask_while_going_out_would_lose_the_hand_early() -> None:
    g = _classic(_hands(SMALL), THEIRS_AHEAD)
    bot = make_bot("advanced", seed=1)
    move = bot.choose(seat_view(g, 0))
    assert move.kind != ASK
    g.push(move)
    assert not g.is_over() and g.hand_sizes[0] >= 1  # it plays on, keeping cards
    # late in the hand (a short stock) the same position is worth going out from
    late = _classic(_hands(SMALL), THEIRS_AHEAD, stock_size=8)
    assert make_bot("advanced", seed=1).choose(seat_view(late, 0)).kind == ASK


def _answer(partner: list[str], melds: list[list[list[str]]], stock_size: int = 60,
            opponents: list[list[str]] | None = None) -> str:
    hands = _hands(partner)
    if opponents is not None:
        hands[1], hands[3] = opponents
    g = _classic(hands, melds, phase="answer", ask="pending", stock_size=stock_size)
    assert g.to_move == 2
    move = make_bot("advanced", seed=3).choose(seat_view(g, 2))
    assert move.kind in (YES, NO)
    return "yes" if move.kind == YES else "no"


def test_answers_from_what_it_holds() -> None:
    assert _answer(SMALL, OURS_AHEAD) == "yes"
    assert _answer(BIG, OURS_AHEAD) == "no"  # 170 points in hand early on: let me meld them first
    assert _answer(BIG, OURS_AHEAD, stock_size=10) == "yes"  # ... but not with the stock nearly gone


def test_answers_from_what_it_sees() -> None:
    assert _answer(SMALL, THEIRS_AHEAD) == "no"  # the hand would be lost: play on
    # an opponent with a canasta is down to two cards: better out now than caught
    assert _answer(SMALL, THEIRS_AHEAD, opponents=[["5C", "6C"], ["5H", "6S", "7D", "9S", "4H"]]) == "yes"


def test_basic_player_always_says_yes() -> None:
    g = _classic(_hands(BIG), THEIRS_AHEAD, phase="answer", ask="pending")
    assert make_bot("basic", seed=3).choose(seat_view(g, 2)).kind == YES


def test_respects_a_no() -> None:
    for melds in (OURS_AHEAD, THEIRS_AHEAD):
        g = _classic(_hands(SMALL), melds, ask="no")
        assert g.can_go_out() is False  # the engine's rule: not this turn
        for seed in range(5):
            move = make_bot("advanced", seed=seed).choose(seat_view(g, 0))
            assert move.kind != ASK and g.why_illegal(move) is None
            h = g.copy()
            h.push(move)
            while not h.is_over() and h.turn == 0:  # the rest of its turn
                h.push(make_bot("advanced", seed=seed).choose(seat_view(h, 0)))
            assert not h.is_over() and h.hand_sizes[0] >= 1


def test_says_yes_then_the_asker_goes_out() -> None:
    g = _classic(_hands(SMALL), OURS_AHEAD)
    bots = {s: make_bot("advanced", seed=s) for s in range(4)}
    for _ in range(6):
        if g.is_over():
            break
        g.push(bots[g.to_move].choose(seat_view(g, g.to_move)))
    assert g.end_reason == "went out" and g.went_out == 0


def test_follows_a_way_out_over_several_melds_in_italian() -> None:
    """italian-3p: a clean and a dirty canasta are closed; two melds (each with a wild card
    closing nothing) and a discard take the player out.  (Before issue 17 the advanced
    player discarded here: neither meld alone leaves it one card, and it keeps wild cards.)"""
    data = {"rules": "italian-3p", "dealer": 2, "turn": 0, "phase": "meld", "stock_seed": 2,
            "hands": [["8H", "8S", "JK", "6D", "6H", "2C", "4D"],
                      ["5C", "6S", "7C", "9D", "10C"], ["5H", "6S", "7D", "9S", "10H"]],
            "melds": [[["QH", "QS", "QD"]], [], []],
            "closed": [[KINGS, ["AH", "AS", "AD", "AC", "AH", "2S", "AD"]], [], []],
            "opened": [True, True, True], "has_melded": [True, True, True]}
    g = game_from_position(data)
    assert g.can_go_out()
    bot = make_bot("advanced", seed=1)
    for _ in range(8):
        if g.is_over():
            break
        move = bot.choose(seat_view(g, 0))
        assert move.kind != DISCARD or g.hand_sizes[0] == 1, f"discarded {move} with {g.hand_sizes[0]} cards"
        g.push(move)
    assert g.end_reason == "went out" and g.went_out == 0


def test_after_a_yes_an_unopened_side_is_offered_only_openings_that_still_go_out() -> None:
    """After a yes the player must go out (A.12.3).  Before the side has opened, the generating
    set once offered every opening, also those that leave two cards and no canasta: played
    unchecked (as the learning environments and the expert's rollouts play generated moves), the
    player was left with no legal move at all.  A position a learned policy reached on hand 4 of a
    match, its side needing 120 to open: only the openings that keep a way out are offered."""
    hand = ["2H", "2D", "7S", "7H", "7D", "7D", "7C", "8S", "8D", "8D", "10C", "JK"]
    g = _classic([hand, ["5C", "6C", "9C", "4C"], ["3S", "9C"], ["5H", "6S", "9S", "4H"]],
                 [[], [["5S", "5H", "2D"], ["KS", "KS", "KH"]]], ask="yes", scores=[3130, 3255],
                 has_melded=[False, True, False, True])
    assert g.rules.minimum_for(3130) == 120
    moves = [g.materialize(o) for o in g.options()]
    assert moves, "a yes leaves the player a way out"
    for move in moves:
        assert g.is_legal(move), f"generated but refused: {move}"
        after = g.copy()
        after.play_unchecked(move)
        assert after.is_over() or after.options(), f"{move} leaves no legal move"
    out = g.copy()
    out.play(Move.parse("meld 7S 7H 7D 7D 7C 2H 2D + 8S 8D 8D JK"))
    out.play(Move.parse("discard 10C"))
    assert out.is_over() and out.went_out == 0


def test_where_a_family_says_so_the_offer_to_ask_answers_whether_the_player_can_go_out() -> None:
    """``PlayTuning.ask_tells_out`` (Italian) and ``out_by_search`` (Modern American): the
    advanced player reads "can I go out?" from the offer of "may I go out?" instead of searching
    again, so the two must agree wherever it does (no answer yet, a partner, two cards or more)."""
    from canasta.engine.rules import RuleSet
    from canasta.engine.state import ASK_NONE, MELD_PHASE

    for preset in ("italian-4p", "american-4p"):
        rules = RuleSet.preset(preset)
        play = Game(rules, 1).family.play
        assert play.ask_tells_out or play.out_by_search
        checked = offered = 0
        for seed in range(3):
            g = Game(rules, 900 + seed)
            bots = [make_bot("advanced", seed=seed * 10 + s) for s in range(rules.players)]
            while not g.is_over():
                if g.phase == MELD_PHASE and g.ask == ASK_NONE and not g.must_go_out \
                        and g.hand_sizes[g.turn] >= 2 and g.has_partner(g.turn):
                    asks = any(isinstance(o, Move) and o.kind == ASK for o in g.options())
                    assert asks == g.family.can_go_out(g), (preset, seed, g)
                    checked += 1
                    offered += asks
                g.play(bots[g.to_move].choose(seat_view(g, g.to_move)))
        assert checked > 100 and offered > 0, (preset, checked, offered)
