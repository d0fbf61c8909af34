"""Literal ToM for RL agents: a probe on the agent's internal state (docs/rl.md).

An SB3 agent has no prediction head for the env's ToM targets. The probe reads what the agent
already computes at each decision -- the LSTM hidden state of ``RecurrentPPO``, the policy
network's last latent layer for the feed-forward algorithms (:func:`policies.sb3.agent_state`) --
and maps it to a prediction of each target with one multinomial logistic regression per target
(per component of a ``MultiDiscrete`` target), fitted here with numpy (standardised features,
L2-regularised, full-batch gradient descent from zero weights: deterministic).

It is fitted on episodes of the task's **train** split only: the agent plays them as it will
be tested (greedy), and each step's feature is paired with the truth the ToM recorder records
for that step (the recorder's records, read out of band). At test time the fitted probe turns the
agent's state into the prediction handed to the recorder before each step; it never sees the
truth. Envs whose action is the prediction (``ToMSpec.action_is_prediction``, the QA envs) need
no probe.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

#: Regularisation and optimisation of every probe (part of the probe's key).
PROBE_SETTINGS = {"l2": 1e-3, "iterations": 300, "learning_rate": 0.05}


def _fit_softmax(x: np.ndarray, y: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Weights and bias of a multinomial logistic regression of ``y`` (0..n-1) on ``x`` (Adam,
    full batch, from zeros)."""
    w = np.zeros((x.shape[1], n))
    b = np.zeros(n)
    onehot = np.eye(n)[y]
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    lr, l2 = PROBE_SETTINGS["learning_rate"], PROBE_SETTINGS["l2"]
    for t in range(1, int(PROBE_SETTINGS["iterations"]) + 1):
        logits = x @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = (p - onehot) / len(y)
        grads = [x.T @ grad + l2 * w, grad.sum(axis=0)]
        for k, (param, g) in enumerate(zip((w, b), grads)):
            m[k] = 0.9 * m[k] + 0.1 * g
            v[k] = 0.999 * v[k] + 0.001 * g * g
            param -= lr * (m[k] / (1 - 0.9**t)) / (np.sqrt(v[k] / (1 - 0.999**t)) + 1e-8)
    return w, b


