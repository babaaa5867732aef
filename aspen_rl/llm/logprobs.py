"""Token logprobs of a causal LM for the update, scoring only the positions that need them, in chunks.

The plain way (``model(input_ids).logits``) materialises ``rows x tokens x vocab`` logits, and autograd keeps
them and their softmax for the backward pass: for 4 rows of 2k tokens and SmolLM2's 49k vocabulary that
is gigabytes, although only the sampled tokens (loss mask 1) are trained on. Here the model's backbone
gives the hidden states, the positions that need a logprob are gathered, and the output head plus
``log_softmax`` run over chunks of ``chunk_size`` of them; under autograd each chunk is checkpointed, so
its logits are recomputed in the backward pass instead of kept. The values are those of
``selective_logprobs`` over the full logits (same head, same float32 softmax); TRL's
``selective_log_softmax`` saves memory the same way, one row at a time.
"""

from __future__ import annotations

import logging

import torch
from torch.utils.checkpoint import checkpoint

logger = logging.getLogger(__name__)


def selective_logprobs(
    logits: torch.Tensor, token_ids: torch.Tensor, temperature: float = 1.0
) -> torch.Tensor:
    """Log-probability of each ``token_ids`` under ``softmax(logits / temperature)``, in float32.

    Args:
        logits: ``[..., vocab]``.
        token_ids: ``[...]``, the token scored at each position.
        temperature: Divides the logits (the sampling temperature; 1 for greedy).
    """
    logits = logits.float()
    if temperature != 1.0:
        logits = logits / temperature
    picked = logits.gather(-1, token_ids.unsqueeze(-1)).squeeze(-1)
    return picked - torch.logsumexp(logits, dim=-1)


_LOGIT_TRANSFORMS = ("final_logit_softcapping", "logit_scale", "logits_scaling", "output_logits_scale")
"""Config fields of architectures whose forward reshapes the head's output (Gemma2, Cohere, Granite...):
the lean path would miss that step, so such models use the full logits."""

_PROBE_TOKENS = 16
_checked: dict[type, bool] = {}
"""Per model class: whether the lean path was found equal to the full forward on a probe."""


def _unwrapped(model: torch.nn.Module) -> torch.nn.Module:
    """The transformers model inside a peft wrapper (the model itself otherwise)."""
    get_base = getattr(model, "get_base_model", None)
    base = get_base() if callable(get_base) else model
    return base if isinstance(base, torch.nn.Module) else model


def split_head(model: torch.nn.Module) -> tuple[torch.nn.Module, torch.nn.Module] | None:
    """The model's backbone (hidden states) and output head, or None when the lean path does not apply.

    Works for transformers causal LMs (``base_model_prefix`` backbone + ``get_output_embeddings`` head),
    wrapped by peft or not (adapters injected in the backbone or the head stay active).
    """
    base = _unwrapped(model)
    prefix = getattr(base, "base_model_prefix", "")
    backbone = getattr(base, prefix, None) if prefix else None
    get_head = getattr(base, "get_output_embeddings", None)
    head = get_head() if callable(get_head) else None
    if not isinstance(backbone, torch.nn.Module) or not isinstance(head, torch.nn.Module) or backbone is base:
        return None
    config = getattr(base, "config", None)
    if any(getattr(config, name, None) not in (None, 1, 1.0) for name in _LOGIT_TRANSFORMS):
        return None
    return backbone, head


def full_token_logprobs(
    model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor, temperature: float = 1.0
) -> torch.Tensor:
    """``[rows, tokens - 1]``: logprob of ``input_ids[:, t + 1]`` from the full logits of every position."""
    logits = model(input_ids=input_ids, attention_mask=attention_mask).logits
    return selective_logprobs(logits[:, :-1], input_ids[:, 1:], temperature)


def _chunk(
    head: torch.nn.Module, hidden: torch.Tensor, ids: torch.Tensor, temperature: float
) -> torch.Tensor:
    return selective_logprobs(head(hidden), ids, temperature)


