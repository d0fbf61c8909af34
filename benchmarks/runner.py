"""The one evaluation runner: episodes of any registered env, one by one or in lockstep, scored by
the ToM recorder, and grid cells whose records are resumable (docs/architecture.md, "One spine").

Episodes:

* :func:`play` -- one single-agent (Gymnasium) episode: each step the policy predicts (when the
  env is wrapped in a :class:`~wrappers.ToMRecorder`; the prediction goes to the recorder), acts
  and observes.
* :func:`play_lockstep` -- many single-agent episodes at once through the policy's batched forms
  (``reset_batch``, ``predict_batch``, ``act_batch``, ``observe_batch``): one call per step serves
  every episode, so an LLM policy makes one backend call per prompting stage. The episodes of one
  batch must end at the same step (group them with :func:`lockstep_batches`).
* :func:`play_aec` -- one PettingZoo AEC episode; every seat with a policy acts (``env.last()`` →
  ``act``), finished seats step ``None``, and the predictor seat of an
  :class:`~wrappers.AECToMRecorder` hands its prediction to the recorder first.
* :func:`play_aec_lockstep` -- many AEC episodes at once: each tick, the episodes whose acting
  seat has the same policy are served by one batched call naming their slots (``slots=``), since
  the seats of different AEC episodes come up at different times.

Each returns :class:`EpisodeResult` (the recorder's episode summary, the last info, the per-step
records an ``on_step`` hook kept, the policy's per-episode counters). Envs come from the registry
(:func:`make_env`, :func:`env_id_for`), never from a class.

Grids: a :class:`Cell` says how to make its env and policy and what one record holds;
:func:`run_cell` runs the seeds missing from the cell's results file (see
:mod:`benchmarks.results`: locked, stamped, resumable) and returns every seed's record;
:func:`cell_records` yields the records without writing (what a Ray task returns).

Backend faults: :func:`cell_records` moves the retries an LLM episode's requests took out of its
counters into its record (:data:`benchmarks.results.FAULTS_FIELD`; rows: ``results.fault_columns``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tom_envs
from benchmarks import policy_seeds
from benchmarks.channels import _check_fit, _for_policy, _policy_seed, seat_seed
from benchmarks.distributed_scope import current_executor
from benchmarks.errors import RunnerError
from benchmarks.results import FAULTS_FIELD, ResultsFile, config_key

PolicySeed = Callable[[int], int]
StepHook = Callable[["Step"], Any]


@dataclass(frozen=True)
class Step:
    """One step as an ``on_step`` hook sees it.

    Attributes:
        index: the step's number in the episode (0-based).
        observation, info: what the policy saw before the step.
        prediction: what the policy predicted (None when nothing was recorded).
        action: what it did.
        next_observation, reward, terminated, truncated, next_info: what ``step`` returned.
        log: ``{"predict": ..., "act": ...}`` from the policy's ``last_step_log()`` in lockstep
            (prompts, replies, parse failures...), None when the policy keeps no log.
        record: the ToM recorder's record of the step (None without a recorder). It is read
            from the recorder, out of band: the policy never gets it (``next_info`` holds
            nothing of the recorder's before the episode's last step).
    """

    index: int
    observation: Any
    info: dict
    prediction: Any
    action: Any
    next_observation: Any
    reward: float
    terminated: bool
    truncated: bool
    next_info: dict
    log: dict | None = None
    record: dict | None = None


@dataclass
class EpisodeResult:
    """What one episode produced.

    Attributes:
        seed: the env's seed.
        summary: the ToM recorder's episode summary; without a recorder ``{"return", "steps"}``
            (single-agent) or ``{"returns": {seat: return}, "steps": actions taken}`` and the env's own
            ``info["episode"]`` (AEC).
        info: the last info of the episode.
        steps: the non-None values the ``on_step`` hook returned, in order.
        policy_stats: the policy's ``episode_stats()`` entry for the episode, if it has one.
    """

    seed: int
    summary: dict[str, Any]
    info: dict
    steps: list[Any] = field(default_factory=list)
    policy_stats: dict[str, Any] | None = None


# ---------------------------------------------------------------------- envs from the registry
def env_id_for(family: str, kind: str = "gymnasium", **kwargs: Any) -> str:
    """The registered id of ``family`` and ``kind`` whose default kwargs include ``kwargs`` (the newest
    version when several match), e.g. ``env_id_for(family, game="RPS")`` for a family whose ids take a ``game``."""
    matches = [rec.id for rec in tom_envs.REGISTRY.values()
               if rec.family == family and rec.kind == kind and all(rec.kwargs.get(k) == v for k, v in kwargs.items())]
    if not matches:
        raise RunnerError(f"no registered {kind} env of family {family!r} with {kwargs}; registered: "
                          f"{', '.join(tom_envs.ids(family=family)) or 'none'}")
    return max(matches, key=_version)


def _version(env_id: str) -> int:
    tail = env_id.rsplit("-v", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def make_env(env_id: str, record: bool | None = None, **kwargs: Any) -> Any:
    """A registered env: Gymnasium ids through ``gymnasium.make``, PettingZoo ids as AEC envs
    (``tom_envs.make_aec``), wrapped in the ToM recorder.

    Args:
        env_id: a registered id.
        record: True: wrap in the recorder (an env without the ToM contract is an error); None
            (default): wrap when the env keeps the contract (an AEC env: when it names a predictor);
            False: never.
        kwargs: constructor arguments.
    """
    from tom_envs.tom import ToMContractError, tom_spec_of

    rec = tom_envs.registration.record(env_id)
    env = tom_envs.make(env_id, **kwargs) if rec.kind == "gymnasium" else tom_envs.make_aec(env_id, **kwargs)
    if record is False:
        return env
    try:
        spec = tom_spec_of(env)
    except ToMContractError:
        if record:
            raise
        return env
    import wrappers

    if rec.kind == "gymnasium":
        return wrappers.ToMRecorder(env)
    aec_recorder = getattr(wrappers, "AECToMRecorder", None)
    if aec_recorder is None or spec.predictor is None:
        if record:
            raise RunnerError(f"{env_id} has no predictor seat to record (ToMSpec.predictor is None)")
        return env
    return aec_recorder(env)


def recorder_of(env: Any) -> Any:
    """The ToM recorder in ``env``'s wrapper chain, or None."""
    import wrappers

    kinds = tuple(k for k in (getattr(wrappers, "ToMRecorder", None), getattr(wrappers, "AECToMRecorder", None)) if k)
    while env is not None:
        if isinstance(env, kinds):
            return env
        env = getattr(env, "env", None)
    return None


