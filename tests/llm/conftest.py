"""Fixtures for the local-LLM tests: a tiny local chat model and tokenizer (nothing is downloaded)."""

from __future__ import annotations

from _support.tiny_model import chat_model, tokenizer

__all__ = ["chat_model", "tokenizer"]
