"""Prompt templates of the LLM strategies, kept as data apart from the logic that fills them.

The structure follows seed 004 (§4 and Appendix C.1): every prompt states the game's rules and
payoffs (rendered by :mod:`tom_envs.matrix.text`, which speaks of scores +1/0/-1 for RPS-like games
and of points otherwise), the history of play, the round ("round 5 of 100") and the action labels
of the chosen label set. The wording is ours. Templates are ``str.format`` strings; the fields they
use are listed next to each group. :mod:`policies.matrix.llm.strategies` fills them in.

Common fields: ``rules``, ``history``, ``t`` (the coming round, 1-based), ``T`` (horizon),
``labels`` (the focal labels joined by ", "), ``partner_labels``, ``my_action`` / ``their_action``
(a label), ``context`` (rules + history, or the S2A summary that replaces them).
"""

from __future__ import annotations

#: Rules + history + round: the body most prompts share (prefix-cache friendly: it only grows).
CONTEXT = "{rules}\n\nHistory of play so far:\n{history}"
ROUND = "This is round {t} of {T}."
#: The rules without the payoff table (Oracle + Max - Payoffs).
RULES_NO_PAYOFFS = (
    "You are playing a game with another player that repeats for {T} rounds.\n"
    "In each round you choose one action from: {labels}.\n"
    "At the same time the other player chooses one action from: {partner_labels}."
)

#: A history line without rewards (Oracle + Max - Payoffs: rewards would reveal the payoff table).
HISTORY_LINE_NO_REWARDS = "Round {i}: you chose {mine} and the other player chose {theirs}."
NO_HISTORY_YET = "No rounds have been played yet."
#: Heads the history when a history window hides the earliest rounds (``--history-window K``).
HISTORY_WINDOW_NOTE = "Only the last {k} rounds are shown; rounds 1 to {hidden} were played before them."

# ------------------------------------------------------------------------------------ LM prompting
# Plain-text prompts scored label by label (a leading space is added to each label).

#: 004 Fig. 1: which action the agent takes.
LM_ACT = "{context}\n\n{round}\nQuestion: which action do you take in round {t}?\nAnswer: In round {t} I take"
#: 004 Fig. 2: the partner's action, asked after the agent's own choice (agent first).
LM_TOM_AGENT_FIRST = (
    "{context}\n\n{round}\nQuestion: which actions are taken in round {t}?\n"
    "Answer: In round {t} I take {my_action} and the other player takes"
)
#: 004 Fig. 3: the partner's action, asked before the agent chooses (partner first; Social LM).
LM_TOM_PARTNER_FIRST = (
    "{context}\n\n{round}\nQuestion: which actions are taken in round {t}?\nAnswer: In round {t} the other player takes"
)

# ------------------------------------------------------------------------------------ generation
# Chat prompts (one user message). Replies must contain "Answer: <label>"; the last one counts.

ANSWER_FORMAT = "End your reply with one line of the form 'Answer: <action>', where <action> is one of: {options}."
ACT_QUESTION = "Which action do you choose in round {t}?"
TOM_QUESTION = "Which action do you expect the other player to choose in round {t}?"
QA_STYLE = "Reply with the answer line only."
COT_STYLE = "Think it through step by step first, then give your answer."

#: 004 Fig. 4-7: QA and CoT, acting (focal labels) and predicting (partner labels).
QA = "{context}\n\n{round}\n{question}\n{style}\n{answer_format}"

#: 004 Fig. 13: CoT with three worked examples (``examples`` is filled from COT_EXAMPLES).
COT_SHOT = "Here are three worked examples of good reasoning in this game.\n\n{examples}\n\nNow your turn.\n\n" + QA
COT_EXAMPLE = "Example {i}:\n{situation}\nReasoning: {reasoning}\nAnswer: {answer}"

#: 004 Fig. 8-9: plans and insights written at the previous round are shown again.
PLANS_INSIGHTS = (
    "{context}\n\n{round}\nYour plan from the previous round: {plan}\n"
    "Your insights from the previous round: {insights}\n"
    "{question}\nFirst write 'Plan: ...' (your plan for the coming rounds) and 'Insights: ...' (what you have "
    "learned about the other player), each on its own line.\n{answer_format}"
)
NO_NOTE = "(none yet)"

#: 004 Fig. 10: the reflection step run after every round; its reply becomes the newest memory.
REFLECT = (
    "{context}\n\nYour notes from earlier rounds:\n{memories}\n\n"
    "Round {t_done} has just ended. Reflect on what happened and how the other player behaves, then write "
    "one short plan for the next rounds, starting with 'Plan:'."
)
#: 004 Fig. 11-12: acting / predicting with the last ``memory`` reflections.
REFLEXION = "{context}\n\nYour notes from earlier rounds:\n{memories}\n\n{round}\n{question}\n{style}\n{answer_format}"

