"""The OpenSpiel game passes pyspiel's random simulation test for every preset; resampling keeps
a seat's information state; an ISMCTS bot plays whole hands through it."""

from __future__ import annotations

from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel game needs the rl extra: pip install 'canasta[rl]'")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import canasta.rl.openspiel as cos  # noqa: E402
from canasta.rules import PRESETS  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_sim(preset: str) -> None:
    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    sims = 2 if preset in ("classic-4p", "italian-4p") else 1
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def _deal(state: Any, rng: np.random.RandomState) -> None:
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        actions, probs = zip(*outcomes, strict=True)
        assert abs(sum(probs) - 1.0) < 1e-9
        state.apply_action(int(rng.choice(actions, p=probs)))


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_resampling_keeps_the_information_state(preset: str) -> None:
    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    rng = np.random.RandomState(3)
    state = game.new_initial_state()
    _deal(state, rng)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for step in range(120):
        if state.is_terminal():
            break
        if step % 10 == 0:
            for p in range(game.num_players()):
                other = state.resample_from_infostate(p, sampler)
                assert other.information_state_string(p) == state.information_state_string(p)
                assert other.observation_string(p) == state.observation_string(p)
                assert np.array_equal(other.observation_tensor(p), state.observation_tensor(p))
                if p == state.current_player():
                    assert other.legal_actions() == state.legal_actions()
                q = (p + 1) % game.num_players()
                changed += other.observation_string(q) != state.observation_string(q)
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert changed > 0, "resampled worlds deal the unseen cards anew"


def _ismcts_hands(preset: str, hands: int) -> list[list[int]]:
    """Seat 0 an ISMCTS bot (its world samples seeded), the others uniformly random."""
    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(2))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(3))
    worlds = np.random.RandomState(4)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, worlds.random_sample))
    histories = []
    for _ in range(hands):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                _deal(state, rng)
            elif state.current_player() == 0:
                action = bot.step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
                decisions += 1
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        returns = state.returns()
        assert decisions > 5
        assert abs(sum(returns)) < 1e-6
        assert returns[0] == returns[2] == -returns[1]
        assert state.move_number() <= game.max_game_length()
        histories.append(state.history())
    return histories


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_ismcts_plays_whole_hands(preset: str) -> None:
    assert _ismcts_hands(preset, 2) == _ismcts_hands(preset, 2), "seeded, a run repeats exactly"


@pytest.mark.slow
def test_resampled_worlds_keep_an_askers_promise() -> None:
    """A seat that asked "may I go out?" can go out in every world resampled for another seat
    (``sample_world`` alone does not see to it: some of its worlds break the promise)."""
    import random

    from canasta.game import Game
    from canasta.rl.core import ActionTable
    from canasta.state import ASK_PENDING
    from canasta.view import sample_world, seat_view

    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": "classic-4p"})
    rules = game.rules
    positions = broken = 0
    for seed in range(300):
        g = Game(rules, seed)
        r = random.Random(seed)
        while not g.is_over() and g.ask != ASK_PENDING:
            moves = list(g.legal_moves)
            asks = [m for m in moves if str(m) == "ask"]
            g.push(asks[0] if asks else moves[r.randrange(len(moves))])
        if g.is_over():
            continue
        positions += 1
        other = (g.turn + 1) % 4
        state = game.new_initial_state()
        state.table = ActionTable(rules)
        state.table.start(g)
        draws = np.random.RandomState(seed)
        for k in range(10):
            world = sample_world(seat_view(g, other), random.Random(k))
            probe = world.copy()
            probe.push("yes")
            broken += not probe.can_go_out()
            resampled = state.resample_from_infostate(other, draws.random_sample).table.game.copy()
            resampled.push("yes")
            assert resampled.can_go_out()
        if positions >= 8:
            break
    assert positions >= 3
    assert broken > 0, "unfiltered worlds do break the promise, so this test can see a regression"


def _dealt(game: Any, order: list[int], cut: int | None) -> Any:
    state = game.new_initial_state()
    for c in order:
        state.apply_action(c)
    if state.is_chance_node():
        state.apply_action(cut)
    return state


