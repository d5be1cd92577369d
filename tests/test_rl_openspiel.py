"""The OpenSpiel game passes pyspiel's random simulation test for every preset; resampling keeps
a seat's information state; an ISMCTS bot plays whole hands through it."""

from __future__ import annotations

from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel game needs the rl extra: pip install 'canasta[rl]'")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import canasta.rl.openspiel as cos  # noqa: E402
from canasta.engine.rules import PRESETS  # noqa: E402


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


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p", "american-4p"])
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
@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p", "american-4p"])
def test_ismcts_plays_whole_hands(preset: str) -> None:
    assert _ismcts_hands(preset, 2) == _ismcts_hands(preset, 2), "seeded, a run repeats exactly"


@pytest.mark.slow
def test_resampled_worlds_keep_an_askers_promise() -> None:
    """A seat that asked "may I go out?" can go out in every world resampled for another seat
    (``sample_world`` alone does not see to it: some of its worlds break the promise)."""
    import random

    from canasta.engine.game import Game
    from canasta.engine.state import ASK_PENDING
    from canasta.rl.core import ActionTable
    from canasta.views.seat import sample_world, seat_view

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
    from canasta.engine.cards import CARD_RANK

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


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p", "american-4p"])
def test_public_observation_has_no_private_card(preset: str) -> None:
    """OpenSpiel's factored observations (what ``generate_playthrough`` prints as
    ``PublicObservationString``): the public one shows no card of any hand and is the same in
    worlds resampled for the seat, the private one shows the seat's hand."""
    import json

    from canasta.engine.cards import cards_str

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
    from canasta.engine.cards import cards_str

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


def _kind(card: int) -> int:
    from canasta.rl.encoding import KIND_OF

    return int(KIND_OF[card])


def _assert_every_seat_tells_them_apart(a: Any, b: Any) -> None:
    for p in range(a.num_players()):
        assert a.information_state_string(p) != b.information_state_string(p)
        assert not np.array_equal(a.information_state_tensor(p), b.information_state_tensor(p))


def _cut_pairs(pairs: int) -> list[tuple[Any, Any]]:
    """Italian deals that differ only in one of the cards the cutter took (a deuce in one, a
    joker in the other: another kind, so the tensors may tell them apart too): the card at the
    bottom of the lifted packet is swapped with one of the other kind that stays in the stock.
    The same cut, the same pozzo, the same hands but for that card in the cutter's."""
    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": "italian-4p"})
    rng = np.random.RandomState(23)
    out = []
    for _ in range(400):
        state = game.new_initial_state()
        _deal(state, rng)
        g = state.table.game
        if not g.shown_at_deal():
            continue
        order = [int(a) for a in state.history()[:game.rules.deck_size]]
        cut = int(state.history()[-1])
        i = cut - 1  # the lifted packet's bottom card: the first the cutter took
        assert order[i] == g.shown_at_deal()[0]
        cutter = next(s for s in range(g.players) if g.known[s][order[i]])
        for j in rng.permutation(len(order)):
            if order[j] not in (0, 1, 2, 3, 52) or _kind(order[j]) == _kind(order[i]):
                continue
            swapped = list(order)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            other = _dealt(game, swapped, cut)
            h = other.table.game
            mine = sorted(g.hand(cutter))
            mine.remove(order[i])
            theirs = sorted(h.hand(cutter))
            theirs.remove(order[j])
            if (mine == theirs and h.pile == g.pile and h.face_down() == g.face_down() and h.red3 == g.red3
                    and h.shown_at_deal()[1:] == g.shown_at_deal()[1:]
                    and all(h.hand(s) == g.hand(s) for s in range(g.players) if s != cutter)):
                out.append((state, other))
                break
        if len(out) == pairs:
            return out
    raise AssertionError(f"found only {len(out)} pairs")


