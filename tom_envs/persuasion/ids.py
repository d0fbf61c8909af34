"""The persuasion family's registered ids (persuasion); ``import tom_envs`` imports this module (its family's
``envs``), and this is the one place its ids are declared."""

from __future__ import annotations

from tom_envs.registration import register, retire

register(
    "tom/PersuasiveToM-v1",
    "tom_envs.persuasion.qa_env:PersuasiveToMEnv",
    family="persuasion",
    summary="PersuasiveToM (001): desire/belief/intention and strategy questions, turn by turn (`data_dir=`; default: bundled sample)",
    builtin=True,
    sb3=False,
)
register(
    "tom/Persuasion-v1",
    "tom_envs.persuasion.mind_env:PersuasionMindEnv",
    family="persuasion",
    summary="live persuasion vs a persuadee with hidden desire, belief and intention (001's BDI); words read by a reader; success, regret vs the exact Bayes-optimal fair persuader",
    builtin=True,
    self_checked=True,
)
register(
    "tom/Persuasion-TwoSeat-v1",
    "tom_envs.persuasion.mind_two_seat:PersuasionMindAECEnv",
    kind="aec",
    family="persuasion",
    summary="persuader and persuadee seats (AEC); the persuadee voices a hidden desire/belief/intention (persona in its prompt) and is rewarded for fidelity",
    builtin=True,
)
register(
    "tom/Persuasion-v2",
    "tom_envs.persuasion.mind_env:PersuasionMindV2Env",
    family="persuasion",
    summary="live persuasion v2: a persuadee whose words are evidence, not labels (noisy, indirect, misleading replies; trust in tone; walk-outs); a reader of negation, insults, nonsense and stuffing; bounded references to horizon 10",
    builtin=True,
    self_checked=True,
)
register(
    "tom/Persuasion-TwoSeat-v2",
    "tom_envs.persuasion.mind_two_seat:PersuasionMindV2AECEnv",
    kind="aec",
    family="persuasion",
    summary="two seats on live persuasion v2 (AEC): the persuadee seat voices v2's mind (noisy, misleading, walk-outs) and is rewarded for fidelity",
    builtin=True,
)
register(
    "tom/Persuasion-v3",
    "tom_envs.persuasion.mind_env_v3:PersuasionMindV3Env",
    family="persuasion",
    summary="live persuasion v3: a persuadee whose source of trust and stake show one reply at a time; one pitch; exact Bayes, best memory-less, open-loop and oracle references (the value of memory: 14-24 points)",
    builtin=True,
)

retire(
    "tom/Persuasion-v0",
    "use tom/Persuasion-v1 (a persuadee with hidden desire, belief and intention); the v0 env "
    "has left the package (knowing its persuadee's state was worth nothing over the best "
    "fixed plan)",
)
retire(
    "tom/Persuasion-TwoSeat-v0",
    "use tom/Persuasion-TwoSeat-v1, whose persuadee seat voices a hidden desire, "
    "belief and intention (SimulatedMindPersuadee fills it); the v0 stance-only env "
    "has left the package",
)
retire(
    "tom/PersuasiveToM-v0",
    "use tom/PersuasiveToM-v1, whose answers and rewards come back when the dialogue ends; "
    "tom/PersuasiveToM-v1 with feedback='step' behaves as v0 did",
)