#: 004 Fig. 18: Social prompting; the prediction is the model's own literal-ToM output.
SOCIAL = (
    "{context}\n\n{round}\nYou predict that the other player will choose {their_action} in this round.\n"
    "{question}\n{style}\n{answer_format}"
)

#: 004 Fig. 14-15 and §4.2: Oracle prompting; the partner's action is true knowledge.
ORACLE_LINE = "The other player will choose {their_action} in this round."
MAX_LINE = "Knowing that, pick the action that earns you the highest reward against {their_action} in this round."
ORACLE = "{context}\n\n{round}\n{oracle_line}\n{question}\n{style}\n{answer_format}"

#: 004 Fig. 16-17: System 2 Attention; the reply replaces rules and history in the next prompt.
S2A_ACT = (
    "{context}\n\n{round}\nRewrite the information above, keeping only what matters for deciding your own "
    "action in round {t}: the rewards of each pair of actions and the patterns in the other player's choices. "
    "Leave out everything else."
)
S2A_TOM = (
    "{context}\n\n{round}\nRewrite the information above, keeping only what matters for predicting the other "
    "player's action in round {t}: the patterns in their past choices and how they react to yours. "
    "Leave out everything else."
)
S2A_CONTEXT = "Summary of the game so far:\n{summary}"

# ------------------------------------------------------------------------------------ 3-shot examples
# Per game, customised to its actions and payoffs (004 Fig. 13). ``{a0}``... are the focal labels of
# the chosen label set; the situations are rendered with the same reward words as the rules.

COT_EXAMPLES: dict[str, list[dict[str, str]]] = {
    "RPS": [
        {
            "situation": "In every one of the last 4 rounds the other player chose {a0}. This is round 5.",
            "reasoning": "They keep choosing {a0}. {a1} beats {a0} and gives me +1, so {a1} is the best reply "
            "if they stay with it.",
            "answer": "{a1}",
        },
        {
            "situation": "I chose {a0}, {a1}, {a2} in the last three rounds and the other player answered "
            "each time with the action that beats my previous one. Last round I chose {a2}.",
            "reasoning": "They play what beats my last action, so now they will play what beats {a2}, which is "
            "{a0}. {a1} beats {a0}, so I take {a1}.",
            "answer": "{a1}",
        },
        {
            "situation": "The other player chose {a2} in each of the last 6 rounds. This is round 7.",
            "reasoning": "Their choice never changes. {a0} beats {a2} and earns +1, while the other actions give "
            "0 or -1.",
            "answer": "{a0}",
        },
    ],
    "IBS": [
        {
            "situation": "The other player chose {a1} in each of the last 4 rounds. This is round 5.",
            "reasoning": "They insist on {a1}. If I also take {a1} I win 7 points; mismatching wins 0. So {a1}.",
            "answer": "{a1}",
        },
        {
            "situation": "The other player has copied my previous action in every round. Last round I chose {a0}.",
            "reasoning": "They repeat my last action, so they will choose {a0} now. Matching with {a0} wins me "
            "10 points, the best I can get.",
            "answer": "{a0}",
        },
        {
            "situation": "The other player chose {a0} in each of the last 5 rounds. This is round 6.",
            "reasoning": "They keep choosing {a0}. Matching with {a0} wins 10 points for me; {a1} would win 0.",
            "answer": "{a0}",
        },
    ],
    "IPD": [
        {
            "situation": "The other player chose {a1} in each of the last 4 rounds. This is round 5 of 100.",
            "reasoning": "They always choose {a1}. Against {a1}, {a1} wins 5 points and {a0} wins 0, so {a1}.",
            "answer": "{a1}",
        },
        {
            "situation": "The other player repeats whatever I chose in the previous round. Last round I chose "
            "{a0}. This is round 10 of 100.",
            "reasoning": "They mirror me, so they will choose {a0} now. Choosing {a0} keeps us both on 8 points a "
            "round for the many rounds left; {a1} wins 10 once but then 5 a round at best. So {a0}.",
            "answer": "{a0}",
        },
        {
            "situation": "The other player chose {a0} in each of the last 6 rounds, whatever I did. This is "
            "round 7 of 100.",
            "reasoning": "They never react to my choices and always choose {a0}. Against {a0}, {a1} wins 10 "
            "points and {a0} wins 8, so {a1}.",
            "answer": "{a1}",
        },
    ],
}
#: Examples for games without their own: a partner repeating one action, best-responded to.
GENERIC_EXAMPLE = {
    "situation": "The other player chose {b} in each of the last {k} rounds. This is round {t}.",
    "reasoning": "They keep choosing {b}. Against {b} my best action is {a}, which gives me the highest reward.",
    "answer": "{a}",
}
