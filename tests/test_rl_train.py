"""A seconds-long smoke of the training loop (examples/train.py): MaskablePPO on the Gymnasium
environment runs, saves a policy that the numpy player reads and that plays as the model does."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch", reason="training needs the train extra: pip install torch==2.13.0, then '.[train]'")
pytest.importorskip("sb3_contrib", reason="training needs the train extra: pip install '.[train]'")

import numpy as np

from canasta.rl.core import ActionTable
from canasta.rl.policy import NumpyPolicy, export_sb3

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train.py"


def _train_module() -> object:
    spec = importlib.util.spec_from_file_location("canasta_train_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_training_smoke(tmp_path: Path) -> None:
    train = _train_module()
    assert train.main(["--smoke", "--out", str(tmp_path), "--seed", "3"]) == 0  # type: ignore[attr-defined]
    figures = json.loads((tmp_path / "figures.json").read_text(encoding="utf-8"))
    assert len(figures) == 1 and figures[0]["steps"] > 0
    assert set(figures[0]) >= {"random", "basic", "minutes", "policy"}
    policy = NumpyPolicy.load(figures[0]["policy"])
    assert policy.inputs == ActionTable("classic-4p").observer.size
    assert (tmp_path / "model.zip").exists()


def test_export_plays_as_the_model() -> None:
    from sb3_contrib import MaskablePPO

    from canasta.rl.gymnasium import CanastaEnv

    env = CanastaEnv("italian-4p", opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=1, device="cpu",
                        policy_kwargs={"net_arch": {"pi": [32, 32], "vf": [32]}})
    policy = export_sb3(model, "italian-4p")
    obs = _plays_alike(env, model, policy, 40, seeds=(2, 3))
    assert np.isfinite(policy.logits(obs)).all()


def _plays_alike(env: Any, model: Any, policy: NumpyPolicy, steps: int, seeds: tuple[int, int]) -> Any:
    """Play ``steps`` steps of ``env`` by the model's deterministic choice (reset with the first
    seed, and with the second after a hand ends), asserting the numpy policy chooses the same
    at each; the last observation."""
    obs, _ = env.reset(seed=seeds[0])
    for _ in range(steps):
        mask = env.action_masks()
        expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert policy.act(obs, mask) == int(expected)
        obs, _, done, _, _ = env.step(int(expected))
        if done:
            obs, _ = env.reset(seed=seeds[1])
    return obs


BASELINE = EXAMPLE.parent / "baseline.py"


@pytest.mark.slow
def test_baseline_recipe_smoke(tmp_path: Path) -> None:
    """examples/baseline.py, seconds long: the clone is recorded and fitted, then fine-tuned from
    its weights, and every policy it saves loads and plays."""
    spec = importlib.util.spec_from_file_location("canasta_baseline_example", BASELINE)
    assert spec is not None and spec.loader is not None
    baseline = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(baseline)
    assert baseline.main(["--smoke", "--out", str(tmp_path), "--seed", "4"]) == 0
    record = json.loads((tmp_path / "bc" / "classic-4p.json").read_text(encoding="utf-8"))
    assert record["hands"] == 3 and record["decisions"] > 100 and len(record["losses"]) == 1
    [dagger] = record["dagger"]  # one round of DAgger, fitted on the clone's decisions and its own
    assert dagger["hands"] == 2 and dagger["decisions"] > 10 and len(dagger["losses"]) == 1
    clone = NumpyPolicy.load(tmp_path / "bc" / "classic-4p.npz")
    figures = json.loads((tmp_path / "finetune" / "figures.json").read_text(encoding="utf-8"))
    assert len(figures) == 1 and figures[0]["steps"] > 0
    tuned = NumpyPolicy.load(figures[0]["policy"])
    assert [w.shape for w, _ in tuned.layers] == [w.shape for w, _ in clone.layers]
    table = ActionTable("classic-4p")
    table.reset(5)
    while not table.over:
        table.step(tuned.act(table.observe(table.to_move), table.mask()))
    assert len(table.rewards()) == 4


def test_a_numpy_policy_loads_into_a_ppo_model() -> None:
    """load_into_sb3 is export_sb3's inverse: the model then plays exactly as the numpy policy."""
    from sb3_contrib import MaskablePPO

    from canasta.rl.gymnasium import CanastaEnv
    from canasta.rl.policy import WEIGHTS, load_into_sb3

    env = CanastaEnv("classic-4p", opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=1, device="cpu",
                        policy_kwargs={"net_arch": {"pi": [256, 256], "vf": [32]}})
    shipped = NumpyPolicy.load(WEIGHTS / "classic-4p.npz")
    load_into_sb3(model, shipped)
    back = export_sb3(model, "classic-4p")
    for (w, b), (w2, b2) in zip(shipped.layers, back.layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    _plays_alike(env, model, shipped, 30, seeds=(6, 7))
    small = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=1, device="cpu",
                        policy_kwargs={"net_arch": {"pi": [32], "vf": [32]}})
    with pytest.raises(ValueError):
        load_into_sb3(small, shipped)
