"""The heuristic players (basic, advanced) play Modern American Canasta (SPEC Part C) by its own
stakes, not as Classic with new numbers: a special hand held is laid, no race meld of aces or
sevens (nor a meld of wild cards) is started that the side cannot expect to finish, a dead rank
is the first discard, going out takes several melds found by the family's search, and a hand is
kept big enough to pick the pack.  Each position is built from a position record, North to move."""

from __future__ import annotations

from typing import Any

import pytest

from canasta import Game, RuleSet
from canasta.bots import make_bot
from canasta.engine.moves import DISCARD, MELD, TAKE
from canasta.views.position import game_from_position
from canasta.views.seat import seat_view

LEVELS = ("basic", "advanced")


def position(hand: list[str], melds: list[list[str]] | None = None, pile: list[str] | None = None,
             theirs: list[list[str]] | None = None, phase: str = "meld", preset: str = "american-4p") -> Game:
    """North (seat 0) to move with ``hand``; North–South's ``melds``, the other side's ``theirs``."""
    rules = RuleSet.preset(preset)
    pos: dict[str, Any] = {
        "rules": rules.to_dict(), "dealer": rules.players - 1, "turn": 0, "phase": phase, "turn_number": 9,
        "hands": [hand] + [[] for _ in range(rules.players - 1)],
        "melds": [melds or [], theirs or []], "pile": pile if pile is not None else ["QC"],
    }
    return game_from_position(pos)


def choose(level: str, game: Game) -> str:
    return str(make_bot(level, seed=1).choose(seat_view(game, 0)))


@pytest.mark.parametrize("level", LEVELS)
def test_a_special_hand_held_after_the_draw_is_laid(level: str) -> None:
    game = position(["4S", "4H", "5S", "5H", "6S", "6H", "8S", "8H", "9S", "9H", "10S", "10H", "JS", "JH"])
    move = make_bot(level, seed=1).choose(seat_view(game, 0))
    assert move.kind == MELD and sum(len(g) for g in move.groups) == 14, move
    game.push(move)
    assert game.is_over() and game.result is not None
    assert game.result[0].total == 2500  # Pairs (C.13.4)


@pytest.mark.parametrize("level", LEVELS)
def test_three_sevens_are_not_melded_while_five_more_are_out(level: str) -> None:
    hand = ["7S", "7H", "7D", "KS", "QH", "JD", "9C", "8S", "6H", "5D", "4C", "10S"]
    game = position(hand, melds=[["KH", "KD", "KC"]])
    assert "meld 7S 7H 7D" in [str(m) for m in game.generate()]
    assert not choose(level, game).startswith("meld 7")


@pytest.mark.parametrize("level", LEVELS)
def test_six_sevens_are_melded_to_race_for_the_canasta(level: str) -> None:
    hand = ["7S", "7H", "7D", "7C", "7S", "7H", "KS", "QH", "JD", "9C", "8S", "6H", "5D", "4C"]
    game = position(hand, melds=[["KH", "KD", "KC"]])
    assert choose(level, game).startswith("meld 7")


@pytest.mark.parametrize("level", LEVELS)
def test_a_pack_topped_by_an_ace_is_not_picked_for_a_hopeless_race(level: str) -> None:
    hand = ["AS", "AH", "KS", "QH", "JD", "9C", "8S", "6H", "5D", "4C", "10S", "9D"]
    game = position(hand, melds=[["KH", "KD", "KC"]], pile=["8C", "9H", "AD"], phase="draw")
    moves = [m for m in game.generate()]
    assert any(m.kind == TAKE for m in moves)
    assert make_bot(level, seed=1).choose(seat_view(game, 0)).kind != TAKE


@pytest.mark.parametrize("level", LEVELS)
def test_a_dead_rank_is_discarded_first(level: str) -> None:
    hand = ["9S", "QH", "JD", "8S", "6H", "5D", "4C", "10S", "JC", "QD", "AC"]
    theirs = [["9H", "9D", "9C", "9S", "9H", "9D", "9C"]]  # their canasta of nines: the rank is dead (C.5.8)
    game = position(hand, melds=[["KH", "KD", "KC"]], theirs=theirs)
    move = make_bot(level, seed=1).choose(seat_view(game, 0))
    assert move.kind == DISCARD and str(move) == "discard 9S"


@pytest.mark.parametrize("level", LEVELS)
def test_going_out_takes_several_melds_and_the_bot_finds_them(level: str) -> None:
    canastas = [["KH", "KD", "KC", "KS", "KH", "KD", "KC"], ["QH", "QD", "QC", "QS", "QH", "QD", "2C"]]
    game = position(["8S", "8H", "8D", "JS", "JH", "JD", "5C"], melds=canastas, pile=["4C"],
                    preset="american-2p")
    bot = make_bot(level, seed=1)
    for _ in range(6):
        if game.is_over():
            break
        game.push(bot.choose(seat_view(game, 0)))
    assert game.is_over() and game.went_out == 0


@pytest.mark.parametrize("level", LEVELS)
def test_a_hand_is_kept_to_pick_the_pack_rather_than_melded_down(level: str) -> None:
    hand = ["8S", "8H", "8D", "JS", "JH", "JD", "5C", "6D"]
    game = position(hand, melds=[["KH", "KD", "KC"]])
    assert not choose(level, game).startswith("meld")


def _four_hands(hand: list[str], others: list[list[str]], melds: list[list[str]], pile: list[str]) -> Game:
    """North to move in american-4p with ``hand``; East, South and West hold ``others``."""
    rules = RuleSet.preset("american-4p")
    return game_from_position({"rules": rules.to_dict(), "dealer": 3, "turn": 0, "phase": "meld", "turn_number": 9,
                               "hands": [hand] + others, "melds": [melds, []], "pile": pile})


def test_advanced_sheds_a_third_ace_it_cannot_race_whatever_the_feeding_risk() -> None:
    # three aces held, five unseen: no hope of the 2,500 canasta, and three held at the end cost 1,500
    # (C.14.1 f); the next player's eleven cards make any discard a risk, the ace's no more than most
    others = [["4S", "5S", "6S", "8H", "9H", "10H", "JH", "QS", "JS", "9S", "8D"],
              ["4H", "5H", "6D", "8D", "9D", "10D", "JC", "QD", "QS", "10S", "6S"],
              ["4D", "5C", "6C", "8C", "9H", "10C", "JH", "QC", "KS", "JS", "5S"]]
    game = _four_hands(["AS", "AH", "AD", "QH", "JD", "9C", "8S", "6H", "5D", "4C", "10S"], others,
                       [["KH", "KD", "KC"]], ["5C", "6C", "8C", "9D", "JC", "QC", "10C", "4D", "7S"])
    assert choose("advanced", game).startswith("discard A")


def test_advanced_goes_out_without_asking_where_unfinished_melds_cost() -> None:
    canastas = [["KH", "KD", "KC", "KS", "KH", "KD", "KC"], ["QH", "QD", "QC", "QS", "QH", "QD", "2C"]]
    others = [["4S", "5S", "6S", "9H", "10H", "6D"], ["4H", "5H", "6D", "9D", "10D", "QS"],
              ["4D", "5C", "6C", "9H", "10C", "5S"]]
    game = _four_hands(["8S", "8H", "8C", "JS", "JH", "JD", "5C"], others, canastas, ["4C"])
    assert "ask" in [str(m) for m in game.generate()]  # asking is allowed (C.11.3), not required
    assert choose("advanced", game).startswith("meld")
