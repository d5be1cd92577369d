"""What the discards tell the expert's worlds (:meth:`PileWatch.read_discards`,
:func:`canasta.bots.inference.thin`): who discarded what is read from the pile at the start of a
seat's turn, never wrongly, and thinning a world keeps it a world of the same view."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from canasta.bots.base import Budget, world
from canasta.bots.expert import ExpertBot
from canasta.bots.heuristic import AdvancedBot
from canasta.bots.inference import PileWatch, thin
from canasta.engine.cards import CARD_RANK, IS_BLACK_THREE, IS_RED_THREE, IS_WILD
from canasta.engine.game import Game
from canasta.engine.moves import DISCARD
from canasta.engine.rules import RuleSet
from canasta.views.seat import SeatView, seat_view


def _natural(card: int) -> bool:
    return not (IS_WILD[card] or IS_BLACK_THREE[card] or IS_RED_THREE[card])


def _cards(g: Game) -> Counter[int]:
    """Every card of ``g`` outside the table: hands and stock."""
    out: Counter[int] = Counter()
    for hand in g.hands:
        out.update({c: k for c, k in enumerate(hand) if k})
    out.update(g.stock)
    return out


@pytest.mark.parametrize("preset", ["classic-4p", "classic-3p", "italian-4p", "american-4p", "classic-6p"])
def test_the_discards_read_are_the_discards_made(preset: str) -> None:
    rules = RuleSet.preset(preset)
    read = 0
    for seed in (1, 2, 3):
        g = Game(rules, seed)
        bot = AdvancedBot(seed)
        watches = [PileWatch() for _ in range(rules.players)]
        made: list[set[int]] = [set() for _ in range(rules.players)]
        while not g.is_over():
            seat = g.to_move
            view = seat_view(g, seat)
            watches[seat].observe(view)
            for other, ranks in watches[seat].discards.items():
                assert other != seat
                assert ranks <= made[other], (seed, seat, other)
            move = bot.choose(view)
            if move.kind == DISCARD:
                card = move.groups[0][0]
                watches[seat].discarded(view, card)
                if _natural(card):
                    made[seat].add(CARD_RANK[card])
            g.play(move)
        read += sum(len(r) for w in watches for r in w.discards.values())
    assert read > 0


def _a_view_with_discards(preset: str, seed: int) -> tuple[SeatView, PileWatch]:
    """A hand of advanced players until seat 0 has read some other seat's discards."""
    rules = RuleSet.preset(preset)
    g = Game(rules, seed)
    bot = AdvancedBot(seed)
    watch = PileWatch()
    while not g.is_over():
        view = seat_view(g, g.to_move)
        if g.to_move == 0:
            watch.observe(view)
            if sum(len(r) for r in watch.discards.values()) >= 3:
                return view, watch
        move = bot.choose(view)
        if g.to_move == 0 and move.kind == DISCARD:
            watch.discarded(view, move.groups[0][0])
        g.play(move)
    raise AssertionError(f"no discards read in {preset} hand {seed}")


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
@pytest.mark.parametrize("keep", [0.0, 0.5, 1.0])
def test_thinning_keeps_the_world_a_world_of_the_view(preset: str, keep: float) -> None:
    for seed in (4, 5):
        view, watch = _a_view_with_discards(preset, seed)
        w = world(view, random.Random(seed))
        before = [list(h) for h in w.hands]
        cards = _cards(w)
        swapped = thin(w, view, watch.discards, random.Random(seed), keep)
        assert _cards(w) == cards  # the same cards, moved between hands and stock
        assert [sum(h) for h in w.hands] == [sum(h) for h in before]
        assert list(w.hands[0]) == before[0]  # the viewer's own hand is what it is
        for seat, ranks in watch.discards.items():
            known = Counter(view.known[seat])
            assert all(w.hands[seat][c] >= k for c, k in known.items())  # cards seen taken stay
            for rank in ranks:
                held = sum(w.hands[seat][c] for c in range(len(w.hands[seat])) if CARD_RANK[c] == rank
                           and _natural(c))
                was = sum(before[seat][c] for c in range(len(before[seat])) if CARD_RANK[c] == rank
                          and _natural(c))
                assert held <= was
                if keep == 0.0:  # every hidden one sent back (the stock has other ranks to give)
                    assert held == sum(k for c, k in known.items() if CARD_RANK[c] == rank and _natural(c))
        if keep == 1.0:
            assert swapped == 0 and [list(h) for h in w.hands] == before
        for counts, seat in zip(w.rank_counts, range(len(w.hands)), strict=True):
            assert list(counts) == [sum(k for c, k in enumerate(w.hands[seat]) if CARD_RANK[c] == r)
                                    for r in range(len(counts))]


def test_an_expert_reading_discards_plays_legal_moves_and_its_worlds_hold_fewer_discarded_ranks() -> None:
    rules = RuleSet.preset("classic-4p")
    g = Game(rules, 21)
    expert = ExpertBot(3, Budget(iterations=4))
    expert.read_discards = True
    guide = AdvancedBot(3)
    thinned = blind = 0
    while not g.is_over():
        view = seat_view(g, g.to_move)
        if g.to_move == 0:
            move = expert.choose(view)
            for _ in range(10):
                state = expert.rng.getstate()
                w = expert._world(view)
                expert.rng.setstate(state)
                expert.read_discards = False
                u = expert._world(view)  # the same draw, blind to the discards
                expert.read_discards = True
                for seat, ranks in expert.watch.discards.items():
                    thinned += sum(w.hands[seat][c] for c in range(len(w.hands[seat]))
                                   if CARD_RANK[c] in ranks and _natural(c))
                    blind += sum(u.hands[seat][c] for c in range(len(u.hands[seat]))
                                 if CARD_RANK[c] in ranks and _natural(c))
        else:
            move = guide.choose(view)
        assert g.why_illegal(move) is None
        g.play(move)
    assert 0 < thinned < blind
