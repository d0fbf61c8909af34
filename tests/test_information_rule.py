"""The information rule (docs/architecture.md, "Contracts"; :mod:`tom_envs.tom`), probed for every id.

The public checker (:mod:`tom_envs.checks`) runs over the whole registry, bare and wrapped as the runner
wraps it, in tests/test_information_checker.py. This file keeps the QA-specific contract tests (what
each step's info carries under either feedback mode) and the older probes below.

Nothing returned with an observation -- the observation or the info of that call -- may determine
the answer to a question not yet answered or a hidden state not yet revealed.

* Question-answering ids (``tom_spec.action_is_prediction``): a probe reads everything returned
  with each question (observation and info flattened into ``(path, value)`` features, plus the
  step index and the question's rank within its turn), fits one rule per feature on half of the
  bundled sample's turns -- "the value is the answer index" or "the majority answer of each
  value" -- keeps the rule best on that half and answers the other half with it. It must not
  beat the chance rate (the majority answer of the training half; 1 / number of options when
  options are shuffled) by more than three binomial standard errors of the held-out half.
* Every other id: no value returned before a step equals the ground truth that this step (or one
  of the two after it) resolves (``tom_truth()``) more often than the last revealed truth does,
  or than independent values with the same frequencies would (three standard errors), over 40
  episodes of random actions. For single-agent ids, also: no value of the reset's info (the drawn
  partner, persona, ...) predicts the coming truths better than the observation alone does.
* With the documented oracle flag (``expose_labels=True``) an oracle answers every question right.
"""

from __future__ import annotations

import inspect
import math
from collections import Counter, defaultdict
from itertools import combinations
from typing import Any, Hashable

import numpy as np
import pytest

import tom_envs
from tom_envs.checks import flatten
from tom_envs.checks import hashable as _hashable
from tom_envs.registration import REGISTRY, load
from tom_envs.tom import tom_spec_of

Z = 3.0  # standard errors of slack for every comparison with chance
LAGS = (0, 1, 2)  # steps between the one about to be taken and the one whose truth the probe checks


def _is_qa(env_id: str) -> bool:
    rec = REGISTRY[env_id]
    return rec.kind == "gymnasium" and getattr(load(rec.entry_point), "select_episode", None) is not None


QA_IDS = [i for i in REGISTRY if _is_qa(i)]
OTHER_IDS = [i for i in REGISTRY if not _is_qa(i)]


# ---------------------------------------------------------------------- features
def features(obs: Any, info: dict, step: int, rank: int, reward: Any = None) -> dict[str, Hashable]:
    out: dict[str, Hashable] = {"step": step, "rank_in_turn": rank, "reward": reward}
    flatten("obs", obs, out)
    flatten("info", info, out)
    return out


# ---------------------------------------------------------------------- QA probe
def _qa_kwargs(env_id: str) -> dict[str, Any]:
    """The registered arguments, widened to the whole bundled sample where the env takes a split."""
    rec = REGISTRY[env_id]
    kwargs = {**rec.kwargs, **rec.example_kwargs}
    if "split" in inspect.signature(load(rec.entry_point)).parameters:
        kwargs["split"] = "all"
    return kwargs


def qa_rows(env_id: str, repeats: int = 6, first_only: bool = False, **overrides: Any) -> list[dict[str, Any]]:
    """One row per question asked: the features returned with it, where from, its turn, options and
    truth; each episode played ``repeats`` times with other seeds (only its first question with
    ``first_only``)."""
    env = tom_envs.make(env_id, **{**_qa_kwargs(env_id), **overrides})
    base = env.unwrapped
    rng = np.random.default_rng(0)
    rows = []
    for r in range(repeats):
        for e in range(len(base.episodes)):
            obs, info = env.reset(seed=1000 * r + e, options={"episode": e})
            step, rank, turn, done, reward = 0, 0, None, False, None
            while not done:
                rank = rank + 1 if obs["turn"] == turn else 0
                turn = obs["turn"]
                feats = features(obs, info, step, rank, reward)
                n = int(obs["n_choices"])
                obs, reward, done, trunc, info = env.step(int(rng.integers(n)))
                rows.append(
                    {
                        "x": feats,
                        "source": "step" if step else "reset",
                        "repeat": r,
                        "n": n,
                        "episode": e,
                        "turn": (e, feats["obs.background"], feats["obs.context"]),
                        "y": base.tom_truth()["answer"],
                    }
                )
                step += 1
                done = done or trunc or first_only
    return rows


