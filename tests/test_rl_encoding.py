"""The RL encoding: every move has one action sequence and back, masks, the observation and its
leak test (two worlds the seat cannot tell apart give the same observation)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

np = pytest.importorskip("numpy", reason="the RL encoding needs numpy: pip install 'canasta[rl]'")

from canasta.engine.game import Game  # noqa: E402
from canasta.engine.moves import Move  # noqa: E402
from canasta.engine.rules import PRESETS, RuleSet  # noqa: E402
from canasta.rl.encoding import (  # noqa: E402
    A_COMMIT,
    ACTION_INFO,
    NUM_ACTIONS,
    Decision,
    EncodingError,
    Observer,
    action_name,
    group_action,
    move_actions,
    take_action,
)
from canasta.views.seat import sample_world, seat_view  # noqa: E402

PRESET_NAMES = sorted(PRESETS)


def _positions(rules: RuleSet, hands: int, seed: int) -> Iterator[Game]:
    """Every position of a few seeded random hands (before each move)."""
    rng = random.Random(seed)
    for h in range(hands):
        game = Game(rules, seed * 1000 + h, dealer=h % rules.players)
        while not game.is_over():
            yield game
            game.play_unchecked(game.random_move(rng))


def _walk(decision: Decision, rng: random.Random) -> tuple[list[int], Move]:
    """Random legal actions until a move is complete."""
    actions: list[int] = []
    while True:
        legal = decision.legal_actions()
        assert legal, "a decision always has a legal action"
        assert legal == sorted(set(legal))
        a = legal[rng.randrange(len(legal))]
        actions.append(a)
        move = decision.apply(a)
        if move is not None:
            return actions, move


def test_action_table_is_a_bijection() -> None:
    names = [action_name(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    for a, (kind, key, n, d, j) in enumerate(ACTION_INFO):
        if kind == "group":
            assert group_action(key, n, d, j) == a
        elif kind == "take":
            assert take_action(n, d, j) == a
    with pytest.raises(EncodingError):
        group_action(8, 2, 4, 0)  # four wild cards in a natural meld: never legal
    with pytest.raises(EncodingError):
        action_name(NUM_ACTIONS)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_move_round_trips(preset: str) -> None:
    """Every move of the generating set has an action sequence that plays exactly it, and every
    random walk of legal actions ends in a move of the generating set whose sequence it was."""
    rules = RuleSet.preset(preset)
    rng = random.Random(7)
    positions = multi = 0
    for game in _positions(rules, 3, 11):
        positions += 1
        d = Decision(game)
        moves = d.moves()
        assert moves, "an unfinished hand always has a move"
        seen: dict[tuple[int, ...], Move] = {}
        for move in moves:
            actions = d.actions_for(move)
            seen[tuple(actions)] = move
            d.reset()
            played = None
            for i, a in enumerate(actions):
                assert a in d.legal_actions()
                played = d.apply(a)
                assert (played is None) == (i < len(actions) - 1)
            assert played == move
            multi += len(actions) > 1
        d = Decision(game)
        actions, move = _walk(d, rng)
        assert move in moves
        assert seen[tuple(actions)] == move
        assert (actions[-1] == A_COMMIT) == (tuple(move_actions(move, game.family)) != tuple(actions))
    assert positions > 50
    if preset in ("classic-4p", "italian-4p", "classic-2p"):
        assert multi > 0, "composite moves (initial melds, going out) take several actions"


def test_illegal_actions_are_refused_and_change_nothing() -> None:
    game = Game(RuleSet.preset("classic-4p"), 3)
    d = Decision(game)
    legal = set(d.legal_actions())
    bad = next(a for a in range(NUM_ACTIONS) if a not in legal)
    with pytest.raises(EncodingError):
        d.apply(bad)
    assert set(d.legal_actions()) == legal
    with pytest.raises(EncodingError):
        d.actions_for(Move.parse("discard 9C"))  # the draw phase: not a move here


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_observation_is_the_views(preset: str) -> None:
    """The fast encoder equals the one built from the seat view, for every seat, everywhere."""
    rules = RuleSet.preset(preset)
    obs = Observer(rules)
    rng = random.Random(5)
    count = 0
    for game in _positions(rules, 2, 23):
        d = Decision(game)
        pending: tuple[int, ...] = ()
        legal = d.legal_actions()
        if len(legal) > 1 and rng.random() < 0.5:  # part way through a sequence now and then
            a = legal[rng.randrange(len(legal))]
            if d.apply(a) is None:
                pending = d.prefix
        for seat in range(rules.players):
            fast = obs.encode(game, seat, pending)
            slow = obs.encode_view(seat_view(game, seat), pending)
            assert fast.dtype == np.float32 and fast.shape == (obs.size,)
            assert np.array_equal(fast, slow), f"{preset}: differs at {np.flatnonzero(fast != slow)[:5]}"
            count += 1
    assert count > 100


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_observation_leaks_nothing(preset: str) -> None:
    """Worlds sampled from one seat's view (other hands and the stock dealt anew) give that seat
    the same observation and the same legal actions; the other seats' observations do change,
    so the test can see a leak."""
    rules = RuleSet.preset(preset)
    obs = Observer(rules)
    checked = differs = 0
    for i, game in enumerate(_positions(rules, 2, 31)):
        if i % 3:
            continue
        seat = game.to_move
        view = seat_view(game, seat)
        worlds = [sample_world(view, random.Random(k)) for k in (1, 2)]
        mine = obs.encode(game, seat)
        for w in worlds:
            assert np.array_equal(obs.encode(w, seat), mine)
            assert np.array_equal(obs.encode_view(seat_view(w, seat)), mine)
            assert Decision(w).legal_actions() == Decision(game).legal_actions()
        other = (seat + 1) % rules.players
        differs += not np.array_equal(obs.encode(worlds[0], other), obs.encode(worlds[1], other))
        checked += 1
    assert checked > 20
    assert differs > checked // 2, "sampled worlds should differ in the cards this seat cannot see"


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_table_observations_reuse_nothing_stale(preset: str) -> None:
    """The table reuses the melds' and the pile's parts between moves that cannot change them;
    its observations still equal the view's at every step, for the mover and for another seat."""
    from canasta.rl.core import ActionTable

    table = ActionTable(preset)
    obs = table.observer
    rng = random.Random(2)
    steps = 0
    for hand in range(2):
        table.reset(hand)
        while not table.over:
            seat = table.to_move
            for s in (seat, (seat + 1) % table.n):
                fast = table.observe(s)
                slow = obs.encode_view(seat_view(table.game, s), table.pending)
                assert np.array_equal(fast, slow), f"{preset}: differs at {np.flatnonzero(fast != slow)[:5]}"
            legal = np.flatnonzero(table.mask())
            table.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    assert steps > 50


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_is_legal_and_the_mask_agree_with_the_legal_actions(preset: str) -> None:
    """At every step of a move (its first action and, for a move of several actions, the ones
    after), ``is_legal``, the mask's bytes and ``legal_actions`` say the same, and no number
    outside the action space is legal."""
    rng = random.Random(11)
    sequences = 0
    for game in _positions(RuleSet.preset(preset), hands=3, seed=23):
        d = Decision(game)
        while True:
            legal = d.legal_actions()
            mask = d.mask_bytes()
            assert [a for a in range(NUM_ACTIONS) if d.is_legal(a)] == legal
            assert [a for a in range(NUM_ACTIONS) if mask[a]] == legal
            assert not d.is_legal(-1) and not d.is_legal(NUM_ACTIONS)
            if d.apply(legal[rng.randrange(len(legal))]) is not None:
                break
            sequences += 1
    assert sequences > 0  # some moves took several actions
