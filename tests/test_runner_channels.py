"""The runner is no side channel (issue 38; docs/architecture.md, "Information rule", the runner's channels).

A cheating policy uses everything the runner hands it besides observations, infos and rewards -- what
``check_env`` gets, the seed ``reset`` gets, its memory across passes -- and must gain nothing over the honest
references; each test also runs the channel open (the old behaviour) as a positive control that shows the
cheater has the power to use it.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import tom_envs  # noqa: F401  (registers the ids)
from benchmarks import policy_seeds
from benchmarks.runner_aec import play_aec
from benchmarks.runner_envs import make_env
from benchmarks.runner_episodes import play, play_lockstep
from policies.base import BasePolicy
from tom_envs.description import EnvDescription, describe

RPS_WINS = {0: 1, 1: 2, 2: 0}  # rock, paper, scissors: the action that beats each


# ---------------------------------------------------------------------- the env object
class Spy(BasePolicy):
    """Keeps what the runner hands it: the ``check_env`` argument and the seeds."""

    def __init__(self, n_actions: int = 3) -> None:
        super().__init__()
        self.n, self.checked, self.seeds = n_actions, [], []

    def check_env(self, description: Any) -> None:
        self.checked.append(description)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.seeds.append(seed)

    def act(self, observation: Any, info: dict) -> int:
        return int(self.rng.integers(self.n))


@pytest.mark.parametrize("env_id", ["tom/RPS-v0", "tom/Persuasion-v2", "tom/PersuasiveToM-v1", "tom/CommonToM-v2"])
def test_check_env_gets_a_frozen_description_never_the_env(env_id):
    env = make_env(env_id)
    spy = Spy(int(getattr(env.action_space, "n", 2)))
    for seed in (0, 1):
        play(env, spy, seed)
    play_lockstep([make_env(env_id)], spy, [2])
    assert len(spy.checked) == 3 and all(type(d) is EnvDescription for d in spy.checked)
    d = spy.checked[0]
    assert d.id == env_id and d.kind == "gymnasium" and d.action_space == env.action_space
    for name in ("unwrapped", "env", "np_random", "step", "reset", "__getattr__"):
        assert not hasattr(d, name), name
    # nothing drawn at reset: the description of episodes with other seeds is byte for byte the same
    assert len({pickle.dumps(x) for x in spy.checked}) == 1
    with pytest.raises(AttributeError):
        d.id = "tom/other"  # frozen


def test_an_aec_env_is_described_with_its_seats():
    env = tom_envs.make_aec("tom/Negotiation-Easy-v1")
    d = describe(env)
    assert d.kind == "aec" and d.id == "tom/Negotiation-Easy-v1" and d.agents == tuple(env.possible_agents)
    assert set(d.action_space) == set(env.possible_agents)
    pickle.loads(pickle.dumps(d))
    env.reset(seed=3)
    assert pickle.dumps(describe(env)) == pickle.dumps(d)


def test_an_object_argument_is_described_by_its_public_view_only():
    """A negotiation env made with a Scenario object (every release case, every --scenarios file): the mediator's
    ``check_env`` gets the case's topics and options, never a party's preferences or persona (their first
    choices are the mediator's literal-ToM target at reset)."""
    from tom_envs.checks.channels import check_description
    from tom_envs.negotiation.scenario import Scenario
    from wrappers import SingleSeat

    scenario = tom_envs.make_aec("tom/Negotiation-v1").unwrapped.scenario
    assert isinstance(scenario, Scenario)
    seat = SingleSeat(tom_envs.make_aec("tom/Negotiation-v1", scenario=scenario), "mediator_0", {})
    spy = Spy(int(seat.action_space.n))
    play(seat, spy, 0)
    d = spy.checked[0]
    public = d.kwargs["scenario"]
    assert public["topics"] == [t.model_dump() for t in scenario.topics] and public["parties"] == scenario.party_names
    text = pickle.dumps(d)
    for party in scenario.parties:
        assert party.persona.encode() not in text or not party.persona
        for pref in party.preferences.values():  # the ranking, in order, is nowhere in the description
            assert repr(pref.ranking).encode() not in text and "ranking" not in repr(d)
    assert check_description(d).leaks == []

    class Holder:  # an object that declares nothing public is named, never handed over
        secret = 42

    d = describe(tom_envs.make_aec("tom/Negotiation-v1", scenario=scenario))
    from tom_envs.description import public_value

    assert public_value(Holder()) == "<Holder>" and public_value({"x": [Holder(), 1.5]}) == {"x": ["<Holder>", 1.5]}
    assert isinstance(d.kwargs["scenario"], dict)


def test_question_view_forwards_no_attribute():
    from benchmarks.qa_llm import QuestionView

    class Inner(Spy):
        env = "an env a policy must not reach"

    view = QuestionView(Inner())
    assert not hasattr(view, "env") and not hasattr(view, "unwrapped") and not hasattr(view, "__getattr__")
    assert hasattr(view, "check_env") and not hasattr(view, "last_step_log")  # only what the inner policy has


# ---------------------------------------------------------------------- the seed
class ShadowCheater(BasePolicy):
    """RPS: rebuilds the episode in a shadow env made with the same id and its own seed, reads the partner's coming
    action there (``expose_partner_action``), predicts it and plays what beats it."""

    makes_predictions = True

    def __init__(self, horizon: int, shadow_seed: Any = None) -> None:
        super().__init__()
        self.horizon, self.shadow_seed = horizon, shadow_seed

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        s = seed if self.shadow_seed is None else self.shadow_seed(seed)
        self.shadow = gym.make("tom/RPS-v0", horizon=self.horizon, expose_partner_action=True).unwrapped
        _, info = self.shadow.reset(seed=s)
        self.next = info["partner_next_action"]

    def predict(self, observation: Any, info: dict) -> int:
        return int(self.next)

    def act(self, observation: Any, info: dict) -> int:
        action = RPS_WINS[int(self.next)]
        _, _, term, trunc, info = self.shadow.step(action)
        self.next = info.get("partner_next_action", 0)
        return action


def _cheat(seeds: Sequence[int], horizon: int, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per episode: the cheater's ToM accuracy (%) and return per step."""
    env = make_env("tom/RPS-v0", horizon=horizon)
    acc, ret = [], []
    shadow_seed = kwargs.pop("shadow_seed", None)
    for seed in seeds:
        out = play(env, ShadowCheater(horizon, shadow_seed), seed, **kwargs).summary
        acc.append(out["tom_accuracy"])
        ret.append(out["return"] / horizon)
    return np.asarray(acc, float), np.asarray(ret, float)


def test_a_shadow_env_made_with_the_policys_seed_replays_nothing():
    seeds, horizon = range(120), 12
    with policy_seeds.scope(0xC0FFEE):
        acc, ret = _cheat(seeds, horizon)
    # the honest reference: the same cheater with a shadow seeded from a stream unrelated to the run
    ref_acc, ref_ret = _cheat(seeds, horizon, shadow_seed=lambda s: 10**9 + 7 * s)
    # positive control: with the env's own seed (what the runner handed policies before) it knows every move
    open_acc, open_ret = _cheat(seeds, horizon, policy_seed=lambda s: s)
    assert open_acc.mean() == 100.0 and open_ret.mean() == 1.0
    se = np.sqrt(acc.var(ddof=1) / len(acc) + ref_acc.var(ddof=1) / len(ref_acc))
    assert abs(acc.mean() - ref_acc.mean()) < 3 * se + 1e-9, (acc.mean(), ref_acc.mean(), se)
    se_r = np.sqrt(ret.var(ddof=1) / len(ret) + ref_ret.var(ddof=1) / len(ref_ret))
    assert abs(ret.mean() - ref_ret.mean()) < 3 * se_r + 1e-9, (ret.mean(), ref_ret.mean(), se_r)
    assert acc.mean() < 80.0  # far from the open channel's 100 %


def test_policy_seeds_come_from_the_run_not_the_env_seed():
    spy = Spy()
    env = make_env("tom/RPS-v0", horizon=3)
    with policy_seeds.scope(1):
        play(env, spy, 5)
        play_lockstep([make_env("tom/RPS-v0", horizon=3)], spy, [5])
        again = policy_seeds.policy_seed(5)
    with policy_seeds.scope(2):
        other = policy_seeds.policy_seed(5)
    assert spy.seeds == [again] and again != 5 and again != other
    assert spy._slots[0].seeds[-1] == again  # lockstep: the same seed as one by one
    assert policy_seeds.policy_seed(5, entropy=1) == again and policy_seeds.policy_seed(None) is None


def test_aec_seats_get_distinct_seeds_of_the_run_stream():
    from benchmarks.persuasion.live import policy_seed as live_seed

    env = tom_envs.make_aec("tom/Persuasion-TwoSeat-v2")
    seats = {a: Spy(int(env.action_space(a).n)) for a in env.possible_agents}
    with policy_seeds.scope(7):
        play_aec(env, seats, 11)
        expected = [policy_seeds.policy_seed(11, seat=k) for k in range(len(seats))]
        assert live_seed(11) == expected[0] and live_seed(11, seat=1) == expected[1]
    assert [p.seeds[0] for p in seats.values()] == expected and 11 not in expected


def test_bad_entropy_is_a_named_error(monkeypatch):
    monkeypatch.setenv(policy_seeds.ENTROPY_VAR, "not a number")
    with pytest.raises(policy_seeds.PolicyEntropyError, match=policy_seeds.ENTROPY_VAR):
        policy_seeds.run_entropy()
    monkeypatch.setenv(policy_seeds.ENTROPY_VAR, "0x10")
    assert policy_seeds.run_entropy() == 16


def test_records_store_the_entropy_and_a_resume_replays_it(tmp_path):
    from dataclasses import dataclass

    from benchmarks.runner import Cell, run_cell

    @dataclass(frozen=True)
    class RandomCell(Cell):
        family = "channels"

        def config(self) -> dict:
            return {"what": "random RPS"}

        def make_env(self) -> Any:
            return make_env("tom/RPS-v0", horizon=5)

        def make_policy(self) -> Any:
            from policies.matrix import RandomPolicy

            return RandomPolicy("RPS")

    cell = RandomCell()
    with policy_seeds.scope(111):
        first = run_cell(cell, [0, 1], tmp_path / "a")
    with policy_seeds.scope(222):  # another run resumes the folder: the stored entropy wins
        resumed = run_cell(cell, [0, 1, 2, 3], tmp_path / "a")
    with policy_seeds.scope(111):
        whole = run_cell(cell, [0, 1, 2, 3], tmp_path / "b")
    strip = [{k: v for k, v in r.items() if k not in ("code", "written")} for r in resumed]
    assert strip == [{k: v for k, v in r.items() if k not in ("code", "written")} for r in whole]
    assert {r[policy_seeds.FIELD] for r in resumed} == {"111"} and first[0]["episode"] == resumed[0]["episode"]
    with policy_seeds.scope(222):
        other = run_cell(cell, [0, 1, 2, 3], tmp_path / "c")
    assert [r["episode"] for r in other] != [r["episode"] for r in whole]  # the entropy is what seeds the policy


# ---------------------------------------------------------------------- memory across passes
class MemoryAgent(BasePolicy):
    """Remembers every answer it is handed (``info["answers"]`` at a dialogue's end, a step's ``answer``) by the
    question's text, and replays it when the question comes back; otherwise picks the option whose text sorts
    first (independent of the shown order, so without memory two passes score the same)."""

    def __init__(self) -> None:
        super().__init__()
        self.memory: dict[tuple, str] = {}
        self.asked: list[tuple[tuple, list[str]]] = []

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.asked = []

    def act(self, observation: Any, info: dict) -> int:
        key = (observation["context"], observation["question"])
        choices = [str(c) for c in observation["choices"][: int(observation["n_choices"])]]
        self.asked.append((key, choices))
        known = self.memory.get(key)
        return choices.index(known) if known in choices else min(range(len(choices)), key=choices.__getitem__)

    def observe(self, observation: Any, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
        if "answer" in info and self.asked:
            key, choices = self.asked[-1]
            self.memory[key] = choices[int(info["answer"])]
        for (key, choices), a in zip(self.asked, info.get("answers") or []):
            self.memory[key] = choices[int(a["answer"])]


def _accuracy(flags: Sequence[bool]) -> float:
    return 100.0 * float(np.mean(flags))


def _bare_passes(env: Any, agent: BasePolicy, options: Sequence[dict], passes: int) -> list[float]:
    """Positive control: the runner alone, with the env's own infos handed to ``observe`` (the channel open)."""
    from tom_envs.qa import answered

    out = []
    for r in range(passes):
        flags = []
        for i, opt in enumerate(options):
            infos = play(env, agent, 1000 * r + i, options=opt, on_step=lambda st: st.next_info).steps
            flags += [bool(x["correct"]) for x in answered(infos)]
        out.append(_accuracy(flags))
    return out


def test_common_ground_pass_two_gains_nothing_from_memory():
    from benchmarks.common_ground.stored import play as play_pass

    env = gym.make("tom/CommonToM-v2").unwrapped
    agent = MemoryAgent()
    passes = [_accuracy([q["correct"] for q in play_pass(env, agent, seed)]) for seed in (0, 100_000)]
    assert passes[1] == passes[0] and not agent.memory, passes
    control = _bare_passes(env, MemoryAgent(), [{"cid": c} for c in env.cids], 2)
    assert control[1] == 100.0 > control[0], control  # the channel this closes


def test_persuasive_tom_pass_two_gains_nothing_from_memory():
    from benchmarks.persuasion.qa_answers import answer_dialogues

    env = gym.make("tom/PersuasiveToM-v1").unwrapped
    agent = MemoryAgent()
    reps = answer_dialogues(env, agent, 2, 0)
    passes = [_accuracy([a.correct for a in rep]) for rep in reps]
    assert passes[1] == passes[0] and not agent.memory, passes
    control = _bare_passes(env, MemoryAgent(), [{"episode": i} for i in range(len(env.episodes))], 2)
    assert control[1] == 100.0 > control[0], control
