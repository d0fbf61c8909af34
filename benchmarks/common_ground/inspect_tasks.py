"""The common-ground family as an Inspect AI task (docs/harnesses.md).

``common_tom`` (``tom/CommonToM-v2``): Common-ToM's yes/no belief questions under 003's zero-shot
protocol, as ``tom-envs common-ground --policy llm-release`` puts them: the release's prompt
template (``<data_dir>/prompts/gpt-zero-shot``; the bundled sample has one of ours) filled with the
conversation window and the question, one user message at T = 1.0, no generation cap and no seed
sent, read by the release's rule (periods removed, exactly Yes or No; any other reply counts wrong,
never re-asked) through :class:`policies.common_ground.llm.ReleaseZeroShot`. One Sample per scored
question of each conversation (conversation ``i`` seeded ``seed + i``, the benchmark's first pass;
the whole-group fillers of v2 are asked by the env, not scored, and left out); accuracy overall and
per belief order (``group``), as the benchmark's rows.

Task parameters beyond the shared ones: ``split`` (test, train, all), ``context`` (the
conversation shown: window, the command's default; online; full), ``prompt_file``,
``temperature``, ``max_tokens``. Refused (:data:`REFUSES`): ``episodes`` and ``horizon`` (every
question once; conversations are as long as they are), ``max_resamples`` and ``fallback`` (the
release's protocol never re-asks: a reply that is neither Yes nor No counts wrong).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from benchmarks.harnesses.inspect_spec import QAItem, QARun, QATask

OPTIONS = {"split": "test", "context": "window", "prompt_file": None, "temperature": None, "max_tokens": None}
REFUSES = {
    "episodes": "the task asks every scored question of the split once, as the command's first pass (Inspect's "
    "--limit takes the first N, --epochs asks each again)",
    "horizon": "a conversation is as long as the corpus has it",
    "max_resamples": "003's zero-shot protocol never re-asks (a reply that is neither Yes nor No counts wrong)",
    "fallback": "003's zero-shot protocol never falls back (a reply that is neither Yes nor No counts wrong)",
}


def _template(options: Mapping[str, Any]) -> str:
    return _release_template(options["prompt_file"], options["data_dir"])


@functools.lru_cache(maxsize=8)
def _release_template(prompt_file: str | None, data_dir: str | None) -> str:
    """The release's prompt template, read once per file (not per question)."""
    from pathlib import Path

    from policies.common_ground.llm import load_release_prompt, release_prompt_path
    from tom_envs.common_ground.corpus import SAMPLE_DATA_DIR

    return load_release_prompt(Path(prompt_file or release_prompt_path(data_dir or SAMPLE_DATA_DIR)))


def items(options: Mapping[str, Any]) -> list[QAItem]:
    """Every scored question of the split's conversations, with the release's prompt and the gold answer."""
    from benchmarks.common_ground.benchmark import ENV
    from benchmarks.qa_llm import make_qa_env
    from policies.common_ground.llm import release_prompt
    from tom_envs.qa import answered, walk

    env = make_qa_env(ENV, data_dir=options["data_dir"], split=options["split"], context=options["context"])
    template, seed = _template(options), int(options["seed"])
    out = []
    for i, cid in enumerate(env.cids):
        seen, infos = walk(env, seed + i, {"cid": cid})
        for k, (o, fact) in enumerate(zip(seen, answered(infos, with_fillers=True))):
            if not fact["scored"]:
                continue
            prompt = release_prompt(template, o["context"], o["question"])
            out.append(
                QAItem(
                    f"{cid}:{k}",
                    o,
                    int(fact["answer"]),
                    f"order_{fact['order']}",
                    [{"role": "user", "content": prompt}],
                    {"cid": int(cid), "sno": int(fact["sno"]), "order": int(fact["order"]), "episode_seed": seed + i},
                )
            )
    return out


def answer(run: QARun, item: QAItem) -> tuple[int | None, dict[str, Any]]:
    """003's zero-shot protocol on one question; None for a reply that is neither Yes nor No."""
    from benchmarks.policy_seeds import policy_seed
    from policies.common_ground.llm import RELEASE_MAX_TOKENS, RELEASE_TEMPERATURE, ReleaseZeroShot

    opts = run.options
    temperature = RELEASE_TEMPERATURE if opts["temperature"] is None else float(opts["temperature"])
    max_tokens = RELEASE_MAX_TOKENS if opts["max_tokens"] is None else int(opts["max_tokens"])
    model = ReleaseZeroShot(run.backend, _template(opts), temperature=temperature, max_tokens=max_tokens, seed=run.seed)
    got = model.answer([item.observation], [model.owner(policy_seed(int(item.metadata["episode_seed"])))])[0]
    return (None if got["unparsed"] else int(got["action"])), {"label": got["label"], "reply": got["reply"]}


def split_options(env_id: str, split: str) -> dict[str, Any]:
    """003's split, as ``tom-envs rl`` plays it (the env's ``split`` argument: train or test conversations)."""
    return {"split": split}


TASKS = (
    QATask(
        name="common_tom",
        env_id="tom/CommonToM-v2",
        items=items,
        answer=answer,
        options=OPTIONS,
        description="Common-ToM's belief questions under 003's zero-shot protocol",
        refuses=REFUSES,
        split_options=split_options,
    ),
)
