"""The negotiation family (seed 002, ProMediate) as a plugin (:class:`tom_envs.family.Family`)."""

from __future__ import annotations

from tom_envs.download import Dataset
from tom_envs.family import Family

# long AEC episodes: the information-rule checker plays fewer. What is public (the record every seat sees:
# the observation's head, stated stances and silences, info["state"]) and what a party knows of itself is
# declared on the env (NegotiationEnv.tom_public / tom_private / tom_known)
FAMILY = Family.standard(
    "negotiation",
    download=True,
    order=40,
    rl=("benchmarks.negotiation.rl:TASK",),
    crossplay=("benchmarks.negotiation.crossplay:TASK",),
    probe={"episodes": 10},
)


def dataset() -> Dataset:
    """ProMediate-Eval's cases, as ``tom-envs data list`` shows them."""
    from tom_envs.negotiation.download import REPOSITORY
    from tom_envs.registration import reader_ids

    ids = reader_ids("tom_envs.negotiation.env:NegotiationEnv") + reader_ids(
        "tom_envs.negotiation.env_v2:NegotiationEnvV2"
    )
    return Dataset(
        "negotiation",
        "002 ProMediate",
        ids,
        f"https://github.com/{REPOSITORY}",
        "cases/<case>.json for the six cases (instruction, issues, options, config, names[, topics])",
        "six self-written scenarios of ours for CI (tom_envs/negotiation/scenarios); the downloaded "
        "cases replace them in --scenarios all",
        f"tom_envs.make_aec('{ids[0]}', scenario=Scenario.from_file(PATH)); "
        "python -m benchmarks negotiation --scenarios all (or PATH,...)",
        FAMILY.download,
    )