def _majority(ys: list[int]) -> int:
    counts = Counter(ys)
    return min(counts, key=lambda y: (-counts[y], y))


def _value(x: dict[str, Hashable], path: str | tuple[str, str]) -> Hashable:
    return tuple(x.get(p) for p in path) if isinstance(path, tuple) else x.get(path)


def fit_rule(train: list[dict], path: "str | tuple[str, str]", rule: str) -> tuple[Any, str, Any]:
    """One rule on one feature (or a pair of features, for maps), fitted on ``train``."""
    default = _majority([r["y"] for r in train])
    if rule != "map":
        return path, rule, default
    by_value: dict[Hashable, list[int]] = defaultdict(list)
    for r in train:
        by_value[_value(r["x"], path)].append(r["y"])
    return path, rule, ({v: _majority(ys) for v, ys in by_value.items()}, default)


def apply_probe(probe: tuple[Any, str, Any], rows: list[dict]) -> float:
    path, rule, model = probe
    hits = []
    for r in rows:
        v = _value(r["x"], path)
        if rule == "identity":
            guess = v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < r["n"] else model
        elif rule == "map":
            table, default = model
            guess = table.get(v, default)
        else:
            guess = model
        hits.append(guess == r["y"])
    return float(np.mean(hits))


def split_rows(rows: list[dict], unit: str, seed: int = 0) -> tuple[list[dict], list[dict]]:
    """Two halves of ``rows`` that share no ``unit`` (a turn, or a repeat of the episodes)."""
    units = sorted({r[unit] for r in rows})
    order = np.random.default_rng(seed).permutation(len(units))
    first = {units[i] for i in order[: len(units) // 2]}
    return [r for r in rows if r[unit] in first], [r for r in rows if r[unit] not in first]


def candidate_rules(rows: list[dict], maps: bool) -> list[tuple[Any, str]]:
    """Every rule the probe may use: a constant, "value is the answer" per feature and, with
    ``maps``, value -> majority answer per feature and per pair of features."""
    paths = sorted({p for r in rows for p in r["x"]})
    rules: list[tuple[Any, str]] = [("", "constant")] + [(p, "identity") for p in paths]
    if maps:
        rules += [(p, "map") for p in paths] + [(pair, "map") for pair in combinations(paths, 2)]
    return rules


def fit_probe(train: list[dict], unit: str, maps: bool) -> tuple[Any, str, Any]:
    """The rule that answers best on units it was not fitted on (half of ``train`` each way), refitted."""
    inner_a, inner_b = split_rows(train, unit, seed=1)
    best, best_score = ("", "constant"), -1.0
    for path, rule in candidate_rules(train, maps):
        score = (
            apply_probe(fit_rule(inner_a, path, rule), inner_b) + apply_probe(fit_rule(inner_b, path, rule), inner_a)
        ) / 2
        if score > best_score:
            best, best_score = (path, rule), score
    return fit_rule(train, *best)


def chance_rate(train: list[dict], test: list[dict]) -> float:
    """What needs no information: the training half's majority answer, or 1 / options if higher."""
    default = _majority([r["y"] for r in train])
    return max(float(np.mean([r["y"] == default for r in test])), float(np.mean([1.0 / r["n"] for r in test])))


def probe_report(
    env_id: str,
    source: str,
    unit: str | None = None,
    repeats: int | None = None,
    observation_only: bool = False,
    **overrides: Any,
) -> dict[str, Any]:
    """The probe on the questions shown by ``reset`` or by ``step``.

    Questions shown by ``step`` are split by turn and probed with every rule. The few shown by
    ``reset`` (the first of each dialogue) are split by repeat and probed with "value is the
    answer" rules only: a value -> answer table would just memorise the repeated questions, and
    with shuffled options every reset is a new draw of the answer's position. ``unit="episode"``
    splits by dialogue instead: on data whose answers persist within a dialogue, a held-out turn
    shares its answer with the trained turns of its dialogue, and a rule keyed on the dialogue
    would learn the dataset's labels rather than find a leak. ``observation_only`` keeps the
    observation's features (and the step index and rank) only: the floor the data itself allows
    (on shuffled options the answer texts' prior, e.g. desire_ee's "Yes"), against which what the
    info and reward add is measured on the releases. ``repeats``: plays per episode (default 6 for
    ``step``, 60 for ``reset``).
    """
    if source == "step":
        rows = qa_rows(env_id, repeats or 6, **overrides)
    else:
        rows = qa_rows(env_id, repeats or 60, first_only=True, **overrides)
    rows = [r for r in rows if r["source"] == source]
    if observation_only:
        for r in rows:
            r["x"] = {k: v for k, v in r["x"].items() if k.startswith("obs.") or k in ("step", "rank_in_turn")}
    unit = unit or ("turn" if source == "step" else "repeat")
    train, test = split_rows(rows, unit)
    probe = fit_probe(train, unit, maps=source == "step")
    chance = chance_rate(train, test)
    # held-out sample size: distinct questions shown for maps (repeats of one are not new data); every
    # reset for "value is the answer" rules, which cannot memorise (a reshuffled answer is a new draw)
    n_test = (
        len({(r["turn"], r["x"]["step"], r["x"].get("obs.choices")) for r in test}) if source == "step" else len(test)
    )
    return {
        "probe": apply_probe(probe, test),
        "chance": chance,
        "margin": Z * math.sqrt(chance * (1 - chance) / n_test),
        "feature": probe[0],
        "rule": probe[1],
        "n_test": n_test,
        "rows": len(rows),
    }


@pytest.mark.parametrize("source", ["reset", "step"])
def test_the_probe_finds_a_planted_leak(source):
    """The same probe on a QA env made to return the answer with the question must flag it."""
    r = probe_report("tom/PersuasiveToM-v1", source, expose_labels=True)
    assert r["probe"] > r["chance"] + r["margin"] and r["probe"] == 1.0


AFTER_THE_FACT = {"answer", "answer_key", "answer_label", "correct", "answers"}


def _play_right(env: Any, episode: int) -> tuple[list[int], list[float], dict, list[Any]]:
    """One episode answered right: the answers, the rewards, the last step's info and the questions
    asked (in asking order); checks that no
    info returned before the end holds what is known only after the fact."""
    base = env.unwrapped
    obs, info = env.reset(seed=0, options={"episode": episode})
    assert not AFTER_THE_FACT & set(info) and base.tom_truth() == {}
    answers, rewards, asked, done = [], [], [], False
    while not done:
        asked.append(base.current_item)
        answers.append(base.current_answer)
        obs, reward, done, _, info = env.step(answers[-1])
        rewards.append(reward)
        # the scorer's truth, step by step (an unscored filler resolves none)
        assert base.tom_truth() == ({"answer": answers[-1]} if asked[-1].scored else {})
        if not done and base.feedback == "episode":
            assert not AFTER_THE_FACT & set(info) and reward == 0.0, info
    return answers, rewards, info, asked


@pytest.mark.parametrize("env_id", QA_IDS)
def test_qa_infos_carry_the_truths_only_when_the_episode_ends(env_id):
    """By default answers and rewards come back with the episode's last step, for every question
    (answers within a dialogue correlate: one handed back with the next question gives it away)."""
    env = tom_envs.make(env_id, **_qa_kwargs(env_id))
    base = env.unwrapped
    episode = max(range(len(base.episodes)), key=lambda i: len(base.episodes[i]))
    answers, rewards, info, asked = _play_right(env, episode)
    assert len(answers) > 1 and rewards[:-1] == [0.0] * (len(answers) - 1) and rewards[-1] == len(answers)
    assert info["answer"] == answers[-1] and info["correct"]
    assert [a["answer"] for a in info["answers"]] == answers and all(a["correct"] for a in info["answers"])
    assert [(a["turn"], a["qtype"]) for a in info["answers"]] == [(it.turn, it.qtype) for it in asked]


@pytest.mark.parametrize("env_id", QA_IDS)
def test_with_step_feedback_each_step_carries_its_own_answer(env_id):
    env = tom_envs.make(env_id, **_qa_kwargs(env_id), feedback="step")
    base = env.unwrapped
    obs, info = env.reset(seed=0)
    assert "answer" not in info and base.tom_truth() == {}
    shown = base.current_answer
    obs, reward, _, _, info = env.step(shown)
    assert info["answer"] == shown and base.tom_truth() == {"answer": shown} and info["correct"] and reward == 1.0
    assert "answers" not in info


@pytest.mark.parametrize("env_id", QA_IDS)
def test_an_unknown_feedback_mode_is_a_named_error(env_id):
    with pytest.raises(tom_envs.errors.TomEnvsError, match="feedback must be one of"):
        tom_envs.make(env_id, **_qa_kwargs(env_id), feedback="never")


def correlated_release(folder: Any, dialogues: int = 48, turns: int = 6, repeat: float = 0.8) -> Any:
    """A desire_ee file in the PersuasiveToM release's format whose consecutive answers repeat as on
    the release (66.5 % of consecutive desire_ee answers there): each persuadee's answer persists
    from turn to turn with probability ``repeat``."""
    import json

    rng = np.random.default_rng(7)
    records = []
    for d in range(dialogues):
        key, said = int(rng.integers(3)), ""
        for t in range(turns):
            if t and rng.random() > repeat:
                key = int(rng.choice([k for k in range(3) if k != key]))
            said += f"Sam says: point {t} of case {d}.\nAlex says: reply {t} to case {d}.\n"
            records.append(
                {
                    "dialogue_id": f"{d}-{2 * t}",
                    "dialogue": said,
                    "background": f"Case {d}.",
                    "question": "Is Alex likely to agree?",
                    "choices": "['Yes', 'No', 'Neutral']",
                    "answerKey": "ABC"[key],
                }
            )
    (folder / "desire_ee.json").write_text(json.dumps(records), encoding="utf-8")
    return folder


@pytest.mark.parametrize("feedback", ["episode", "step"])
def test_the_probe_catches_answers_handed_back_within_a_correlated_dialogue(tmp_path, feedback):
    """On data whose answers persist within a dialogue (as the release's desire_ee answers do),
    per-question feedback gives the next answer away and the probe sees it (it reads the step's
    info and reward); with the default, nothing comes back before the end and the probe is at chance."""
    r = probe_report(
        "tom/PersuasiveToM-v1", "step", unit="episode", data_dir=correlated_release(tmp_path), feedback=feedback
    )
    if feedback == "step":
        assert r["probe"] > r["chance"] + r["margin"], r
    else:
        assert r["probe"] <= r["chance"] + r["margin"], r


@pytest.mark.parametrize("env_id", QA_IDS)
def test_an_oracle_reading_the_documented_flag_scores_100_percent(env_id):
    """``expose_labels=True`` is the one way to hand an oracle the answers: ``next_labels`` (the gold
    belief oracle of Common-ToM is checked on the same flag in tests/test_common_ground.py)."""
    env = tom_envs.make(env_id, **_qa_kwargs(env_id), expose_labels=True)
    returns, asked = [], []
    for e in range(len(env.unwrapped.episodes)):
        obs, info = env.reset(seed=e, options={"episode": e})
        done, total = False, 0.0
        while not done:
            obs, reward, done, _, info = env.step(info["next_labels"]["answer"])
            total += reward
        returns.append(total)
        asked.append(len(info["answers"]))
        assert all(a["correct"] for a in info["answers"])
    assert returns and returns == asked  # every question right


# ---------------------------------------------------------------------- every other id
def _truths(base: Any) -> dict[str, Hashable]:
    return {k: _hashable(v) for k, v in base.tom_truth().items()}


def other_trace(
    env_id: str, episodes: int = 40, **overrides: Any
) -> list[tuple[dict[str, Hashable], dict[str, Hashable]]]:
    """Per decision: the features returned before it and the truth resolved by the step after it."""
    rec = REGISTRY[env_id]
    kwargs = {**rec.example_kwargs, **overrides}
    trace: list[tuple[dict, dict]] = []
    for ep in range(episodes):
        seed = 7 + ep
        if rec.kind == "gymnasium":
            env = tom_envs.make(env_id, **kwargs)
            base = env.unwrapped
            tom_spec_of(base)
            env.action_space.seed(seed)
            obs, info = env.reset(seed=seed)
            step, done = 0, False
            while not done and step < 200:
                feats = features(obs, info, step, 0)
                obs, _, term, trunc, info = env.step(env.action_space.sample())
                trace.append((feats, _truths(base)))
                step, done = step + 1, term or trunc
        elif rec.kind == "parallel":
            env = tom_envs.make(env_id, **kwargs)
            tom_spec_of(env)
            obs, infos = env.reset(seed=seed)
            for agent in env.possible_agents:
                env.action_space(agent).seed(seed)
            step = 0
            while env.agents and step < 200:
                feats = features(obs, infos, step, 0)
                obs, _, _, _, infos = env.step({a: env.action_space(a).sample() for a in env.agents})
                trace.append((feats, _truths(env)))
                step += 1
        else:
            env = tom_envs.make_aec(env_id, **kwargs)
            base = env.unwrapped
            tom_spec_of(base)
            env.reset(seed=seed)
            step = 0
            for agent in env.agent_iter(max_iter=400):
                obs, _, term, trunc, info = env.last()
                feats = features(obs, info, step, 0)
                space = env.action_space(agent)
                space.seed(seed + step)
                env.step(None if term or trunc else space.sample())
                trace.append((feats, _truths(base)))
                step += 1
        trace.append(({}, {}))  # an episode boundary: nothing is compared across it
    return trace


def leaks(trace: list[tuple[dict, dict]]) -> list[str]:
    """Feature paths whose value equals a later step's truth more often than the baselines allow."""
    found = []
    for lag in LAGS:
        same: dict[tuple[str, str], list[bool]] = defaultdict(list)
        persist: dict[str, list[bool]] = defaultdict(list)
        values: dict[tuple[str, str], list[tuple[Hashable, Hashable]]] = defaultdict(list)
        for t in range(len(trace) - lag):
            window = trace[t : t + lag + 1]
            if any(not f and not y for f, y in window[1:]):
                continue  # crosses an episode boundary
            feats, _ = trace[t]
            truth = trace[t + lag][1]
            last = trace[t - 1][1] if t and trace[t - 1][0] else {}
            for target, y in truth.items():
                if target in last:
                    persist[target].append(last[target] == y)
                for path, v in feats.items():
                    same[(path, target)].append(v == y and type(v) is not bool)
                    values[(path, target)].append((v, y))
        for (path, target), hits in same.items():
            n = len(hits)
            pairs = values[(path, target)]
            fx, fy = Counter(v for v, _ in pairs), Counter(y for _, y in pairs)
            independent = sum(fx[v] * fy.get(v, 0) for v in fx) / n / n
            base = max(independent, float(np.mean(persist[target])) if persist[target] else 0.0)
            rate = float(np.mean(hits))
            if n >= 20 and rate > base + Z * math.sqrt(max(base * (1 - base), 1 / n) / n):
                found.append(
                    f"{path} equals the {target} of the step {lag} after the coming one in {100 * rate:.0f} % of {n} steps "
                    f"(baseline {100 * base:.0f} %)"
                )
    return found


@pytest.mark.parametrize("env_id", OTHER_IDS)
def test_no_returned_value_reveals_a_later_truth(env_id):
    assert leaks(other_trace(env_id)) == []


def test_the_future_probe_finds_the_oracle_flag_of_the_matrix_env():
    """``expose_partner_action=True`` (004's Oracle prompting) is a documented, deliberate leak."""
    found = leaks(other_trace("tom/IPD-v0", expose_partner_action=True))
    assert any(f.startswith("info.partner_next_action equals the partner_action of the step 0 after") for f in found)


# ---------------------------------------------------------------------- hidden state named at reset
GYM_OTHER = [i for i in OTHER_IDS if REGISTRY[i].kind == "gymnasium"]


def reset_info_gain(env_id: str, episodes: int = 200, rounds: int = 20, **overrides: Any) -> dict[str, Any]:
    """How much better the coming truth is predicted from (observation, one value of the reset's
    info) than from the observation alone: tables fitted on even episodes, tested on odd ones."""
    rec = REGISTRY[env_id]
    rows = []
    for ep in range(episodes):
        env = tom_envs.make(env_id, **{**rec.example_kwargs, **overrides})
        obs, info = env.reset(seed=ep)
        reset_feats: dict[str, Hashable] = {}
        flatten("info", info, reset_feats)
        env.action_space.seed(ep)
        for _ in range(rounds):
            view = _hashable(obs)
            obs, _, term, trunc, _ = env.step(env.action_space.sample())
            for target, y in _truths(env.unwrapped).items():
                rows.append((ep % 2, target, view, reset_feats, y))
            if term or trunc:
                break
    train, test = [r for r in rows if not r[0]], [r for r in rows if r[0]]

    def accuracy(key) -> float:
        table: dict[Hashable, list] = defaultdict(list)
        for r in train:
            table[key(r)].append(r[4])
        best = {k: Counter(v).most_common(1)[0][0] for k, v in table.items()}
        return float(np.mean([best.get(key(r)) == r[4] for r in test]))

    base = accuracy(lambda r: (r[1], r[2]))
    paths = sorted({p for r in train for p in r[3]})
    gains = {p: accuracy(lambda r, p=p: (r[1], r[2], r[3].get(p))) for p in paths}
    path = max(gains, key=gains.get) if gains else ""
    n = len(test)
    return {
        "obs_only": base,
        "with_reset_info": gains.get(path, base),
        "feature": path,
        "margin": Z * math.sqrt(max(base * (1 - base), 1 / n) / n),
        "n_test": n,
    }


@pytest.mark.parametrize("env_id", GYM_OTHER)
def test_the_reset_info_names_no_hidden_partner_or_persona(env_id):
    r = reset_info_gain(env_id)  # the registered defaults
    assert r["with_reset_info"] <= r["obs_only"] + r["margin"], r


@pytest.mark.parametrize("env_id", tom_envs.ids(kind="gymnasium", family="matrix"))
def test_the_probe_sees_the_partner_when_an_oracle_flag_exposes_it(env_id):
    r = reset_info_gain(env_id, expose_partner=True)
    assert r["with_reset_info"] > r["obs_only"] + r["margin"], r


@pytest.mark.parametrize("env_id", QA_IDS)
def test_every_qa_info_names_the_question_it_describes(env_id):
    """A step's info describes the question just answered (``describes == "answered"``) and carries the
    description of the question now shown under ``shown``, equal to what a reset showing it returns;
    :func:`tom_envs.qa.question_info` (what the benchmarks hand a policy) holds no answer."""
    from tom_envs.qa import question_info

    env = tom_envs.make(env_id, **_qa_kwargs(env_id))
    base = env.unwrapped
    obs, info = env.reset(seed=0, options={"episode": 0})
    assert info["describes"] == "shown" and question_info(info) == info
    done = False
    while not done:
        item = base.current_item
        assert question_info(info)["turn"] == item.turn == obs["turn"] and question_info(info)["qtype"] == item.qtype
        assert not {"answer", "answer_key", "answer_label", "correct", "chosen", "choice_order"} & set(
            question_info(info)
        )
        obs, _, done, _, info = env.step(0)
        assert info["describes"] == "answered" and info["turn"] == item.turn and info["qtype"] == item.qtype
        if done:
            assert info["shown"] is None and question_info(info) == {}
        else:
            assert info["shown"]["turn"] == base.current_item.turn == obs["turn"]
            assert info["shown"] == base._info(base.current_item)


@pytest.mark.parametrize("env_id", QA_IDS)
def test_a_scorer_reads_the_same_answers_under_either_feedback(env_id):
    """:func:`tom_envs.qa.answered` gives the after-the-fact description of every question of a finished
    episode, identical under both feedback modes (same seed, same actions); a partial episode is an error."""
    from tom_envs.errors import TomEnvsError
    from tom_envs.qa import answered

    got = {}
    for feedback in ("episode", "step"):
        env = tom_envs.make(env_id, **_qa_kwargs(env_id), feedback=feedback)
        obs, _ = env.reset(seed=5, options={"episode": 0})
        infos, rewards, done, k = [], [], False, 0
        while not done:
            obs, reward, done, _, info = env.step(k % int(obs["n_choices"]))
            infos.append(info)
            rewards.append(reward)
            k += 1
        got[feedback] = (
            [{key: v for key, v in f.items() if key not in ("shown", "next_labels")} for f in answered(infos)],
            sum(rewards),
        )
        if len(infos) > 1:
            with pytest.raises(TomEnvsError, match="finished QA episode"):
                answered(infos[:-1] if feedback == "episode" else infos[:-1] + [{"answers": []}])
            with pytest.raises(TomEnvsError, match="finished QA episode"):
                answered(infos[:-1])  # a partial episode, under either feedback
    assert got["episode"] == got["step"]
    with pytest.raises(TomEnvsError, match="got none"):
        answered([])
