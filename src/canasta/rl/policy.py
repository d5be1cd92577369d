"""Trained policies as players: a saved network plays any seat with numpy only.

A policy file (``.npz``) holds a multilayer perceptron over the observation vector
(:class:`~canasta.rl.encoding.Observer`) whose output is one logit per action; the legal action
with the highest logit is played.  ``examples/train.py`` writes one from a MaskablePPO model
(:func:`export_sb3`); :class:`PolicyBot` plays it behind the bot interface (it sees only a
:class:`~canasta.views.seat.SeatView`), so the arena and the interfaces can seat it as
``policy:PATH``.  Playing needs numpy, not torch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from canasta.bots.base import Bot
from canasta.engine.moves import Move
from canasta.rl.encoding import NUM_ACTIONS, Decision, FloatArray, Observer
from canasta.views.seat import SeatView, sample_world

FORMAT = "canasta-policy/1"
#: the shipped policies (``policy:classic-4p``): behaviour clones of the advanced player (Classic
#: with a round of DAgger), see :mod:`canasta.rl.bc` and the figures in ``docs/rl.md``
WEIGHTS = Path(__file__).resolve().parent / "weights"


def resolve(name: str | Path) -> Path:
    """A policy file: ``name`` itself when it exists, else the shipped policy of that name
    (``classic-4p`` -> ``canasta/rl/weights/classic-4p.npz``)."""
    path = Path(name)
    if path.exists():
        return path
    shipped = WEIGHTS / f"{name}.npz"
    return shipped if shipped.exists() else path
ACTIVATIONS: dict[str, Callable[[FloatArray], FloatArray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


class NumpyPolicy:
    """An MLP: ``layers`` of (weights ``out x in``, bias), ``activation`` between them."""

    def __init__(self, layers: Sequence[tuple[FloatArray, FloatArray]], activation: str = "tanh",
                 rules: str = "", meta: dict[str, str] | None = None) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}")
        if not layers or layers[-1][0].shape[0] != NUM_ACTIONS:
            raise ValueError(f"the last layer must have {NUM_ACTIONS} outputs, one per action")
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.activation = activation
        self.rules = rules
        self.meta = dict(meta or {})
        self.inputs = self.layers[0][0].shape[1]

    def logits(self, obs: FloatArray) -> FloatArray:
        act = ACTIVATIONS[self.activation]
        x = obs
        for i, (w, b) in enumerate(self.layers):
            x = w @ x + b
            if i < len(self.layers) - 1:
                x = act(x)
        return x

    def act(self, obs: FloatArray, mask: npt.NDArray[Any]) -> int:
        """The legal action with the highest logit (ties: the lowest index)."""
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("no legal action in the mask")
        logits = self.logits(obs)
        return int(legal[int(np.argmax(logits[legal]))])

    def __call__(self, obs: FloatArray, mask: npt.NDArray[Any]) -> int:
        return self.act(obs, mask)

    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {"format": np.array(FORMAT), "activation": np.array(self.activation),
                                  "rules": np.array(self.rules), "layers": np.array(len(self.layers))}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        for k, v in self.meta.items():
            arrays[f"meta_{k}"] = np.array(v)
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)

    @staticmethod
    def load(path: str | Path) -> NumpyPolicy:
        try:
            data = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read a policy from {path}: {exc}") from None
        with data:
            if "format" not in data or str(data["format"]) != FORMAT:
                raise ValueError(f"{path} is not a canasta policy ({FORMAT})")
            n = int(data["layers"])
            layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
            meta = {k[5:]: str(data[k]) for k in data.files if k.startswith("meta_")}
            return NumpyPolicy(layers, str(data["activation"]), str(data["rules"]), meta)


def export_sb3(model: Any, rules: str, meta: dict[str, str] | None = None) -> NumpyPolicy:
    """The policy part of a stable-baselines3 / sb3-contrib ``MlpPolicy`` (flatten, the policy
    MLP, the action head) as a :class:`NumpyPolicy`."""
    policy = model.policy
    layers = []
    activation = "tanh"
    for module in policy.mlp_extractor.policy_net:
        name = type(module).__name__
        if name == "Linear":
            layers.append((module.weight.detach().cpu().numpy(), module.bias.detach().cpu().numpy()))
        elif name in ("Tanh", "ReLU"):
            activation = name.lower()
        else:
            raise ValueError(f"cannot export a {name} layer")
    head = policy.action_net
    layers.append((head.weight.detach().cpu().numpy(), head.bias.detach().cpu().numpy()))
    return NumpyPolicy(layers, activation, rules, meta)


def load_into_sb3(model: Any, policy: NumpyPolicy) -> None:
    """Set a stable-baselines3 / sb3-contrib ``MlpPolicy``'s policy MLP and action head to
    ``policy``'s weights (the inverse of :func:`export_sb3`: a cloned policy fine-tuned by PPO).
    The model's policy layers must have the same sizes and activation; the value network is
    left as it is."""
    import torch

    linears = [m for m in model.policy.mlp_extractor.policy_net if type(m).__name__ == "Linear"]
    acts = {type(m).__name__.lower() for m in model.policy.mlp_extractor.policy_net} - {"linear"}
    targets = [*linears, model.policy.action_net]
    if len(targets) != len(policy.layers) or (acts and acts != {policy.activation}):
        raise ValueError(f"the model's policy network is not {len(policy.layers)} {policy.activation} layers")
    with torch.no_grad():
        for module, (w, b) in zip(targets, policy.layers, strict=True):
            if tuple(module.weight.shape) != w.shape:
                raise ValueError(f"layer of shape {tuple(module.weight.shape)}, the policy's is {w.shape}")
            module.weight.copy_(torch.from_numpy(w))
            module.bias.copy_(torch.from_numpy(b))


class PolicyBot(Bot):
    """A saved policy behind the bot interface (``policy:PATH``, or ``policy:classic-4p`` for a
    shipped one)."""

    name = "policy"

    def __init__(self, path: str | Path | NumpyPolicy, seed: int = 0) -> None:
        super().__init__(seed)
        self.policy = path if isinstance(path, NumpyPolicy) else NumpyPolicy.load(resolve(path))
        self._observers: dict[str, Observer] = {}

    def choose(self, view: SeatView) -> Move:
        observer = self._observers.get(view.rules.name)
        if observer is None:
            observer = self._observers[view.rules.name] = Observer(view.rules)
        if observer.size != self.policy.inputs:
            raise ValueError(f"this policy reads {self.policy.inputs} features; {view.rules.name} "
                             f"observations have {observer.size}")
        # the legal moves of the seat to move depend only on its hand and the table
        decision = Decision(sample_world(view, self.rng))
        mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        while True:
            mask[:] = False
            mask[decision.legal_list()] = True
            move = decision.apply(self.policy.act(observer.encode_view(view, decision.prefix), mask))
            if move is not None:
                return move