def test_information_states_see_a_cut_card() -> None:
    """Italian deals differing only in a card the cutter took (shown to the table): every seat's
    information-state string and tensor differ."""
    for a, b in _cut_pairs(6):
        assert _kind(a.table.game.shown_at_deal()[0]) != _kind(b.table.game.shown_at_deal()[0])
        assert a.current_player() == b.current_player()
        _assert_every_seat_tells_them_apart(a, b)


def _replace(game: Any, state: Any, seat: int, old: list[int], new: list[int]) -> Any:
    """The deal of ``state`` with the cards ``old`` of ``seat``'s hand swapped, one at a time,
    with cards ``new`` from the stock: every other hand, the pile and the red threes as they
    were, and the first card drawn the same.  None if no such swap is found."""
    order = [int(a) for a in state.history()[:game.rules.deck_size]]
    g = state.table.game
    hand = g.hand(seat)
    for c, d in zip(old, new, strict=True):
        hand.remove(c)
        hand.append(d)
        for i in (i for i, x in enumerate(order) if x == c):
            js = [j for j, x in enumerate(order) if x == d]
            for j in js:
                swapped = list(order)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                h = _dealt(game, swapped, None).table.game
                if (h.hand(seat) == sorted(hand) and h.pile == g.pile and h.red3 == g.red3
                        and all(h.hand(s) == g.hand(s) for s in range(g.players) if s != seat)
                        and h.stock[-1] == g.stock[-1]):
                    order = swapped
                    break
            else:
                continue
            break
        else:
            return None
    return _dealt(game, order, None)


def _meld_pairs(rank: bool, pairs: int) -> list[tuple[Any, Any]]:
    """Classic hands where the first seat draws and lays an initial meld of three cards, and its
    twin: the same deal but for the meld's cards, which the twin's seat holds instead (from the
    stock), so that after the meld every hand, the pile and the stock's size are the same and
    only the meld on the table differs: its rank (``rank``: the naturals of another rank), or
    one card (a wild card of the other kind)."""
    from canasta.engine.cards import CARD_RANK, IS_WILD, THREE
    from canasta.engine.moves import Move, MoveKind
    from canasta.rl.encoding import A_DRAW, EncodingError

    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": "classic-4p"})
    rng = np.random.RandomState(29 if rank else 31)
    out = []
    for _ in range(300):
        state = game.new_initial_state()
        _deal(state, rng)
        seat = state.current_player()
        drawn = state.clone()
        drawn.apply_action(A_DRAW)
        g = drawn.table.game
        melds = [m.groups[0] for m in drawn.table.decision.moves()
                 if m.kind == MoveKind.MELD and len(m.groups) == 1 and len(m.groups[0]) == 3]
        for cards in melds:
            naturals = [c for c in cards if not IS_WILD[c]]
            if rank:
                old = naturals
                others = [c for c in range(53) if not IS_WILD[c] and CARD_RANK[c] not in (CARD_RANK[cards[0]], THREE)]
                new = [int(c) for c in rng.choice(others, 1)] * len(old)
            else:
                old = [c for c in cards if IS_WILD[c]][:1]
                if not old:
                    continue
                new = [52 if old[0] != 52 else int(rng.randint(4))]
            held, dealt = [_kind(c) for c in g.hand(seat)], state.table.game.hand(seat)
            if (any(held.count(k) != [_kind(c) for c in cards].count(k) for k in map(_kind, cards))
                    or any(_kind(c) in held for c in new) or any(old.count(c) > dealt.count(c) for c in old)):
                continue  # the seat holds no other card of the kinds in play (suits are drawn among them)
            twin = _replace(game, state, seat, old, new)
            if twin is None:
                continue
            twin.apply_action(A_DRAW)
            theirs = list(cards)
            for c, d in zip(old, new, strict=True):
                theirs[theirs.index(c)] = d
            move = Move(MoveKind.MELD, (tuple(sorted(theirs)),))
            if twin.table.game.why_illegal(move) is not None:
                continue
            try:
                actions = twin.table.decision.actions_for(move)
            except EncodingError:
                continue
            a = drawn.clone()
            for x in drawn.table.decision.actions_for(Move(MoveKind.MELD, (cards,))):
                a.apply_action(x)
            for x in actions:
                twin.apply_action(x)
            ga, gb = a.table.game, twin.table.game
            assert [ga.hand(s) for s in range(ga.players)] == [gb.hand(s) for s in range(gb.players)]
            assert ga.pile == gb.pile and len(ga.stock) == len(gb.stock)
            side = ga.side_of[seat]
            assert len(ga.side_melds(side)) == len(gb.side_melds(side)) == 1
            out.append((a, twin))
            break
        if len(out) == pairs:
            return out
    raise AssertionError(f"found only {len(out)} pairs")