@dataclass
class Probe:
    """A fitted probe: one softmax classifier per target component.

    Attributes:
        targets: target name -> ``("discrete", start, n)`` or ``("multi", starts, nvec, shape)``: a
            ``MultiDiscrete`` target's elements flattened in C order (``starts``, ``nvec``), one
            classifier per element, and the target's shape, which its predictions take again (a
            ``(k, n)`` target is predicted element by element and handed back as a ``(k, n)`` array).
        mean, scale: the features' standardisation (from the training rows).
        weights: target name -> one ``(W, b)`` per component.
        source: how the predictions are made (rows' ``tom_source``).
        trained_on: what it was fitted on: ``split``, ``env_id``, ``episodes`` (the train-split
            episode seeds), ``rows`` (decisions per target) and ``majority`` (each target's majority truth
            on those rows, :func:`majority_of`: the floor :class:`MajorityProbe` predicts).
    """

    targets: dict[str, tuple]
    mean: np.ndarray
    scale: np.ndarray
    weights: dict[str, list[tuple[np.ndarray, np.ndarray]]]
    source: str
    trained_on: dict[str, Any] = field(default_factory=dict)

    def predict(self, feature: np.ndarray) -> Any:
        """The prediction for one decision (a bare value for a single target, else ``{target: value}``)."""
        x = (np.asarray(feature, dtype=np.float64) - self.mean) / self.scale
        out: dict[str, Any] = {}
        for name, (kind, start, n, *shape) in self.targets.items():
            classes = [int(np.argmax(x @ w + b)) for w, b in self.weights[name]]
            if kind == "discrete":
                out[name] = int(start) + classes[0]
            else:
                flat = np.asarray(start, dtype=np.int64) + np.asarray(classes, dtype=np.int64)
                out[name] = flat.reshape(shape[0] if shape else (-1,))
        return next(iter(out.values())) if len(out) == 1 else out

    def majority(self) -> MajorityProbe:
        """The floor beside this probe: its train split's majority truths, predicted at every decision."""
        return MajorityProbe(self.targets, self.trained_on["majority"])

    def save(self, path: Path) -> None:
        arrays = {"mean": self.mean, "scale": self.scale}
        for name, comps in self.weights.items():
            for i, (w, b) in enumerate(comps):
                arrays[f"w:{name}:{i}"], arrays[f"b:{name}:{i}"] = w, b
        meta = {
            "targets": {
                k: [t[0], np.asarray(t[1]).tolist(), np.asarray(t[2]).tolist(), *[list(x) for x in t[3:]]]
                for k, t in self.targets.items()
            },
            "source": self.source,
            "trained_on": self.trained_on,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".partial")
        with open(tmp, "wb") as fh:
            np.savez(fh, meta=np.array(json.dumps(meta)), **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> "Probe":
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            targets = {k: (t[0], t[1], t[2], *[tuple(x) for x in t[3:]]) for k, t in meta["targets"].items()}
            weights = {
                name: [
                    (data[f"w:{name}:{i}"], data[f"b:{name}:{i}"])
                    for i in range(1 if t[0] == "discrete" else len(t[2]))
                ]
                for name, t in targets.items()
            }
            return cls(targets, data["mean"], data["scale"], weights, meta["source"], meta["trained_on"])


def target_layout(spec: Any) -> dict[str, tuple]:
    """Each probed target's layout from the env's ``tom_spec`` (:class:`Probe`'s ``targets``): only
    ``Discrete`` and ``MultiDiscrete`` targets (of any shape) can be probed (others are left out)."""
    out: dict[str, tuple] = {}
    for name, space in spec.targets.items():
        if isinstance(space, spaces.Discrete):
            out[name] = ("discrete", int(space.start), int(space.n))
        elif isinstance(space, spaces.MultiDiscrete):
            out[name] = (
                "multi",
                np.asarray(space.start).reshape(-1).tolist(),
                np.asarray(space.nvec).reshape(-1).tolist(),
                tuple(int(d) for d in np.shape(space.nvec)),
            )
    return out


def fit_probe(
    features: list[np.ndarray],
    truths: list[dict[str, Any]],
    layout: dict[str, tuple],
    source: str,
    trained_on: dict[str, Any],
) -> Probe:
    """Fit a :class:`Probe` on ``features[k]`` -> ``truths[k]`` (target -> truth, None where the
    step resolved nothing)."""
    x_all = np.asarray(features, dtype=np.float64)
    mean = x_all.mean(axis=0) if len(x_all) else np.zeros(0)
    scale = x_all.std(axis=0) + 1e-6 if len(x_all) else np.ones(0)
    weights: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    rows: dict[str, int] = {}
    for name, (kind, start, n, *_) in layout.items():
        idx = [k for k, t in enumerate(truths) if t.get(name) is not None]
        rows[name] = len(idx)
        x = (x_all[idx] - mean) / scale if idx else np.zeros((0, x_all.shape[1] if x_all.ndim == 2 else 0))
        if kind == "discrete":
            comps = [(np.asarray([int(truths[k][name]) for k in idx], dtype=np.int64) - int(start), int(n))]
        else:
            tru = np.asarray([np.asarray(truths[k][name]).reshape(-1) for k in idx], dtype=np.int64).reshape(
                len(idx), -1
            )
            comps = [(tru[:, c] - int(start[c]), int(n[c])) for c in range(len(n))]
        weights[name] = []
        for y, classes in comps:
            keep = (y >= 0) & (y < classes)
            weights[name].append(
                _fit_softmax(x[keep], y[keep], classes)
                if keep.any()
                else (np.zeros((x_all.shape[1], classes)), np.zeros(classes))
            )
    return Probe(
        layout, mean, scale, weights, source, {**trained_on, "rows": rows, "majority": majority_of(truths, layout)}
    )


def majority_of(truths: list[dict[str, Any]], layout: dict[str, tuple]) -> dict[str, list[int]]:
    """Per target, the most frequent truth of each component on the training rows (ties: the lowest value;
    a component never resolved: the space's first value): the memory-less floor a probe is read against."""
    out: dict[str, list[int]] = {}
    for name, (kind, start, n, *_) in layout.items():
        seen = [np.asarray(t[name]).reshape(-1) for t in truths if t.get(name) is not None]
        starts = [int(start)] if kind == "discrete" else [int(s) for s in start]
        sizes = [int(n)] if kind == "discrete" else [int(k) for k in n]
        out[name] = []
        for c, (first, size) in enumerate(zip(starts, sizes)):
            values = np.asarray([int(v[c]) - first for v in seen], dtype=np.int64)
            values = values[(values >= 0) & (values < size)]
            counts = np.bincount(values, minlength=size) if len(values) else np.zeros(size, dtype=np.int64)
            out[name].append(first + int(np.argmax(counts)))
    return out


@dataclass
class MajorityProbe:
    """The floor beside a probe: always the train split's majority truth of each target (its ``majority``,
    from :func:`majority_of`), whatever the agent's state; ``predict`` takes the feature and ignores it."""

    targets: dict[str, tuple]
    majority: dict[str, list[int]]
    source: str = "train-split majority class (no state read)"

    def predict(self, feature: Any = None) -> Any:
        out: dict[str, Any] = {}
        for name, (kind, _start, _n, *shape) in self.targets.items():
            values = self.majority[name]
            out[name] = (
                values[0]
                if kind == "discrete"
                else np.asarray(values, dtype=np.int64).reshape(shape[0] if shape else (-1,))
            )
        return next(iter(out.values())) if len(out) == 1 else out


def probe_source(recurrent: bool, episodes: int) -> str:
    """The rows' ``tom_source`` of a probe."""
    state = "LSTM hidden state" if recurrent else "policy network's last latent layer"
    return f"probe on the {state} (logistic regression fitted on {episodes} train-split episodes)"
