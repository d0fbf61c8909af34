"""The persuasion family as Inspect AI tasks (docs/harnesses.md).

* ``persuasive_tom`` (``tom/PersuasiveToM-v1``): PersuasiveToM's questions under the authors'
  protocol, as ``tom-envs persuasion --env qa --policy llm --protocol authors`` puts them: the
  published option order with six option slots, the release's message layout (the prompt texts
  read from the release's ``evaluation/evaluate.py`` next to ``data_dir`` or given by
  ``authors_prompts``, else ours), its reading rule and re-asks at T = 0.7
  (:class:`policies.persuasion.qa_protocol.AuthorsProtocol` on the generic
  :class:`policies.llm.qa.LLMQAAnswerer`). One Sample per question; accuracy overall and per
  question type (``group``), as the benchmark's accuracy row.
* ``persuasion`` (``tom/Persuasion-v2``): live persuasion, the eval's model as the LLM persuader
  (:class:`policies.persuasion.llm.LLMPersuader`, on the env's text) in each scenario family;
  with ``reader=llm`` the persuadee's reading of each line is the model role ``persuadee``
  (:class:`policies.persuasion.llm.LLMReader`; unbound: the eval's model). One Sample per
  (family, seed), as ``tom-envs persuasion --env live --policy llm`` plays them; scores per
  episode: ``success``, ``regret`` (against the Bayes-optimal fair persuader), and the literal ToM
  per state (``desire_accuracy``, ``belief_accuracy``, ``intention_accuracy``, percent).
* ``persuasion_two_seat`` (``tom/Persuasion-TwoSeat-v2``): both seats are language models, the
  persuader the eval's model and the persuadee (:class:`policies.persuasion.llm.LLMPersuadee`,
  reading its own prompt: persona and current mind) the model role ``persuadee``; one Sample per
  (family, seed), played by :func:`benchmarks.persuasion.live.play_two_seat`. Scores: the
  persuader's ``success``, ``regret`` and literal ToM per state, the persuadee's literal ToM
  (``persuadee_strategy_accuracy``: the persuader's next strategy, percent) and its ``fidelity``.

Every shared parameter is honoured as the command honours the same option, but ``episodes`` and
``horizon`` on ``persuasive_tom`` (every question once, as the command's first pass; dialogues are as
long as they are) and ``data_dir`` on the live tasks (they read no dataset): those are refused
(:data:`QA_REFUSES`, :data:`LIVE_REFUSES`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from benchmarks.harnesses.inspect_spec import EpisodeRun, EpisodeTask, InspectTaskError, QAItem, QARun, QATask

QA_OPTIONS = {"qtypes": None, "split": "all", "authors_prompts": None, "qa_mode": "zero_shot", "max_tokens": None}
LIVE_OPTIONS = {"families": None, "reader": "scripted"}
QA_REFUSES = {
    "episodes": "the task asks every scored question once, as the command's first pass (--repetitions 1); "
    "Inspect's --limit takes the first N, --epochs asks each again",
    "horizon": "a dialogue is as long as the dataset has it",
}
LIVE_REFUSES = {"data_dir": "live persuasion reads no dataset (its scenario families are -T families)"}
TWO_SEAT_METRICS = (
    "success",
    "regret",
    "desire_accuracy",
    "belief_accuracy",
    "intention_accuracy",
    "persuadee_strategy_accuracy",
    "fidelity",
    "persuadee_return",
)
LIVE_METRICS = ("success", "regret", "desire_accuracy", "belief_accuracy", "intention_accuracy")


# ---------------------------------------------------------------------- QA: the authors' protocol
def _qa_env(options: Mapping[str, Any]) -> Any:
    from benchmarks.persuasion.qa_answers import QA_ENV
    from benchmarks.qa_llm import make_qa_env
    from policies.llm.parsing import AUTHORS_LETTERS

    qtypes = options["qtypes"]
    if isinstance(qtypes, str):
        qtypes = [q.strip() for q in qtypes.split(",") if q.strip()]
    return make_qa_env(
        QA_ENV,
        data_dir=options["data_dir"],
        qtypes=qtypes,
        split=options["split"],
        shuffle_choices=False,
        option_slots=len(AUTHORS_LETTERS),
    )


def _protocol(options: Mapping[str, Any]) -> Any:
    return _authors_protocol(options["data_dir"], options["authors_prompts"])


@functools.lru_cache(maxsize=8)
def _authors_protocol(data_dir: str | None, path: str | None) -> Any:
    """The protocol with its prompt texts, read once per data folder and prompt file (not per question)."""
    from benchmarks.persuasion.qa_prompts import authors_prompts
    from policies.persuasion.qa_protocol import AuthorsProtocol

    return AuthorsProtocol(authors_prompts("authors", data_dir, path))


def qa_items(options: Mapping[str, Any]) -> list[QAItem]:
    """Every scored question of the dialogues (dialogue ``i`` seeded ``seed + i``, as the benchmark's
    first repetition), with the authors' messages and the gold option."""
    from policies.llm.slots import open_slots
    from tom_envs.qa import answered, walk

    env, protocol, seed = _qa_env(options), _protocol(options), int(options["seed"])
    items = []
    for i in range(len(env.episodes)):
        seen, infos = walk(env, seed + i, {"episode": i})
        slot = open_slots(0, 0, [seed + i])[0]
        for k, (o, fact) in enumerate(zip(seen, answered(infos, with_fillers=True))):
            if not fact.get("scored", True):
                continue
            ask = protocol.ask(o, str(options["qa_mode"]), slot)
            messages = ask.messages or [{"role": "user", "content": ask.prompt}]
            items.append(
                QAItem(
                    f"{fact['episode_id']}:{k}",
                    o,
                    int(fact["answer"]),
                    str(fact["qtype"]),
                    list(messages),
                    {"dialogue": str(fact["episode_id"]), "turn": int(fact["turn"]), "episode_seed": seed + i},
                )
            )
    return items