# ---------------------------------------------------------------------- episodes
def play(env: Any, policy: Any, seed: int, *, options: dict | None = None, policy_seed: PolicySeed | None = None,
         on_step: StepHook | None = None) -> EpisodeResult:
    """One single-agent episode of ``env`` (seeded ``seed``) played by ``policy``.

    Args:
        env: a Gymnasium env, usually wrapped in :class:`~wrappers.ToMRecorder` (then the policy's
            ``predict`` goes to the recorder before every step).
        policy: implements ``reset``/``act``/``observe`` (and ``predict``), see :mod:`policies.base`.
        seed: the env's seed; the policy's is ``policy_seed(seed)`` (default: :func:`benchmarks.policy_seeds.policy_seed`,
            the run's own stream: no function of ``seed`` a policy could invert).
        options: reset options (e.g. which dialogue).
        on_step: called with every :class:`Step`; its non-None results are kept in ``steps``.
    """
    recorder = recorder_of(env)
    _check_fit(policy, [env])
    policy.reset(_policy_seed(seed, policy_seed))
    obs, info = env.reset(seed=seed, options=options)
    steps: list[Any] = []
    total, index = 0.0, 0
    while True:
        prediction = None
        if recorder is not None:
            prediction = policy.predict(obs, info)
            recorder.record_prediction(prediction)
        action = policy.act(obs, info)
        new_obs, reward, terminated, truncated, new_info = env.step(action)
        policy.observe(new_obs, reward, terminated, truncated, _for_policy(new_info, recorder))
        total += float(reward)
        if on_step is not None:
            kept = on_step(Step(index, obs, info, prediction, action, new_obs, reward, terminated, truncated, new_info,
                                record=_last_record(recorder)))
            if kept is not None:
                steps.append(kept)
        obs, info, index = new_obs, new_info, index + 1
        if terminated or truncated:
            return EpisodeResult(seed, _summary(recorder, info, total, index), info, steps)


