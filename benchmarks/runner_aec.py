"""PettingZoo AEC episodes, one by one or in lockstep, a policy per seat.

* :func:`play_aec` -- one episode; every seat with a policy acts (``env.last()`` → ``act``), finished
  seats step ``None``, and the predictor seat of an :class:`~wrappers.AECToMRecorder` hands its
  prediction to the recorder first.
* :func:`play_aec_lockstep` -- many episodes at once: each tick, the episodes whose acting seat has the
  same policy are served by one batched call naming their slots (``slots=``), since the seats of
  different AEC episodes come up at different times.

Both return :class:`~benchmarks.runner_episodes.EpisodeResult` s. :class:`Seats` says which policy
plays which seat (and seeds each distinct policy); :func:`episode_policy_stats` picks one episode's
entry from each policy's ``episode_stats()``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks import policy_seeds
from benchmarks.channels import seat_seed
from benchmarks.errors import RunnerError
from benchmarks.runner_envs import recorder_of
from benchmarks.runner_episodes import EpisodeResult, PolicySeed


def play_aec(
    env: Any, policies: Any, seed: int, *, options: dict | None = None, policy_seed: PolicySeed | None = None
) -> EpisodeResult:
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
    seats = Seats(policies)
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


def play_aec_lockstep(
    envs: Sequence[Any],
    policies: Any,
    seeds: Sequence[int],
    *,
    options: Sequence[dict | None] | None = None,
    policy_seed: PolicySeed | None = None,
) -> list[EpisodeResult]:
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
    seats = Seats(policies)
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
            predicting = [
                i for i in members if recorders[i] is not None and episodes[i].turn[0] == recorders[i].predictor
            ]
            if predicting:
                obs, infos = _turn_views(episodes, predicting)
                for i, prediction in zip(predicting, pol.predict_batch(obs, infos, slots=predicting)):
                    recorders[i].record_prediction(prediction)
            obs, infos = _turn_views(episodes, members)
            for i, action in zip(members, pol.act_batch(obs, infos, slots=members)):
                episodes[i].step(action)
    stats = [list(pol.episode_stats()) if hasattr(pol, "episode_stats") else None for pol in seats.distinct]
    return [
        EpisodeResult(s, ep.summary(), ep.info, policy_stats=episode_policy_stats(stats, i))
        for i, (s, ep) in enumerate(zip(seeds, episodes))
    ]


class Seats:
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


def episode_policy_stats(stats: Sequence[list | None], episode: int) -> dict[str, Any] | None:
    """Each distinct policy's ``episode_stats()`` entry for ``episode``, by policy index (None when none has one)."""
    kept = {str(k): s[episode] for k, s in enumerate(stats) if s is not None and episode < len(s)}
    return kept or None
