"""A tiny random chat model and byte-level tokenizer built locally, for tests, benchmarks and smoke runs.

Nothing is downloaded: the tokenizer is 256 byte tokens plus ChatML/Hermes special tokens with a
Qwen2.5-style chat template that renders tools and ``<tool_call>`` blocks; the model is a Qwen2 (or
GPT-2) architecture built from a config with random weights. It speaks any text, so the real agent can
drive it end to end, but it has learnt nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from aspen_rl.llm.chat_template import CHATML_TOOLS_TEMPLATE

if TYPE_CHECKING:
    from transformers import PreTrainedModel

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>")
"""Added after the 256 byte tokens."""

CHAT_TEMPLATE = CHATML_TOOLS_TEMPLATE
"""The tiny tokenizer's template: ``chat_template.CHATML_TOOLS_TEMPLATE`` (ChatML, Hermes tool calls)."""


def build_tiny_tokenizer() -> Any:
    """A byte-level BPE tokenizer without merges (vocab 261) with the chat template above."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {symbol: i for i, symbol in enumerate(sorted(alphabet))}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = byte_level
    tok.decoder = decoders.ByteLevel()
    return chat_tokenizer(tok)


def chat_tokenizer(tok: Any) -> Any:
    """A ``tokenizers.Tokenizer`` as a ChatML chat tokenizer: Qwen2.5's special tokens and tool-call tags,
    :data:`CHAT_TEMPLATE` (the byte-level and the learnt BPE tiny tokenizers both end here)."""
    from transformers import PreTrainedTokenizerFast

    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
        chat_template=CHAT_TEMPLATE,
    )
    fast.add_tokens(["<tool_call>", "</tool_call>"])  # added but not special, as in Qwen2.5
    return fast


def build_tiny_model(
    vocab_size: int,
    *,
    arch: str = "qwen2",
    hidden_size: int = 32,
    num_layers: int = 2,
    num_heads: int = 2,
    seed: int = 0,
    **overrides: Any,
) -> PreTrainedModel:
    """A random causal LM built from a config (no download), in float32 and eval mode.

    Args:
        vocab_size: Vocabulary size (the tokenizer's length).
        arch: 'qwen2' (Qwen2Config, as the Qwen2.5 family) or 'gpt2'.
        hidden_size: Width.
        num_layers: Depth.
        num_heads: Attention heads.
        seed: Seeds the random initialisation.
        **overrides: Extra config fields.
    """
    from transformers import AutoModelForCausalLM, GPT2Config, PretrainedConfig, Qwen2Config

    config: PretrainedConfig
    if arch == "gpt2":
        config = GPT2Config(
            vocab_size=vocab_size,
            n_embd=hidden_size,
            n_layer=num_layers,
            n_head=num_heads,
            n_positions=overrides.pop("n_positions", 2048),
            resid_pdrop=0.0,
            embd_pdrop=0.0,
            attn_pdrop=0.0,
            bos_token_id=overrides.pop("bos_token_id", 0),
            eos_token_id=overrides.pop("eos_token_id", 0),
            **overrides,
        )
    elif arch == "qwen2":
        config = Qwen2Config(
            vocab_size=vocab_size,
            hidden_size=hidden_size,
            intermediate_size=overrides.pop("intermediate_size", hidden_size * 2),
            num_hidden_layers=num_layers,
            num_attention_heads=num_heads,
            num_key_value_heads=overrides.pop("num_key_value_heads", num_heads),
            max_position_embeddings=overrides.pop("max_position_embeddings", 32768),
            tie_word_embeddings=overrides.pop("tie_word_embeddings", True),
            **overrides,
        )
    else:
        raise ValueError(f"unknown tiny architecture {arch!r}")
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    return model.eval()


def save_tiny_chat_model(path: str | Path, *, seed: int = 0, **model_kwargs: Any) -> Path:
    """Write a tiny random Qwen2 chat model + byte tokenizer to ``path`` (loadable with ``from_pretrained``).

    Useful as ``GRPOConfig.model`` for offline smoke runs of the whole loop.
    """
    path = Path(path)
    tokenizer = build_tiny_tokenizer()
    model = build_tiny_model(len(tokenizer), seed=seed, **model_kwargs)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m aspen_rl.llm.tiny_bytes OUT_DIR``: write the tiny model for a CPU GRPO smoke run."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m aspen_rl.llm.tiny_bytes",
        description="Write a tiny random chat model (Qwen2 architecture, byte tokenizer, tool-call chat "
        "template) for a GRPO run on CPU: it exercises the whole loop in seconds and learns nothing useful.",
    )
    parser.add_argument("out_dir", type=Path, help="folder to write (e.g. models/tiny-chat)")
    parser.add_argument("--seed", type=int, default=0, help="weight initialisation seed (default 0)")
    args = parser.parse_args(argv)
    path = save_tiny_chat_model(args.out_dir, seed=args.seed)
    print(
        f"tiny chat model written to {path}; train it with: python -m aspen_rl.train --algorithm grpo "
        f"--model {path} --config configs/grpo_tiny_cpu.yaml"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