def play_lockstep(envs: Sequence[Any], policy: Any, seeds: Sequence[int], *,
                  options: Sequence[dict | None] | None = None, policy_seed: PolicySeed | None = None,
                  on_step: StepHook | None = None) -> list[EpisodeResult]:
    """Episodes ``seeds`` on ``envs`` (one env each) in lockstep through ``policy``'s batched forms.

    Every step makes one ``predict_batch`` (when the envs are recorded), one ``act_batch`` and one
    ``observe_batch`` call for all episodes. ``options`` gives each episode's reset options. The
    episodes must end at the same step (:class:`~benchmarks.errors.RunnerError` otherwise).
    Arguments otherwise as :func:`play`; ``Step.log`` carries the policy's step log.
    """
    if len(envs) != len(seeds):
        raise RunnerError(f"lockstep needs one env per episode, got {len(envs)} envs for {len(seeds)} seeds")
    opts = list(options) if options is not None else [None] * len(seeds)
    recorders = [recorder_of(env) for env in envs]
    _check_fit(policy, envs)
    policy.reset_batch([_policy_seed(s, policy_seed) for s in seeds])
    obs, infos = map(list, zip(*(env.reset(seed=s, options=o) for env, s, o in zip(envs, seeds, opts))))
    step_log = getattr(policy, "last_step_log", None)
    steps: list[list[Any]] = [[] for _ in envs]
    totals = [0.0] * len(envs)
    index = 0
    while True:
        predictions: list[Any] = [None] * len(envs)
        pred_log = None
        if recorders[0] is not None:
            predictions = list(policy.predict_batch(obs, infos))
            pred_log = step_log() if step_log else None
        actions = policy.act_batch(obs, infos)
        act_log = step_log() if step_log else None
        results = []
        for k, env in enumerate(envs):
            if recorders[k] is not None:
                recorders[k].record_prediction(predictions[k])
            results.append(env.step(actions[k]))
        new_obs, rewards, terms, truncs, new_infos = map(list, zip(*results))
        policy.observe_batch(new_obs, rewards, terms, truncs,
                             [_for_policy(i, r) for i, r in zip(new_infos, recorders)])
        for k in range(len(envs)):
            totals[k] += float(rewards[k])
            if on_step is not None:
                log = {"predict": pred_log[k] if pred_log else None, "act": act_log[k] if act_log else None} \
                    if step_log else None
                kept = on_step(Step(index, obs[k], infos[k], predictions[k], actions[k], new_obs[k], rewards[k],
                                    terms[k], truncs[k], new_infos[k], log, _last_record(recorders[k])))
                if kept is not None:
                    steps[k].append(kept)
        ended = [t or u for t, u in zip(terms, truncs)]
        if any(ended) and not all(ended):
            raise RunnerError("episodes of one lockstep batch ended at different steps; lockstep needs a common "
                              "length (group the episodes with benchmarks.runner.lockstep_batches)")
        obs, infos, index = new_obs, new_infos, index + 1
        if all(ended):
            break
    stats_of = getattr(policy, "episode_stats", None)
    stats = list(stats_of()) if stats_of is not None else [None] * len(envs)
    return [EpisodeResult(s, _summary(r, i, t, index), i, st, ps)
            for s, r, i, t, st, ps in zip(seeds, recorders, infos, totals, steps, stats)]


