"""The release's three judging prompts of a mediator line, verbatim (ProMediate-Eval
``scripts/behavior_evaluation.py``, MIT licence): monitoring, planning and simple. Each is a
``str.format`` template of ``conversation_prior`` (the release passes a Python list of conversation
lines, shown as its ``repr``) and ``speech`` (the mediator's line); the release's f-string escapes
(``{{``, ``}}``) are format escapes too, so the text sent is the release's byte for byte. The
release sends them after the system message :data:`SYSTEM`. The lines the three prompts share
(:data:`DIMENSIONS`, :data:`JSON_FORMAT`) and those monitoring and planning share (:func:`_identity`,
:func:`_input`) are written once and joined in, as is the JSON format's entry of each dimension
(:func:`_score_entry`), the result unchanged."""

# ruff: noqa: E501, W291, W293  (the release's text, trailing spaces included)

SYSTEM = "You are an expert in negotiation"

#: The four dimensions each prompt lists (the same lines in all three).
DIMENSIONS = """        - Perception alignment: whether the speech helps align the perceptions of the parties involved. (1-5)
        - Emotional dynamics: whether the speech helps to address negative emotions like anger, distrust, or grief among parties. (1-5)
        - Cognitive challenges: whether the speech helps to resolve faulty reasoning, cognitive biases, or unproductive heuristics. (1-5)
        - Communication breakdowns: whether the speech helps to restore dialogue, reframe narratives, or summarize key points. (1-5)
"""

#: Each dimension's key in the JSON answer and the example of its evidence the prompts give.
_EVIDENCE = {
    "perception_alignment": "which participants have perception alignment on which topics",
    "emotional_dynamics": "which participants have negative emotions, and what are the emotions",
    "cognitive_challenges": "which participants have faulty reasoning, cognitive biases, or unproductive heuristics",
    "communication_breakdowns": "which participants have communication breakdown, and what are the topics they are discussing",
}


def _score_entry(key: str) -> str:
    """One dimension's entry of the JSON answer format (the same lines for each but its key and example)."""
    name = key.replace("_", " ")
    return f"""            "{key}": {{{{
            "evidence": "You should provide the evidence of {name}, for example, {_EVIDENCE[key]}.",
            "reasoning": "Your reasoning here, explaining why you think the mediator's speech is effective or not. Make sure you leverage the concepts provided above."
            "score": <number between 1 and 5>
            }}}}
"""


#: The JSON answer format each prompt asks for (the same lines in all three; a blank line after the first entry).
JSON_FORMAT = (
    "        {{\n            \n"
    + _score_entry("perception_alignment")
    + "\n"
    + "".join(_score_entry(key) for key in ("emotional_dynamics", "cognitive_challenges", "communication_breakdowns"))
    + "        }}\n"
)


def _identity(ability: str) -> str:
    """The identity and task lines the monitoring and planning prompts share (``ability``: what is judged)."""
    return (
        """
        ## Identity
        You are an expert in analysing multiparty negotiation conversations. You are able to analyze the conversation and provide feedback on the AI's ability to intervene.

        ## Task
        You will be provided a conversation history and the mediator's speech. You need to evaluate the mediator's ability to """
        + ability
        + """.
        Here are 4 dimensions for evaluation:
"""
    )


def _input(whose: str) -> str:
    """The input lines the monitoring and planning prompts share; the release names the mediator ``whose``
    ("AI's" in one, "mediator's" in the other)."""
    return (
        """        If there is no such issues, you can just label it as -1
        ## Input
        Here is the conversation history before """
        + whose
        + """ turn:
        {conversation_prior}

        Here is the """
        + whose
        + """ speech:
        {speech}

        ## Output
"""
    )


MONITORING = (
    _identity("intervene on user requests or blockers")
    + DIMENSIONS
    + """        
        Here is the criteria for each dimension:
        1: Did not acknowledge or act on issues, or needs—even when they were clearly stated.
        3: Responded to obvious issues, but missed more subtle or implicit needs.
        5: Actively monitored the team state and surfaced nuanced blockers, task or expertise dependencies, and emerging issues before they escalated

"""
    + _input("AI's")
    + """    Return the result and reasoning in the following JSON format:
"""
    + JSON_FORMAT
    + """        """
)

PLANNING = (
    _identity("facilitate planning and task management")
    + DIMENSIONS
    + """
        Here is the criteria for evaluation:
        Planning (1-5):
            1: Facilitated actions that were irrelevant, off-topic, disorganized, unproductive, or unhelpful for goal progress
            3: Created basic plans and task assignments but did not adapt them as priorities shifted or delays arose
            5: Facilitated focused, relevant discussions; dynamically adjusted plans and priorities; appropriately addressed task dependencies.
        
"""
    + _input("mediator's")
    + """        Return the result and reasoning in the following JSON format:
"""
    + JSON_FORMAT
    + """        """
)

SIMPLE = (
    """
        ## Identity
        You are an expert in negotiation, you are able to analyze the ability of the mediator  in a negotiation based on their speech and previous conversation.

        ## Task
        You will be provided the previous conversation and the current speech of the mediator. 
        Your task is to analyze if the mediator helps in this problem solving process.
        Here is the criteria for evaluation:
"""
    + DIMENSIONS
    + """        If there is no such issues, you can just label it as -1
        ## Input
        Here is the conversation history before the mediator's turn:
        {conversation_prior}
        Here is the mediator's speech:
        {speech}
        ## Output
        First analyze the previous conversation and see if there is such issues, if there is no such issues, you should return -1 for that score. 
        If there is such issues, you should clearly point out:
        - Which participants have perception alignment on which topics
        - Which participants have negative emotions, and what are the emotions
        - Which participants have faulty reasoning, cognitive biases, or unproductive heuristics
        - Which participants have communication breakdown, and what are the topics they are discussing.
        If you cannot point out any of the above issues, you should return -1 for that score.
        If you think the mediator's speech is effective, you should return a score between 1 and 5 for each of the criteria, where 1 is the lowest and 5 is the highest.
        If the mediator's speech is not effective or did not realize the issue, you should return 1.
        If the mediator's speech realize the issue but did not help to resolve it, you should return 3.
        If the mediator's speech is effective and perfectly helps to resolve the issue, you should return 5.

        You should be strict in evaluation. If you think the resolution is not the best, you should rate it 4. 
        Return the result and reasoning in the following JSON format:
"""
    + JSON_FORMAT
    + """
        """
)

#: the prompts by the release's key in ``behavior_score.json``
PROMPTS = {"monitoring": MONITORING, "planning": PLANNING, "simple": SIMPLE}
