"""The learned baseline's DAgger rounds (canasta.rl.bc.collect_dagger): the decisions recorded are
the learning side's, each labelled with a legal action, and the same seed records the same."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="policies need numpy: pip install 'canasta[rl]'")

import numpy as np

from canasta.engine.rules import RuleSet
from canasta.rl.bc import collect_dagger, main
from canasta.rl.encoding import NUM_ACTIONS, Observer
from canasta.rl.policy import NumpyPolicy


def _policy(seed: int, inputs: int) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    f32 = np.float32
    return NumpyPolicy([(rng.normal(size=(8, inputs)).astype(f32), np.zeros(8, f32)),
                        (rng.normal(size=(NUM_ACTIONS, 8)).astype(f32), np.zeros(NUM_ACTIONS, f32))])


@pytest.mark.parametrize(("share", "opponents"), [(1.0, ["random"]), (0.0, ["basic"]), (0.5, ["advanced", "random"])])
def test_every_recorded_decision_is_a_legal_action_of_the_learning_side(share: float, opponents: list[str]) -> None:
    size = Observer(RuleSet.preset("classic-4p")).size
    obs, masks, acts = collect_dagger("classic-4p", _policy(1, size), 2, 7, share, opponents)
    assert len(obs) == len(masks) == len(acts) > 20
    assert obs.shape[1] == size
    legal = np.unpackbits(masks, axis=1, count=NUM_ACTIONS).astype(bool)
    assert legal[np.arange(len(acts)), acts].all()


def test_the_same_seed_records_the_same_decisions() -> None:
    size = Observer(RuleSet.preset("classic-4p")).size
    policy = _policy(2, size)
    first = collect_dagger("classic-4p", policy, 2, 11, 0.7, ["advanced", "random"])
    again = collect_dagger("classic-4p", policy, 2, 11, 0.7, ["advanced", "random"])
    other = collect_dagger("classic-4p", policy, 2, 12, 0.7, ["advanced", "random"])
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[2], other[2]) or len(first[2]) != len(other[2])


@pytest.mark.parametrize("argv", [["--dagger", "-1"], ["--dagger-share", "1.5"], ["--dagger-opponents", "nobody"],
                                  ["--dagger-opponents", ","]])
def test_bad_dagger_options_are_refused_before_any_hand(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--out", "/nonexistent/never-written"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--dagger" in err and "Traceback" not in err
