"""A rule family written from the engine core alone ("Plain Canasta", :mod:`family_plain`):
registered here, it plays through the engine, perft, the reference check, the invariants,
views and positions, the bots, the terminal app and the card room, with no edit anywhere else."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from canasta.bots import make_bot
from canasta.engine.cards import card_str
from canasta.engine.errors import REFUSAL_FORMS, IllegalMoveError
from canasta.engine.errors import REFUSALS as REGISTERED
from canasta.engine.game import FAMILIES, Game
from canasta.engine.moves import DRAW, TAKE, Move
from canasta.engine.rules import PRESETS, RuleSet, forget_rules_family
from canasta.tools import perft
from canasta.tools.reference import compare
from canasta.tools.selfcheck import problems_in
from canasta.tools.soak import reference_check
from canasta.views.position import game_from_position, position_of
from canasta.views.seat import SeatView, pile_note_list, sample_world, seat_view
from family_checks import accounted, bots_play_a_hand, open_in_the_room, play_in_terminal
from family_plain import NAME, PRESET, REFUSALS, register


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    register()
    try:
        yield
    finally:
        FAMILIES.pop(NAME)
        forget_rules_family(NAME)
        for code, _, _ in REFUSALS:
            REFUSAL_FORMS.pop(code)
            REGISTERED.pop(code)
        assert PRESET not in PRESETS


def _game(seed: int) -> Game:
    return Game(RuleSet.preset(PRESET), seed)


def _position(hand: list[str], melds: list[list[str]]) -> Game:
    """A meld-phase position of seat 0 with this hand and these melds of its side."""
    return game_from_position({"rules": PRESET, "dealer": 1, "turn": 0, "phase": "meld", "stock_seed": 5,
                               "hands": [hand, ["4C", "5C", "6C", "8C", "10C"]], "melds": [melds, []], "pile": [],
                               "has_melded": [bool(melds), False]})


def _play(seed: int, check: bool = False) -> Game:
    game = _game(seed)
    rng = random.Random(seed)
    while not game.is_over():
        moves = list(game.legal_moves)
        assert moves, "a position with no move"
        game.push(moves[rng.randrange(len(moves))])
        accounted(game)
        if check:
            assert not problems_in(game)
    return game


def test_its_rules_say_no_to_taking_wild_melds_and_going_out_without_a_canasta() -> None:
    g = _game(3)
    assert g.players == 2 and not g.pile and len(g.hand(0)) == 11  # no upcard
    with pytest.raises(IllegalMoveError) as exc:
        g.push(Move(TAKE))
    assert exc.value.code == "PLAIN_NO_TAKING" and g.phase == 0
    g = _position(["KH", "KS", "2C", "9D", "9H"], [])
    before = position_of(g)
    for text, code in (("meld KH KS 2C", "PLAIN_NATURALS_ONLY"), ("meld KH KS", "MELD_TOO_SMALL"),
                       ("meld KH 9D 9H", "MIXED_RANKS")):
        with pytest.raises(IllegalMoveError) as exc:
            g.push(text)
        assert exc.value.code == code
        assert position_of(g) == before  # refused: nothing changed
    g = _position(["KH", "KS", "KD", "9D"], [])
    assert g.why_illegal("meld KH KS KD") is not None  # one card left and no canasta: P.3
    g = _position(["KH", "KS", "KD", "9D", "9H"], [["QH", "QS", "QD", "QC", "QH", "QS"]])
    assert g.why_illegal("meld KH KS KD") is None
    g = _position(["QD", "9D"], [["QH", "QS", "QD", "QC", "QH", "QS"]])
    g.push("meld QD")
    assert g.side_canastas(0) == 1
    g.push("discard 9D")
    assert g.is_over() and g.went_out == 0
    assert g.result is not None and g.result[0].going_out == 100 and g.result[0].canasta_bonuses == 300


@pytest.mark.parametrize("seed", range(4))
def test_random_hands_keep_the_invariants(seed: int) -> None:
    game = _play(seed, check=True)
    assert game.result is not None
    assert all(m.naturals == m.size for side in game.melds for m in side.values())


def test_every_generated_move_is_legal_and_the_turn_is_complete() -> None:
    """The generating set's promise, against the exhaustive enumerator: on the soak's small
    positions and on positions of seeded hands, every end of the turn that legal moves reach
    is reached by generated ones, and the other way round."""
    rep = reference_check(RuleSet.preset(PRESET), 12, 4001, limit=1000)
    assert rep.positions >= 20 and rep.states > 0
    assert not rep.problems, "\n".join(rep.problems[:10])
    checked = 0
    for seed in range(3):
        game = _game(seed)
        rng = random.Random(seed)
        while not game.is_over():
            if game.phase != 0 and rng.random() < 0.3:
                only_ref, only_gen = compare(game, limit=4000)
                assert not only_ref and not only_gen, (seed, position_of(game))
                checked += 1
            moves = list(game.legal_moves)
            game.push(moves[rng.randrange(len(moves))])
    assert checked > 10


def test_perft_runs_and_repeats() -> None:
    first = perft.positions(PRESET)
    assert first and all(p["moves"] >= 1 for p in first)
    assert perft.positions(PRESET) == first
    assert perft.hands(PRESET) == perft.hands(PRESET)


@pytest.mark.parametrize("seed", range(2))
def test_views_and_positions_round_trip(seed: int) -> None:
    game = _game(seed)
    rng = random.Random(seed)
    while not game.is_over():
        if rng.random() < 0.25:
            p = position_of(game)
            again = game_from_position(p)
            assert position_of(again) == p
            assert [str(m) for m in again.legal_moves] == [str(m) for m in game.legal_moves]
            for s in range(game.players):
                v = seat_view(game, s)
                assert sorted(card_str(c) for c in v.hand) == sorted(p["hands"][s])
                assert SeatView.from_dict(v.to_dict()) == v
                world = sample_world(v, random.Random(seed))
                assert sorted(world.hand(s)) == sorted(game.hand(s))
                notes = pile_note_list(v)
                assert not game.pile or [n.key for n in notes] == ["never_taken"]
        moves = list(game.legal_moves)
        game.push(moves[rng.randrange(len(moves))])


@pytest.mark.parametrize("level", ["basic", "advanced", "expert:i4"])
def test_bots_play_a_hand(level: str) -> None:
    bots_play_a_hand(RuleSet.preset(PRESET), 11, level, lambda move: move.kind != TAKE)


def test_the_basic_bot_melds_more_than_chance() -> None:
    """The heuristic players read the family's moves, not Classic's: the basic bot scores more
    than the random one over the same seeded hands."""
    totals = {"basic": 0, "random": 0}
    for seed in range(12):
        for level in totals:
            game = _game(seed)
            bots = [make_bot(level, seed=seed), make_bot("random", seed=seed + 1)]
            while not game.is_over():
                seat = game.to_move
                game.push(bots[seat].choose(seat_view(game, seat)))
            assert game.result is not None
            totals[level] += game.result[0].total - game.result[1].total
    assert totals["basic"] > totals["random"]


def test_the_terminal_app_shows_and_plays_it(tmp_path: Path) -> None:
    pytest.importorskip("textual")
    run = play_in_terminal(RuleSet.preset(PRESET), "plain", tmp_path, 6)
    assert run.played == 6 and PRESET in run.topbar
    assert all(m.kind != TAKE for m in run.moves)


def test_the_card_rooms_payload_says_it(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")

    def take_then_draw(ws: Any, recv_until: Callable[..., Any]) -> None:
        ws.send_text(json.dumps({"type": "move", "move": "take"}))
        refused = recv_until(ws, lambda m: m["type"] == "error")
        assert refused["code"] == "ILLEGAL" and "never taken" in json.dumps(refused), refused
        ws.send_text(json.dumps({"type": "move", "move": str(Move(DRAW))}))
        after = recv_until(ws, lambda m: m["type"] == "state" and m["view"]["phase"] != "draw")
        assert len(after["view"]["hand"]) >= 12

    run = open_in_the_room(tmp_path, PRESET, ["basic"], take_then_draw)
    assert run.preset["family"] == NAME and "Plain Canasta" in run.preset["label"]
    assert run.welcome["type"] == "welcome" and run.welcome["rules"]["family"] == NAME
    assert len(run.state["view"]["hand"]) == 11
