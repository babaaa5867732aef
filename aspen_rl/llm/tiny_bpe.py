"""A tiny BPE chat tokenizer trained locally on transcripts, for CPU learning tests and smoke runs.

GRPO's tiny tokenizer (``tiny_bytes.py``) has only byte tokens: fine for plumbing, slow to learn with (a block
type such as ``Flash2`` is six tokens, a requirement ~600). This one learns merges from the given texts
(seconds, nothing downloaded) and keeps the same special tokens and Qwen2.5-style chat template, so
sequences are ~4x shorter and a tiny model built from a config can learn the first tool call on a CPU.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from aspen_rl.agent.context import openai_view
from aspen_rl.llm.tiny_bytes import build_tiny_model, chat_tokenizer

WORDS_APART = r"[\p{L}_]+|\p{N}|[^\p{L}\p{N}_]+"
"""``words_apart``'s pieces: a run of letters or ``_``, one digit, or a run of anything else."""


def train_chat_tokenizer(
    texts: Iterable[str],
    *,
    vocab_size: int = 2000,
    individual_digits: bool = False,
    word_boundaries: bool = True,
    words_apart: bool = False,
) -> Any:
    """A byte-level BPE tokenizer with ``vocab_size`` entries learnt from ``texts``, with the chat template.

    With ``individual_digits`` every digit is its own token (no merge spans a digit), so a number never seen
    in training is still a sequence of known tokens that a small model can copy from the task text.
    With ``word_boundaries`` (GPT-2's pre-split) no merge spans a word or punctuation boundary; without,
    text repeated across the transcripts (a config's JSON keys and glue, the system prompt, the schema)
    merges into long tokens: a heater config turn is ~107 tokens instead of ~418, the slots to fill
    (names, digits) stay short.
    With ``words_apart`` (overrides the two above) text splits into runs of letters (and ``_``), single
    digits, and runs of everything else, and merges stay inside a piece: a name or number is then the same
    tokens in a request ("heater H-101 at 25") as in a config (``\"H-101\", ... 25.0``), never fused with
    the space, quotes or glue beside it, while a config's glue (``\", \"``) still merges (measured on
    held-out heater configs in ``docs/benchmarks/learning_curve.md``, session 9).
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    if words_apart:
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(WORDS_APART), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    else:
        byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=word_boundaries)
        tok.pre_tokenizer = (
            pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level])
            if individual_digits
            else byte_level
        )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(list(texts), trainer=trainer)
    return chat_tokenizer(tok)


def transcript_texts(transcripts: Iterable[dict[str, Any]], *, max_chars: int = 4000) -> list[str]:
    """Text of every message of the transcripts, recorded and as the agent shows them (tool answers cut to
    ``max_chars``), to train a tokenizer on."""
    import json

    texts: list[str] = []
    for transcript in transcripts:
        for message in transcript["messages"] + openai_view(transcript["messages"]):
            if message.get("content"):
                texts.append(str(message["content"])[:max_chars])
            for call in message.get("tool_calls") or []:
                function = call["function"]
                texts.append(
                    json.dumps({"name": function["name"], "arguments": json.loads(function["arguments"])})
                )
    return texts


def build_tiny_bpe_model(
    transcripts: list[dict[str, Any]],
    *,
    vocab_size: int = 2000,
    hidden_size: int = 128,
    num_layers: int = 2,
    num_heads: int = 4,
    seed: int = 0,
    individual_digits: bool = True,
    word_boundaries: bool = True,
    words_apart: bool = False,
) -> tuple[Any, Any]:
    """A random Qwen2 built from a config and a BPE tokenizer learnt from ``transcripts`` (and the system
    prompt and tool descriptions they carry); nothing is downloaded.

    Returns:
        ``(model, tokenizer)``: the model in float32, eval mode, its generation config ending at the
        tokenizer's end-of-turn token.
    """
    import json

    texts = transcript_texts(transcripts)
    for transcript in transcripts[:1]:  # the tool block every prompt carries
        texts.extend(json.dumps(tool) for tool in transcript.get("tools") or [])
    tokenizer = train_chat_tokenizer(
        texts,
        vocab_size=vocab_size,
        individual_digits=individual_digits,
        word_boundaries=word_boundaries,
        words_apart=words_apart,
    )
    model = build_tiny_model(
        len(tokenizer), hidden_size=hidden_size, num_layers=num_layers, num_heads=num_heads, seed=seed
    )
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model, tokenizer