def play_aec(env: Any, policies: Any, seed: int, *, options: dict | None = None,
             policy_seed: PolicySeed | None = None) -> EpisodeResult:
    """One PettingZoo AEC episode of ``env`` (seeded ``seed``).

    Args:
        env: an AEC env (``tom_envs.make_aec`` / :func:`make_env`), possibly wrapped in
            :class:`~wrappers.AECToMRecorder` (then the predictor seat's ``predict`` goes to it
            before each of its steps).
        policies: one policy for every seat that asks for an action, or a mapping seat → policy
            (a seat without one is a :class:`~benchmarks.errors.RunnerError`).
        seed, options, policy_seed: as :func:`play`. Every distinct policy is reset once: the ``k``-th (in the
            mapping's order) with the run's policy stream for seat ``k`` (given ``policy_seed``: a single one with
            ``policy_seed(seed)``, several with :func:`seat_seed` of it), so two copies do not mirror each other.
    """
    seats = _Seats(policies)
    for k, pol in enumerate(seats.distinct):
        pol.reset(seats.seed(seed, policy_seed, k))
    recorder = recorder_of(env)
    env.reset(seed=seed, options=options)
    episode = _AECEpisode(env, recorder)
    while episode.advance():
        agent, obs, info = episode.turn
        pol = seats.policy(agent)
        if recorder is not None and agent == recorder.predictor:
            recorder.record_prediction(pol.predict(obs, info))
        episode.step(pol.act(obs, info))
    return EpisodeResult(seed, episode.summary(), episode.info)


def play_aec_lockstep(envs: Sequence[Any], policies: Any, seeds: Sequence[int], *,
                      options: Sequence[dict | None] | None = None,
                      policy_seed: PolicySeed | None = None) -> list[EpisodeResult]:
    """AEC episodes ``seeds`` on ``envs`` (one env each) in lockstep through the policies' batched forms.

    At every tick each live episode's acting seat is found (finished seats step ``None``, as in
    :func:`play_aec`); the episodes are grouped by the policy of that seat, and each group makes
    one ``predict_batch`` (for the recorder's predictor seat) and one ``act_batch`` call with
    ``slots=`` naming its episodes, so an LLM policy serves every episode whose turn it is with one
    backend call per prompting stage. Every distinct policy opens one slot per episode
    (``reset_batch``) with the seed :func:`play_aec` would give it, so the results equal N calls of
    :func:`play_aec` for policies whose batched forms equal their single forms. Episodes may end at
    different ticks. Arguments otherwise as :func:`play_aec`; ``policy_stats`` carries each distinct
    policy's ``episode_stats()`` entry by policy index (when it keeps any).
    """
    if len(envs) != len(seeds):
        raise RunnerError(f"lockstep needs one env per episode, got {len(envs)} envs for {len(seeds)} seeds")
    opts = list(options) if options is not None else [None] * len(seeds)
    seats = _Seats(policies)
    for k, pol in enumerate(seats.distinct):
        pol.reset_batch([seats.seed(s, policy_seed, k) for s in seeds])
    recorders = [recorder_of(env) for env in envs]
    episodes = []
    for env, s, o, rec in zip(envs, seeds, opts, recorders):
        env.reset(seed=s, options=o)
        episodes.append(_AECEpisode(env, rec))
    live = list(range(len(envs)))
    while live:
        live = [i for i in live if episodes[i].advance()]
        groups: dict[int, list[int]] = {}
        for i in live:
            groups.setdefault(id(seats.policy(episodes[i].turn[0])), []).append(i)
        for members in groups.values():
            pol = seats.policy(episodes[members[0]].turn[0])
            predicting = [i for i in members if recorders[i] is not None
                          and episodes[i].turn[0] == recorders[i].predictor]
            if predicting:
                obs, infos = _turn_views(episodes, predicting)
                for i, prediction in zip(predicting, pol.predict_batch(obs, infos, slots=predicting)):
                    recorders[i].record_prediction(prediction)
            obs, infos = _turn_views(episodes, members)
            for i, action in zip(members, pol.act_batch(obs, infos, slots=members)):
                episodes[i].step(action)
    stats = [list(pol.episode_stats()) if hasattr(pol, "episode_stats") else None for pol in seats.distinct]
    return [EpisodeResult(s, ep.summary(), ep.info, policy_stats=_policy_stats(stats, i))
            for i, (s, ep) in enumerate(zip(seeds, episodes))]


