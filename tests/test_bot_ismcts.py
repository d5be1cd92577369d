"""The ``ismcts`` level: OpenSpiel's ISMCTS on the engine's OpenSpiel game (``canasta.bots.ismcts``).

It plays legal, seeded hands at a table and in the arena, sees only its seat's view, and its
specs are refused with the allowed range.  The tests that play need OpenSpiel (the rl extra) and
are skipped without it; the spec checks and the missing-OpenSpiel message run everywhere."""

from __future__ import annotations

import importlib.util
import random
import sys

import pytest

from canasta.bots import BotSpecError, make_bot, parse_ismcts_budget
from canasta.bots.base import Budget
from canasta.engine.game import Game
from canasta.engine.moves import Move
from canasta.engine.rules import RuleSet
from canasta.play.table import Table
from canasta.tools.arena import run_arena
from canasta.views.seat import sample_world, seat_view

needs_openspiel = pytest.mark.skipif(importlib.util.find_spec("pyspiel") is None,
                                     reason="the ismcts bot needs OpenSpiel: pip install -e '.[rl]'")


@pytest.mark.parametrize("spec", ["ismcts:0", "ismcts:-3", "ismcts:x", "ismcts:1.5", "ismcts:0s", "ismcts:-1s",
                                  "ismcts:nans", "ismcts:infs", "ismcts:4000s", "ismcts:s", "ismcts:10000000",
                                  "ismcts:²", "ismcts:i50"])
def test_bad_budgets_are_refused_with_the_allowed_range(spec: str) -> None:
    with pytest.raises(BotSpecError, match=r"ismcts budget .*whole number of simulations from 1 .*ismcts:0\.5s"):
        make_bot(spec)


def test_budgets_parse() -> None:
    assert parse_ismcts_budget("200") == Budget(iterations=200)
    assert parse_ismcts_budget("0.5s") == Budget(seconds=0.5)
    assert parse_ismcts_budget(" 2S ") == Budget(seconds=2.0)


def test_unknown_level_names_ismcts() -> None:
    with pytest.raises(BotSpecError, match="ismcts:N"):
        make_bot("ismct:20")


def test_without_openspiel_one_line_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    with pytest.raises(BotSpecError) as err:
        make_bot("ismcts:5")
    text = str(err.value)
    assert "\n" not in text and "OpenSpiel" in text and "pip install -e '.[rl]'" in text


def _table_hand(preset: str, seed: int) -> list[tuple[int, Move]]:
    """One hand at a table: ISMCTS (4 simulations) in the even seats, basic in the odd ones;
    every move the ISMCTS bots choose is checked legal before it is played."""
    rules = RuleSet.preset(preset)
    bots = {s: make_bot("ismcts:4" if s % 2 == 0 else "basic", seed=seed + s) for s in range(rules.players)}
    table = Table(rules, seats=[None] * rules.players, seed=seed)
    played: list[tuple[int, Move]] = []
    try:
        while not table.hand_over:
            seat = table.to_move
            move = bots[seat].choose(table.view(seat))
            assert table.why_not(seat, move) is None, (seat, move, table.why_not(seat, move))
            played.append((seat, table.play(seat, move)))
    finally:
        for bot in bots.values():
            bot.close()
    return played


@pytest.mark.slow
@needs_openspiel
@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_plays_a_legal_seeded_hand_at_a_table(preset: str) -> None:
    first = _table_hand(preset, 11)
    assert sum(1 for seat, _ in first if seat % 2 == 0) > 10
    assert _table_hand(preset, 11) == first, "the same seeds, the same hand"


@pytest.mark.slow
@needs_openspiel
@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_plays_in_the_arena_reproducibly(preset: str) -> None:
    def run() -> dict[str, object]:
        report = run_arena(preset, ("ismcts:3", "basic"), games=2, seed=5, jobs=1, max_hands=1)
        d = report.as_dict()
        assert d["errors"] == [] and d["hands"] == 2 and d["bots"] == ["ismcts:3", "basic"]
        return {"diffs": report.diffs, "won": report.hands_won}

    assert run() == run()


@needs_openspiel
def test_sees_only_the_view() -> None:
    """Two games that the seat to move cannot tell apart (the unseen cards dealt differently)
    get the same move from bots of the same seed; and a time budget plays a legal move too."""
    rules = RuleSet.preset("classic-4p")
    g = Game(rules, 3)
    r = random.Random(0)
    for _ in range(9):  # a few moves into the hand
        g.push(g.random_move(r))
    seat = g.to_move
    view = seat_view(g, seat)
    other = sample_world(view, random.Random(1))
    assert [other.hand(s) for s in range(4)] != [g.hand(s) for s in range(4)]
    assert seat_view(other, seat) == view
    a = make_bot("ismcts:6", seed=2).choose(view)
    b = make_bot("ismcts:6", seed=2).choose(seat_view(other, seat))
    assert a == b and g.why_illegal(a) is None
    timed = make_bot("ismcts:0.05s", seed=2)
    assert g.why_illegal(timed.choose(view)) is None
    assert timed.simulations and all(n >= 1 for n in timed.simulations if n)  # type: ignore[attr-defined]


def _partner_asked_without_a_canasta() -> Game:
    """classic-4p: seat 0 asked "may I go out?" holding seven kings and a four, its side with
    nothing melded yet; seat 2, its partner, answers.  Hardly a hand dealt at random can go out
    here (none of 2,000)."""
    from canasta.views.position import game_from_position

    hands = [["KH", "KS", "KD", "KC", "KH", "KS", "KD", "4D"], ["5C", "6C", "7C", "9C", "4C"],
             ["6H", "7S", "9D"], ["5H", "6S", "7D", "9S", "4H"]]
    return game_from_position({"rules": "classic-4p", "dealer": 3, "turn": 0, "phase": "answer", "ask": "pending",
                               "hands": hands, "melds": [[], [["5H", "5S", "5D"]]],
                               "stock_seed": 1, "turn_number": 9, "has_melded": [True] * 4})


@needs_openspiel
def test_answers_a_partner_no_sampled_world_explains_by_the_rules_of_thumb() -> None:
    """No world dealt from the answerer's view lets the asker go out, and a "yes" in one would
    leave the asker no legal move (OpenSpiel's rollouts then fail on an empty action list): the
    bot answers as the advanced player does, and the game's resampling keeps a state the
    player cannot tell apart rather than deal an impossible one."""
    import canasta.rl.openspiel as cos
    from canasta.rl.core import ActionTable

    g = _partner_asked_without_a_canasta()
    assert g.to_move == 2
    assert cos.plausible(g, 2)  # the real asker can go out after a yes
    view = seat_view(g, 2)
    assert not any(cos.plausible(sample_world(view, random.Random(s)), 2) for s in range(200))
    for seed in range(3):
        move = make_bot("ismcts:8", seed=seed).choose(view)
        assert g.why_illegal(move) is None
        assert move == make_bot("advanced", seed=seed).choose(view)
    world = sample_world(view, random.Random(0))
    state = cos.CanastaGame().new_initial_state()
    state.table = ActionTable(g.rules)
    state.table.start(world)
    again = state.resample_from_infostate(2, random.Random(5).random)
    assert again.table is not None
    assert [again.table.game.hand(s) for s in range(4)] == [world.hand(s) for s in range(4)]
