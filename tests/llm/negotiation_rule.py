"""A scripted negotiation LLM that reads the case from the prompt it is sent, for any scenario.

``scripted_reply`` of ``tests/llm/test_negotiation_llm.py`` answers from one known scenario (its tests build
the env themselves). A command line (``tom-envs negotiation --parties llm ...``) plays whichever scenario it
is given, so :func:`negotiation_reply` takes the topics, their option labels and the parties from the text the
prompt shows -- the two topic listings (``1. Topic: question`` / ``- Topic: question`` followed by
``(label) text`` lines, :mod:`tom_envs.negotiation.render` and :func:`policies.negotiation.llm.parties.topics_text`)
and the party lists -- and answers every stage (parties, mediators, judges) in the JSON form its parser reads.
A reply varies with the request's seed and the prompt, so seeds matter, and it is the same for the same request.
"""

from __future__ import annotations

import json
import re
import zlib

#: a topic's heading line in either listing, and an option line under it
_TOPIC = re.compile(r"^(?:\d+\.|-) (?P<name>[^:\n]+?)(?::\s.*)?$")
_OPTION = re.compile(r"^\s+\((?P<label>[^)\s]+)\) ")


def topics_in(content: str) -> list[tuple[str, list[str]]]:
    """The (topic name, option labels) the prompt lists, in order (empty when it lists none)."""
    out: list[tuple[str, list[str]]] = []
    current: tuple[str, list[str]] | None = None
    for line in content.split("\n"):
        if (m := _OPTION.match(line)) and current is not None:
            current[1].append(m.group("label"))
            continue
        if current is not None and current[1]:
            out.append(current)
        current = (m.group("name").strip(), []) if (m := _TOPIC.match(line)) else None
    if current is not None and current[1]:
        out.append(current)
    seen: dict[str, list[str]] = {}
    for name, labels in out:  # a prompt may show the listing twice (the seat's text and a judge's list)
        seen.setdefault(name, labels)
    return list(seen.items())


def parties_in(content: str) -> list[str]:
    """The party names the prompt lists (``Parties: A (role), B`` or ``covering all parties (A, B)``)."""
    if m := re.search(r"covering all parties \((.+?)\) and all topics", content):
        return [p.strip() for p in m.group(1).split(", ")]
    if m := re.search(r"^Parties: (.+)$", content, flags=re.M):
        return [re.sub(r" \(.*?\)$", "", p).strip() for p in re.split(r", (?![^()]*\))", m.group(1))]
    return []


def negotiation_reply(content: str, seed: int | None) -> str | None:
    """A well-formed reply to a negotiation prompt, or ``None`` when ``content`` is none of them."""
    r = (seed or 0) ^ zlib.crc32(content[-300:].encode())
    topics, parties = topics_in(content), parties_in(content)

    def topic(k: int = 0) -> tuple[str, list[str]]:
        return topics[(r + k) % len(topics)]

    if "Form up to" in content and "private thoughts" in content and topics:  # the release loop's thoughts
        return json.dumps(
            {
                "thoughts": [
                    {
                        "content": f"{topic(x)[0]} matters to us.",
                        "topic": topic(x)[0],
                        "option": topic(x)[1][(r // 7 + x) % len(topic(x)[1])],
                        "stimuli": ["MEM#0"],
                    }
                    for x in range(2)
                ]
            }
        )
    if "wants to voice this thought" in content and "Rate from 1.0 to 5.0" in content:
        return json.dumps({"reasoning": "It matters.", "rating": round(1.0 + (r % 41) / 10, 1)})
    if "Who speaks next?" in content:
        return json.dumps({"next": "anyone"})
    if "You speak next. Your thought:" in content or "Say it as you would" in content:
        about = m.group(1) if (m := re.search(r"(?:It is about|speak about) ([^,\n]+)", content)) else "this"
        return json.dumps(
            {
                "act": ("propose", "accept")[r % 2],
                "tone": ("firm", "neutral")[r % 2],
                "utterance": f"I think this is fair ({r % 100}). On {about}.",
            }
        )
    if "Think privately" in content and topics:
        name, labels = topic()
        return json.dumps(
            {"thought": "We should settle this.", "topic": name, "option": labels[(r // 7) % len(labels)]}
        )
    if "How strongly do you want to speak" in content:
        return json.dumps({"score": 1 + r % 5})
    if "estimate what each party privately prefers" in content and topics and parties:
        return json.dumps(
            {
                "predictions": {
                    p: {name: labels[(r + i) % len(labels)] for name, labels in topics} for i, p in enumerate(parties)
                }
            }
        )
    if '{"intervene": false} to stay silent' in content:
        if r % 3 or not topics:
            return json.dumps({"intervene": False})
        return json.dumps(
            {
                "intervene": True,
                "strategy": "problem_solving",
                "topic": topic()[0],
                "target": parties[r % len(parties)] if parties else None,
                "utterance": "Could we try a package?",
            }
        )
    if "Decide whether now is a good moment for you to step in" in content:
        return json.dumps(
            {
                "reasoning": "Two parties repeat themselves.",
                "should_engage": r % 4 != 0,
                "rating": round(1.0 + (r % 41) / 10, 1),
            }
        )
    if "Draft four candidate interventions" in content and topics:
        return json.dumps(
            {
                "candidates": [
                    {
                        "strategy": s,
                        "topic": topic(x)[0],
                        "target": parties[x % len(parties)] if parties and x % 2 else None,
                        "idea": f"idea {x}",
                    }
                    for x, s in enumerate(("facilitative", "evaluative", "transformative", "problem_solving"))
                ]
            }
        )
    if "A candidate intervention:" in content:
        return json.dumps({"reasoning": "fits", "rating": round(1.0 + (r % 41) / 10, 1)})
    if "You step in now with this plan:" in content:
        return json.dumps({"utterance": "Let us look for a package all of you can accept."})
    if "Every topic is resolved." in content:
        return json.dumps({"utterance": "We have agreed on everything. Thank you."})
    if "Rate how far these two parties agree" in content:
        fields = re.findall(r'"(\w+)": <1-5>', content)
        return json.dumps({d: 1 + (r + x) % 5 for x, d in enumerate(fields)})
    if "Score the intervention" in content:
        return json.dumps({"perceptual": 4, "emotional": None, "cognitive": 3, "communicative": None})
    if "which option does this statement support" in content and topics:
        return json.dumps(
            {
                "attitudes": {
                    name: (labels[r % len(labels)] if k == 0 else None) for k, (name, labels) in enumerate(topics)
                }
            }
        )
    return None