class _Seats:
    """Which policy plays which seat: one policy for every seat, or a mapping seat → policy."""

    def __init__(self, policies: Any) -> None:
        self.table: Mapping[str, Any] | None = policies if isinstance(policies, Mapping) else None
        self.single = None if self.table is not None else policies
        members = self.table.values() if self.table is not None else [policies]
        self.distinct = list({id(p): p for p in members}.values())

    def policy(self, agent: str) -> Any:
        if self.table is None:
            return self.single
        pol = self.table.get(agent)
        if pol is None:
            raise RunnerError(f"no policy for seat {agent!r}; give one for each of {', '.join(self.table)}")
        return pol

    def seed(self, seed: int, policy_seed: PolicySeed | None, index: int) -> int | None:
        if policy_seed is None:
            return policy_seeds.policy_seed(seed, seat=index)
        return policy_seed(seed) if len(self.distinct) == 1 else seat_seed(policy_seed(seed), index)


class _AECEpisode:
    """One AEC episode being played: finished seats step None, rewards add up per seat."""

    def __init__(self, env: Any, recorder: Any) -> None:
        self.env, self.recorder = env, recorder
        self.info: dict = {}
        self.returns: dict[str, float] = {}
        self.actions = 0
        self.turn: tuple[str, Any, dict] = ("", None, {})

    def advance(self) -> bool:
        """Step the dead seats; True with :attr:`turn` set when a seat must act, False at the end."""
        env = self.env
        while env.agents:
            agent = env.agent_selection
            obs, _, terminated, truncated, self.info = env.last()
            if not (terminated or truncated):
                self.turn = (agent, obs, self.info)
                return True
            self._step(None)
        return False

    def step(self, action: Any) -> None:
        self.actions += 1
        self._step(action)

    def _step(self, action: Any) -> None:
        self.env.step(action)
        for seat, reward in getattr(self.env, "rewards", {}).items():
            self.returns[seat] = self.returns.get(seat, 0.0) + float(reward)

    def summary(self) -> dict[str, Any]:
        if self.recorder is not None:
            return self.recorder.episode_summary()
        return {"returns": self.returns, "steps": self.actions, **self.info.get("episode", {})}


def _turn_views(episodes: Sequence[_AECEpisode], members: Sequence[int]) -> tuple[list[Any], list[dict]]:
    return [episodes[i].turn[1] for i in members], [episodes[i].turn[2] for i in members]


def _policy_stats(stats: Sequence[list | None], episode: int) -> dict[str, Any] | None:
    kept = {str(k): s[episode] for k, s in enumerate(stats) if s is not None and episode < len(s)}
    return kept or None


def _summary(recorder: Any, info: dict, total: float, steps: int) -> dict[str, Any]:
    if recorder is not None:
        return recorder.episode_summary()
    return {"return": total, "steps": steps}


def _last_record(recorder: Any) -> dict | None:
    return None if recorder is None else recorder.last_record


