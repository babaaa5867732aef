"""The tiny BPE tokenizer: merges across word boundaries shorten repeated JSON glue, never change the text."""

from __future__ import annotations

import json
from pathlib import Path

from aspen_rl.llm.tiny_bpe import train_chat_tokenizer


def _configs(n: int) -> list[str]:
    """Config-like JSON texts: fixed keys and glue, varying names and numbers."""
    names = ["WATER", "METHANOL", "ETHANOL", "TOLUENE", "BENZENE"]
    return [
        json.dumps(
            {
                "blocks": [{"name": f"B{i % 7}", "type": "Heater"}],
                "stream_data": {
                    f"S-{i}": {
                        "temperature": {"TEMP_VALUE": 20.5 + i, "TEMP_UNITS": "C"},
                        "pressure": {"PRES_VALUE": 1.0 + i / 10, "PRES_UNITS": "bar"},
                        "flow": {names[i % 5]: {"FLOW_VALUE": 0.25, "FLOW_BASIS": "MOLE-FRAC"}},
                    }
                },
            }
        )
        for i in range(n)
    ]


def test_merges_across_words_shorten_the_glue_and_keep_digits_single() -> None:
    texts = _configs(60)
    held_out = _configs(80)[70]
    split = train_chat_tokenizer(texts, vocab_size=800, individual_digits=True)
    joined = train_chat_tokenizer(texts, vocab_size=800, individual_digits=True, word_boundaries=False)
    by_split = split.encode(held_out, add_special_tokens=False)
    by_joined = joined.encode(held_out, add_special_tokens=False)
    # the same text back, in well under half the tokens (the keys and their quotes are one token each)
    assert joined.decode(by_joined) == held_out == split.decode(by_split)
    assert len(by_joined) < 0.5 * len(by_split)
    # every digit of an unseen number stays its own token, so the model copies a number digit by digit
    pieces = [joined.decode([t]) for t in by_joined]
    for digit_piece in (p for p in pieces if any(c.isdigit() for c in p)):
        assert sum(c.isdigit() for c in digit_piece) == 1, digit_piece


def test_a_saved_tiny_model_loads_back_with_the_tokenizer_it_was_trained_with(tmp_path: Path) -> None:
    """Saved beside a Qwen2 config, the tokenizer must split text as before: every loader of a model folder
    (SFT/GRPO's, the serve command's, the engine's) reads it with :func:`load_tokenizer`; a class chosen from
    the model type put Qwen2's own pre-tokenizer in place of this one (2.2x the tokens on a demonstration)."""
    from types import SimpleNamespace

    from aspen_rl.llm.engine import TransformersEngine
    from aspen_rl.llm.loading import load_model
    from aspen_rl.llm.serve import load_local_model
    from aspen_rl.llm.tiny_bytes import build_tiny_model
    from aspen_rl.llm.tokenizer_files import load_tokenizer

    texts = _configs(60)
    held_out = _configs(80)[70]
    for word_boundaries in (True, False):
        tokenizer = train_chat_tokenizer(texts, vocab_size=800, word_boundaries=word_boundaries)
        where = tmp_path / f"boundaries-{word_boundaries}"
        build_tiny_model(len(tokenizer), hidden_size=16, num_layers=1, num_heads=2).save_pretrained(where)
        tokenizer.save_pretrained(where)
        expected = tokenizer.encode(held_out, add_special_tokens=False)
        loaded = [
            load_tokenizer(where),
            load_model(
                SimpleNamespace(
                    model=str(where), tokenizer=None, chat_template=None, device="cpu", dtype="float32"
                )
            )[1],
            load_local_model(where, device="cpu", dtype="float32")[1],
            TransformersEngine.from_pretrained(where).tokenizer,
        ]
        for other in loaded:
            assert other.encode(held_out, add_special_tokens=False) == expected, (
                word_boundaries,
                type(other),
            )
            assert other.eos_token_id == tokenizer.eos_token_id
