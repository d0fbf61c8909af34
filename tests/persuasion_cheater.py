"""A cheating persuader with memory, and the harness that plays it against the Bayes-optimal fair persuader
through the benchmark runner (issue 24, docs/persuasion_live.md "Information rule").

:class:`CheatingPersuader` is :class:`policies.persuasion.scripted.BayesPersuader` -- the exact posterior over the
persuadee's hidden state and the exact expectimax plan over it -- except that it reads *everything* the
runner hands it: every observation entry, every info entry (recursively, ``tom`` included, with the order
and number of keys), the reward handed to ``observe``, and its own count of calls. It looks for any of
those values that tells it more about the persuadee's hidden state than the dialogue does:

* **training** (:meth:`CheatingPersuader.train_on`): it plays like the Bayes persuader on training
  episodes while a *teacher* (the harness, reading the unwrapped env -- never the policy's own inputs)
  hands it the true state (persona, desire, belief, intention) at each of its turns. For every returned
  value ``path = value`` seen at turn t and every lag L (the state at turn t - L) it counts the true
  components; a value becomes a rule "``path = value`` => ``component`` of the state L turns back is
  ``label``" when it was right every time it was seen and, jointly, the public dialogue gave those
  labels a probability of at most ``exp(-min_nats)`` (the exact smoothed posterior given the whole
  public dialogue up to turn t). So a fact the dialogue already implies never makes a rule, and a
  chance coincidence of a public value almost never does.
* **held-out play**: at each turn every rule whose value it sees conditions the posterior on the
  rule's label (at the state it is about; the filter is re-run from the opening so the conditioning
  travels through later replies), and it plans with the exact Bayes planner on that posterior. With
  no rule it is exactly :class:`~policies.persuasion.scripted.BayesPersuader` (same floats, same actions).

Wall-clock timing is left out of the tables (it is not deterministic); a leak through time would have
to come from the env's own work, which depends only on the public posterior and table look-ups.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from policies.base import BasePolicy
from policies.persuasion.scripted import BayesPersuader, SimulatedMindPersuadee

COMPONENTS = ("persona", "desire", "belief", "intention")
LAGS = (0, 1, 2, 3)
MIN_NATS = 15.0
V1, TWO_SEAT = "tom/Persuasion-v1", "tom/Persuasion-TwoSeat-v1"


def flatten(prefix: str, value: Any, out: dict[str, Hashable]) -> None:
    """Every leaf of ``value`` as ``path -> hashable value``, with ``#keys`` (key order) for mappings and
    ``#len`` for sequences."""
    if isinstance(value, Mapping):
        out[f"{prefix}#keys"] = tuple(str(k) for k in value)
        for k, v in value.items():
            flatten(f"{prefix}.{k}", v, out)
    elif isinstance(value, np.ndarray) and value.ndim > 0:
        flatten(prefix, value.tolist(), out)
    elif isinstance(value, (list, tuple)):
        out[f"{prefix}#len"] = len(value)
        for i, v in enumerate(value):
            flatten(f"{prefix}[{i}]", v, out)
    else:
        out[prefix] = _hashable(value)


def _hashable(value: Any) -> Hashable:
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return round(value, 9)
    return f"<{type(value).__name__}>"  # an object handed back: its kind (its repr may hold an address)


@dataclass(frozen=True)
class Rule:
    """``path = value`` => the ``component`` of the state ``lag`` turns back is ``label``; an identity
    rule (``value is None``): the value at ``path`` *is* that component (whatever the value)."""

    path: str
    value: Hashable
    component: str
    lag: int
    label: Any
    support: int
    nats: float

    @property
    def identity(self) -> bool:
        return self.value is None


