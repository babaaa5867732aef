"""Which tokens of an assistant turn spell the values its tool calls carry (for ``SFTConfig.value_weight``).

A tool call is rendered as a JSON object ``{"name": ..., "arguments": ...}`` inside the turn's text. Its
*values* are the leaf strings and numbers of the arguments, recursively, including arguments that are JSON
text themselves (``run_simulation``'s config: a JSON string inside the JSON arguments, escaped). Only each
distinct value's first occurrence in the turn counts: a later repeat (``B1`` as a connection key's value,
the outlet pressure equal to the feed's) is a copy from the turn itself. Keys, punctuation, ``true`` /
``false`` / ``null`` and the tool's name are never values.

Positions come from walking the rendered text itself (Python's JSON decoder reads every scalar), so a value
is marked where it is written, escaped or not; characters map to tokens by decoding the turn prefix by
prefix, as the tokenizer would show them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from aspen_rl.llm.trajectory import assistant_spans

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")

Span = tuple[int, int]
"""Characters ``[start, end)`` of a text."""


class _NotJSON(ValueError):
    """The text at this position is not one JSON value."""


def _skip(text: str, i: int) -> int:
    match = _SPACE.match(text, i)
    return match.end() if match else i


def _source_offsets(text: str, start: int, end: int) -> list[int]:
    """Where each character of the JSON string body ``text[start:end]`` starts once decoded (plus ``end``)."""
    offsets: list[int] = []
    i = start
    while i < end:
        offsets.append(i)
        if text[i] != "\\":
            i += 1
        elif text[i + 1] != "u":
            i += 2
        else:
            high = int(text[i + 2 : i + 6], 16)
            i += 6
            if (
                0xD800 <= high < 0xDC00
                and text.startswith("\\u", i)
                and 0xDC00 <= int(text[i + 2 : i + 6], 16) < 0xE000
            ):
                i += 6  # a surrogate pair decodes to one character
    offsets.append(end)
    return offsets


def _leaves(text: str, i: int) -> tuple[list[tuple[Span, str]], int]:
    """The leaf values of the JSON value at ``text[i:]``: (span, key) pairs in order, and where it ends.

    A value's key is ``s:<the string>`` or ``n:<the number as written>``. A string whose content is a JSON
    object or array gives that JSON text's leaves, mapped back to this text's positions.
    """
    i = _skip(text, i)
    if i >= len(text):
        raise _NotJSON(i)
    opening = text[i]
    if opening in "{[":
        closing = "}" if opening == "{" else "]"
        found: list[tuple[Span, str]] = []
        i = _skip(text, i + 1)
        if text.startswith(closing, i):
            return found, i + 1
        while True:
            if opening == "{":
                if not text.startswith('"', i):
                    raise _NotJSON(i)
                _, i = _DECODER.raw_decode(text, i)  # the key: never a value
                i = _skip(text, i)
                if not text.startswith(":", i):
                    raise _NotJSON(i)
                i += 1
            inner, i = _leaves(text, i)
            found.extend(inner)
            i = _skip(text, i)
            if text.startswith(",", i):
                i = _skip(text, i + 1)
            elif text.startswith(closing, i):
                return found, i + 1
            else:
                raise _NotJSON(i)
    try:
        value, end = _DECODER.raw_decode(text, i)
    except json.JSONDecodeError as error:
        raise _NotJSON(i) from error
    if isinstance(value, str):
        return _string_leaves(text, i + 1, end - 1, value), end
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [((i, end), f"n:{text[i:end]}")], end
    return [], end  # true, false, null


def _string_leaves(text: str, start: int, end: int, value: str) -> list[tuple[Span, str]]:
    """One leaf (the string's body ``text[start:end]``), or the leaves of the JSON text it holds, placed in
    ``text``."""
    if value.lstrip()[:1] in ("{", "["):
        try:
            inner, stop = _leaves(value, 0)
        except ValueError:  # text that merely starts like JSON: one value
            inner, stop = [], -1
        offsets = _source_offsets(text, start, end)
        if stop >= 0 and not value[stop:].strip() and len(offsets) == len(value) + 1:
            return [((offsets[a], offsets[b]), key) for (a, b), key in inner]
    return [((start, end), f"s:{value}")] if value else []


def value_spans(text: str) -> list[Span]:
    """Character spans of the first occurrence of each distinct leaf value of the tool calls' arguments in
    one assistant turn's rendered ``text`` (every ``{"name": ..., "arguments": ...}`` object in it), in order.
    """
    spans: list[Span] = []
    seen: set[str] = set()
    i = text.find("{")
    while i >= 0:
        try:
            call, end = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(call, dict) and "arguments" in call:
            arguments = _arguments_start(text, i)
            for span, key in _leaves(text, arguments)[0]:
                if key not in seen:
                    seen.add(key)
                    spans.append(span)
        i = text.find("{", end)
    return spans


def _arguments_start(text: str, i: int) -> int:
    """Where the ``arguments`` value of the (valid) JSON object at ``text[i]`` starts."""
    i = _skip(text, i + 1)
    while True:
        key, i = _DECODER.raw_decode(text, i)
        i = _skip(text, _skip(text, i) + 1)  # past the colon
        if key == "arguments":
            return i
        _, i = _DECODER.raw_decode(text, i)
        i = _skip(text, _skip(text, i) + 1)  # past the comma


def value_token_mask(token_ids: Sequence[int], tokenizer: Any) -> list[bool]:
    """Whether each token of one assistant turn spells (part of) a first-occurrence tool-call value.

    The turn is decoded prefix by prefix: token k covers the characters the k-th token adds; it is marked
    when they overlap a :func:`value_spans` span of the whole turn's text.
    """
    text = tokenizer.decode(list(token_ids), skip_special_tokens=False)
    spans = value_spans(text)
    if not spans:
        return [False] * len(token_ids)
    marked = [False] * (len(text) + 1)
    for start, end in spans:
        marked[start:end] = [True] * (end - start)
    mask: list[bool] = []
    before = 0
    for k in range(len(token_ids)):
        after = len(tokenizer.decode(list(token_ids[: k + 1]), skip_special_tokens=False))
        mask.append(any(marked[before:after]))
        before = max(before, after)
    return mask


def value_loss_weights(
    input_ids: Sequence[int], loss_mask: Sequence[int], tokenizer: Any, value_weight: float
) -> list[float]:
    """Each token's weight in SFT's loss: ``value_weight`` on the value tokens of every assistant turn (a run
    of loss-mask 1), 1 on its other tokens, 0 where the mask is 0."""
    weights = [float(m) for m in loss_mask]
    for start, end in assistant_spans(loss_mask):
        for k, is_value in enumerate(value_token_mask(input_ids[start:end], tokenizer), start=start):
            if is_value:
                weights[k] = value_weight
    return weights
