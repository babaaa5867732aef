"""Per-rollout sampling seeds: how an algorithm makes what its rollouts sample reproducible.

The algorithm that enqueues a batch puts ``derive_seed(batch_seed, i)`` into the i-th rollout's metadata
under :data:`SEED_METADATA_KEY`; the agent sends it as the chat request's ``seed`` on every call; the
local endpoint draws each call from the stream of ``prompt_seed(seed, prompt)`` (the engine gets that
seed; vLLM uses it as a per-request seed). A rollout's later turns carry its earlier ones in their prompt,
so each turn gets a fresh stream, and a call samples the same tokens whichever runner took the rollout
and whatever the endpoint batched it with.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Sequence

SEED_METADATA_KEY = "sampling_seed"
"""Rollout metadata key of the rollout's own sampling seed."""


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from ``parts`` (the same parts, the same seed, in every process and on every machine)."""
    digest = hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def prompt_seed(seed: int, prompt_ids: Sequence[int]) -> int:
    """The stream of one call: ``seed`` mixed with its prompt (one seed over a rollout's turns would make
    every turn reuse the same uniforms, coupling turns that should be independent draws)."""
    digest = hashlib.blake2b(array("q", prompt_ids).tobytes(), digest_size=16).hexdigest()
    return derive_seed(seed, digest)
