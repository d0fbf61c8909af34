"""RL settings of live persuasion v3 (``tom-envs rl --env tom/Persuasion-v3``): :data:`LIVE_V3`.

The same splits as v1/v2 (:mod:`benchmarks.persuasion.rl`: training personas procrastinator, conformist,
skeptic, busy in families health, charity, shopping, work; ``test`` holds out cautious and thrifty;
``test-family`` holds out leisure). Every family stays in the env's family list in the same order, each
keeping only the split's personas (its prior renormalised over them), so each episode's exact references
(``tom_outcome()``: oracle, Bayes-optimal fair, best memory-less, best open-loop) are those of the split's
own prior. PPO's policy sees only the current observation, so the best it can reach is the exact best
memory-less persuader; RecurrentPPO can remember the replies: RecurrentPPO − PPO is the value of memory
for a learner, beside the exact value of memory (Bayes − best memory-less).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from benchmarks.persuasion.rl import LIVE, SPLITS, EpisodeReturn, SplitFamilies, exact_rows, split_of
from benchmarks.rl import RLTask, Row
from tom_envs.errors import TomEnvsError

V3 = "tom/Persuasion-v3"
HORIZON = 4
#: The v3 reference persuaders played on the same split and seeds (``policies.persuasion.v3``).
REFERENCES = ("echo", "open-loop", "memoryless", "bayes")
#: The env's exact references (``tom_outcome()`` keys) -> their rows' policy names.
EXACT = {
    "open_loop_success": "exact best open-loop",
    "memoryless_success": "exact best memory-less",
    "bayes_success": "exact bayes",
    "oracle_success": "exact oracle",
}
_SPLIT_FAMILIES: dict[str, tuple[Any, ...]] = {}


def split_families(split: str) -> tuple[Any, ...]:
    """The five v3 families, each keeping the split's personas (one object per split, so their exact
    references are computed once per process)."""
    from tom_envs.persuasion.mind_v3 import FAMILIES_V3
    from tom_envs.persuasion.principles import InvalidPersona

    personas, _ = split_of(split)
    if split not in _SPLIT_FAMILIES:
        out = []
        for fam in FAMILIES_V3:
            keep = [i for i, p in enumerate(fam.personas) if p.name in personas]
            if not keep:
                raise InvalidPersona(f"family {fam.name!r} has none of the split's personas {personas}")
            out.append(
                replace(fam, personas=tuple(fam.personas[i] for i in keep), weights=tuple(fam.weights[i] for i in keep))
            )
        _SPLIT_FAMILIES[split] = tuple(out)
    return _SPLIT_FAMILIES[split]


def make_env(env_id: str, split: str, **env_kwargs: Any) -> Any:
    """The persuader's env of ``split`` (horizon :data:`HORIZON`); ``env_kwargs``: the env's own keyword
    arguments from ``--env-kwargs`` (e.g. ``{"expose_state": true}``)."""
    import tom_envs

    if env_id != V3:
        raise TomEnvsError(f"{env_id!r} is not live persuasion v3 ({V3})")
    _, families = split_of(split)
    env = tom_envs.make(env_id, horizon=HORIZON, families=list(split_families(split)), **env_kwargs)
    return EpisodeReturn(SplitFamilies(env, families))


def references(env_id: str, split: str, seeds: Sequence[int], **env_kwargs: Any) -> list[Row]:
    """Rows of v3's reference persuaders on ``split``, episodes ``seeds``, then the env's exact values."""
    from benchmarks.rl_eval import reference_rows
    from policies.persuasion import v3

    classes = {
        "echo": v3.EchoPersuaderV3,
        "open-loop": v3.OpenLoopPersuaderV3,
        "memoryless": v3.MemorylessPersuaderV3,
        "bayes": v3.BayesPersuaderV3,
    }
    policies = {
        name: (
            _on_split(classes[name], split),
            "the persuader's own prediction (its posterior)"
            if name == "bayes"
            else "the persuader's own prediction (the last reply)"
            if name in ("memoryless", "echo")
            else None,
        )
        for name in REFERENCES
    }
    rows = reference_rows(LIVE_V3, env_id, split, seeds, policies, "persuasion", env_kwargs)
    return exact_rows(env_id, split, seeds, rows[0], env_kwargs, EXACT, make_env) + rows


def _on_split(cls: Any, split: str) -> Any:
    """A factory of ``cls`` planning with the split's families (their prior is the split's)."""
    families = {f.name: f for f in split_families(split)}
    return lambda: cls(families=families)


LIVE_V3 = RLTask(
    env_ids=(V3,),
    make_env=make_env,
    outcome="success",
    splits={name: f"personas {', '.join(p)} in families {', '.join(f)}" for name, (p, f) in SPLITS.items()},
    steps=100_000,
    horizon=HORIZON,
    hyper=LIVE.hyper,  # v1/v2's settings: the same persuader networks, so the rows compare
    references=references,
    env_kwargs=True,
    task_kwargs=("horizon", "families"),
    notes=(
        f"horizon T = {HORIZON}; the references (tom_outcome()) are exact for the split's prior; PPO sees the "
        "current reply only (its ceiling: the exact best memory-less), RecurrentPPO can remember",
    ),
    episodes=500,
    n_envs=8,
)
