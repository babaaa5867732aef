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


def _ids_inside(part: list[int], whole: list[int]) -> bool:
    return any(whole[i : i + len(part)] == part for i in range(len(whole) - len(part) + 1))


def test_words_apart_spells_a_value_with_the_requests_own_tokens() -> None:
    """A name or number a request states is the same token ids in the config, so the model can copy it;
    merges across words fuse it with the JSON glue around it (a different token in every context)."""
    requests = [
        f"Heat stream S-{i} in block B{i % 7} to {20.5 + i} C at {1.0 + i / 10} bar." for i in range(60)
    ]
    texts = _configs(60) + requests
    held_out, request = _configs(80)[71], "Heat stream S-71 in block B1 to 91.5 C at 8.1 bar."
    apart = train_chat_tokenizer(texts, vocab_size=800, words_apart=True)
    joined = train_chat_tokenizer(texts, vocab_size=800, individual_digits=True, word_boundaries=False)
    for value in ("S-71", "B1", "91.5", "8.1"):
        assert value in held_out and value in request
    for tokenizer, copyable in ((apart, True), (joined, False)):
        config_ids = tokenizer.encode(held_out, add_special_tokens=False)
        request_ids = tokenizer.encode(request, add_special_tokens=False)
        assert tokenizer.decode(config_ids) == held_out
        pieces = [tokenizer.decode([t]) for t in config_ids]
        spelled = []
        for value in ("S-71", "B1", "91.5", "8.1"):
            start = held_out.index(f'"{value}"' if value[0].isalpha() else value)
            start += held_out[start] == '"'
            # the config's tokens that cover the value, if the value starts and ends on token edges
            edges = [sum(len(p) for p in pieces[:k]) for k in range(len(pieces) + 1)]
            if start in edges and start + len(value) in edges:
                part = config_ids[edges.index(start) : edges.index(start + len(value))]
                spelled.append(_ids_inside(part, request_ids))
            else:
                spelled.append(False)
        assert all(spelled) if copyable else not all(spelled), (copyable, spelled)
    # the glue still merges: well under one token per character of the config
    assert len(apart.encode(held_out, add_special_tokens=False)) < 0.5 * len(held_out)


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
    for word_boundaries, words_apart in ((True, False), (False, False), (False, True)):
        tokenizer = train_chat_tokenizer(
            texts, vocab_size=800, word_boundaries=word_boundaries, words_apart=words_apart
        )
        where = tmp_path / f"boundaries-{word_boundaries}-apart-{words_apart}"
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
