"""Ratings for people (issue 53): openskill's documented numbers, a hand computation, the pool's
bookkeeping (shown number, provisional, leaderboards, histories, partnerships, the file), and a
simulated pool of 200 players converging on their hidden strengths."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from canasta.club.ratings import (
    MU,
    SIGMA,
    RatingBook,
    RatingError,
    RatingPool,
    RatingSettings,
    pool_key,
    simulate_pool,
)
from canasta.engine.rules import RuleSet


def test_the_documented_example_of_openskill() -> None:
    """openskill's README: four new players, two against two, the first team wins:
    a and b reach mu 26.964294621803063, sigma 8.177962604389991; x and y mu 23.035705378196937."""
    pool = RatingPool("classic-4p")
    [[a, b], [x, y]] = pool.rate([["a", "b"], ["x", "y"]], ranks=[1, 2])
    assert a.mu == pytest.approx(26.964294621803063, abs=1e-12)
    assert a.sigma == pytest.approx(8.177962604389991, abs=1e-12)
    assert x.mu == pytest.approx(23.035705378196937, abs=1e-12)
    assert x.sigma == pytest.approx(8.177962604389991, abs=1e-12)
    assert (a.mu, a.sigma) == (b.mu, b.sigma) and (x.mu, x.sigma) == (y.mu, y.sigma)


def _hand_computed(team_size: int) -> tuple[float, float, float]:
    """Weng and Lin's Plackett–Luce update worked by hand for two equal new teams of
    ``team_size``: (winner's mu, loser's mu, both sigmas).

    Each player's variance first grows by tau^2 (tau = 25/300); a team's mean and variance are
    its players' sums; c^2 = sum over teams of (team variance + beta^2), beta = 25/6.  With equal
    teams each wins with probability 1/2: the winner's omega is 1 - 1/2, the loser's -1/2, and
    both deltas are 1/2 * 1/2.  A player's mean moves by its variance / c * omega; its variance
    is multiplied by 1 - (its variance / c^2) * gamma * delta, with gamma = team sigma / c."""
    var = SIGMA ** 2 + (25 / 300) ** 2
    team_var = team_size * var
    c = math.sqrt(2 * (team_var + (25 / 6) ** 2))
    omega, delta = 0.5, 0.25
    gamma = math.sqrt(team_var) / c
    new_sigma = math.sqrt(var * (1 - var / c ** 2 * gamma * delta))
    return MU + var / c * omega, MU - var / c * omega, new_sigma


@pytest.mark.parametrize("size", [1, 2])
def test_a_hand_computation(size: int) -> None:
    win_mu, lose_mu, sigma = _hand_computed(size)
    names = [[f"w{i}" for i in range(size)], [f"l{i}" for i in range(size)]]
    winners, losers = RatingPool("p").rate(names, scores=[1200, 300])
    for r in winners:
        assert r.mu == pytest.approx(win_mu, abs=1e-9) and r.sigma == pytest.approx(sigma, abs=1e-9)
    for r in losers:
        assert r.mu == pytest.approx(lose_mu, abs=1e-9) and r.sigma == pytest.approx(sigma, abs=1e-9)
    if size == 2:
        assert win_mu == pytest.approx(26.964294621803063, abs=1e-9)  # the README's number, by hand


def test_thurstone_mosteller_is_a_choice() -> None:
    pl = RatingPool("p").rate([["a", "b"], ["x", "y"]], ranks=[1, 2])[0][0].mu
    tm = RatingPool("p", RatingSettings("thurstone-mosteller")).rate([["a", "b"], ["x", "y"]], ranks=[1, 2])[0][0].mu
    assert tm > MU and pl > MU and tm != pytest.approx(pl)
    with pytest.raises(RatingError, match="choose plackett-luce or thurstone-mosteller"):
        RatingSettings("elo")


def test_a_draw_moves_no_mean() -> None:
    [[a, _], [x, _]] = RatingPool("p").rate([["a", "b"], ["x", "y"]], scores=[500, 500])
    assert a.mu == pytest.approx(MU) and x.mu == pytest.approx(MU)
    assert a.sigma < SIGMA and a.wins == 0


def test_shown_number_provisional_and_leaderboard() -> None:
    pool = RatingPool("classic-4p", RatingSettings(provisional_games=3))
    for _ in range(3):
        pool.rate([["ann", "bob"], ["cy", "dee"]], scores=[2000, 100])
    pool.rate([["eve", "fay"], ["gus", "hal"]], scores=[2000, 100])
    ann = pool.rating("ann")
    assert ann.shown == pytest.approx(ann.mu - 3 * ann.sigma)
    assert not ann.provisional and pool.rating("eve").provisional and ann.games == 3 and ann.wins == 3
    board = pool.leaderboard()
    assert [r.name for r in board[:4]] == ["ann", "bob", "cy", "dee"]  # established first
    assert board[0].shown > board[2].shown and all(r.provisional for r in board[4:])
    assert [r.name for r in pool.leaderboard(provisional=False)] == ["ann", "bob", "cy", "dee"]
    assert [p.game for p in pool.history("ann")] == [1, 2, 3]
    assert pool.history("ann")[-1].mu == ann.mu and pool.history("nobody") == []
    pairs = pool.leaderboard(partnerships=True)
    assert pairs[0].name == "ann & bob" and pairs[0].games == 3
    assert pool.predict_win([["ann", "bob"], ["cy", "dee"]])[0] > 0.5


def test_bad_games_are_refused() -> None:
    pool = RatingPool("p")
    with pytest.raises(RatingError, match="appears twice"):
        pool.rate([["a", "b"], ["b", "c"]], ranks=[1, 2])
    with pytest.raises(RatingError, match="not both"):
        pool.rate([["a"], ["b"]], ranks=[1, 2], scores=[1, 2])
    with pytest.raises(RatingError, match="2 sides need 2 results"):
        pool.rate([["a"], ["b"]], ranks=[1])
    assert pool.games == 0 and not pool.players


def test_pools_per_family_and_players_and_the_file(tmp_path: Path) -> None:
    assert pool_key(RuleSet.preset("classic-4p")) == "classic-4p"
    assert pool_key(RuleSet.preset("italian-4p")) == "italian-4p"
    assert pool_key(RuleSet.preset("classic-2p")) == "classic-2p"
    book = RatingBook()
    book.pool_for(RuleSet.preset("classic-4p")).rate([["a", "b"], ["c", "d"]], scores=[3, 1])
    book.pool_for(RuleSet.preset("classic-2p")).rate([["a"], ["c"]], scores=[1, 3])
    path = tmp_path / "ratings.json"
    book.save(path)
    back = RatingBook.load(path)
    assert back.to_dict() == book.to_dict()
    assert back.pool("classic-4p").rating("a").mu > MU > back.pool("classic-2p").rating("a").mu
    path.write_text(json.dumps({"format": "other"}))
    with pytest.raises(RatingError, match="not a ratings file"):
        RatingBook.load(path)


def _spearman(xs: list[float], ys: list[float]) -> float:
    """Written here, apart from the library's: Pearson's correlation of the ranks."""
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=v.__getitem__)
        out = [0.0] * len(v)
        for r, i in enumerate(order):
            out[i] = float(r)
        return out

    a, b = ranks(xs), ranks(ys)
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    cov = sum((p - ma) * (q - mb) for p, q in zip(a, b, strict=True))
    return cov / math.sqrt(sum((p - ma) ** 2 for p in a) * sum((q - mb) ** 2 for q in b))


#: Spearman's rank correlation of the means with the hidden strengths after 4,000 games of four
#: (each player about 80 games), seed 1, luck of deviation 2 on a side's two strengths: 0.906 with
#: Plackett–Luce, 0.846 with Thurstone–Mosteller; the floors leave room for other platforms' rounding
@pytest.mark.parametrize(("model", "floor"), [("plackett-luce", 0.88), ("thurstone-mosteller", 0.82)])
def test_a_simulated_pool_of_200_converges(model: str, floor: float) -> None:
    pool, strengths = simulate_pool(players=200, games=4000, seed=1, model=model)
    means = [pool.rating(str(i)).mu for i in range(200)]
    rho = _spearman(means, strengths)
    assert rho >= floor, f"{model}: rank correlation {rho:.3f} after 4000 games"
    early, _ = simulate_pool(players=200, games=500, seed=1, model=model)
    assert _spearman([early.rating(str(i)).mu for i in range(200)], strengths) < rho  # it is learning
    shuffled = strengths[:]
    random.Random(2).shuffle(shuffled)
    assert abs(_spearman(means, shuffled)) < 0.3  # and the measure can fail