class CheatingPersuader(BayesPersuader):
    """The Bayes-optimal fair persuader that also conditions on anything returned that reveals the
    persuadee's hidden state (see the module docstring).

    Args:
        min_nats: how surprising, under the public posterior, a rule's record must be to be kept.
    """

    def __init__(self, min_nats: float = MIN_NATS) -> None:
        super().__init__()
        self.min_nats = float(min_nats)
        self.rules: dict[tuple[str, Hashable], list[Rule]] = {}
        self.identities: dict[str, list[Rule]] = {}
        self.teacher: Callable[[], tuple[str, int, int, int]] | None = None
        self.episodes: list[dict[str, Any]] = []  # training episodes, when a teacher is set
        self.conditioned_turns = 0  # turns at which a rule moved the posterior
        self.fired: list[Rule] = []

    # ------------------------------------------------------------------ episode state
    def _clear(self) -> None:
        super()._clear()
        self._replies: list[int] = []  # r_0 (opening), r_1, ...
        self._heard: list[int] = []  # a_0, a_1, ...
        self._masks: dict[int, np.ndarray] = {}
        self._features: list[dict[str, Hashable]] = []
        self._labels: list[tuple[str, int, int, int]] = []
        self._last: dict[str, Hashable] = {}
        self._calls = 0

    def reset(self, seed: int | None = None) -> None:
        self._keep_training_episode()
        super().reset(seed)

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        self._calls += 1
        last: dict[str, Hashable] = {}
        flatten("last.obs", observation, last)
        flatten("last.info", info, last)
        last["last.reward"] = _hashable(reward)
        last["last.terminated"], last["last.truncated"] = bool(terminated), bool(truncated)
        self._last = last

    # ------------------------------------------------------------------ reading everything
    def _sync(self, observation: Any, info: dict) -> int:
        from tom_envs.persuasion.mind import model_for, obs_index
        from tom_envs.persuasion.scenarios import family_named

        self._calls += 1
        obs = np.asarray(observation)
        turn = int(info["turn"])
        if self.model is None or turn == 0 and self._turn != 0:
            self._keep_training_episode()
            self._clear()
            self.model = model_for(family_named(info["family"]))
            self.horizon = int(info["horizon"])
            self._replies = [obs_index(int(obs[0]), int(obs[1]))]
        elif turn == self._turn + 1:
            self._heard.append(int(obs[2]))
            self._replies.append(obs_index(int(obs[0]), int(obs[1])))
        elif turn == self._turn:
            return turn  # predict, then act: one turn, read once
        else:
            raise ValueError(f"CheatingPersuader missed a turn (at {self._turn}, shown {turn})")
        self._turn = turn
        features: dict[str, Hashable] = {"turn_count": len(self._features), "calls": self._calls, **self._last}
        flatten("obs", observation, features)
        flatten("info", info, features)
        self._features.append(features)
        if self.teacher is not None:
            self._labels.append(tuple(self.teacher()))
        self._apply_rules(turn, features)
        return turn

    def _apply_rules(self, turn: int, features: dict[str, Hashable]) -> None:
        added: dict[int, np.ndarray] = {}
        for key in features.items():
            hits = [(r, r.label) for r in self.rules.get(key, ())]
            hits += [(r, key[1]) for r in self.identities.get(key[0], ())]
            for rule, label in hits:
                k = turn - rule.lag
                if k < 0:
                    continue
                added[k] = added.get(k, 1.0) * self._mask(rule.component, label)
                self.fired.append(rule)
        before = self.filtered()[-1]
        if added:
            masks = dict(self._masks)
            for k, m in added.items():
                masks[k] = masks.get(k, 1.0) * m
            try:
                after = self.filtered(masks)[-1]
            except ZeroDivisionError:  # the rules contradict the dialogue: not a leak after all
                after = before
            else:
                self._masks = masks
            if float(np.abs(after - before).sum()) > 1e-9:
                self.conditioned_turns += 1
            self.belief = after
        else:
            self.belief = before

    def _mask(self, component: str, label: Any) -> np.ndarray:
        """1 on the states whose ``component`` is ``label`` (a persona by name: indices differ by family)."""
        table = self.model.marginals[component]
        if component == "persona":
            names = [p.name for p in self.model.family.personas]
            if label not in names:
                return np.zeros(self.model.n_states)
            label = names.index(label)
        if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < table.shape[1]:
            return np.zeros(self.model.n_states)  # not a value of the component: contradicts, ignored
        return table[:, label]

    def filtered(self, masks: Mapping[int, np.ndarray] | None = None, upto: int | None = None) -> list[np.ndarray]:
        """The posteriors b_0 .. b_t over the state at each turn (up to turn ``upto``), given the replies,
        the strategies heard and the conditioning ``masks`` (default: those applied so far) -- re-run from
        the opening."""
        masks = self._masks if masks is None else masks
        heard = self._heard if upto is None else self._heard[:upto]
        out = [self._cond(self.model.open_belief(self._replies[0]), masks.get(0))]
        for k, a in enumerate(heard):
            out.append(self._cond(self.model.update(out[-1], a, self._replies[k + 1]), masks.get(k + 1)))
        return out

    @staticmethod
    def _cond(belief: np.ndarray, mask: Any) -> np.ndarray:
        if mask is None:
            return belief
        p = belief * mask
        total = float(p.sum())
        if total <= 0.0:
            raise ZeroDivisionError
        return p / total

    def smoothed(self, upto: int) -> list[np.ndarray]:
        """The posteriors of the state at turns 0..``upto`` given the public dialogue up to turn ``upto``
        (the replies and strategies heard; no masks): forward filter, backward likelihoods."""
        forward = self.filtered({}, upto)
        kernel = self.model.kernel
        beta = np.ones(self.model.n_states)
        out = [forward[-1]]
        for k in range(upto - 1, -1, -1):
            beta = kernel[self._heard[k], :, :, self._replies[k + 1]] @ beta
            beta = beta / max(float(beta.max()), 1e-300)
            p = forward[k] * beta
            out.append(p / p.sum())
        return out[::-1]

    # ------------------------------------------------------------------ training
    def _keep_training_episode(self) -> None:
        if self.teacher is None or not self._features or self.model is None:
            return
        rows = []
        names = [p.name for p in self.model.family.personas]
        for t in range(len(self._features)):
            smooth = self.smoothed(t)
            public = {
                (c, k): dict(enumerate(smooth[k] @ self.model.marginals[c])) for c in COMPONENTS for k in range(t + 1)
            }
            for k in range(t + 1):  # personas by name
                public[("persona", k)] = {names[i]: p for i, p in public[("persona", k)].items()}
            rows.append((self._features[t], public))
        self.episodes.append({"rows": rows, "labels": list(self._labels)})
        self._features, self._labels = [], []

    def fit(self) -> list[Rule]:
        """Make the rules from the training episodes (see the module docstring); returns them."""
        self._keep_training_episode()
        labels: dict[tuple, set] = defaultdict(set)
        nats: dict[tuple, float] = defaultdict(float)
        support: dict[tuple, int] = defaultdict(int)
        same: dict[tuple, bool] = defaultdict(lambda: True)  # (path, component, lag): value == truth so far
        same_nats: dict[tuple, float] = defaultdict(float)
        same_support: dict[tuple, int] = defaultdict(int)
        for ep in self.episodes:
            for t, (features, public) in enumerate(ep["rows"]):
                for lag in LAGS:
                    k = t - lag
                    if k < 0:
                        continue
                    truth = dict(zip(COMPONENTS, ep["labels"][k]))
                    for c in COMPONENTS:
                        if c == "persona" and lag:
                            continue
                        surprise = -math.log(max(float(public[(c, k)].get(truth[c], 0.0)), 1e-300))
                        for key in features.items():
                            rk = (key, c, lag)
                            labels[rk].add(truth[c])
                            support[rk] += 1
                            nats[rk] += surprise
                            ik = (key[0], c, lag)
                            same[ik] = same[ik] and type(key[1]) is type(truth[c]) and key[1] == truth[c]
                            same_nats[ik] += surprise
                            same_support[ik] += 1
        self.rules = {}
        for (key, c, lag), seen in labels.items():
            if len(seen) == 1 and nats[(key, c, lag)] >= self.min_nats:
                rule = Rule(key[0], key[1], c, lag, next(iter(seen)), support[(key, c, lag)], nats[(key, c, lag)])
                self.rules.setdefault(key, []).append(rule)
        self.identities = {}
        for (path, c, lag), equal in same.items():
            if equal and same_nats[(path, c, lag)] >= self.min_nats:
                rule = Rule(path, None, c, lag, None, same_support[(path, c, lag)], same_nats[(path, c, lag)])
                self.identities.setdefault(path, []).append(rule)
        self.teacher = None
        return [r for rs in (*self.rules.values(), *self.identities.values()) for r in rs]


