"""The self-check over every preset (Classic and Italian), small enough for CI;
``canasta selfcheck --hands N`` runs the same at scale."""

from __future__ import annotations

import pytest

from canasta.engine.game import Game
from canasta.engine.rules import PRESETS, RuleSet
from canasta.tools.selfcheck import problems_in, run_selfcheck


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_hands_keep_every_invariant(preset: str) -> None:
    report = run_selfcheck(RuleSet.preset(preset), hands=6, seed=101)
    assert report.hands == 6
    assert report.decisions > 6 * 20
    assert report.problems == []


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_the_check_notices_a_lost_card(preset: str) -> None:
    game = Game(RuleSet.preset(preset), seed=3)
    assert problems_in(game) == []
    game.stock.pop()
    assert any("not accounted" in p for p in problems_in(game))


def test_face_up_pozzo_option_shows_every_card() -> None:
    from canasta.views.seat import seat_view

    game = Game(RuleSet.preset("italian-4p", {"I-O30": "face_up"}), seed=5)
    assert game.face_down() == (0, 0)
    assert None not in seat_view(game, 0).pile
    assert len(game.pile) >= 5  # the turned card and at least four cards under it


def test_italian_views_never_show_the_face_down_pozzo() -> None:
    from canasta.views.seat import seat_view

    game = Game(RuleSet.preset("italian-4p"), seed=9)
    lo, hi = game.face_down()
    for seat in range(4):
        view = seat_view(game, seat)
        assert all(view.pile[i] is None for i in range(lo, hi))
        assert view.pile[-1] == game.pile[-1]
        assert "??" in view.to_json()


def _alternatives() -> list[tuple[str, str, object]]:
    from canasta.families.classic.options import CLASSIC_OPTIONS
    from canasta.families.italian.options import ITALIAN_OPTIONS

    out = []
    for family, options in (("classic-4p", CLASSIC_OPTIONS), ("italian-4p", ITALIAN_OPTIONS)):
        for opt in options:
            for value in opt.choices[1:]:
                preset = family
                if opt.id == "C-O10":
                    preset = "classic-3p"
                elif opt.id in ("C-O11", "I-O20"):
                    preset = family.replace("4p", "6p")
                elif opt.id == "I-O21":
                    continue  # 'unsupported' refuses five players; nothing to play
                out.append((preset, opt.id, value))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "option", "value"), _alternatives(),
                         ids=[f"{o}={v}" for _, o, v in _alternatives()])
def test_every_option_alternative_plays_cleanly(preset: str, option: str, value: object) -> None:
    rules = RuleSet.preset(preset, {option: value})
    report = run_selfcheck(rules, hands=3, seed=202)
    assert report.problems == []
    assert report.hands == 3