def lockstep_batches(items: Sequence[Any], size: int, length: Callable[[Any], Any] | None = None) -> list[list[int]]:
    """Indices of ``items`` cut into lockstep batches of at most ``size``, items of equal
    ``length(item)`` together (first-seen order), so a batch never waits on a finished episode."""
    if size < 1:
        raise RunnerError(f"--lockstep must be at least 1, got {size}")
    groups: dict[Any, list[int]] = {}
    for k, item in enumerate(items):
        groups.setdefault(None if length is None else length(item), []).append(k)
    return [members[i:i + size] for members in groups.values() for i in range(0, len(members), size)]


def progress_bar(total: int, desc: str, enabled: bool | None = None) -> Any:
    """A tqdm bar on stderr, shown only when ``enabled`` (default: stderr is a terminal)."""
    from tqdm import tqdm

    show = sys.stderr.isatty() if enabled is None else enabled
    return tqdm(total=total, desc=desc, disable=not show, leave=False, file=sys.stderr)


# ---------------------------------------------------------------------- grid cells
class Cell:
    """What a grid cell must say so that :func:`run_cell` can run it (subclass it as a frozen dataclass).

    Subclasses define :meth:`config` (everything that determines an episode's record except the
    seed: it keys the results file), :meth:`make_env` and :meth:`make_policy`; the others have
    defaults. A ``family`` attribute (a field, or a ``ClassVar``) names the folder of its results
    files under ``--out`` (default ``cells``).
    """

    def config(self) -> dict[str, Any]:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def key(self) -> str:
        """The hash of :meth:`config` (:func:`benchmarks.results.config_key`)."""
        return config_key(self.config())

    def slug(self) -> str:
        """The readable part of the results file name."""
        return self.key

    def path(self, out: Path) -> Path:
        """``out / family / "<slug>_<key>.jsonl"``."""
        slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in self.slug())
        return Path(out) / getattr(self, "family", "cells") / f"{slug}_{self.key}.jsonl"

    def make_env(self) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def make_policy(self) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def play(self, env: Any, policy: Any, seed: int) -> EpisodeResult:
        """One episode (single-agent envs: :func:`play`; AEC envs: :func:`play_aec`), the policies'
        ``episode_stats()`` kept as :meth:`play_batch` keeps them (an episode's server retries too)."""
        aec = hasattr(env, "agent_iter")
        result = play_aec(env, policy, seed) if aec else play(env, policy, seed)
        stats = [list(p.episode_stats()) if hasattr(p, "episode_stats") else None for p in _Seats(policy).distinct]
        result.policy_stats = _policy_stats(stats, 0) if aec else (stats[0] or [None])[0]
        return result

    def play_batch(self, envs: Sequence[Any], policy: Any, seeds: Sequence[int]) -> list[EpisodeResult]:
        """Episodes in lockstep (single-agent envs: :func:`play_lockstep` keeping the policy's step
        logs; AEC envs: :func:`play_aec_lockstep`)."""
        if hasattr(envs[0], "agent_iter"):
            return play_aec_lockstep(envs, policy, seeds)
        return play_lockstep(envs, policy, seeds, on_step=lambda step: step.log)

    def record(self, seed: int, result: EpisodeResult) -> dict[str, Any]:
        """The record written for one episode (default: key, cell config, seed, the summary as
        ``episode`` with ``policy_stats`` when there are any, and ``steps`` when kept)."""
        episode = dict(result.summary)
        if result.policy_stats is not None:
            episode["policy_stats"] = result.policy_stats
        rec: dict[str, Any] = {"key": f"{self.key}:{seed}", "cell": self.config(), "seed": seed, "episode": episode}
        if result.steps:
            rec["steps"] = result.steps
        return rec

    def check(self, record: dict) -> None:
        """Raise ``KeyError``/``TypeError``/``ValueError`` if ``record`` has not the shape of this cell's."""
        record["episode"]

    def owns(self, record: dict) -> None:
        """Raise ``ValueError`` if ``record`` says it is another cell's: its ``key`` names another
        cell key, or its ``cell`` configuration hashes to another (a file copied or renamed by hand).
        Records that carry neither are judged by :meth:`check` alone."""
        key = record.get("key")
        if isinstance(key, str) and ":" in key and key.rpartition(":")[0] != self.key:
            raise ValueError(f"a record of cell {key.rpartition(':')[0]}, not of this cell {self.key}")
        if isinstance(record.get("cell"), Mapping) and config_key(record["cell"]) != self.key:
            raise ValueError(f"a record of another configuration (cell key {config_key(record['cell'])}, "
                             f"this cell's is {self.key})")

    def verify(self, record: dict) -> None:
        """:meth:`owns` then :meth:`check`: what the results file asks of each stored record."""
        self.owns(record)
        self.check(record)

    def results(self, out: Path) -> ResultsFile:
        """The cell's results file (records by seed), to be opened with ``with``; a stored record that
        is another cell's or of the wrong shape is set aside, never reused (:meth:`verify`)."""
        return ResultsFile(self.path(out), key=lambda rec: int(rec["seed"]), check=self.verify)


