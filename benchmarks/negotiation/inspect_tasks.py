"""The negotiation family as an Inspect AI task (docs/harnesses.md).

``negotiation`` (``tom/Negotiation-v1``): ProMediate's mediation with the eval's model as the LLM
mediator (``mediator``: ``llm-generic``, ``llm-social``, ``llm-social-paper``, or a scripted one),
in one conflict mode (``conflict_mode``; its difficulty level's registered env, in the version of ``-T env``), on each scenario
(``scenarios``, default the built-in six) × seed (the conflict mode picks the registered id;
``-T env`` may name that id only), as a Table 1 cell of ``tom-envs negotiation``
plays it (:class:`benchmarks.negotiation.cells.NegotiationCell`). The other LLM seats bind through
model roles: ``parties`` (with ``parties=llm`` or ``llm-inner-thoughts``: every party seat,
:class:`policies.negotiation.llm.LLMParty`) and ``judge`` (``attitudes=llm``, ``mi_judge=llm``,
``agreement=llm``, ``behaviour_judge=simple|all``: the release's behaviour scores of the mediator lines, in
the record); unbound roles use the eval's model. Scores per episode, in the table's units:
``cc``, ``tle``, ``me`` (percent), ``rl`` (turns), ``mi`` (1-5) under ``metrics`` (release or
paper definitions), and the mediator's literal ToM ``tom_accuracy`` (share of stance cells right).

``max_resamples`` and ``max_tokens`` reach every LLM part as the command's ``--max-resamples`` and
``--max-tokens`` do (default None: each part's own, 2 re-asks and the part's cap, as the command's
defaults). Refused (:data:`REFUSES`): ``horizon`` (the turn budget is ``-T budget``) and ``data_dir``
(case files are named in ``-T scenarios``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmarks.harnesses.inspect_spec import EpisodeRun, EpisodeTask, InspectTaskError

#: tom/Negotiation-v2 and its levels (the release's turn order), played with -T env=...
V2_IDS = ("tom/Negotiation-v2", "tom/Negotiation-Easy-v2", "tom/Negotiation-Medium-v2", "tom/Negotiation-Hard-v2")

OPTIONS = {
    "mediator": "llm-generic",
    "conflict_mode": "general",
    "scenarios": None,
    "parties": "scripted",
    "attitudes": "stated",
    "mi_judge": "rule-based",
    "agreement": "structural",
    "metrics": "release",
    "budget": None,
    "behaviour_judge": None,
    "max_resamples": None,
    "max_tokens": None,
}
REFUSES = {
    "horizon": "an episode's turns are its budget: -T budget=paper|release (as the command's --budget)",
    "data_dir": "name scenario or ProMediate case files in -T scenarios (comma-separated paths)",
}
METRICS = ("cc", "tle", "rl", "me", "mi", "tom_accuracy")


def _scenarios(options: Mapping[str, Any]) -> list[str]:
    from tom_envs.negotiation.scenario import BUILTIN_SCENARIOS

    names = options["scenarios"]
    if names is None:
        return list(BUILTIN_SCENARIOS)
    return [n.strip() for n in names.split(",") if n.strip()] if isinstance(names, str) else list(names)


def episodes(options: Mapping[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    """Every (scenario, seed) episode of the cell, scenario by scenario (as ``NegotiationRun.keys``)."""
    first, n = int(options["seed"]), int(options["episodes"])
    return [(f"{name}:{s}", s, {"scenario": name}) for name in _scenarios(options) for s in range(first, first + n)]


def play(run: EpisodeRun) -> dict[str, Any]:
    """One episode of the cell, its record as ``tom-envs negotiation`` stores it, plus ``row``: the
    episode's values in the units of the table's rows."""
    from benchmarks.negotiation.cells import CellSetup, NegotiationCell
    from benchmarks.negotiation.settings import NegotiationLLM, NegotiationRun
    from benchmarks.negotiation.table import MEDIATOR_ONLY, measured
    from tom_envs.negotiation.scenario import DIFFICULTY_MODES, resolve_scenario

    opts = run.options
    mode, mediator = str(opts["conflict_mode"]), str(opts["mediator"])
    level = next((lv for lv, modes in DIFFICULTY_MODES.items() if mode in modes), None)
    if level is None:
        raise InspectTaskError(
            f"-T conflict_mode {mode!r}: choose from {', '.join(m for ms in DIFFICULTY_MODES.values() for m in ms)}"
        )
    import tom_envs

    version = int(run.env_id.rsplit("-v", 1)[1])  # -T env=tom/Negotiation-v2 plays the v2 ids
    named = tom_envs.REGISTRY[run.env_id].kwargs.get("difficulty")
    if named is not None and named != level:
        raise InspectTaskError(
            f"-T env={run.env_id} is the {named} level, but -T conflict_mode={mode} is of the "
            f"{level} level: the conflict mode picks the env (drop -T env)"
        )
    fallback = str(opts["fallback"])
    main, parties, judge = run.backends[None], run.backends["parties"], run.backends["judge"]
    ident = {"backend": "inspect", "model": main.name, "base_url": None, "fallback": fallback}
    caps = [None if opts[k] is None else int(opts[k]) for k in ("max_resamples", "max_tokens")]
    # keyed only when set, as the command keys them (benchmarks.negotiation.benchmark._ident)
    ident.update({k: v for k, v in zip(("max_resamples", "max_tokens"), caps) if v is not None})
    on = {
        name: NegotiationLLM.on(b, ident, fallback, str(opts["parties"]), *caps)
        for name, b in (("main", main), ("parties", parties), ("judge", judge))
    }
    llm = NegotiationLLM(
        ident,
        on["main"].mediator,
        on["judge"].extractor,
        on["judge"].judge,
        on["parties"].party,
        on["judge"].agreement,
        on["judge"].behaviour,
    )
    behaviour = None if opts.get("behaviour_judge") is None else str(opts["behaviour_judge"])
    name = str(run.episode["scenario"])
    settings = NegotiationRun(
        levels=(level,),
        mediators=(mediator,),
        scenarios=(name,),
        seed=run.seed,
        metrics=str(opts["metrics"]),
        parties=str(opts["parties"]),
        budget=opts["budget"],
        attitudes=str(opts["attitudes"]),
        mi_judge=str(opts["mi_judge"]),
        llm=llm,
        agreement=str(opts["agreement"]),
        env_version=version,
        behaviour_judge=behaviour,
    )
    settings.needs_llm()
    setup = CellSetup({name: resolve_scenario(name)}, settings.parts(), llm.mediator, llm.behaviour)
    cell = NegotiationCell(
        level,
        mode,
        mediator,
        ident,
        settings.attitudes,
        settings.mi_judge,
        settings.parties,
        settings.turn_budget,
        settings.agreement,
        setup=setup,
        env_version=version,
        behaviour_judge=behaviour,
    )
    record = cell.record((name, run.seed), cell.play(cell.make_env(), cell.make_policy(), (name, run.seed)))
    ep = measured(record["episode"], settings.metrics)
    row = {
        "cc": 100 * ep["cc"],
        "tle": None if ep["tle_mean"] is None else 100 * ep["tle_mean"],
        "rl": ep["rl_mean"],
        "me": None if ep["me_mean"] is None else 100 * ep["me_mean"],
        "mi": ep["mi_mean"],
        "tom_accuracy": ep.get("tom_accuracy"),
    }
    if mediator == "none":
        row = {k: v for k, v in row.items() if k not in MEDIATOR_ONLY}
    return {**record, "row": row}


TASKS = (
    EpisodeTask(
        name="negotiation",
        env_id="tom/Negotiation-v1",
        play=play,
        metrics=METRICS,
        roles=("parties", "judge"),
        options=OPTIONS,
        episodes=episodes,
        also_plays=V2_IDS,
        refuses=REFUSES,
        reward="cc",
        description="ProMediate mediation: the model mediates; LLM parties and judges on model roles",
    ),
)
