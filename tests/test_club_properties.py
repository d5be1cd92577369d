"""Properties of the tournament's pure parts (issue 53): Swiss pairings avoid a repeat whenever a
pairing without one exists (checked against a brute-force search), matchpoints share out what a
board gives, victory points add up to 20."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from canasta.club.movement import swiss
from canasta.club.scoring import BoardResult, matchpoints, top, victory_points


def _perfect_without_repeat(players: list[int], met: set[frozenset[int]]) -> bool:
    """Brute force: is there a pairing of ``players`` with no pair in ``met``?"""
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(frozenset((first, other)) not in met
               and _perfect_without_repeat([p for p in rest if p != other], met) for other in rest)


@st.composite
def _fields(draw: st.DrawFn) -> tuple[list[int], set[frozenset[int]]]:
    n = draw(st.sampled_from([4, 6, 8]))
    order = draw(st.permutations(list(range(1, n + 1))))
    pairs = [frozenset(p) for p in combinations(range(1, n + 1), 2)]
    met = set(draw(st.lists(st.sampled_from(pairs), max_size=len(pairs))))
    return list(order), met


@settings(max_examples=300, deadline=None)
@given(_fields())
def test_swiss_avoids_repeats_when_it_can(field: tuple[list[int], set[frozenset[int]]]) -> None:
    order, met = field
    seating = swiss(order, met)
    seated = sorted(p for s in seating for p in (s.ns, s.ew))
    assert seated == sorted(order)
    repeats = sum(frozenset((s.ns, s.ew)) in met for s in seating)
    if _perfect_without_repeat(order, met):
        assert repeats == 0
    # the leader meets the best placed partnership it may meet
    leader = order[0]
    partner = next(s.ew if s.ns == leader else s.ns for s in seating if leader in (s.ns, s.ew))
    if repeats == 0:
        allowed = [p for p in order[1:] if frozenset((leader, p)) not in met]
        assert order.index(partner) >= order.index(allowed[0])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-3000, 5000), st.integers(-3000, 5000)), min_size=2, max_size=12))
def test_matchpoints_share_out_the_board(scores: list[tuple[int, int]]) -> None:
    tables = len(scores)
    results = [BoardResult(1, 1, t + 1, 2 * t + 1, 2 * t + 2, ns, ew) for t, (ns, ew) in enumerate(scores)]
    mps = matchpoints(results)
    assert set(mps) == set(range(1, 2 * tables + 1))
    assert all(0 <= v <= top(tables) for v in mps.values())
    for side in (0, 1):
        assert sum(v for pair, v in mps.items() if pair % 2 != side) == tables * (tables - 1)
    for r in results:  # the two sides of a table: one's matchpoints are the top less the other's
        assert mps[r.ns] + mps[r.ew] == top(tables)


@given(st.integers(-100_000, 100_000), st.integers(1, 20))
def test_victory_points_add_up_to_twenty(margin: int, boards: int) -> None:
    a, b = victory_points(margin, boards)
    assert abs(a + b - 20) < 1e-9
    if margin >= 0:
        assert 0 <= b <= a <= 20
    else:
        assert 0 <= a <= b <= 20
        assert victory_points(-margin, boards) == (b, a)
