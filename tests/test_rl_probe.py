"""The literal-ToM probe of RL agents (:mod:`benchmarks.rl_probe`) on targets of every shape (docs/rl.md)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from benchmarks.rl_probe import Probe, fit_probe, target_layout
from tom_envs.tom import ToMSpec
from wrappers.tom_scorer import parse_prediction

#: A (parties x topics) target, as the negotiation stances are: each cell one of 3 options, starting at -1.
STANCES = spaces.MultiDiscrete(np.full((2, 3), 3), start=np.full((2, 3), -1))


def _data(n=400, seed=0):
    """Features that decide every cell of the target (cell (i, j) = the sign of feature 3 * i + j, -1..1)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 6))
    truth = np.digitize(x, [-0.5, 0.5]).reshape(n, 2, 3) - 1
    return list(x), [{"stances": t} for t in truth]


def test_a_two_dimensional_target_is_probed_element_by_element_in_its_shape():
    layout = target_layout(ToMSpec(targets={"stances": STANCES}))
    assert layout["stances"][3] == (2, 3)
    x, truths = _data()
    probe = fit_probe(x, truths, layout, "test", {})
    assert len(probe.weights["stances"]) == 6  # one classifier per cell
    test_x, test_truths = _data(seed=1)
    predictions = [probe.predict(f) for f in test_x]
    assert all(p.shape == (2, 3) and STANCES.contains(p) for p in predictions)
    hits = np.mean([p == t["stances"] for p, t in zip(predictions, test_truths)], axis=0)
    assert (hits > 0.85).all()  # every cell is read from its own feature
    parse_prediction(STANCES, predictions[0], "stances")  # the recorder takes it as a prediction of the target


def test_a_probe_keeps_the_targets_shape_through_its_file(tmp_path):
    layout = target_layout(ToMSpec(targets={"stances": STANCES, "who": spaces.Discrete(4, start=1)}))
    x, truths = _data()
    truths = [dict(t, who=1 + int(f[0] > 0)) for f, t in zip(x, truths)]
    probe = fit_probe(x, truths, layout, "test", {"split": "train"})
    probe.save(tmp_path / "p.npz")
    loaded = Probe.load(tmp_path / "p.npz")
    for f in x[:20]:
        a, b = probe.predict(f), loaded.predict(f)
        assert a["who"] == b["who"] and np.array_equal(a["stances"], b["stances"]) and b["stances"].shape == (2, 3)


def test_a_one_dimensional_target_still_predicts_a_vector():
    space = spaces.MultiDiscrete([2, 2, 2])
    layout = target_layout(ToMSpec(targets={"v": space}))
    x = list(np.random.default_rng(0).normal(size=(100, 3)))
    probe = fit_probe(x, [{"v": (np.asarray(f) > 0).astype(int)} for f in x], layout, "test", {})
    assert probe.predict(x[0]).shape == (3,) and space.contains(probe.predict(x[0]))
