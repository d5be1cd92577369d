"""Classic: taking the pile below the minimum to go out concealed in the same turn
(A.7.7: C-O5 exempts a concealed going out from the minimum count; C-O6 lets that turn
take the pile, and with it ``false`` taking the pile cancels the concealed going out).
The take is judged with the going out it makes possible: legal only when the turn can
then go out, and it binds the turn to do so (``must_go_out``).  Issue 49."""

from __future__ import annotations

from typing import Any

import pytest

from canasta.bots import make_bot
from canasta.engine.game import Game
from canasta.engine.moves import ASK, DISCARD, TAKE, Move
from canasta.engine.rules import RuleSet
from canasta.tools.reference import generated_moves, way_out
from canasta.views.position import game_from_position, position_of
from canasta.views.seat import seat_view

#: seven eights laid with the pile's top eight count 70, under the 90 of a side at 1,500; the
#: pile's five and six join the pairs in hand, and the king is the final discard
EIGHTS = ["8S", "8S", "8H", "8H", "8C", "8C", "5S", "5D", "6C", "6D", "KC"]
TAKE_ALL = "take 8S 8S 8H 8H 8C 8C"


def _position(hand: list[str] | None = None, options: dict[str, Any] | None = None, score: int = 1500,
              pile: list[str] | None = None, preset: str = "classic-4p") -> Game:
    rules = RuleSet.preset(preset, options or {})
    others = [["4C", "7C", "9D", "10C", "QS"], ["4S", "7D", "9S", "10H", "QD"], ["4D", "7H", "9H", "JH", "QC"]]
    return game_from_position({
        "rules": rules.to_dict(), "dealer": rules.players - 1, "turn": 0, "phase": "draw", "stock_seed": 11,
        "hands": [hand or EIGHTS, *others[:rules.players - 1]], "pile": pile or ["5C", "6H", "8D"],
        "scores": [score] * (rules.players if rules.cutthroat else len(rules.teams)),
    })


def test_a_take_below_the_minimum_that_goes_out_concealed_is_legal() -> None:
    g = _position()
    assert g.minimum(0) == 90 and not g.opened[0]
    assert g.can_go_out()  # the going-out search sees the way out through the pile, before the take
    assert g.why_illegal(TAKE_ALL) is None
    count = g.meld_count(TAKE_ALL)
    assert count.count == 70 and not count.applies  # exempt: it goes out concealed (C-O5)
    g.push(TAKE_ALL)
    assert g.must_go_out and g.can_go_out()
    g.push("meld 5S 5D 5C + 6C 6D 6H")
    g.push("discard KC")
    assert g.went_out == 0 and g.out_concealed
    assert g.result is not None and g.result[0].going_out == 200  # A.12.6


def test_a_pair_take_below_the_minimum_goes_out_through_the_generated_moves() -> None:
    """Taking with two eights (30) still leaves a concealed way out: the other four eights
    complete the canasta after the take."""
    g = _position()
    assert g.why_illegal("take 8S 8S") is None
    moves = list(g.legal_moves)
    takes = [m for m in moves if m.kind == TAKE]
    assert Move.parse(TAKE_ALL) in takes and Move.parse("take 8S 8S") in takes
    g.push("take 8S 8S")
    path = way_out(g, generated_moves)
    assert path is not None
    for move in path:
        g.push(move)
    assert g.went_out == 0 and g.out_concealed


def test_the_take_binds_the_turn_to_go_out() -> None:
    g = _position()
    g.push(TAKE_ALL)
    err = g.why_illegal("discard KC")
    assert err is not None and err.code == "MUST_GO_OUT" and err.rule == "A.7.7"
    err = g.why_illegal("ask")
    assert err is not None and err.code == "BOUND_TO_GO_OUT"
    moves = list(g.legal_moves)
    assert not any(m.kind in (DISCARD, ASK) for m in moves), moves
    # a meld that keeps the way out is legal; the king is the only card left to discard
    g.push("meld 5S 5D 5C")
    assert g.why_illegal("discard KC") is not None
    g.push("meld 6C 6D 6H")
    assert g.why_illegal("discard KC") is None


def test_a_meld_that_spoils_the_way_out_is_refused() -> None:
    """Two kings and a joker besides: the joker must go with the kings, so laying it on
    the fives (two kings left, only one can be discarded) is refused."""
    hand = ["8S", "8S", "8H", "8H", "8C", "8C", "5S", "5D", "6C", "6D", "KC", "KD", "JK"]
    g = _position(hand=hand)
    assert g.why_illegal(TAKE_ALL) is None
    g.push(TAKE_ALL)
    err = g.why_illegal("meld 5S 5D 5C JK")
    assert err is not None and err.key == "MUST_GO_OUT.pile_below_minimum_after"
    assert g.why_illegal("meld 5S 5D 5C + 6C 6D 6H") is None
    g.push("meld 5S 5D 5C + 6C 6D 6H")
    g.push("meld KC KD JK")
    assert g.went_out == 0 and g.out_concealed


@pytest.mark.parametrize("options", [{"C-O5": False}, {"C-O6": False}])
def test_without_the_exemption_the_minimum_holds(options: dict[str, Any]) -> None:
    """C-O5 false: no exemption; C-O6 false: taking the pile cancels the concealed going out,
    and the exemption with it."""
    g = _position(options=options)
    err = g.why_illegal(TAKE_ALL)
    assert err is not None and err.code == "INITIAL_MELD_TOO_LOW"
    assert not any(m.kind == TAKE for m in g.legal_moves)
    assert not g.can_go_out()


def test_no_exemption_when_the_turn_cannot_go_out() -> None:
    """A queen besides the king: two loose cards after the take, so no concealed going out
    and the minimum applies."""
    g = _position(hand=[*EIGHTS, "QH"])
    err = g.why_illegal(TAKE_ALL)
    assert err is not None and err.code == "INITIAL_MELD_TOO_LOW"
    assert not any(m.kind == TAKE for m in g.legal_moves)
    assert not g.can_go_out()


def test_a_take_that_reaches_the_minimum_binds_nothing() -> None:
    g = _position(score=0)  # minimum 50
    g.push(TAKE_ALL)
    assert not g.must_go_out
    assert g.why_illegal("discard KC") is None


@pytest.mark.parametrize("bot", ["basic", "advanced"])
def test_the_bots_and_the_hint_find_the_way_out(bot: str) -> None:
    g = _position()
    player = make_bot(bot, seed=3)
    for _ in range(6):
        if g.is_over():
            break
        g.push(player.choose(seat_view(g, 0)))
    assert g.went_out == 0 and g.out_concealed


def test_the_bound_turn_survives_views_and_positions() -> None:
    g = _position()
    g.push(TAKE_ALL)
    view = seat_view(g, 0)
    assert view.must_go_out and view.to_dict()["must_go_out"] is True
    back = game_from_position(position_of(g))
    assert back.must_go_out and back.why_illegal("discard KC") is not None
    g.pop()
    assert not g.must_go_out
