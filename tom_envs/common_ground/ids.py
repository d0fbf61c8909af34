"""The Common-ToM family's registered ids (common_ground); ``import tom_envs`` imports this module (its family's
``envs``), and this is the one place its ids are declared."""

from __future__ import annotations

from tom_envs.registration import register, retire

register(
    "tom/CommonToM-v2",
    "tom_envs.common_ground.env:CommonToMEnv",
    kwargs={"split": "test", "context": "online"},
    family="common_ground",
    summary="Common-ToM (003): yes/no 1st-3rd order belief questions, sentence by sentence (`data_dir=`; default: bundled sample)",
    builtin=True,
    sb3=False,
)

retire(
    "tom/CommonToM-v0",
    "use tom/CommonToM-v2, whose answers and rewards come back when the conversation ends "
    "(feedback='step' returns them with each step, as v0 did)",
)
retire(
    "tom/CommonToM-v1",
    "use tom/CommonToM-v2, which asks every question of each scored question's (sentence, "
    "event) group, so that counting the questions tells nothing; the scored questions are "
    "the same. CommonToMEnv(fillers=False) asks what v1 asked",
)
