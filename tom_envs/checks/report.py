"""What the information-rule checker reports: one :class:`ProbeResult` per probe and target, gathered in an
:class:`InformationReport`; a leak found is an :class:`InformationLeak`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tom_envs.errors import TomEnvsError


class InformationLeak(TomEnvsError, AssertionError):
    """An env, or a wrapper around it, hands a policy what it is scored on (the message names the value)."""


@dataclass
class ProbeResult:
    """One probe's figures.

    Attributes:
        name: the probe (``tables``, ``future``, ``control`` -- the positive control: the same table
            probe reading the target planted -- or ``channel``: a runner channel checked as such);
            ``target``: the ToM target it predicts (``target@seat`` for another seat's view).
        score: accuracy of the probe reading everything returned (held-out units).
        public: accuracy of the same probe reading only the declared public part (and its history).
        chance: accuracy needing no information (majority truth of the training units, or 1/options).
        margin: ``z`` binomial standard errors of the held-out sample.
        feature: the returned value (or pair) the best rule reads; ``rule`` its kind.
        n_test: held-out decisions; ``leaks``: one sentence per leak found (empty: passed).
        power: for a ``control``, whether the planted target was caught (None for the other probes).
    """

    name: str
    target: str
    score: float
    public: float
    chance: float
    margin: float
    feature: Any = ""
    rule: str = ""
    n_test: int = 0
    leaks: list[str] = field(default_factory=list)
    power: bool | None = None

    @property
    def gain(self) -> float:
        """What reading everything adds over the public part (accuracy points, 0-1)."""
        return self.score - self.public


@dataclass
class InformationReport:
    """Every probe's result for one env; :attr:`leaks` lists the sentences of those that failed."""

    env: str
    results: list[ProbeResult]

    @property
    def leaks(self) -> list[str]:
        return [s for r in self.results for s in r.leaks]

    @property
    def ok(self) -> bool:
        """No probe found a leak (see :attr:`powered`: whether the run could have found one)."""
        return not self.leaks

    @property
    def no_power(self) -> list[str]:
        """The targets whose positive control was not caught: a leak of those would have gone unseen."""
        return [r.target for r in self.results if r.name == "control" and not r.power]

    @property
    def powered(self) -> bool:
        """Every target's positive control was caught (the run has the power to see a leak)."""
        return not self.no_power

    @property
    def verdict(self) -> str:
        """``"leak"``, ``"no power"`` (no leak found, but a planted target was missed: play more episodes)
        or ``"no leak"``."""
        return "leak" if self.leaks else "no power" if self.no_power else "no leak"

    def result(self, name: str, target: str | None = None) -> ProbeResult:
        """The result of probe ``name`` (for ``target``; the first one when None)."""
        for r in self.results:
            if r.name == name and (target is None or r.target == target):
                return r
        raise KeyError(f"no {name!r} probe result for {target!r} in the report of {self.env}")

    def __str__(self) -> str:
        head = {
            "leak": f"{len(self.leaks)} leak(s)",
            "no leak": "no leak found",
            "no power": f"no leak found, but no power for {', '.join(self.no_power)} (the planted target was "
            "not caught: play more episodes)",
        }[self.verdict]
        lines = [f"information rule, {self.env}: {head}"]
        for r in self.results:
            lines.append(
                f"  {r.name:7s} {r.target}: everything {100 * r.score:.1f} %, public part {100 * r.public:.1f} %, "
                f"chance {100 * r.chance:.1f} % (margin {100 * r.margin:.1f}, {r.n_test} held out; "
                f"best: {r.rule} of {r.feature!r})"
            )
        return "\n".join(lines + [f"  LEAK: {s}" for s in self.leaks])