@pytest.mark.parametrize("rank", [True, False], ids=["another-rank", "another-card"])
def test_information_states_see_a_meld(rank: bool) -> None:
    """Two hands that differ only in a meld on the table (its rank, or one of its cards), the
    hands and the rest of the table alike: every seat's information-state string and tensor
    differ."""
    for a, b in _meld_pairs(rank, 6):
        side = a.table.game.side_of[a.table.game.turn]
        ma, mb = a.table.game.side_melds(side)[0], b.table.game.side_melds(side)[0]
        if rank:
            assert ma.rank != mb.rank
        else:
            assert ma.rank == mb.rank and sorted(map(_kind, ma.cards)) != sorted(map(_kind, mb.cards))
        _assert_every_seat_tells_them_apart(a, b)


def _group_sets(move: Any) -> list[list[int]]:
    from canasta.engine.moves import group_cards

    return [sorted(group_cards(g)) for g in move.groups]


def _choice_pairs(preset: str, pairs: int, seed: int) -> list[tuple[Any, Any, int]]:
    """Deals where the first seat lays a group of natural cards and a deuce (a take of the pile,
    or a meld after drawing) holding no other card of the group's kinds, and the twin deal: the
    same but for one unrelated card of that seat's, swapped for a card of one of the group's
    kinds in another suit, so that the twin's seat had a choice of suits.  The twin's suits are
    drawn until it lays the very same cards, so that every other seat saw the same: the same
    deal of its own, the same pile, the same first stock card, the same move.  Returns (state,
    twin, the seat that moved)."""
    from canasta.engine.cards import CARD_RANK, IS_WILD, THREE, TWO
    from canasta.engine.moves import MoveKind, group_cards
    from canasta.rl.encoding import A_DRAW, EncodingError

    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    rng = np.random.RandomState(seed)
    out: list[tuple[Any, Any, int]] = []
    for _ in range(400):
        state = game.new_initial_state()
        _deal(state, rng)
        seat = state.current_player()
        drawn = state.clone()
        drawn.apply_action(A_DRAW)
        found = None
        for start, draws in ((state, False), (drawn, True)):
            hand = start.table.game.hands[seat]
            for move in start.table.decision.moves():
                if move.kind not in (MoveKind.MELD, MoveKind.TAKE):
                    continue
                mixed = [g for g in map(group_cards, move.groups)
                         if any(CARD_RANK[c] == TWO for c in g) and any(not IS_WILD[c] for c in g)]
                used = [c for g in move.groups for c in group_cards(g)]
                kinds = {_kind(c) for c in used}
                if not mixed or any(_kind(c) in kinds and hand[c] > used.count(c) for c in range(53)):
                    continue  # no group of naturals and a deuce, or the seat has a choice already
                y_kinds = sorted({_kind(c) for c in mixed[0] if CARD_RANK[c] != 52})
                k = y_kinds[rng.randint(len(y_kinds))]
                ys = [c for c in range(52) if _kind(c) == k and not hand[c]]
                dealt = state.table.game.hands[seat]
                xs = [c for c in range(52) if dealt[c] and _kind(c) not in kinds and not IS_WILD[c]
                      and CARD_RANK[c] != THREE]
                if ys and xs:
                    found = (start, draws, move, xs[rng.randint(len(xs))], ys[rng.randint(len(ys))])
                    break
            if found:
                break
        if found is None:
            continue
        start, draws, move, x, y = found
        twin = _replace(game, state, seat, [x], [y])
        if twin is None:
            continue
        if draws:
            twin.apply_action(A_DRAW)
        try:
            actions = start.table.decision.actions_for(move)
            twin.table.decision.actions_for(move)
        except EncodingError:
            continue
        a = start.clone()
        for action in actions:
            a.apply_action(action)
        for k in range(200):  # the twin's suits, until it lays the same cards
            b = twin.clone()
            b.table.suits.seed(k)
            for action in actions:
                b.apply_action(action)
            if _group_sets(b.table.last_move) == _group_sets(a.table.last_move):
                break
        else:
            continue
        assert b.table.game.hand(seat) != a.table.game.hand(seat)
        out.append((a, b, seat))
        if len(out) == pairs:
            return out
    raise AssertionError(f"found only {len(out)} pairs")


