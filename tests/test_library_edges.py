"""Issue 56, item 2: library calls given the wrong kind of argument raise the library's own
errors (``CanastaError``, a ``ValueError``) saying what was expected, never a raw
``TypeError`` / ``AttributeError`` / ``IndexError``; a misspelt position field is named."""

from __future__ import annotations

import random
from typing import Any

import pytest

from canasta import Game, RuleSet
from canasta.bots import BotSpecError, check_bot, make_bot
from canasta.bots.external import ExternalBot
from canasta.engine.errors import CanastaError, PositionError
from canasta.views.seat import sample_world, seat_view


@pytest.fixture
def game() -> Game:
    return Game(RuleSet.preset("classic-4p"), seed=1)


@pytest.mark.parametrize("seat", ["a", None, 1.5, True, 4, -1])
def test_seat_view_refuses_a_seat_that_is_not_one(game: Game, seat: Any) -> None:
    with pytest.raises(CanastaError, match=r"seat must be a whole number from 0 to 3"):
        seat_view(game, seat)


def test_seat_view_refuses_what_is_not_a_game() -> None:
    with pytest.raises(CanastaError, match="seat_view needs a Game"):
        seat_view("classic-4p", 0)  # type: ignore[arg-type]


@pytest.mark.parametrize("rng", [None, 3, "seed"])
def test_sample_world_refuses_what_is_not_a_random_source(game: Game, rng: Any) -> None:
    with pytest.raises(CanastaError, match=r"random\.Random"):
        sample_world(seat_view(game, 0), rng)


def test_sample_world_refuses_what_is_not_a_view(game: Game) -> None:
    with pytest.raises(CanastaError, match="needs a SeatView"):
        sample_world(game, random.Random(1))  # type: ignore[arg-type]


def test_a_misspelt_position_field_is_named_with_the_nearest(game: Game) -> None:
    data = game.to_dict()
    data["scroes"] = data.pop("scores")
    with pytest.raises(PositionError, match=r"unknown field 'scroes'.*did you mean 'scores'"):
        Game.from_dict(data)
    with pytest.raises(PositionError, match=r"unknown field 'scroes'.*did you mean 'scores'"):
        Game.from_dict({"rules": "classic-4p", "scroes": [1500, 0]})  # a sketch: was read as scores 0, 0
    with pytest.raises(PositionError, match=r"unknown field 'xyzzy' in a position; the fields are"):
        Game.from_dict({"rules": "classic-4p", "xyzzy": 1})
    assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()  # a written position reads as before


@pytest.mark.parametrize("scores", ["ab", "12", [0, "1"], [0, True], 7, [1.5, 0]])
def test_game_refuses_scores_that_are_not_whole_numbers(scores: Any) -> None:
    with pytest.raises(CanastaError, match=r"scores must be 2 whole numbers \(one per side\)"):
        Game("classic-4p", seed=1, scores=scores)


def test_game_takes_scores_from_any_sequence() -> None:
    assert Game("classic-4p", seed=1, scores=(1500, 20)).scores == [1500, 20]


@pytest.mark.parametrize("command", ["", "   ", "python 'unclosed"])
def test_an_empty_or_unreadable_external_command_is_refused(command: str) -> None:
    with pytest.raises(BotSpecError, match="external bot"):
        make_bot("cmd:" + command)
    with pytest.raises(BotSpecError, match="external bot"):
        check_bot("cmd:" + command, RuleSet.preset("classic-4p"))
    with pytest.raises(CanastaError, match="external bot"):
        ExternalBot(command)


def test_check_bot_starts_no_external_program() -> None:
    check_bot("cmd:/nonexistent/program --flag", RuleSet.preset("classic-4p"))  # only the words are read


def test_a_policy_for_other_rules_is_refused_naming_both() -> None:
    pytest.importorskip("numpy")
    with pytest.raises(BotSpecError, match=r"policy:classic-4p was trained for classic-4p .* cannot play classic-2p"):
        check_bot("policy:classic-4p", RuleSet.preset("classic-2p"))
    check_bot("policy:classic-4p", RuleSet.preset("classic-4p"))