def qa_answer(run: QARun, item: QAItem) -> tuple[int | None, dict[str, Any]]:
    """The generic answerer under the authors' protocol, as ``--protocol authors --policy llm`` builds it."""
    from benchmarks.policy_seeds import policy_seed
    from policies.llm.qa import LLMQAAnswerer

    opts = run.options
    answerer = LLMQAAnswerer(
        run.backend,
        mode=str(opts["qa_mode"]),
        scoring=False,
        seed=run.seed,
        max_resamples=int(opts["max_resamples"]),
        fallback=str(opts["fallback"]),
        max_tokens=None if opts["max_tokens"] is None else int(opts["max_tokens"]),
        protocol=_protocol(opts),
    )
    answerer.reset(policy_seed(int(item.metadata["episode_seed"])))  # the run's policy stream, not the env seed
    index = answerer.act(item.observation, {})
    log = answerer.last_step_log()[0]
    return int(index), {"parse_rule": log.get("parse_rule"), "stats": answerer.episode_stats()[0]}


# ---------------------------------------------------------------------- live persuasion
def live_episodes(options: Mapping[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    """Episode ``i`` of every scenario family seeded ``seed + i``, as the live rows play them."""
    from benchmarks.persuasion.live import family_names

    first, n = int(options["seed"]), int(options["episodes"])
    return [
        (f"{fam}:{first + i}", first + i, {"family": fam})
        for fam in family_names(options["families"])
        for i in range(n)
    ]


def live_check(options: Mapping[str, Any]) -> None:
    """``-T reader`` is ``scripted`` or ``llm`` (said when the task is made, not by every Sample)."""
    if options["reader"] not in ("scripted", "llm"):
        raise InspectTaskError(f"-T reader must be scripted or llm, got {options['reader']!r}")


def live_play(run: EpisodeRun) -> dict[str, Any]:
    """One live episode with the LLM persuader, as :func:`benchmarks.persuasion.live.live_rows` plays it."""
    from benchmarks.persuasion.live import LIVE_HORIZON, family_names, play_episode
    from benchmarks.runner_envs import make_env
    from policies.persuasion.llm import LLMPersuader, LLMReader
    from wrappers import TextObservation

    opts = run.options
    resamples, fallback = int(opts["max_resamples"]), str(opts["fallback"])
    live_check(opts)
    reader = None
    if opts["reader"] == "llm":
        reader = LLMReader(run.backends["persuadee"], max_resamples=resamples, fallback=fallback)
    env = TextObservation(
        make_env(
            run.env_id,
            record=True,
            horizon=int(opts["horizon"] or LIVE_HORIZON),
            families=family_names(opts["families"]),
            reader=reader,
        )
    )
    policy = LLMPersuader(run.backends[None], max_resamples=resamples, fallback=fallback)
    episode = play_episode(env, policy, run.seed, options={"family": run.episode["family"]})
    return {"family": run.episode["family"], "seed": run.seed, "episode": episode}


def two_seat_play(run: EpisodeRun) -> dict[str, Any]:
    """One two-seat episode, both seats language models (the persuadee on its role)."""
    from benchmarks.persuasion.live import LIVE_HORIZON, family_names, play_two_seat
    from benchmarks.runner_envs import make_env
    from policies.persuasion.llm import LLMPersuadee, LLMPersuader

    opts = run.options
    resamples, fallback = int(opts["max_resamples"]), str(opts["fallback"])
    env = make_env(
        run.env_id, record=True, horizon=int(opts["horizon"] or LIVE_HORIZON), families=family_names(opts["families"])
    )
    episode = play_two_seat(
        env,
        LLMPersuader(run.backends[None], max_resamples=resamples, fallback=fallback),
        LLMPersuadee(run.backends["persuadee"], max_resamples=resamples, fallback=fallback),
        run.seed,
        options={"family": run.episode["family"]},
    )
    return {"family": run.episode["family"], "seed": run.seed, "episode": episode}


#: Live persuasion, the eval's model persuading.
LIVE_TASK = EpisodeTask(
    name="persuasion",
    env_id="tom/Persuasion-v2",
    play=live_play,
    metrics=LIVE_METRICS,
    roles=("persuadee",),
    options=LIVE_OPTIONS,
    episodes=live_episodes,
    refuses=LIVE_REFUSES,
    check=live_check,
    reward="-regret",
    description="live persuasion: the model persuades; the persuadee's reader on a model role",
)

TASKS = (
    QATask(
        name="persuasive_tom",
        env_id="tom/PersuasiveToM-v1",
        items=qa_items,
        answer=qa_answer,
        options=QA_OPTIONS,
        description="PersuasiveToM's questions under the authors' protocol",
        refuses=QA_REFUSES,
    ),
    LIVE_TASK,
    # the same episodes, the persuadee's seat a model too (its role; no reader to choose)
    replace(
        LIVE_TASK,
        name="persuasion_two_seat",
        env_id="tom/Persuasion-TwoSeat-v2",
        play=two_seat_play,
        metrics=TWO_SEAT_METRICS,
        options={"families": None},
        check=None,
        description="two-seat live persuasion: the model persuades, the persuadee role answers",
    ),
)
