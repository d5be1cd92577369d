"""Expert iteration, first generation (issue 54): the expert's labels on the learner's positions,
a reproducible fit, numpy inference equal to training's, and the expert with policy rollouts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from canasta.bots import BotSpecError, check_bot, make_bot
from canasta.bots.base import Budget
from canasta.bots.expert import ExpertBot
from canasta.bots.heuristic import AdvancedBot
from canasta.engine.game import Game
from canasta.engine.rules import RuleSet
from canasta.rl.encoding import NUM_ACTIONS, Decision, Observer
from canasta.rl.policy import NumpyPolicy, PolicyBot
from canasta.rl.rollout import PolicyRollout
from canasta.views.seat import seat_view

pytest.importorskip("torch", reason="fitting needs torch (the rl extra)")
from canasta.rl import expert_iteration as ei

RULES = "classic-4p"


def _tiny_policy(seed: int = 0) -> NumpyPolicy:
    size = Observer(RuleSet.preset(RULES)).size
    rng = np.random.default_rng(seed)
    f32 = np.float32
    return NumpyPolicy([(rng.normal(0, 0.1, (8, size)).astype(f32), np.zeros(8, f32)),
                        (rng.normal(0, 0.1, (NUM_ACTIONS, 8)).astype(f32), np.zeros(NUM_ACTIONS, f32))])


@pytest.fixture(scope="module")
def generated() -> ei.Generated:
    return ei.generate(RULES, _tiny_policy(), hands=1, seed=3, share=0.5, worlds=2)


def test_the_generator_labels_every_decision_with_a_legal_action_and_is_seeded(generated: ei.Generated) -> None:
    obs, masks, acts = generated.data
    assert len(acts) >= generated.moves > 10
    assert obs.shape == (len(acts), Observer(RuleSet.preset(RULES)).size) and obs.dtype == np.float32
    for m, a in zip(masks, acts, strict=True):
        assert np.unpackbits(m, count=NUM_ACTIONS)[a] == 1  # every label is a legal action there
    # a random learner (share 0.5) rarely picks the expert's move; the expert mostly plays the advanced player's
    assert generated.learner_agreed < generated.moves
    assert 0 <= generated.expert_left_guide < generated.moves
    again = ei.generate(RULES, _tiny_policy(), hands=1, seed=3, share=0.5, worlds=2)
    assert all(np.array_equal(a, b) for a, b in zip(generated.data, again.data, strict=True))
    other = ei.generate(RULES, _tiny_policy(), hands=1, seed=4, share=0.5, worlds=2)
    assert not np.array_equal(generated.data[0][:20], other.data[0][:20])


def test_the_learner_plays_its_own_moves_where_share_says(generated: ei.Generated) -> None:
    # with share 1 every move is the learner's: the positions differ from those of the expert's own play
    own = ei.generate(RULES, _tiny_policy(), hands=1, seed=3, share=1.0, worlds=2)
    expert = ei.generate(RULES, _tiny_policy(), hands=1, seed=3, share=0.0, worlds=2)
    assert not np.array_equal(own.data[2], expert.data[2])
    assert expert.learner_agreed < expert.moves


def test_training_at_a_tiny_size_is_reproducible(generated: ei.Generated) -> None:
    a = ei.fit(*generated.data, seed=7, epochs=2, hidden=8)
    b = ei.fit(*generated.data, seed=7, epochs=2, hidden=8)
    c = ei.fit(*generated.data, seed=8, epochs=2, hidden=8)
    assert len(a.policy.layers) == 3 and a.policy.layers[0][0].shape == (8, generated.data[0].shape[1])
    for (wa, ba), (wb, bb) in zip(a.policy.layers, b.policy.layers, strict=True):
        assert np.array_equal(wa, wb) and np.array_equal(ba, bb)
    assert a.losses == b.losses
    assert not np.array_equal(a.policy.layers[0][0], c.policy.layers[0][0])
    # fitting learns: the loss falls over more epochs on the same data
    longer = ei.fit(*generated.data, seed=7, epochs=30, hidden=8, lr=3e-3)
    assert longer.losses[-1] < longer.losses[0]
    assert ei.agreement(longer.policy, generated.data) > ei.agreement(_tiny_policy(), generated.data)


def test_fine_tuning_starts_from_the_start_policy(generated: ei.Generated) -> None:
    start = _tiny_policy(5)
    tuned = ei.fit(*generated.data, seed=7, epochs=1, start=start, lr=1e-9)
    for (w, b), (w0, b0) in zip(tuned.policy.layers, start.layers, strict=True):
        assert w.shape == w0.shape and np.allclose(w, w0, atol=1e-6) and np.allclose(b, b0, atol=1e-6)


def test_numpy_inference_matches_the_training_network(generated: ei.Generated, tmp_path: Path) -> None:
    import torch

    fitted = ei.fit(*generated.data, seed=7, epochs=2, hidden=16)
    path = tmp_path / "p.npz"
    fitted.policy.save(path)
    loaded = NumpyPolicy.load(path)
    obs = generated.data[0]
    with torch.no_grad():
        expected = fitted.net(torch.from_numpy(obs)).numpy()
    got = np.stack([loaded.logits(x) for x in obs])
    assert np.allclose(got, expected, atol=1e-5)
    assert ei.decision_ms(loaded, generated.data) < 1.0  # well under a millisecond an action


def test_the_policy_rollout_plays_what_the_policy_bot_plays() -> None:
    policy = _tiny_policy(2)
    rollout, bot = PolicyRollout(policy), PolicyBot(policy, seed=1)
    guide = AdvancedBot(1)
    g = Game(RuleSet.preset(RULES), 11)
    checked = 0
    while not g.is_over() and checked < 40:
        view = seat_view(g, g.to_move)
        if len(Decision(g).legal_list()) > 1:
            mine = rollout.pick(g)
            d = Decision(g)
            assert d.actions_for(mine) == d.actions_for(bot.choose(view))
            checked += 1
        g.play(guide.choose(view))
    assert checked == 40


def _hand_with(bot: ExpertBot, deal: int) -> list[object]:
    g = Game(RuleSet.preset(RULES), deal)
    others = [AdvancedBot(s) for s in range(4)]
    moves: list[object] = []
    while not g.is_over() and len(moves) < 60:
        view = seat_view(g, g.to_move)
        move = bot.choose(view) if g.to_move == 0 else others[g.to_move].choose(view)
        if g.to_move == 0:
            moves.append(move)
        g.play(move)  # checked: an illegal move raises
    return moves


def test_the_expert_with_policy_rollouts_plays_legal_seeded_moves() -> None:
    a = _hand_with(ExpertBot(5, Budget(iterations=3), rollout="policy"), 21)
    b = _hand_with(ExpertBot(5, Budget(iterations=3), rollout="policy"), 21)
    assert len(a) > 5 and a == b
    named = make_bot("expert-policy:i3")
    assert isinstance(named, ExpertBot) and isinstance(named.rollout, PolicyRollout)
    assert isinstance(ExpertBot(1).rollout, AdvancedBot)  # the default expert is unchanged
    with pytest.raises(ValueError, match="unknown rollout"):
        ExpertBot(1, rollout="ismcts")


def test_a_rollout_policy_for_other_rules_is_refused_clearly() -> None:
    g = Game(RuleSet.preset("classic-2p"), 1)
    with pytest.raises(ValueError, match="no shipped policy for classic-2p"):
        PolicyRollout().pick(g)
    with pytest.raises(BotSpecError, match="classic-2p has none"):  # the arena refuses it before any game
        check_bot("expert-policy:i5", RuleSet.preset("classic-2p"))
    check_bot("expert-policy:i5", RuleSet.preset("italian-4p"))


def test_the_command_reproduces_its_weights_from_its_seed(tmp_path: Path) -> None:
    args = ["--rules", RULES, "--hands", "1", "--holdout", "1", "--worlds", "1", "--epochs", "2", "--start", "none",
            "--hidden", "4", "--seed", "9"]
    for run in ("a", "b"):
        assert ei.main([*args, "--out", str(tmp_path / run)]) == 0
    a, b = (NumpyPolicy.load(tmp_path / run / f"{RULES}-gen1.npz") for run in ("a", "b"))
    assert a.layers[0][0].shape == (4, Observer(RuleSet.preset(RULES)).size)
    for (wa, ba), (wb, bb) in zip(a.layers, b.layers, strict=True):
        assert np.array_equal(wa, wb) and np.array_equal(ba, bb)
    record = json.loads((tmp_path / "a" / f"{RULES}-gen1.json").read_text(encoding="utf-8"))
    assert record["rounds"][0]["actions"] > 0 and 0 <= record["rounds"][0]["holdout_agreement_pct"] <= 100
    assert "start_agreement_pct" in record["holdout"]


def test_the_command_refuses_bad_sizes_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        ei.main(["--hands", "0"])
    assert stop.value.code == 2
    assert "--hands" in capsys.readouterr().err.strip().splitlines()[-1]