@pytest.mark.parametrize("preset", ["classic-4p", "classic-2p"])
def test_no_seat_learns_a_choice_of_suits_from_a_move(preset: str) -> None:
    """Two hands that no other seat can tell apart (the mover held another card of a kind it
    laid in one, not in the other; everything else every other seat saw is the same) give every
    other seat the same information-state and observation strings and tensors, and the same
    public observation.  The cards of a group were once written in the generating set's order
    without a choice of suits (``JH JD 2S``) and sorted by code with one (``2S JH JD``)."""
    public, _ = _observations(pyspiel.load_game(cos.SHORT_NAME, {"rules": preset}))
    written = set()
    for a, b, seat in _choice_pairs(preset, 6, 37 if preset == "classic-4p" else 41):
        written.add(str(a.table.last_move))
        assert a.information_state_string(seat) != b.information_state_string(seat), "the mover's hands differ"
        for p in range(a.num_players()):
            assert public.string_from(a, p) == public.string_from(b, p)
            if p == seat:
                continue
            assert a.information_state_string(p) == b.information_state_string(p)
            assert a.observation_string(p) == b.observation_string(p)
            assert np.array_equal(a.information_state_tensor(p), b.information_state_tensor(p))
            assert np.array_equal(a.observation_tensor(p), b.observation_tensor(p))
    assert any(" 2" in move for move in written), "the moves lay deuces"


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p", "classic-3p-cutthroat"])
def test_public_observation_is_one_for_all_players(preset: str) -> None:
    """OpenSpiel's public observation (public information alone, with or without perfect recall)
    is the same string and tensor whichever player it is asked for, names no seat, and stays
    the same in worlds resampled for a player (every other hand dealt anew)."""
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game(cos.SHORT_NAME, {"rules": preset})
    public, _ = _observations(game)
    record = make_observation(game, pyspiel.IIGObservationType(
        public_info=True, perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE))
    rng = np.random.RandomState(13)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    state = game.new_initial_state()
    assert len({public.string_from(state, p) for p in range(game.num_players())}) == 1
    _deal(state, rng)
    n = game.num_players()
    for step in range(50):
        if state.is_terminal():
            break
        worlds = [state] + ([state.resample_from_infostate(step % n, sampler)] if step % 10 == 0 else [])
        for observation in (public, record):
            text = observation.string_from(state, 0)
            observation.set_from(state, 0)
            tensor = observation.tensor.copy()
            assert '"seat"' not in text and "seat 0" not in text
            for world in worlds:
                for p in range(n):
                    assert observation.string_from(world, p) == text
                    observation.set_from(world, p)
                    assert np.array_equal(observation.tensor, tensor)
        state.apply_action(int(rng.choice(state.legal_actions())))