def _upcard_pairs(preset: str, pairs: int) -> list[tuple[Any, Any]]:
    """Deal pairs that differ only in the pile's top card (the upcard; in Italian the pozzo's
    face-up top, of another rank; so in Italian the pozzo's size may differ too): the same
    hands, the same cut cards, the other card swapped into the stock."""
    from canasta.cards import CARD_RANK

    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    rng = np.random.RandomState(7)
    out = []
    for _ in range(10 * pairs):
        state = game.new_initial_state()
        _deal(state, rng)
        order = [int(a) for a in state.history()[:game.rules.deck_size]]
        cut = int(state.history()[-1]) if len(state.history()) > len(order) else None
        g = state.table.game
        for i in np.flatnonzero(np.array(order) == g.pile[-1]):
            for j in rng.permutation(len(order))[:40]:
                if CARD_RANK[order[j]] == CARD_RANK[order[i]]:
                    continue
                swapped = list(order)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                other = _dealt(game, swapped, cut)
                h = other.table.game
                if (h.pile[-1] != g.pile[-1] and h.hands == g.hands and h.shown_at_deal() == g.shown_at_deal()
                        and h.red3 == g.red3):
                    out.append((state, other))
                    break
            else:
                continue
            break
        if len(out) == pairs:
            return out
    raise AssertionError(f"found only {len(out)} pairs")


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p", "classic-2p"])
def test_information_states_see_the_upcard(preset: str) -> None:
    """States that differ only in a public card never share an information-state string (nor
    a tensor), for every seat; and over all the states of these hands, one information-state
    string always has the same legal actions (states merged by it are the same to the player)."""
    seen: dict[str, list[int]] = {}
    differ = 0
    for a, b in _upcard_pairs(preset, 12):
        first = a.current_player()
        differ += a.legal_actions() != b.legal_actions()
        for p in range(a.num_players()):
            assert a.information_state_string(p) != b.information_state_string(p)
            assert not np.array_equal(a.information_state_tensor(p), b.information_state_tensor(p))
            assert a.observation_string(p) != b.observation_string(p)
        assert first == b.current_player()
        rng = np.random.RandomState(len(seen))
        for state in (a, b):
            state = state.clone()
            for _ in range(40):
                if state.is_terminal():
                    break
                p = state.current_player()
                key = state.information_state_string(p)
                assert seen.setdefault(key, state.legal_actions()) == state.legal_actions()
                state.apply_action(int(rng.choice(state.legal_actions())))
    assert differ > 0, "some upcards change the legal actions, so merging them would be wrong"


def _observations(game: Any) -> tuple[Any, Any]:
    from open_spiel.python.observation import make_observation

    public = make_observation(game, pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE))
    private = make_observation(game, pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    return public, private


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_public_observation_has_no_private_card(preset: str) -> None:
    """OpenSpiel's factored observations (what ``generate_playthrough`` prints as
    ``PublicObservationString``): the public one shows no card of any hand and is the same in
    worlds resampled for the seat, the private one shows the seat's hand."""
    import json

    from canasta.cards import cards_str

    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    public, private = _observations(game)
    rng = np.random.RandomState(5)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    state = game.new_initial_state()
    _deal(state, rng)
    hand = slice(*game.observer.slices["hand"].indices(game.observer.size)[:2])
    for step in range(60):
        if state.is_terminal():
            break
        g = state.table.game
        for p in range(game.num_players()):
            text = public.string_from(state, p)
            assert "hand" not in json.loads(text)
            mine = cards_str(sorted(g.hand(p)))
            assert mine in private.string_from(state, p)
            public.set_from(state, p)
            assert not public.tensor[hand].any()
            private.set_from(state, p)
            assert private.tensor[hand].sum() == len(g.hand(p))
            if step % 15 == 0:
                other = state.resample_from_infostate((p + 1) % game.num_players(), sampler)
                assert public.string_from(other, p) == text, "nothing of seat p's hand in its public string"
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_playthrough_public_observation_leaks_no_hand() -> None:
    """``generate_playthrough``'s ``PublicObservationString`` lines carry no hand."""
    from open_spiel.python.algorithms import generate_playthrough

    text = generate_playthrough.playthrough(f"{cos.SHORT_NAME}(rules=classic-2p)", action_sequence=None, seed=3)
    publics = [line for line in text.splitlines() if line.startswith("PublicObservationString()")]
    assert publics
    assert not any('\\"hand\\"' in line or '"hand"' in line for line in publics)


def test_information_states_name_the_cut_cards_and_the_pozzo() -> None:
    """Italian deals: every seat's information state names the cards the cutter took and the
    pozzo as laid (its face-up top, its face-down cards as "?")."""
    from canasta.cards import cards_str

    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": "italian-4p"})
    rng = np.random.RandomState(11)
    cuts = 0
    for _ in range(40):
        state = game.new_initial_state()
        _deal(state, rng)
        g = state.table.game
        top = cards_str([g.pile[-1]])
        for p in range(game.num_players()):
            text = state.information_state_string(p)
            deal = next(line for line in text.splitlines() if line.startswith("deal:"))
            assert f"pile top {top} " in deal
            lo, hi = g.face_down()
            assert deal.count("?") == hi - lo
            if g.shown_at_deal():
                assert f"cut {cards_str(g.shown_at_deal())} |" in deal
        cuts += bool(g.shown_at_deal())
    assert cuts > 0, "some cuts took wild cards"
