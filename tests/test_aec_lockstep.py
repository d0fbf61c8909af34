"""AEC episodes in lockstep (``benchmarks.runner.play_aec_lockstep``): the same episodes as one by one,
with one batched call per policy and tick naming the episodes whose turn it is (``slots=``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmarks.errors import RunnerError
from benchmarks.runner_aec import play_aec, play_aec_lockstep
from benchmarks.runner_envs import make_env
from policies.matrix import RandomPolicy
from policies.base import BatchSlotError
from policies.negotiation.scripted import make_mediator
from policies.persuasion.scripted import MindRandomPersuader, SimulatedMindPersuadee

NEGOTIATION_IDS = [
    "tom/Negotiation-Easy-v1",
    "tom/Negotiation-Medium-v1",
    "tom/Negotiation-Hard-v1",
    "tom/Negotiation-v1",
]


def plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def same(one: list, lock: list) -> bool:
    return [(r.seed, plain(r.summary), plain(r.info)) for r in one] == [
        (r.seed, plain(r.summary), plain(r.info)) for r in lock
    ]


class CountingRandom(RandomPolicy):
    """A random policy that remembers the slots of every batched call it got."""

    def __init__(self, game: str) -> None:
        super().__init__(game)
        self.calls: list[list[int]] = []

    def act_batch(self, observations, infos, slots=None):
        self.calls.append(list(range(len(observations))) if slots is None else list(slots))
        return super().act_batch(observations, infos, slots)


@pytest.mark.parametrize("mediator", ["social", "generic", "none"])
def test_negotiation_in_lockstep_equals_one_by_one(mediator):
    seeds = [0, 1, 2, 3]
    one = [play_aec(make_env(i), make_mediator(mediator), s) for i, s in zip(NEGOTIATION_IDS, seeds)]
    lock = play_aec_lockstep([make_env(i) for i in NEGOTIATION_IDS], make_mediator(mediator), seeds)
    assert same(one, lock)
    assert all("tom_accuracy" in r.summary for r in lock)  # scored by the predictor seat's recorder


def test_episodes_that_end_at_different_ticks_with_a_policy_per_seat():
    def seats() -> dict:
        return {"persuader_0": MindRandomPersuader(), "persuadee_0": SimulatedMindPersuadee()}

    seeds, horizons = list(range(6)), [2, 4, 3, 4, 2, 3]
    one_policies = seats()
    one = [play_aec(make_env("tom/Persuasion-TwoSeat-v1", horizon=h), one_policies, s) for h, s in zip(horizons, seeds)]
    lock = play_aec_lockstep([make_env("tom/Persuasion-TwoSeat-v1", horizon=h) for h in horizons], seats(), seeds)
    assert len({r.summary["rounds"] for r in one}) > 1  # the episodes do end at different ticks
    assert same(one, lock)


def test_one_batched_call_per_policy_and_tick_naming_the_episodes_whose_turn_it_is():
    horizons = [2, 4, 3]
    players = {"player_0": CountingRandom("RPS"), "player_1": CountingRandom("RPS")}
    envs = [make_env("tom/RPS-Parallel-v0", horizon=h) for h in horizons]
    results = play_aec_lockstep(envs, players, seeds=[5, 6, 7])
    assert [r.summary["steps"] for r in results] == [2 * h for h in horizons]
    # each tick, every live episode's seat belongs to one policy: one call with the live episodes' slots
    assert players["player_0"].calls == [[0, 1, 2], [0, 1, 2], [1, 2], [1]]
    assert players["player_1"].calls == players["player_0"].calls
    single = {"player_0": RandomPolicy("RPS"), "player_1": RandomPolicy("RPS")}
    one = [play_aec(make_env("tom/RPS-Parallel-v0", horizon=h), single, s) for h, s in zip(horizons, [5, 6, 7])]
    assert same(one, results)


def test_lockstep_needs_an_env_per_seed_and_a_policy_per_seat():
    with pytest.raises(RunnerError, match="one env per episode"):
        play_aec_lockstep([make_env("tom/RPS-Parallel-v0")], RandomPolicy("RPS"), [0, 1])
    with pytest.raises(RunnerError, match="no policy for seat 'player_1'"):
        play_aec_lockstep([make_env("tom/RPS-Parallel-v0")], {"player_0": RandomPolicy("RPS")}, [0])


def test_batched_calls_name_slots_that_were_opened():
    policy = RandomPolicy("RPS")
    policy.reset_batch([0, 1, 2])
    assert len(policy.act_batch([None, None], [{}, {}], slots=[2, 0])) == 2
    for bad in ([0], [0, 0], [0, 3], [True, 1]):
        with pytest.raises(BatchSlotError, match="slots="):
            policy.act_batch([None, None], [{}, {}], slots=bad)
    with pytest.raises(BatchSlotError, match="reset_batch"):
        policy.act_batch([None, None], [{}, {}])


def test_a_cell_of_an_aec_env_plays_its_lockstep_batches_through_the_aec_lockstep():
    """``Cell.play_batch`` on an AEC env (``--lockstep 2`` on a declared negotiation cell raised a TypeError
    from the single-agent lockstep): the records equal those played one by one."""
    import dataclasses

    from benchmarks.runner import Cell, cell_records

    @dataclasses.dataclass(frozen=True)
    class MediatorCell(Cell):
        env_id: str = "tom/Negotiation-v1"

        def config(self) -> dict:
            return {"env": self.env_id, "mediator": "social"}

        def make_env(self) -> Any:
            return make_env(self.env_id)

        def make_policy(self) -> Any:
            return make_mediator("social")

    cell = MediatorCell()
    one = [plain(r) for r in cell_records(cell, [0, 1, 2], lockstep=1)]
    lock = [plain(r) for r in cell_records(cell, [0, 1, 2], lockstep=2)]
    assert one == lock and all("tom_accuracy" in r["episode"] for r in lock)
