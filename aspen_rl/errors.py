"""Errors every layer may raise without importing the CLI."""

from __future__ import annotations


class UsageError(Exception):
    """A problem with the command line, the configuration or the inputs: reported in one line, exit 2."""