def cell_records(cell: Cell, seeds: Sequence[int], factory: Callable[[], Any] | None = None,
                 lockstep: int = 1) -> Iterator[dict]:
    """The records of ``cell`` for ``seeds``, yielded as episodes finish (nothing written).

    ``factory`` builds the policy instead of ``cell.make_policy()``; ``lockstep`` > 1 plays that
    many episodes at once (:meth:`Cell.play_batch`), 1 plays them one by one (:meth:`Cell.play`).
    """
    if not seeds:
        return
    policy = factory() if factory is not None else cell.make_policy()
    size = max(1, int(lockstep))
    envs = [cell.make_env() for _ in range(min(size, len(seeds)))]
    for start in range(0, len(seeds), size):
        batch = list(seeds[start:start + size])
        results = [cell.play(envs[0], policy, batch[0])] if size == 1 \
            else cell.play_batch(envs[:len(batch)], policy, batch)
        for seed, result in zip(batch, results):
            yield _record(cell, seed, result)


def _record(cell: Cell, seed: Any, result: EpisodeResult) -> dict:
    """``cell.record``, the episode's backend faults (the caller's count per request) moved into ``llm_faults``."""
    from policies.llm.caller import split_faults

    result.policy_stats, faults = split_faults(result.policy_stats)
    rec = cell.record(seed, result)
    if isinstance(rec, dict):
        rec.setdefault(policy_seeds.FIELD, str(policy_seeds.run_entropy()))  # replays and resumes the policies
        if faults is not None:
            rec.setdefault(FAULTS_FIELD, faults)
    return rec


def run_cell(cell: Cell, seeds: Sequence[int], out: Path, progress: bool | None = False,
             factory: Callable[[], Any] | None = None, lockstep: int = 1) -> list[dict]:
    """Every seed's record of ``cell``, playing only the seeds its results file lacks.

    The file is locked for the whole run (a concurrent run on the same file fails with
    :class:`~benchmarks.errors.ResultsLocked`); each record (each lockstep batch) is appended the
    moment it is done, so a killed run loses at most the episodes in flight. ``progress``: a bar
    over the episodes to play (None: only when stderr is a terminal). Under an executor
    (:mod:`benchmarks.distributed_scope`) it plays them elsewhere and this process appends them. The policies
    are seeded from the policy entropy the stored records name, else the run's (:mod:`benchmarks.policy_seeds`).
    """
    with cell.results(out) as results, policy_seeds.scope(policy_seeds.of_records(results.records.values())):
        todo = results.missing(seeds)
        executor = current_executor()
        if todo and executor is not None:
            executor.fill(cell, todo, results, lockstep=lockstep, factory=factory, progress=progress)
        elif todo:
            with progress_bar(len(todo), cell.slug().replace("_", " "), progress) as bar:
                for record in cell_records(cell, todo, factory, lockstep):
                    results.append(record)
                    bar.update(1)
        return [results[s] for s in seeds]
