"""The nouns of the local model's layers: sampling parameters, generations, call records, rows, samples."""

from __future__ import annotations

from dataclasses import dataclass, field

FinishReason = str
"""'stop' (a stop token was sampled) or 'length' (the token budget ran out)."""


@dataclass(frozen=True)
class SamplingParams:
    """How one batch of prompts is sampled.

    Args:
        max_tokens: Most tokens sampled per prompt.
        temperature: Softmax temperature; 0 means greedy.
        top_p: Nucleus mass (1 disables).
        top_k: Top-k cut (0 disables).
        stop_token_ids: Tokens that end a completion (kept as its last token); empty: the engine's eos.
        ignore_eos: Never stop before ``max_tokens`` (benchmarks).
    """

    max_tokens: int = 256
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    stop_token_ids: tuple[int, ...] = ()
    ignore_eos: bool = False

    def stop_ids(self, default: tuple[int, ...]) -> tuple[int, ...]:
        """The stop tokens in effect: none with ``ignore_eos``, else ours, else the engine's ``default``."""
        if self.ignore_eos:
            return ()
        return tuple(self.stop_token_ids) or default

    @property
    def logprob_temperature(self) -> float:
        """Temperature the reported logprobs are taken at (1 for greedy decoding)."""
        return self.temperature if self.temperature > 0 else 1.0


@dataclass(frozen=True)
class Generation:
    """One sampled completion with the logprob of each sampled token under the sampling distribution."""

    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    finish_reason: FinishReason

    def __post_init__(self) -> None:
        if len(self.completion_ids) != len(self.logprobs):
            raise ValueError(
                f"{len(self.completion_ids)} completion tokens but {len(self.logprobs)} logprobs: not aligned"
            )


@dataclass(frozen=True)
class CallRecord:
    """What the local endpoint recorded for one chat-completion call of a rollout."""

    rollout_id: str
    attempt_id: str | None
    index: int
    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    finish_reason: FinishReason
    started_at: float
    finished_at: float
    policy_version: int = 0


@dataclass
class TrajectoryRow:
    """One training row: merged calls of a rollout, with per-token masks and engine logprobs.

    All three lists have the same length. ``loss_mask[t]`` is 1 when ``input_ids[t]`` was sampled by the
    policy, 0 for system/user/tool/template tokens; ``engine_logprobs[t]`` is the engine's logprob of that
    sampled token (0 where the mask is 0). ``loss_weights``, when given, is each token's relative weight in
    a supervised loss (SFT's ``value_weight``; None: every trained token weighs 1; GRPO ignores it).
    """

    input_ids: list[int]
    loss_mask: list[int]
    engine_logprobs: list[float]
    loss_weights: list[float] | None = None

    def __post_init__(self) -> None:
        if not len(self.input_ids) == len(self.loss_mask) == len(self.engine_logprobs):
            raise ValueError("input_ids, loss_mask and engine_logprobs must have the same length")
        if self.loss_weights is not None and len(self.loss_weights) != len(self.input_ids):
            raise ValueError("loss_weights must have one weight per token")
        if self.loss_mask and self.loss_mask[0]:
            raise ValueError("the first token of a row cannot be a sampled token (nothing to condition on)")

    @property
    def num_loss_tokens(self) -> int:
        """How many tokens of this row are trained on."""
        return sum(self.loss_mask)


@dataclass
class RolloutSample:
    """One rollout of a group: its training rows, its reward, and how often its token prefix broke."""

    rows: list[TrajectoryRow]
    reward: float
    prefix_breaks: int = 0
    truncated_rows: int = 0
    meta: dict[str, object] = field(default_factory=dict)
