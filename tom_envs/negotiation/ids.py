"""The negotiation family's registered ids (negotiation); ``import tom_envs`` imports this module (its family's
``envs``), and this is the one place its ids are declared."""

from __future__ import annotations

from tom_envs.registration import register, retire

_NEGOTIATION = "tom_envs.negotiation.env:NegotiationEnv"
register(
    "tom/Negotiation-v1",
    _NEGOTIATION,
    kind="aec",
    kwargs={"scenario": "hopkins_hmo"},
    family="negotiation",
    summary="multi-party, multi-topic negotiation with a mediator seat (002): scripted parties, consensus tracking, CC/TLE/RL/ME/MI",
    example_kwargs={"party_seats": "all"},
    builtin=True,
)
for _lvl, _what in (("Easy", "accommodating / avoiding parties"), ("Medium", "parties with no conflict mode"),
                    ("Hard", "competing parties")):
    register(
        f"tom/Negotiation-{_lvl}-v1",
        _NEGOTIATION,
        kind="aec",
        kwargs={"scenario": "hopkins_hmo", "difficulty": _lvl.lower()},
        pinned=("difficulty",),
        family="negotiation",
        summary=f"002's ProMediate-{_lvl}: {_what}; the mediator seat is `mediator_0`",
        builtin=True,
    )

# v2: the release's turn order (the mediator first; the parties only when it passes) and its opening line
_NEGOTIATION_V2 = "tom_envs.negotiation.env_v2:NegotiationEnvV2"
register(
    "tom/Negotiation-v2",
    _NEGOTIATION_V2,
    kind="aec",
    kwargs={"scenario": "hopkins_hmo"},
    family="negotiation",
    summary="negotiation as v1 in the release's turn order: the mediator decides first, the parties only when it "
            "passes; the release's opening line",
    example_kwargs={"party_seats": "all"},
    builtin=True,
)
for _lvl, _what in (("Easy", "accommodating / avoiding parties"), ("Medium", "parties with no conflict mode"),
                    ("Hard", "competing parties")):
    register(
        f"tom/Negotiation-{_lvl}-v2",
        _NEGOTIATION_V2,
        kind="aec",
        kwargs={"scenario": "hopkins_hmo", "difficulty": _lvl.lower()},
        pinned=("difficulty",),
        family="negotiation",
        summary=f"002's ProMediate-{_lvl} ({_what}) in the release's turn order, with its opening line",
        builtin=True,
    )

for _lvl in ("", "-Easy", "-Medium", "-Hard"):
    retire(f"tom/Negotiation{_lvl}-v0", f"use tom/Negotiation{_lvl}-v1: an intervention without an option no longer "
           "points to the parties' hidden first choices, party lines carry no motivation "
           "score, the mediator's 'prediction' key is gone (score predictions with "
           "wrappers.AECToMRecorder) and rewards come once, at the end")
