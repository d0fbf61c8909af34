"""LLM parties that follow ProMediate-Eval's own simulation loop (``multiparty_conversation_negotiate.py``
and ``thoughtful_agents/``), as a :class:`~policies.negotiation.llm.parties.PartyStrategy` (``"release"``).

After every new line of the conversation each party

1. recalibrates the *saliency* of its long-term memories and of its past thoughts against the line
   (the release: cosine similarity of embeddings, no decay) and keeps the line in short-term memory;
2. generates up to two thoughts (release: ``num_system2=2``) from the last five lines, its five most
   salient memories and three most salient past thoughts (saliency at least ``saliency_threshold``;
   each retrieval marks the item accessed), and its conflict mode's style;
3. rates each thought's intrinsic motivation 1.0-5.0, multiplied by ``1.01 ** turns_silent``, clipped
   to [1, 5] and rounded to one decimal;
4. selects a thought by the release's turn-taking rule, given the predicted next speaker (one
   backend call per turn predicts a name or "anyone" from the last five lines): if the floor is open,
   its best new thought when it reaches ``im_threshold``; if the floor is its own, its best new thought;
   if the floor is someone else's, its best new thought when it reaches ``interrupt_threshold``.

Then the speaker is chosen as the release does: among the parties other than the last speaker (nobody
speaks twice in a row), the selected thought with the highest motivation; when no party selected one,
each of them offers its most salient thought and the highest motivation wins. Only that thought is
articulated (one backend call). The thresholds are the case's (``Party.turn_taking``, e.g. 3.0/2.5 for
the HMO parties), else the release's defaults 3.5 and 4.0.

Deviations, said here so they are not mistaken for the release: saliency uses a lexical cosine
(word counts without stop words) because no embedding model is shipped, so its default threshold is
0.1 instead of the release's 0.25 for embeddings; a thought names the topic and option it favours (the
env's structured stance; with an attitude extractor the spoken words decide); the party's structured
preferences are always in its prompt (002: "a structured, pre-specified preference profile"), its
profile paragraphs and its style are long-term memories as in the release.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from policies.negotiation.llm import prompts as P
from policies.llm.caller import Ask, Caller
from policies.llm.errors import InvalidPolicyConfig, ReplyError
from policies.negotiation.llm.common import (
    HISTORY,
    PartyStrategy,
    ask_for,
    checked,
    parse_articulation,
    random_rating,
    random_topic_option,
    recent_lines,
    reply_option,
)
from policies.llm.parsing import extract_json, rating_1_5
from tom_envs.negotiation.actions import topic_index
from tom_envs.negotiation.render import MODE_PERSONAS, preferences_block, topics_block
from tom_envs.negotiation.scenario import Scenario

#: The release's defaults (``Participant.select_thoughts``) when a case gives no thresholds.
IM_THRESHOLD = 3.5
INTERRUPT_THRESHOLD = 4.0
#: Retrieval sizes of the release's prompts: memories, thoughts, lines of history.
TOP_MEMORIES, TOP_THOUGHTS = 5, 3  # (and HISTORY lines, from negotiation_common)
NUM_THOUGHTS = 2
SILENCE_FACTOR = 1.01
SALIENCY_THRESHOLD = 0.1  # lexical cosine (the release: 0.25 on embeddings)
ANYONE = "anyone"

_STOP = frozenset(
    "a an and are as at be but by can do for from had has have he her his i if in is it its me my no not of on "
    "or our she so that the their them then there these they this to us was we were what when which who will "
    "with would you your".split()
)


def words(text: str) -> Counter:
    """The lexical 'embedding': counts of lower-cased words, stop words left out."""
    return Counter(w for w in re.findall(r"[a-z0-9]+", text.casefold()) if w not in _STOP)


def similarity(a: Counter, b: Counter) -> float:
    """Cosine similarity of two word counts (0 when either is empty)."""
    if not a or not b:
        return 0.0
    dot = sum(v * b.get(k, 0) for k, v in a.items())
    return float(dot / (np.sqrt(sum(v * v for v in a.values())) * np.sqrt(sum(v * v for v in b.values()))))


@dataclass
class Item:
    """A memory or a thought: text, its word counts, saliency and the turn it was last accessed."""

    id: str
    content: str
    vector: Counter
    generated_turn: int = 0
    last_accessed_turn: int = 0
    saliency: float = 0.0
    # thoughts only
    topic: int | None = None
    option: int | None = None
    score: float = -1.0
    selected: bool = False
    stimuli: list[str] = field(default_factory=list)


@dataclass
class Mind:
    """One party's long-term memory, short-term memory (the lines it heard) and thought reservoir."""

    ltm: list[Item]
    stm: list[Item] = field(default_factory=list)
    thoughts: list[Item] = field(default_factory=list)
    seen: int = 0  # events already heard
    last_spoken_turn: int = -1

    def heard(self, event: dict) -> None:
        """Recalibrate saliency against a new line (items newer than it are skipped, as in the release)."""
        vec = words(event["text"])
        turn = int(event["turn"])
        for item in self.ltm + self.thoughts:
            if turn < item.last_accessed_turn:
                continue
            item.saliency = similarity(item.vector, vec)
        self.stm.append(Item(f"CON#{turn}", event["text"], vec, turn, turn))

    def top(self, items: Sequence[Item], k: int, threshold: float, turn: int) -> list[Item]:
        """The ``k`` most salient items at or above ``threshold``, marked accessed at ``turn``."""
        out = [it for it in sorted(items, key=lambda it: -it.saliency) if it.saliency >= threshold][:k]
        for it in out:
            it.last_accessed_turn = turn
        return out


