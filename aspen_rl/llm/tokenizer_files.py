"""Load a saved tokenizer as it was saved.

transformers 5 picks the tokenizer class from the model's type: a folder holding a Qwen2 config loads as
``Qwen2Tokenizer``, whose constructor sets Qwen2's own pre-tokenizer over the one in ``tokenizer.json``.
A tokenizer saved as the generic backend (``tokenizer_class`` ``TokenizersBackend`` or
``PreTrainedTokenizerFast``, as the tiny BPE tokenizers here are) then splits text differently from how
the model was trained: a BPE learnt across word boundaries gave 2.2x the tokens. This reads such a folder
with the class it names; every other tokenizer (a hub model's) loads through ``AutoTokenizer`` as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GENERIC_CLASSES = frozenset({"TokenizersBackend", "PreTrainedTokenizerFast"})
"""``tokenizer_class`` values that mean "the pipeline is all in tokenizer.json"."""


def saved_class(source: str | Path) -> str | None:
    """The ``tokenizer_class`` a local tokenizer folder names (None: not a local folder, or none named)."""
    config = Path(source) / "tokenizer_config.json"
    if not config.is_file():
        return None
    value = json.loads(config.read_text(encoding="utf-8")).get("tokenizer_class")
    return value if isinstance(value, str) else None


def load_tokenizer(source: str | Path, **kwargs: Any) -> Any:
    """The tokenizer in ``source`` (a local folder or hub id), loaded with the pipeline it was saved with."""
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    if saved_class(source) in GENERIC_CLASSES:
        return PreTrainedTokenizerFast.from_pretrained(str(source), **kwargs)
    return AutoTokenizer.from_pretrained(str(source), **kwargs)