# ---------------------------------------------------------------------- the harness (through the runner)
def true_state(base: Any) -> tuple[str, int, int, int]:
    """(persona name, desire, belief, intention) of a live persuasion env's persuadee now (the teacher)."""
    st = base.model.state(base.state_index)
    return base.family.personas[st.persona].name, st.desire, st.belief, st.concern


def play_through_runner(env: Any, policy: BasePolicy, seeds: Sequence[int], two_seat: bool) -> list[int]:
    """1/0 success of ``policy`` in each seeded episode, played by :func:`benchmarks.runner.play` (v1) or
    :func:`benchmarks.runner.play_aec` with :class:`SimulatedMindPersuadee` in the persuadee seat
    (two-seat); the policy's seed is :func:`benchmarks.persuasion.live.policy_seed` of the episode's."""
    from benchmarks.persuasion.live import policy_seed
    from benchmarks.runner_aec import play_aec
    from benchmarks.runner_episodes import play

    out = []
    if two_seat:
        from tom_envs.persuasion.mind_two_seat import PERSUADEE, PERSUADER

        seats = {PERSUADER: policy, PERSUADEE: SimulatedMindPersuadee()}
        for seed in seeds:
            result = play_aec(env, seats, seed, policy_seed=policy_seed)
            out.append(int(bool(env.unwrapped.agreed)))
            assert result is not None
    else:
        for seed in seeds:
            result = play(env, policy, seed, policy_seed=policy_seed)
            out.append(int(bool(env.unwrapped.agreed)))
            assert result is not None
    return out