def _lines(items: Sequence[Item]) -> str:
    return "\n".join(f"{it.id}: {it.content}" for it in items) or P.NO_ITEMS


def _history(events: Sequence[dict]) -> str:
    return recent_lines(events) or P.NO_ITEMS


def initial_memory(scenario: Scenario, index: int, mode: str | None) -> list[Item]:
    """The party's long-term memory: its profile split by paragraphs (the release's
    ``initialize_memory(profile + mode prompt, by_paragraphs=True)``), its goal, priorities and style."""
    p = scenario.parties[index]
    chunks = [c.strip() for c in re.split(r"\n\s*\n", p.persona or "") if c.strip()]
    if p.goal:
        chunks.append(f"Goal: {p.goal}")
    chunks += [f"Priority: {x}" for x in p.priorities]
    if mode in MODE_PERSONAS:
        chunks.append(MODE_PERSONAS[mode])
    return [Item(f"MEM#{j}", c, words(c)) for j, c in enumerate(chunks)]


class ReleaseLoop(PartyStrategy):
    """The release's party loop (module docstring).

    Args:
        num_thoughts: thoughts generated per party and turn (the release: 2).
        saliency_threshold: least saliency of a retrieved memory or thought.
    """

    name = "release"

    def __init__(self, num_thoughts: int = NUM_THOUGHTS, saliency_threshold: float = SALIENCY_THRESHOLD) -> None:
        if num_thoughts < 1:
            raise InvalidPolicyConfig(f"num_thoughts must be at least 1, got {num_thoughts}")
        self.num_thoughts = num_thoughts
        self.saliency_threshold = saliency_threshold

    # ------------------------------------------------------------------ the turn
    def decide(
        self, lead: Caller, parties: Sequence[Any], texts: Sequence[str], state: dict | None = None
    ) -> list[Any]:
        if state is None:
            raise InvalidPolicyConfig(
                "the release loop needs the conversation state (events, turn, conflict mode); "
                "play its parties through PartyTeam"
            )
        events = list(state["events"])
        turn = int(state["turn"])
        mode = state.get("conflict_mode")
        sc = parties[0].scenario
        for p in parties:
            if p.party is None:
                raise InvalidPolicyConfig(
                    "a release-loop LLMParty needs its party index (LLMParty(party=...) or "
                    "PartyTeam, which sets it from the seat)"
                )
            if p.mind is None:
                p.mind = Mind(initial_memory(sc, p.party, mode))
            for e in events[p.mind.seen :]:
                p.mind.heard(e)
                if e.get("party") == p.party:
                    p.mind.last_spoken_turn = int(e["turn"])
            p.mind.seen = len(events)
        allocated = self.allocation(lead, parties, events)
        # thoughts (one call for every party), then their motivation (one call for every thought)
        contexts = [self.context(p, events, mode, turn) for p in parties]
        answers = ask_for(parties, lead, "thought", [self.thoughts_ask(p, c) for p, c in zip(parties, contexts)])
        new: list[list[Item]] = []
        for p, ans in zip(parties, answers):
            items = []
            for x, th in enumerate(ans.value):
                items.append(
                    Item(
                        f"THO#{turn}.{x}",
                        th["content"],
                        words(th["content"]),
                        turn,
                        turn,
                        topic=th["topic"],
                        option=th["option"],
                        stimuli=th["stimuli"],
                    )
                )
            new.append(items)
            p.last = {"thoughts": [it.content for it in items], "fallback": {"thought": ans.fallback}}
        owners = [p for p, items in zip(parties, new) for _ in items]
        flat = [it for items in new for it in items]
        asks = [self.motivation_ask(p, it, events) for p, it in zip(owners, flat)]
        for p, it, ans in zip(owners, flat, ask_for(owners, lead, "motivation", asks) if asks else []):
            silent = turn - p.mind.last_spoken_turn if p.mind.last_spoken_turn >= 0 else turn
            it.score = round(min(5.0, max(1.0, ans.value * SILENCE_FACTOR**silent)), 1)
            p.last["fallback"]["motivation"] = p.last["fallback"].get("motivation", False) or ans.fallback
        for p, items in zip(parties, new):
            for it in p.mind.thoughts:
                it.selected = False
            p.mind.thoughts.extend(items)
            self.select(p, items, allocated)
            p.last["scores"] = [it.score for it in items]
        chosen = self.speaker(parties, events)
        actions: list[Any] = [0] * len(parties)
        for p in parties:
            p.last["allocated"] = allocated
        if chosen is None:
            return actions
        j, thought = chosen
        p = parties[j]
        ans = ask_for([p], lead, "articulation", [self.articulation_ask(p, thought, contexts[j])])[0]
        t = sc.topics[thought.topic]
        action = {
            "topic": t.name,
            "option": t.options[thought.option].label,
            "act": ans.value["act"],
            "tone": ans.value["tone"],
            "motivation": (thought.score - 1.0) / 4.0,
        }
        if ans.value["utterance"] is not None:
            action["utterance"] = ans.value["utterance"]
        actions[j] = action
        p.last.update({"spoke": thought.content, "score": thought.score, "articulation": ans.value, "action": action})
        p.last["fallback"]["articulation"] = ans.fallback
        return actions

    # ------------------------------------------------------------------ turn taking
    def allocation(self, lead: Caller, parties: Sequence[Any], events: Sequence[dict]) -> str:
        """Who the floor goes to next (a party name or :data:`ANYONE`), predicted from the last lines."""
        if not events:
            return ANYONE
        sc = parties[0].scenario
        names = sc.party_names + ["Mediator"]
        history = "\n".join(f"{e['speaker']}: {e['text']}" for e in events[-HISTORY:])
        prompt = P.LOOP_TURN.format(n=len(names), names=", ".join(names), history=history)

        def parse(text: str) -> str:
            value = extract_json(text).get("next")
            if not isinstance(value, str):
                raise ReplyError("the JSON object needs 'next': a speaker name or \"anyone\"")
            # the release: anything that is not a participant's name means "anyone"
            return value.strip() if value.strip() in names else ANYONE

        ans = ask_for([parties[0]], lead, "turn", [Ask(prompt, parse, lambda rng: ANYONE)])[0]
        return ans.value

    @staticmethod
    def thresholds(party: Any) -> tuple[float, float]:
        tt = party.scenario.parties[party.party].turn_taking
        im = tt.im_threshold if tt is not None and tt.im_threshold is not None else IM_THRESHOLD
        interrupt = (
            tt.interrupt_threshold if tt is not None and tt.interrupt_threshold is not None else INTERRUPT_THRESHOLD
        )
        return im, interrupt

    def select(self, party: Any, items: Sequence[Item], allocated: str) -> None:
        """The release's ``select_thoughts`` over this turn's thoughts."""
        if not items:
            return
        im, interrupt = self.thresholds(party)
        best = max(items, key=lambda it: it.score)
        name = party.scenario.parties[party.party].name
        if allocated == ANYONE:
            best.selected = best.score >= im
        elif allocated == name:
            best.selected = True
        else:
            best.selected = best.score >= interrupt

    @staticmethod
    def speaker(parties: Sequence[Any], events: Sequence[dict]) -> tuple[int, Item] | None:
        """The release's ``decide_next_speaker_and_utterance``: never the last speaker; the selected
        thought with the highest motivation, else the most motivated of each party's most salient thought."""
        last = events[-1].get("party") if events else None
        others = [j for j, p in enumerate(parties) if p.party != last]
        pool = [(j, it) for j in others for it in parties[j].mind.thoughts if it.selected]
        if not pool:
            for j in others:
                ranked = sorted(parties[j].mind.thoughts, key=lambda it: -it.saliency)
                if ranked:
                    pool.append((j, ranked[0]))
        if not pool:
            return None
        return max(pool, key=lambda x: x[1].score)  # first of equals, as max() in the release

    # ------------------------------------------------------------------ prompts
    def context(self, party: Any, events: Sequence[dict], mode: str | None, turn: int) -> dict[str, str]:
        sc = party.scenario
        p = sc.parties[party.party]
        mind = party.mind
        memories = mind.top(mind.ltm, TOP_MEMORIES, self.saliency_threshold, turn)
        thoughts = mind.top(mind.thoughts, TOP_THOUGHTS, self.saliency_threshold, turn)
        return {
            "name": p.name,
            "role": f" ({p.role})" if p.role else "",
            "context": sc.background,
            "topics": topics_block(sc),
            "preferences": preferences_block(sc, p),
            "persona": MODE_PERSONAS.get(mode or "general", MODE_PERSONAS["general"]),
            "history": _history(events),
            "memories": _lines(memories),
            "thoughts": _lines(thoughts),
        }

    def thoughts_ask(self, party: Any, ctx: dict[str, str]) -> Ask:
        sc, n = party.scenario, self.num_thoughts

        def parse(text: str) -> list[dict]:
            obj = extract_json(text)
            items = obj.get("thoughts")
            if not isinstance(items, list):
                raise ReplyError("the JSON object needs 'thoughts': a list (empty for none)")
            out = []
            for th in items[:n]:
                if not isinstance(th, dict) or not isinstance(th.get("content"), str) or not th["content"].strip():
                    raise ReplyError("each thought needs 'content': a non-empty string")
                if "topic" not in th or "option" not in th:
                    raise ReplyError("each thought needs 'topic' and 'option'")
                k = checked(topic_index, sc, th["topic"], "thought")
                o = reply_option(sc, k, th["option"], "thought")
                stimuli = th.get("stimuli") or []
                if not isinstance(stimuli, list) or not all(isinstance(s, str) for s in stimuli):
                    raise ReplyError("'stimuli' must be a list of ids such as \"CON#3\"")
                out.append({"content": th["content"].strip(), "topic": k, "option": o, "stimuli": stimuli})
            return out

        def rand(rng: np.random.Generator) -> list[dict]:
            k, o = random_topic_option(sc, rng)
            return [{"content": "(a random thought: fallback)", "topic": k, "option": o, "stimuli": []}]

        return Ask(P.LOOP_THOUGHTS.format(n=n, **ctx), parse, rand)

    def motivation_ask(self, party: Any, thought: Item, events: Sequence[dict]) -> Ask:
        sc = party.scenario
        mind = party.mind
        ltm = [it for it in sorted(mind.ltm, key=lambda it: -it.saliency) if it.saliency >= self.saliency_threshold][
            :10
        ]
        prompt = P.LOOP_MOTIVATION.format(
            names=", ".join(sc.party_names),
            history=_history(events),
            name=sc.parties[party.party].name,
            memories="\n".join(f"- {it.content}" for it in ltm) or P.NO_ITEMS,
            thought=thought.content,
        )

        return Ask(prompt, rating_1_5, random_rating)

    def articulation_ask(self, party: Any, thought: Item, ctx: dict[str, str]) -> Ask:
        t = party.scenario.topics[thought.topic]
        o = t.options[thought.option]
        prompt = P.LOOP_ARTICULATION.format(thought=thought.content, topic=t.name, label=o.label, option=o.text, **ctx)

        return Ask(prompt, parse_articulation, lambda rng: {"act": "propose", "tone": "neutral", "utterance": None})


__all__ = [
    "IM_THRESHOLD",
    "INTERRUPT_THRESHOLD",
    "Item",
    "Mind",
    "ReleaseLoop",
    "initial_memory",
    "similarity",
    "words",
]
