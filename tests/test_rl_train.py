"""A seconds-long smoke of the training loop (examples/train.py): MaskablePPO on the Gymnasium
environment runs, saves a policy that the numpy player reads and that plays as the model does."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

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
    obs, _ = env.reset(seed=2)
    for _ in range(40):
        mask = env.action_masks()
        expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert policy.act(obs, mask) == int(expected)
        obs, _, done, _, _ = env.step(int(expected))
        if done:
            obs, _ = env.reset(seed=3)
    assert np.isfinite(policy.logits(obs)).all()