def head_logprobs(
    head: torch.nn.Module,
    hidden: torch.Tensor,
    token_ids: torch.Tensor,
    needed: torch.Tensor,
    temperature: float = 1.0,
    chunk_size: int = 256,
) -> torch.Tensor:
    """Logprobs of ``token_ids`` at the ``needed`` positions, from hidden states, ``chunk_size`` at a time.

    Args:
        head: Output head (hidden -> vocabulary logits).
        hidden: ``[rows, positions, hidden]``, the state at position t predicts ``token_ids[:, t]``.
        token_ids: ``[rows, positions]``.
        needed: ``[rows, positions]`` bool; other positions get 0 (and no gradient).
        temperature: Divides the logits.
        chunk_size: Positions whose logits exist at once.

    Returns:
        ``[rows, positions]`` float32.
    """
    where = needed.nonzero(as_tuple=True)
    out = torch.zeros(token_ids.shape, dtype=torch.float32, device=hidden.device)
    if where[0].numel() == 0:
        return out + hidden.sum() * 0.0 if hidden.requires_grad else out  # keep the graph connected
    states, ids = hidden[where], token_ids[where]
    keep_graph = torch.is_grad_enabled() and states.requires_grad
    parts = []
    for start in range(0, ids.numel(), chunk_size):
        h, t = states[start : start + chunk_size], ids[start : start + chunk_size]
        if keep_graph:  # recompute the chunk's logits in backward instead of keeping them
            parts.append(checkpoint(_chunk, head, h, t, temperature, use_reentrant=False))
        else:
            parts.append(_chunk(head, h, t, temperature))
    return out.index_put(where, torch.cat(parts))


def token_logprobs(
    model: torch.nn.Module,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    needed: torch.Tensor | None = None,
    *,
    temperature: float = 1.0,
    chunk_size: int = 256,
) -> torch.Tensor:
    """``[rows, tokens - 1]``: logprob of ``input_ids[:, t + 1]`` where ``needed[:, t]``, else 0.

    With ``chunk_size`` 0, or a model the lean path does not fit (see ``split_head``; a one-off probe
    per model class also compares both paths), the full logits are computed and every position is
    scored, as ``full_token_logprobs``.

    Args:
        model: Causal LM (peft-wrapped or not).
        input_ids: ``[rows, tokens]``.
        attention_mask: ``[rows, tokens]``.
        needed: ``[rows, tokens - 1]`` bool (e.g. the loss mask); None: every position.
        temperature: Divides the logits (the sampling temperature).
        chunk_size: Positions scored at once; 0 disables the lean path.
    """
    parts = split_head(model) if chunk_size > 0 else None
    if parts is None or not _lean_path_checked(model, parts, input_ids, attention_mask, temperature):
        return full_token_logprobs(model, input_ids, attention_mask, temperature)
    backbone, head = parts
    hidden = backbone(input_ids=input_ids, attention_mask=attention_mask)[0][:, :-1]
    if needed is None:
        needed = torch.ones(hidden.shape[:2], dtype=torch.bool, device=hidden.device)
    return head_logprobs(head, hidden, input_ids[:, 1:], needed.bool(), temperature, chunk_size)


def _lean_path_checked(
    model: torch.nn.Module,
    parts: tuple[torch.nn.Module, torch.nn.Module],
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    temperature: float,
) -> bool:
    """Compare the lean and the full path once per model class on a short probe (no grad)."""
    kind = type(_unwrapped(model))
    if kind in _checked:
        return _checked[kind]
    n = min(int(attention_mask[0].sum()), _PROBE_TOKENS)
    if n < 2:
        return True  # nothing to compare on yet
    ids, mask = input_ids[:1, :n], attention_mask[:1, :n]
    backbone, head = parts
    with torch.no_grad():
        full = full_token_logprobs(model, ids, mask, temperature)
        hidden = backbone(input_ids=ids, attention_mask=mask)[0][:, :-1]
        every = torch.ones_like(ids[:, 1:], dtype=torch.bool)
        lean = head_logprobs(head, hidden, ids[:, 1:], every, temperature)
    tolerance = 1e-4 if hidden.dtype == torch.float32 else 5e-2
    same = bool(torch.allclose(lean, full, atol=tolerance, rtol=0.0))
    if not same:
        logger.warning(
            "%s: the memory-lean logprob path differs from the model's forward by %.3g; using full logits",
            kind.__name__,
            float((lean - full).abs().max()),
        )
    _checked[kind] = same
    return same
