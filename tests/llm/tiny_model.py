"""Build a tiny, randomly initialised Llama with its own tokenizer, fully offline.

The model is garbage as a language model but a real one for the engine: a byte-level BPE
tokenizer trained here on a few KB of text that mentions the games' labels, a chat template,
and a two-layer Llama with a fixed random seed. vLLM (CPU build) and its OpenAI-compatible
server both load it from a local folder, so the tests need no network and no downloads.
"""

from __future__ import annotations

from pathlib import Path

BOS, EOS, PAD = "<s>", "</s>", "<pad>"

# A minimal Llama-2-like template: one tagged block per message; the generation prompt opens
# the assistant block. Every rendered prompt starts with BOS, so tokenizers must not add it again.
CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "<|{{ message['role'] }}|>\n{{ message['content'] }}{{ eos_token }}\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)

_WORDS = (
    "Rock Paper Scissors J F B Cooperate Defect round rounds points score scores you your partner "
    "opponent player players game games action actions choose chose chooses played plays play win "
    "wins lose loses tie draw reward payoff total previous next predict prediction answer yes no "
    "Yes No A B C D believe believes think thinks know knows want wants mediator party parties "
    "agree disagree consensus offer accept reject the a an of to in and or is was will what which "
    "who The In Answer: Question: Reply with one word"
)


def corpus() -> str:
    """A few KB of training text containing every word the game prompts use, many times."""
    words = _WORDS.split()
    lines = []
    for i in range(120):
        # A fixed, varied walk through the vocabulary (no randomness needed).
        chunk = [words[(i * 7 + j * 3) % len(words)] for j in range(9)]
        lines.append(f"Round {i % 10}: " + " ".join(chunk) + f". Score {i % 13} points.")
    lines.append("You played Rock, your partner played Paper. You chose Cooperate; they chose Defect.")
    return "\n".join(lines) + "\n"


def build_tokenizer(out_dir: Path, vocab_size: int = 512):
    """Train a byte-level BPE on :func:`corpus` and save it as a fast HF tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, BOS, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator([corpus()], trainer=trainer)
    # Like Llama's tokenizer, plain-text encoding prepends BOS; chat prompts carry BOS in the
    # template instead and must be encoded without special tokens (else BOS appears twice).
    tok.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", pair=f"{BOS} $A $B", special_tokens=[(BOS, tok.token_to_id(BOS))]
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=PAD, clean_up_tokenization_spaces=False
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out_dir)
    return fast


#: Position embeddings of the default tiny model (the tests' engines use max_model_len 2048).
POSITIONS = 2048
#: Enough positions for a 100-round matrix-game prompt (about 4,500 tokens) plus the labels:
#: build with ``positions=LONG_POSITIONS`` for ``perf llm``'s 100-round figures.
LONG_POSITIONS = 8192


def build_tiny_llama(out_dir: Path, seed: int = 0, positions: int = POSITIONS) -> Path:
    """Write tokenizer, config and random safetensors weights of a tiny Llama into ``out_dir``.

    Args:
        out_dir: folder to create (or reuse); vLLM loads it with ``LLM(model=str(out_dir))``.
        seed: torch seed for the random weights (same seed -> identical files).
        positions: ``max_position_embeddings``, the longest context the model accepts (RoPE, so
            the weights do not depend on it).

    Returns:
        ``out_dir``.
    """
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(out_dir)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,  # head size 32: the CPU attention backend needs >= 32
        num_key_value_heads=2,
        max_position_embeddings=positions,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=False,
        dtype="float32",
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    # Larger-than-default output weights give next-token distributions that are neither flat
    # (every continuation would score alike) nor one-hot (sampling would ignore the seed).
    with torch.no_grad():
        model.lm_head.weight.normal_(0.0, 0.1)
    model.save_pretrained(out_dir, safe_serialization=True)
    return out_dir


if __name__ == "__main__":  # pragma: no cover - manual use: python tests/llm/tiny_model.py DIR [POSITIONS]
    import sys

    print(build_tiny_llama(Path(sys.argv[1]), positions=int(sys.argv[2]) if len(sys.argv) > 2 else POSITIONS))
