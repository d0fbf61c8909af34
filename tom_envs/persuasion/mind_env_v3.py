"""Live persuasion v3: a persuadee whose mind shows only across replies (``tom/Persuasion-v3``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from tom_envs.base import TomEnv
from tom_envs.errors import InvalidAction, require_bool
from tom_envs.persuasion.mind_env import LiveText
from tom_envs.persuasion.mind_v3 import FAMILIES_V3, LISTEN, N_ACTIONS_V3, N_CUES, FamilyV3, model_v3_for, pitch_of
from tom_envs.persuasion.planning_v3 import bayes_table, check_horizon_v3, oracle_gap, references_v3
from tom_envs.persuasion.principles import InvalidPersona
from tom_envs.persuasion.scenarios import NAMES
from tom_envs.tom import ToMSpec

RESET_OPTIONS = ("family", "persona")
NO_REPLY = N_CUES  # the reply entry once the dialogue is over

# The persuadee's words for a reply (our own sentences): what it says of whose word counts, and of what is at stake.
SOURCE_LINES = {
    "authority": ("If a doctor or an expert said so, I would listen.", "I go by what the specialists say."),
    "consensus": ("I'd want to know that people like me actually do this.", "What do the others around me do?"),
    "reciprocity": ("People who helped me once can count on me.", "I like it when it goes both ways."),
    "scarcity": ("I only move when something won't be around for long.", "If it's always there, why hurry?"),
    "commitment": ("Once I say yes to something, I stick with it.", "I keep my word once I've given it."),
    "liking": ("I do things for people I like.", "It depends on who is asking."),
}
STAKE_LINES = {
    "cost": ("What would it cost me, though?", "Money is tight at the moment."),
    "timing": ("Is there any reason to do it now rather than later?", "Maybe some other time."),
    "fit": ("I'm not sure it's for someone like me.", "I don't know anyone who does that."),
    "doubt": ("I'm not convinced it really works.", "Is it actually worth it?"),
    "effort": ("It sounds like a lot to take on.", "I don't want to sign up for something huge."),
}


class PersuasionMindV3Env(LiveText, TomEnv):
    """Persuade a persuadee whose source of trust and stake show only across replies (v3).

    At every reset a scenario family, a scenario of it, two names, a persona from the family's prior and
    the persuadee's two hidden traits -- its **source** (which of the family's two principles it trusts)
    and its **stake** (which of the family's two concerns is at stake) -- are drawn
    (:mod:`tom_envs.persuasion.mind_v3`). Each reply speaks of one trait and names its value with the
    persona's candour; the persuader listens or makes one pitch, which ends the dialogue. Tracking the mind
    pays: the exact Bayes-optimal fair persuader beats the exact best memory-less persuader (one that acts on
    the last reply and the turn alone) by 14-16 points of success at T = 4 and 20-24 at T = 8
    (:mod:`tom_envs.persuasion.planning_v3`).

    ToM contract (:mod:`tom_envs.tom`): literal-ToM targets ``source`` and ``stake`` (``Discrete(2)``
    each: the index into the family's ``sources`` / ``stakes``), fixed for the episode; ``tom_truth()``
    after a step returns them. Functional outcome: ``success``, ``regret`` (summed over turns: the
    Bayes-optimal fair persuader's value minus the act's, at the exact posterior given the replies; its
    expectation is that persuader's success probability minus the policy's) and the family's exact
    references ``bayes_success``, ``memoryless_success``, ``oracle_success``, ``open_loop_success`` and
    ``value_of_memory``. Score with ``wrappers.ToMRecorder``.

    ## Action Space
    ``Discrete(5)``: 0 listen (rapport, an open question); ``1 + 2 * source + stake`` pitches the family's
    principle ``source`` framed on its concern ``stake`` (:func:`~tom_envs.persuasion.mind_v3.pitch_action`).

    ## Observation Space
    ``MultiDiscrete([5, n_families, horizon + 1])``: the last reply (0/1: it spoke of its source, naming the
    family's first/second principle; 2/3: of its stake, naming the first/second concern; 4: no reply, the
    dialogue is over), the scenario family (index into ``families``) and the turns left. The text form is
    :meth:`text` (wrap in ``wrappers.TextObservation``).

    ## Rewards
    1.0 on the turn the persuadee agrees, else 0.0.

    ## Episode End
    Terminates on a pitch (agreed or refused), when the persuadee walks away (``info["left"]``) or after
    ``horizon`` turns. ``step`` before ``reset`` raises :class:`~tom_envs.errors.ResetNeeded`, after the end
    :class:`~tom_envs.errors.EpisodeEnded`.

    ## Arguments
    * ``families``: None (all five), a family name, a :class:`~tom_envs.persuasion.mind_v3.FamilyV3` or a
      list of them; drawn uniformly.
    * ``horizon``: the turn budget, 1..8 (default 4; the exact references take under a second per family at
      4 and about 5 s at 8, once per process).
    * ``expose_state``: default False; a bool only. True is for the oracle only: every info then carries
      ``persona``, ``source`` and ``stake``, and step infos the turn's ``regret``.
    * ``render_mode``: ``"ansi"``.

    ## Info
    ``turn``, ``horizon``, ``family``, ``names`` ({persuader, persuadee}), ``goal``; ``step`` adds
    ``said`` (what the persuader did: ``"listen"`` or ``"<principle> on <concern>"``), ``reply``, ``left``,
    ``success`` and at the end ``episode`` (the summary: ``family``, ``persona``, ``success``, ``turns``,
    ``left``, ``said``, the outcome's keys and ``oracle_regret``: the success lost against the oracle that knows the
    traits, summed over turns -- the regret of a policy that sees them). Nothing before the end determines the persona or
    the traits (the information rule).

    ## Version History
    * v3: two hidden traits shown one reply at a time; one pitch; exact Bayes, memory-less, open-loop,
      echo, random and oracle references. The env acts by index and reads no text; a line of text is read by
      v3's reader, :func:`~tom_envs.persuasion.reader_v3_learned.make_reader_v3` (the learned reader by default).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}
    episode_over = "the persuasion is over (a pitch, a walk-out or the turn budget); call env.reset()."
    reset_options = RESET_OPTIONS
    tom_public = (
        "obs[0]",
        "obs[1]",
        "obs[2]",
        "info.turn",
        "info.horizon",
        "info.family",
        "info.names.*",
        "info.goal",
        "info.said",
        "info.reply",
        "info.left",
        "info.success",
    )
    tom_spec = ToMSpec(
        targets={"source": spaces.Discrete(2), "stake": spaces.Discrete(2)},
        outcome=(
            "success",
            "regret",
            "bayes_success",
            "memoryless_success",
            "oracle_success",
            "open_loop_success",
            "value_of_memory",
        ),
    )

    def __init__(
        self, families: Any = None, horizon: int = 4, expose_state: bool = False, render_mode: str | None = None
    ) -> None:
        self.horizon = check_horizon_v3(horizon)
        self.render_mode = self.check_render_mode(render_mode)
        self.families = resolve_families_v3(families)
        self.expose_state = require_bool("expose_state", expose_state)
        self.action_space = spaces.Discrete(N_ACTIONS_V3)
        self.observation_space = spaces.MultiDiscrete([N_CUES + 1, len(self.families), self.horizon + 1])
        self._truth: dict[str, int] = {}

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        options = self.read_options(options)
        rng = self.np_random
        names = [f.name for f in self.families]
        if "family" in options and options["family"] not in names:
            raise InvalidPersona(f"family {options['family']!r} is not in this env ({', '.join(names)})")
        self.family_index = names.index(options["family"]) if "family" in options else int(rng.integers(len(names)))
        self.family: FamilyV3 = self.families[self.family_index]
        self.model = model_v3_for(self.family)
        self.refs = references_v3(self.family, self.horizon)
        self.bayes = bayes_table(self.model, self.horizon)
        self.scenario = self.family.scenarios[int(rng.integers(len(self.family.scenarios)))]
        a, b = rng.choice(len(NAMES), size=2, replace=False)
        self.names = {"persuader": NAMES[int(a)], "persuadee": NAMES[int(b)]}
        personas = [p.name for p in self.family.personas]
        if "persona" in options and options["persona"] not in personas:
            raise InvalidPersona(
                f"persona {options['persona']!r} is not in family {self.family.name!r} ({', '.join(personas)})"
            )
        weights = self.model.prior.copy()
        if "persona" in options:
            weights[[i for i, t in enumerate(self.model.types) if personas[t[0]] != options["persona"]]] = 0.0
        self.row = int(rng.choice(len(weights), p=weights / weights.sum()))
        self.turn, self.agreed, self.left = 0, False, False
        self.counts = [0] * N_CUES
        self.reply = self._draw_reply(rng)
        self._said: list[str] = []
        self._oracle_regrets: list[float] = []
        return self._open(rng)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        self.check_step()
        action = _check_action(action)
        rng = self.np_random
        _, source, stake = self.model.types[self.row]
        self._truth = {"source": source, "stake": stake}
        regret = self.bayes.regret(self.turn, tuple(self.counts), action)
        self._regrets.append(regret)
        self._oracle_regrets.append(oracle_gap(self.model, self.horizon, self.turn, self.row, action))
        said = self.family.pitch_name(action)
        self._said.append(said)
        self.transcript.append(f"{self.names['persuader']} says: {self._persuader_line(action)}")
        self.turn += 1
        if action != LISTEN:
            self.agreed = action == self.model.own_pitch[self.row] and rng.random() < self.model.agree[self.row]
            text = "Alright, you've convinced me." if self.agreed else "No, I don't think so."
            self._done, self.reply = True, NO_REPLY
        elif rng.random() < self.model.leave[self.row]:
            self.left, self._done, self.reply = True, True, NO_REPLY
            text = "Sorry, I have to go."
        elif self.turn >= self.horizon:
            self._done, self.reply = True, NO_REPLY
            text = "Let's leave it there for today."
        else:
            self.reply = self._draw_reply(rng)
            text = self._reply_text(rng)
        self.transcript.append(f"{self.names['persuadee']} says: {text}")
        info = {**self._info(), "said": said, "reply": text, "left": self.left, "success": bool(self.agreed)}
        if self.expose_state:
            info["regret"] = regret
        if self._done:
            info["episode"] = self.episode_summary()
        return self._obs(), float(self.agreed), self._done, False, info

    # ------------------------------------------------------------------ ToM contract (tom_truth, tom_outcome:
    # LiveText) and the text's parts
    def _references(self) -> dict[str, Any]:
        return {
            "bayes_success": self.refs.bayes,
            "memoryless_success": self.refs.memoryless,
            "oracle_success": self.refs.oracle,
            "open_loop_success": self.refs.open_loop,
            "value_of_memory": self.refs.value_of_memory,
        }

    def _goal_note(self, persuadee: str) -> str:
        return (
            f" You may make one request; before it, listen to learn whose word {persuadee} trusts and what is at "
            f"stake for {persuadee}."
        )

    #: the head of the options in :meth:`text`: the five acts
    options_head = "Your options:"

    def _options(self) -> list[str]:
        return [f"{a}. {self.family.pitch_name(a)}" for a in range(N_ACTIONS_V3)]

    # ------------------------------------------------------------------ summary
    def episode_summary(self) -> dict[str, Any]:
        outcome = self.tom_outcome()
        return {
            "family": self.family.name,
            "persona": self.family.personas[self.model.types[self.row][0]].name,
            "success": outcome["success"],
            "turns": self.turn,
            "left": self.left,
            "said": list(self._said),
            **{k: outcome[k] for k in self.tom_spec.outcome if k != "success"},
            "oracle_regret": float(sum(self._oracle_regrets)),
        }

    # ------------------------------------------------------------------ helpers
    def _draw_reply(self, rng: np.random.Generator) -> int:
        reply = int(rng.choice(N_CUES, p=self.model.cue[self.row]))
        self.counts[reply] += 1
        return reply

    def _reply_text(self, rng: np.random.Generator) -> str:
        if self.reply < 2:
            return SOURCE_LINES[self.family.sources[self.reply]][int(rng.integers(2))]
        return STAKE_LINES[self.family.stakes[self.reply - 2]][int(rng.integers(2))]

    def _persuader_line(self, action: int) -> str:
        pitch = pitch_of(action)
        if pitch is None:
            return "Tell me more -- how do you see it?"
        return (
            f"Think of it this way ({self.family.sources[pitch[0]]}), and it answers your worry about "
            f"{self.family.stakes[pitch[1]]}: will you {self.scenario.goal}?"
        )

    def _state_info(self) -> dict[str, Any]:
        persona, source, stake = self.model.types[self.row]
        return {"persona": self.family.personas[persona].name, "source": source, "stake": stake}

    def _obs(self) -> np.ndarray:
        return np.array([self.reply, self.family_index, self.horizon - self.turn], dtype=np.int64)


def _check_action(action: Any) -> int:
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = int(action)
    if (
        isinstance(action, (bool, np.bool_))
        or not isinstance(action, (int, np.integer))
        or not 0 <= int(action) < N_ACTIONS_V3
    ):
        raise InvalidAction(
            f"a v3 action is an integer in 0..{N_ACTIONS_V3 - 1} (0 listen, 1 + 2*source + stake a "
            f"pitch); got {action!r}"
        )
    return int(action)


def resolve_families_v3(families: Any) -> tuple[FamilyV3, ...]:
    """The env's ``families`` argument as v3 families (None or ``"all"``: the five built-in ones).

    Raises:
        InvalidPersona: an unknown name, a repeated one, or another kind of value, saying what is accepted.
    """
    if families is None or families == "all":
        return FAMILIES_V3
    items = [families] if isinstance(families, (str, FamilyV3)) else families
    if not isinstance(items, (list, tuple)) or not items:
        raise InvalidPersona(
            f"families is None, 'all', a family name, a FamilyV3 or a non-empty list; got {families!r}"
        )
    out = []
    for item in items:
        if isinstance(item, FamilyV3):
            out.append(item)
        elif isinstance(item, str) and item in {f.name for f in FAMILIES_V3}:
            out.append(next(f for f in FAMILIES_V3 if f.name == item))
        else:
            raise InvalidPersona(
                f"unknown v3 family {item!r}; choose from {', '.join(f.name for f in FAMILIES_V3)} or "
                "pass a tom_envs.persuasion.mind_v3.FamilyV3"
            )
    if len({f.name for f in out}) != len(out):
        raise InvalidPersona(f"families repeat a name: {[f.name for f in out]}")
    return tuple(out)


__all__ = ["PersuasionMindV3Env", "RESET_OPTIONS", "resolve_families_v3"]
