"""The checker's regression suite: planted leaks, each of which must be caught, and fixtures with no leak
that must pass (docs/architecture.md, the information rule's checker).

| #  | kind                              | where the truth is planted                                         | caught by                      |
|----|-----------------------------------|--------------------------------------------------------------------|--------------------------------|
| 1  | info_truth                        | IPD: the partner's coming action in an info key                    | tables / future on info.x      |
| 2  | info_truth_plus_noise             | RPS: coming action + N(0, 0.2) in an info key                      | threshold features (bin/round) |
| 3  | info_scaled_plus_noise            | RPS: 10 x coming action + a noise integer 0-3                      | threshold features (bin)       |
| 4  | info_threshold                    | RPS: 0.9 - 0.4 x action + N(0, 0.05), a probability-like number    | threshold features (bin)       |
| 5  | info_rank_vector                  | RPS: a noisy score vector whose largest entry is the action        | rank features (argmax)         |
| 6  | info_one_hot                      | RPS: the action one-hot in a list                                  | list elements                  |
| 7  | info_nested                       | RPS: the action deep in nested dicts and lists                     | recursive paths                |
| 8  | info_split_in_two_keys            | RPS: action // 2 and action % 2 in two keys                        | pair tables                    |
| 9  | info_shifted_by_step              | RPS: (action + step) % 3                                           | pair tables with the step      |
| 10 | info_string_number                | RPS: "the partner plans move 2 now"                                | the last number of a string    |
| 11 | info_string_word                  | RPS: "plan: scissors"                                              | the last word of a string      |
| 12 | reward_shift                      | RPS: reward + 0.001 x coming action                                | the reward                     |
| 13 | vector_obs_appended               | RPS, vectorized: the action appended to the observation            | future on the wrapper's obs    |
| 14 | oracle_expose_partner_action      | IPD expose_partner_action=True                                     | tables / future                |
| 15 | oracle_expose_partner             | IPD expose_partner=True (the drawn partner at reset)               | memory of the reset info       |
| 16 | oracle_expose_labels              | PersuasiveToM expose_labels=True                                   | tables                         |
| 17 | oracle_expose_state               | Persuasion-v1 expose_state=True (the persona)                      | tables                         |
| 18 | old_recorder_gym                  | Persuasion-v1: the resolved truths in info["tom"] (old recorder)   | tables on info.tom             |
| 19 | qa_info_answer                    | PersuasiveToM: the shown question's answer index in an info key    | tables                         |
| 20 | qa_text_hint_suffix               | PersuasiveToM: "(hint: <answer index>)" appended to obs["text"]    | the last word of the text      |
| 21 | qa_text_hint_prefix               | PersuasiveToM: "[<answer index>]" put before obs["text"]           | the first word of the text     |
| 22 | qa_text_number_inside             | PersuasiveToM: "note <answer index>." added to obs["text"]         | the last number of the text    |
| 23 | qa_counted_positions              | a QA env whose answers follow a question's position in its turn    | run / seen counters            |
| 24 | aec_info_before_first_guess       | coin AEC: the coin in the guesser's infos until its first guess    | future, before the first truth |
| 25 | aec_info_own_turn                 | coin AEC: the coin in the guesser's info at its own turn (last())  | tables on info                 |
| 26 | aec_info_while_others_act         | coin AEC: the coin in the guesser's infos only while others act    | every seat read after each step|
| 27 | aec_other_seat_info               | coin AEC: the coin in the bystander's infos                        | other seats' views (@bystander)|
| 28 | aec_reward                        | coin AEC: the guesser's reward shifted by the coin while others act| the reward                     |
| 29 | aec_info_at_reset_only            | coin AEC: the coin in the guesser's infos before the first step    | memory (mem.*)                 |
| 30 | aec_info_noisy                    | coin AEC: coin + N(0, 0.2) in the guesser's infos                  | threshold features in AEC      |
| 31 | parallel_view_of_aec              | aec_to_parallel(coin AEC, #26): the parallel view of the same leak | the parallel env's infos       |
| 32 | old_recorder_aec                  | two-seat persuasion: the held truths in last()'s info (old recorder)| tables on info.tom            |
| 33 | negotiation_whole_target_10_eps   | Negotiation-v1 mediator: the whole stances matrix in info, 10 eps. | element-aligned features       |
| 34 | runner_description_is_env         | runner: check_env handed the env itself                            | channel: description           |
| 35 | runner_description_forwards       | runner: a description forwarding attribute access to the env       | channel: description           |
| 36 | runner_seed_is_env_seed           | runner: the policy seeded with the env's seed (RPS random partners)| channel: seeds; shadow env     |
| 37 | runner_seed_derived               | runner: SeedSequence([seed, 0x5EED]) (a table inverts it)          | channel: seeds; shadow env     |
| 38 | runner_passes_with_memory         | runner: pass 2 by a policy that kept pass 1's revealed answers     | passes.* memory                |
| 39 | aec_own_obs_guesser               | coin AEC: the coin in the guesser's own observation (obs[1])       | undeclared element of own obs  |
| 40 | aec_own_obs_bystander             | coin AEC: the coin in the bystander's own observation              | undeclared element, @bystander |
| 41 | qa_own_text_hint_middle           | PersuasiveToM itself: "option <answer>" mid-text, before the question| the composed text's rest      |
| 42 | qa_own_obs_field                  | PersuasiveToM itself: the answer index in an extra obs field       | undeclared element of own obs  |
| 43 | own_obs_appended                  | Persuasion-v1 itself: the hidden desire appended to its observation| undeclared element of own obs  |
| 44 | matrix_own_history_appended       | RPS itself (history 2): the coming partner action appended to obs  | a declared sequence, not whole |
| 45 | common_tom_own_text_word          | Common-ToM itself: "yes"/"no" mid-text, after the conversation     | the composed text's rest       |
| 46 | runner_passes_with_memory_parallel | runner: pass 2 of a parallel env's seats that kept pass 1's truths | passes.* memory, per seat      |

Kinds 39-45 are written by the env itself, no wrapper: the public part is what the env declares public
(``tom_public``, ``tom_private``, ``tom_composed``), never "everything the env emits", so a hidden value in an
undeclared element of the env's own observation, or anywhere in its own text outside the declared parts, is a
candidate like any info key.

No leak (must pass): the coin AEC with none planted (the holder knows the coin: declared ``tom_known``), a
false-belief task whose real location (told in the info) is public (declared ``tom_public``), and the runner as it is now
(frozen description, run-level policy seeds, fresh state per pass).
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils.conversions import aec_to_parallel

import tom_envs
import wrappers
from tests.planted_leaks import (
    AnswerInOwnObservation,
    CoinAEC,
    DesireInOwnObservation,
    FalseBelief,
    HintInOwnConversation,
    HintInOwnText,
    PartnerInOwnHistory,
    _Plant,
    answer_index,
    upcoming,
)
from tests.test_information_checker import AECRecorderOfOld, AppendNextAction, RecorderOfOld, counted_questions_env
from tom_envs.checks import RunnerChannels, check_information_rule


def _rps(where, value):
    return lambda: _Plant(tom_envs.make("tom/RPS-v0"), where, value)


def _qa(where, value, **kwargs):
    return lambda: _Plant(tom_envs.make("tom/PersuasiveToM-v1", **kwargs), where, value)


class _Forwarding:
    """A description that forwards attribute access to the env (what QuestionView once did)."""

    def __init__(self, env):
        self._env = env

    def __getattr__(self, name):
        return getattr(self._env, name)


def _seeds(derive):
    return RunnerChannels(policy_seeds=lambda run: derive)


def _one_hot(v):
    return [int(i == v) for i in range(3)]


# kind -> (env factory, checker options, a string the leak sentences must contain)
PLANTED = {
    "info_truth": (lambda: _Plant(tom_envs.make("tom/IPD-v0"), "info:x", upcoming), {}, "info.x"),
    "info_truth_plus_noise": (_rps("info:x", lambda b, r: upcoming(b, r) + r.normal(0, 0.2)), {}, "info.x"),
    "info_scaled_plus_noise": (_rps("info:x", lambda b, r: 10 * upcoming(b, r) + int(r.integers(4))), {}, "info.x"),
    "info_threshold": (_rps("info:x", lambda b, r: 0.9 - 0.4 * upcoming(b, r) + r.normal(0, 0.05)), {}, "info.x"),
    "info_rank_vector": (
        _rps(
            "info:scores", lambda b, r: [float(x) for x in r.normal(0, 0.3, 3) + 2 * np.array(_one_hot(upcoming(b, r)))]
        ),
        {},
        "info.scores",
    ),
    "info_one_hot": (_rps("info:flags", lambda b, r: _one_hot(upcoming(b, r))), {}, "info.flags"),
    "info_nested": (_rps("info:deep", lambda b, r: {"a": {"b": [0, upcoming(b, r)]}}), {}, "info.deep"),
    "info_split_in_two_keys": (
        _rps("info:split", lambda b, r: {"hi": upcoming(b, r) // 2, "lo": upcoming(b, r) % 2}),
        {},
        "info.split",
    ),
    "info_shifted_by_step": (_rps("info:x", lambda b, r: (upcoming(b, r) + b._t) % 3), {}, "info.x"),
    "info_string_number": (
        _rps("info:note", lambda b, r: f"the partner plans move {upcoming(b, r)} now"),
        {},
        "info.note",
    ),
    "info_string_word": (
        _rps("info:note", lambda b, r: "plan: " + ("rock", "paper", "scissors")[upcoming(b, r)]),
        {},
        "info.note",
    ),
    "reward_shift": (_rps("reward", lambda b, r: 0.001 * upcoming(b, r)), {}, "reward"),
    "vector_obs_appended": (
        lambda: AppendNextAction(wrappers.VectorizeObservation(tom_envs.make("tom/RPS-v0"))),
        {},
        "obs[",
    ),
    "oracle_expose_partner_action": (
        lambda: tom_envs.make("tom/IPD-v0", expose_partner_action=True),
        {},
        "partner_next_action",
    ),
    "oracle_expose_partner": (lambda: tom_envs.make("tom/IPD-v0", expose_partner=True), {}, "partner"),
    "oracle_expose_labels": (lambda: tom_envs.make("tom/PersuasiveToM-v1", expose_labels=True), {}, "next_labels"),
    "oracle_expose_state": (lambda: tom_envs.make("tom/Persuasion-v1", expose_state=True), {"episodes": 80}, "info."),
    "old_recorder_gym": (lambda: RecorderOfOld(tom_envs.make("tom/Persuasion-v1")), {"episodes": 80}, "info.tom"),
    "qa_info_answer": (_qa("info:hint", answer_index), {}, "info.hint"),
    "qa_text_hint_suffix": (_qa("text:{text} (hint: {v})", answer_index), {}, "obs.text"),
    "qa_text_hint_prefix": (_qa("text:[{v}] {text}", answer_index), {}, "obs.text"),
    "qa_text_number_inside": (_qa("text:{text}\nnote {v}.", answer_index), {}, "obs.text"),
    "qa_counted_positions": (lambda: counted_questions_env(True), {"repeats": 2}, "answer"),
    "aec_info_before_first_guess": (lambda: CoinAEC("guesser_info_before_first_guess"), {}, "info.hint"),
    "aec_info_own_turn": (lambda: CoinAEC("guesser_info_own_turn"), {}, "info.hint"),
    "aec_info_while_others_act": (lambda: CoinAEC("guesser_info_while_others_act"), {}, "info.hint"),
    "aec_other_seat_info": (lambda: CoinAEC("bystander_info"), {}, "coin@bystander"),
    "aec_reward": (lambda: CoinAEC("guesser_reward"), {}, "reward"),
    "aec_info_at_reset_only": (lambda: CoinAEC("guesser_info_at_reset_only"), {}, "mem.info.hint"),
    "aec_info_noisy": (lambda: CoinAEC("guesser_info_noisy"), {}, "info.score"),
    "parallel_view_of_aec": (lambda: aec_to_parallel(CoinAEC("guesser_info_while_others_act")), {}, "info.hint"),
    "old_recorder_aec": (
        lambda: AECRecorderOfOld(tom_envs.make_aec("tom/Persuasion-TwoSeat-v1")),
        {"episodes": 60},
        "info.tom",
    ),
    "negotiation_whole_target_10_eps": (
        lambda: AECRecorderOfOld(tom_envs.make_aec("tom/Negotiation-v1")),
        {"episodes": 10},
        "info.tom.stances",
    ),
    "runner_description_is_env": (lambda: tom_envs.make("tom/RPS-v0"), {"runner": "env"}, "is an env"),
    "runner_description_forwards": (lambda: tom_envs.make("tom/RPS-v0"), {"runner": "forwarding"}, "__getattr__"),
    "runner_seed_is_env_seed": (lambda: tom_envs.make("tom/RPS-v0"), {"runner": _seeds(lambda s: s)}, "shadow."),
    "runner_seed_derived": (
        lambda: tom_envs.make("tom/RPS-v0"),
        {"runner": _seeds(lambda s: int(np.random.SeedSequence([s, 0x5EED]).generate_state(1)[0]))},
        "shadow.",
    ),
    "runner_passes_with_memory": (
        lambda: tom_envs.make("tom/PersuasiveToM-v1"),
        {"runner": RunnerChannels(passes=2, remember=True), "repeats": 1},
        "passes.answer",
    ),
    "runner_passes_with_memory_parallel": (
        lambda: tom_envs.make("tom/RPS-Parallel-v0"),
        {"runner": RunnerChannels(passes=2, remember=True)},
        "passes.player_",
    ),
    "aec_own_obs_guesser": (lambda: CoinAEC("guesser_obs"), {}, "obs[1]"),
    "aec_own_obs_bystander": (lambda: CoinAEC("bystander_obs"), {}, "coin@bystander"),
    "qa_own_text_hint_middle": (HintInOwnText, {}, "obs.text#rest"),
    "qa_own_obs_field": (AnswerInOwnObservation, {}, "obs.hint"),
    "own_obs_appended": (DesireInOwnObservation, {"episodes": 80}, "obs[5]"),
    "matrix_own_history_appended": (PartnerInOwnHistory, {}, "obs[2]"),
    "common_tom_own_text_word": (HintInOwnConversation, {}, "obs.text#rest"),
}


def _options(options: dict, env) -> dict:
    options = dict(options)
    if options.get("runner") == "env":
        options["runner"] = RunnerChannels(description=env)
    elif options.get("runner") == "forwarding":
        options["runner"] = RunnerChannels(description=_Forwarding(env))
    return options


def test_the_table_names_at_least_31_distinct_kinds():
    assert len(PLANTED) >= 31 and len(set(PLANTED)) == len(PLANTED)
    assert all(f"| {kind} " in __doc__ for kind in PLANTED)


@pytest.mark.parametrize("kind", list(PLANTED))
def test_every_planted_leak_is_caught(kind):
    factory, options, named = PLANTED[kind]
    env = factory()
    report = check_information_rule(env, strict=False, **_options(options, env))
    assert not report.ok, f"{kind} was missed:\n{report}"
    assert any(named in s for s in report.leaks), f"{kind}: no leak names {named!r}:\n{report}"


# ---------------------------------------------------------------------- no leak: must pass
def test_the_coin_game_without_a_plant_passes_and_the_holder_may_know_the_coin():
    report = check_information_rule(CoinAEC("none"), strict=False)
    assert report.verdict == "no leak", str(report)
    assert not any(r.target.endswith("@holder") for r in report.results)  # declared known: not probed


def test_a_false_belief_task_with_a_public_location_passes():
    report = check_information_rule(FalseBelief(), episodes=300, strict=False)
    assert report.verdict == "no leak", str(report)


def test_the_public_location_would_be_flagged_if_it_were_not_declared():
    """Without the declaration the real location (equal to the belief 75 % of the time) looks like a leak to
    the future probe; the declaration is what makes it public."""
    report = check_information_rule(FalseBelief(declare=False), episodes=300, strict=False)
    assert any("info.location" in s for s in report.leaks), str(report)


def test_a_false_belief_task_that_hands_over_the_belief_is_caught():
    report = check_information_rule(FalseBelief(leak=True), episodes=300, strict=False)
    assert any("believer_thinks" in s for s in report.leaks), str(report)


def test_the_runner_as_it_is_passes():
    """The runner's channels as benchmarks.runner builds them now: a frozen description, seeds from the run's
    policy stream, passes that hand the policy nothing revealed."""
    from benchmarks.policy_seeds import policy_seed
    from tom_envs.description import describe

    env = tom_envs.make("tom/RPS-v0")
    runner = RunnerChannels(description=describe(env), policy_seeds=lambda run: lambda s: policy_seed(s, entropy=run))
    report = check_information_rule(env, strict=False, runner=runner)
    assert report.verdict == "no leak", str(report)
    assert report.result("channel", "seeds").score == 0.0
    qa = check_information_rule("tom/PersuasiveToM-v1", strict=False, repeats=1, runner=RunnerChannels(passes=2))
    assert qa.verdict == "no leak", str(qa)


def test_a_run_without_power_says_so():
    """Two episodes of the live persuasion env cannot show a planted target beyond the margin: the report says
    "no power", not "no leak"."""
    report = check_information_rule("tom/Persuasion-v1", episodes=4, strict=False)
    assert report.ok and not report.powered and report.verdict == "no power", str(report)
    assert "no power" in str(report)


# ---------------------------------------------------------------------- what a declaration covers
def test_declared_paths_are_literal_and_a_sequence_is_public_only_whole():
    from tom_envs.checks.features import Reader, pattern

    p = pattern(("obs[0]", "obs[1]", "info.state.*"))
    assert p.match("obs[0]") and not p.match("obs0") and p.match("info.state.events[3].text")
    appended = Reader(public=pattern(("obs", "obs[0]", "obs[1]"))).read(np.array([1, 2, 7]), {}, None)["public"]
    assert "obs[0]" in appended and "obs[2]" not in appended and "obs" not in appended  # declared whole, but not
    whole = Reader(public=pattern(("obs[0]", "obs[1]", "obs[2]"))).read(np.array([1, 2, 7]), {}, None)["public"]
    assert "obs" in whole and "argmax:obs" in whole  # every element declared: the sequence and its ranks are


def test_a_composed_text_is_read_for_what_its_declared_parts_leave():
    from tom_envs.checks.features import Reader, pattern

    reader = Reader(
        public=pattern(("obs.question", "obs.choices[*]", "obs.text")),  # as Declared.for_seat makes it
        composed={"obs.text": pattern(("obs.question", "obs.choices[*]"))},
    )
    obs = {
        "question": "Where will Sally look?",
        "choices": ("basket", "box"),
        "text": "Story.\nQuestion: Where will Sally look? (it is 1)\nA) basket\nB) box",
    }
    seen = reader.read(obs, {}, None)
    assert seen["all"]["obs.text#rest"] == "story question it is 1 a b"
    assert seen["all"]["num:obs.text#rest"] == 1 and "num:obs.text#rest" not in seen["public"]
    assert "obs.text" in seen["public"] and "last:obs.text" not in seen["public"]  # whole, not the words inside
