"""The negotiation family's registered ids (negotiation); ``import tom_envs`` imports this module (its family's
``envs``), and this is the one place its ids are declared."""

from __future__ import annotations

from tom_envs.registration import register, retire

_LEVELS = (
    ("Easy", "accommodating / avoiding parties"),
    ("Medium", "parties with no conflict mode"),
    ("Hard", "competing parties"),
)


def _register_version(version: str, entry_point: str, summary: str, level_summary: str) -> None:
    """``tom/Negotiation-<version>`` and its three difficulty levels (``level_summary`` formats ``lvl``, ``what``)."""
    register(
        f"tom/Negotiation-{version}",
        entry_point,
        kind="aec",
        kwargs={"scenario": "hopkins_hmo"},
        family="negotiation",
        summary=summary,
        example_kwargs={"party_seats": "all"},
        builtin=True,
    )
    for lvl, what in _LEVELS:
        register(
            f"tom/Negotiation-{lvl}-{version}",
            entry_point,
            kind="aec",
            kwargs={"scenario": "hopkins_hmo", "difficulty": lvl.lower()},
            pinned=("difficulty",),
            family="negotiation",
            summary=level_summary.format(lvl=lvl, what=what),
            builtin=True,
        )


_register_version(
    "v1",
    "tom_envs.negotiation.env:NegotiationEnv",
    "multi-party, multi-topic negotiation with a mediator seat (002): scripted parties, consensus tracking, CC/TLE/RL/ME/MI",
    "002's ProMediate-{lvl}: {what}; the mediator seat is `mediator_0`",
)
# v2: the release's turn order (the mediator first; the parties only when it passes) and its opening line
_register_version(
    "v2",
    "tom_envs.negotiation.env_v2:NegotiationEnvV2",
    "negotiation as v1 in the release's turn order: the mediator decides first, the parties only when it passes; "
    "the release's opening line",
    "002's ProMediate-{lvl} ({what}) in the release's turn order, with its opening line",
)

for _lvl in ("", "-Easy", "-Medium", "-Hard"):
    retire(
        f"tom/Negotiation{_lvl}-v0",
        f"use tom/Negotiation{_lvl}-v1: an intervention without an option no longer "
        "points to the parties' hidden first choices, party lines carry no motivation "
        "score, the mediator's 'prediction' key is gone (score predictions with "
        "wrappers.AECToMRecorder) and rewards come once, at the end",
    )