def train(env: Any, cheater: CheatingPersuader, seeds: Sequence[int], two_seat: bool) -> list[Rule]:
    """Train ``cheater``'s tables on ``seeds`` (the teacher reads the unwrapped env) and fit them."""
    base = env.unwrapped
    cheater.teacher = lambda: true_state(base)
    play_through_runner(env, cheater, seeds, two_seat)
    return cheater.fit()


@dataclass
class Comparison:
    """Bayes vs the cheater on the same held-out seeds, through the same runner and env."""

    bayes: list[int]
    cheater: list[int]
    rules: list[Rule]
    conditioned_turns: int

    @property
    def n(self) -> int:
        return len(self.bayes)

    def rate(self, xs: Sequence[int]) -> tuple[float, float]:
        m = float(np.mean(xs))
        return 100 * m, 100 * 1.96 * math.sqrt(m * (1 - m) / len(xs))

    @property
    def gain(self) -> tuple[float, float]:
        """Mean paired difference (cheater - Bayes) in points, and its 95 % half-width."""
        d = np.asarray(self.cheater, float) - np.asarray(self.bayes, float)
        sd = float(d.std(ddof=1)) if len(d) > 1 else 0.0
        return 100 * float(d.mean()), 100 * 1.96 * sd / math.sqrt(len(d))

    def line(self) -> str:
        b, c, g = self.rate(self.bayes), self.rate(self.cheater), self.gain
        return (
            f"n={self.n}: bayes {b[0]:.1f} ± {b[1]:.1f} %, cheater {c[0]:.1f} ± {c[1]:.1f} %, "
            f"paired gain {g[0]:+.1f} ± {g[1]:.1f} points; {len(self.rules)} rules, "
            f"{self.conditioned_turns} turns conditioned"
        )


def compare(
    make: Callable[[], Any], train_seeds: Sequence[int], test_seeds: Sequence[int], two_seat: bool
) -> Comparison:
    """Train a cheater on ``train_seeds`` and play it and the Bayes persuader on ``test_seeds`` (each on a
    fresh env from ``make``, e.g. ``lambda: benchmarks.runner.make_env(id)``)."""
    cheater = CheatingPersuader()
    rules = train(make(), cheater, train_seeds, two_seat)
    cheater.conditioned_turns = 0
    cheater.fired = []
    cheats = play_through_runner(make(), cheater, test_seeds, two_seat)
    bayes = play_through_runner(make(), BayesPersuader(), test_seeds, two_seat)
    return Comparison(bayes, cheats, rules, cheater.conditioned_turns)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m tests.persuasion_cheater [--train N] [--episodes N] [--expose-state]``: Bayes vs the
    cheater through the runner on both live ids (training seeds 100000.., held-out seeds 0..)."""
    import argparse
    import time

    from benchmarks.runner_envs import make_env

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--train", type=int, default=1000)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--expose-state", action="store_true")
    args = parser.parse_args(argv)
    kwargs = {"expose_state": True} if args.expose_state else {}
    for env_id, two_seat in ((V1, False), (TWO_SEAT, True)):
        start = time.perf_counter()
        result = compare(
            lambda: make_env(env_id, **kwargs), range(100_000, 100_000 + args.train), range(args.episodes), two_seat
        )
        print(env_id, kwargs or "", result.line(), f"({time.perf_counter() - start:.0f} s)")
        paths = sorted({(r.path, r.component, r.lag) for r in result.rules})
        if paths:
            print(
                "  rules on:",
                ", ".join(f"{p} -> {c} (lag {lag})" for p, c, lag in paths[:8]),
                "..." if len(paths) > 8 else "",
            )


if __name__ == "__main__":
    main()
