"""Every bot plays Modern American Canasta under each of Part C's alternatives, not only the
defaults: a seeded hand of each level to its end under every option's every choice that changes
what a turn may do (M-O17's take-back of a melded card on an empty tray above all: a bot must
offer a melded card back as its discard), with the engine's invariants held after every move."""

from __future__ import annotations

import pytest

from canasta import Game, RuleSet
from canasta.bots import make_bot
from canasta.engine.moves import DISCARD
from canasta.engine.rules import FAMILY_OPTIONS
from canasta.tools.selfcheck import problems_in
from canasta.views.seat import seat_view

#: the alternatives (option id, choice) every level plays a hand under
ALTERNATIVES = [(o.id, c) for o in FAMILY_OPTIONS["american"] for c in o.choices[1:]]


def play(preset: str, level: str, overrides: dict[str, object], seed: int) -> Game:
    rules = RuleSet.preset(preset, overrides)
    game = Game(rules, seed=seed)
    bots = [make_bot(level, seed=seed * 10 + s) for s in range(rules.players)]
    for _ in range(3000):
        if game.is_over():
            return game
        move = bots[game.to_move].choose(seat_view(game, game.to_move))
        game.push(move)
        assert problems_in(game) == [], (overrides, str(move))
    raise AssertionError(f"{level} did not finish a hand of {preset} under {overrides} in 3,000 moves")


@pytest.mark.parametrize("level", ["basic", "advanced"])
@pytest.mark.parametrize(("option", "choice"), ALTERNATIVES, ids=[f"{o}={c}" for o, c in ALTERNATIVES])
def test_each_level_plays_a_hand_under_each_alternative(level: str, option: str, choice: object) -> None:
    game = play("american-4p", level, {option: choice}, seed=11)
    assert game.result is not None and len(game.result) == 2


def test_bots_take_a_melded_card_back_to_discard_on_an_empty_tray() -> None:
    """Under M-O17 = take_back, over many seeded hands, at least one bot's discard is a card it
    took back from its side's melds (the rule is played, not only allowed), and every hand ends."""
    taken_back = 0
    for seed in range(40):
        rules = RuleSet.preset("american-2p", {"M-O17": "take_back"})
        game = Game(rules, seed=seed)
        bots = [make_bot("basic", seed=seed * 10 + s) for s in range(rules.players)]
        while not game.is_over():
            seat = game.to_move
            move = bots[seat].choose(seat_view(game, seat))
            before = sum(game.hands[seat])
            game.push(move)
            if move.kind == DISCARD and sum(game.hands[seat]) == before:  # a discard that left the hand unchanged
                taken_back += 1
        assert game.result is not None
    assert taken_back > 0, "no bot ever discarded a melded card taken back"


def test_a_world_sampled_from_a_view_sets_the_talons_aside_face_down() -> None:
    """M-O14 = set_aside: a seat's view says how many cards lie apart (4 and 3), not which; a world
    sampled from it puts unseen cards there, and the view read back from JSON keeps the sizes."""
    import random

    from canasta.families.american.state import part_of
    from canasta.views.seat import SeatView, sample_world

    game = Game(RuleSet.preset("american-4p", {"M-O14": "set_aside"}), seed=5)
    view = seat_view(game, 1)
    assert dict(view.aside) == {"talon_packets": (4, 3)}
    assert "talon_packets" not in dict(view.part_fields)  # the cards themselves are nobody's to see
    again = SeatView.from_dict(view.to_json())
    assert again.aside == view.aside
    world = sample_world(again, random.Random(3))
    assert [len(row) for row in part_of(world).talon_packets] == [4, 3]
    assert problems_in(world) == []
    hidden = set(c for row in part_of(world).talon_packets for c in row)
    assert not hidden & set(view.hand)


def test_after_a_yes_a_canasta_of_a_dead_rank_still_counts_towards_going_out() -> None:
    """A position from a bots' run: East holds 9H 9D after the partner's yes, the side has a canasta
    of tens and six nines. Melding 9H makes the second canasta (nines are then a dead rank, C.5.8)
    and 9D is the discard that goes out; the going-out check skipped the nines' canasta because a
    nine was still held, so the seat had no legal move at all."""
    import json
    from pathlib import Path

    from canasta.engine.moves import Move
    from canasta.views.position import game_from_position

    data = json.loads((Path(__file__).parent / "data" / "american-yes-with-a-dead-rank.json").read_text())
    game = game_from_position(data)
    assert [str(m) for m in game.legal_moves] == ["meld 9H"]
    game.push(Move.parse("meld 9H"))
    game.push(Move.parse("discard 9D"))
    assert game.is_over() and game.went_out == 1
