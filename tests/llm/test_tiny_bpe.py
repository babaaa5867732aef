"""The tiny BPE tokenizer: merges across word boundaries shorten repeated JSON glue, never change the text."""

from __future__ import annotations

import json

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
