"""Peak memory of one GRPO update on CPU, full-vocabulary logits vs the memory-lean logprobs.

The policy has SmolLM2-135M's shape (Llama, vocabulary 49,152, 30 layers, width 576), built from a config
with random weights (nothing downloaded), trained with the default ``configs/grpo.yaml`` settings (LoRA
r=16, micro-batches of 4 rows) on rows of ``--tokens`` tokens. Each mode runs in its own process; the
peak is the process's resident memory sampled every 2 ms during ``trainer.step`` minus the memory
before it (model, optimiser and data already built). The processes run with glibc's
``MALLOC_MMAP_THRESHOLD_=1048576``, so that freed tensors over 1 MiB leave the process at once and the
resident peak is the peak of live tensors, not of what the heap kept.

    python benchmarks/update_memory.py                     # 4 rows x 2048 tokens, 25 % sampled tokens
    python benchmarks/update_memory.py --rows 1 --sampled 1.0
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

SMOLLM2_135M = {
    "vocab_size": 49152,
    "hidden_size": 576,
    "intermediate_size": 1536,
    "num_hidden_layers": 30,
    "num_attention_heads": 9,
    "num_key_value_heads": 3,
    "max_position_embeddings": 8192,
    "rope_theta": 100000.0,
    "rms_norm_eps": 1e-5,
    "tie_word_embeddings": True,
}
"""SmolLM2-135M's config (its ``config.json``), as a Llama architecture."""


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure(
    chunk: int, rows: int, tokens: int, sampled: float, threads: int, checkpointing: bool = False
) -> dict[str, Any]:
    """One update in this process; returns the peak above the pre-step memory, in bytes."""
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    from aspen_rl.algorithms.grpo.config import load_grpo_config
    from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
    from aspen_rl.llm.types import RolloutSample, TrajectoryRow

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(LlamaConfig(**SMOLLM2_135M), dtype=torch.float32)
    cfg = load_grpo_config(
        "configs/grpo.yaml",
        model="smollm2-135m-shape",
        device="cpu",
        logprob_chunk_tokens=chunk,
        gradient_checkpointing=checkpointing,
        cpu_threads=threads,
        tensorboard=False,
    )
    trainer = GRPOTrainer(cfg, model=model)
    g = torch.Generator().manual_seed(1)
    n_sampled = min(int(tokens * sampled), tokens - 1)  # the first token has nothing to condition on
    mask = [0] * (tokens - n_sampled) + [1] * n_sampled  # the prompt first, then the sampled tokens
    samples = [
        RolloutSample(
            [
                TrajectoryRow(
                    torch.randint(0, 49152, (tokens,), generator=g).tolist(), mask, [-2.0 * m for m in mask]
                )
            ],
            reward=float(i % 2),
        )
        for i in range(rows)
    ]
    # groups of two rewards 0 and 1 (a lone row is paired with a rollout that has no rows)
    groups = [samples[i : i + 2] for i in range(0, rows, 2)]
    if len(groups[-1]) == 1:
        groups[-1].append(RolloutSample([], reward=1.0 - groups[-1][0].reward))
    base = _rss()
    peak = base
    running = True

    def sample() -> None:
        nonlocal peak
        while running:
            peak = max(peak, _rss())
            time.sleep(0.002)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    started = time.perf_counter()
    metrics = trainer.step(groups)
    seconds = time.perf_counter() - started
    running = False
    watcher.join()
    return {
        "chunk": chunk,
        "peak_above_base_bytes": peak - base,
        "base_bytes": base,
        "seconds": seconds,
        "trained_tokens": metrics["tokens"],
        "loss": metrics["loss"],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows", type=int, default=4, help="rows in the update (one micro-batch of 4 by default)"
    )
    parser.add_argument("--tokens", type=int, default=2048, help="tokens per row")
    parser.add_argument(
        "--sampled", type=float, default=0.25, help="share of a row's tokens sampled by the policy"
    )
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    parser.add_argument(
        "--gradient-checkpointing", action="store_true", help="recompute the layers' activations in backward"
    )
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # child: measure this chunk size
    args = parser.parse_args(argv)
    if args.one is not None:
        print(
            json.dumps(
                measure(
                    args.one, args.rows, args.tokens, args.sampled, args.threads, args.gradient_checkpointing
                )
            )
        )
        return
    results = []
    from aspen_rl.algorithms.grpo.config import GRPOConfig

    lean = GRPOConfig().logprob_chunk_tokens
    for chunk, name in ((0, "full logits (before)"), (lean, f"memory-lean (after, {lean})")):
        child = [sys.executable, __file__, "--one", str(chunk)]
        child += ["--rows", str(args.rows), "--tokens", str(args.tokens), "--sampled", str(args.sampled)]
        child += ["--threads", str(args.threads)]
        child += ["--gradient-checkpointing"] if args.gradient_checkpointing else []
        env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": os.environ.get("MALLOC_MMAP_THRESHOLD_", "1048576")}
        done = subprocess.run(child, capture_output=True, text=True, env=env)
        if done.returncode:
            sys.exit(f"{name}: the measuring process failed:\n{done.stderr[-3000:]}")
        out = done.stdout
        result = json.loads(out.strip().splitlines()[-1])
        result["mode"] = name
        results.append(result)
        print(
            f"{name:22s} peak {result['peak_above_base_bytes'] / 2**30:6.2f} GiB above "
            f"{result['base_bytes'] / 2**30:.2f} GiB, {result['seconds']:.1f} s, loss {result['loss']:+.6f}",
            flush=True,
        )
    ratio = results[1]["peak_above_base_bytes"] / results[0]["peak_above_base_bytes"]
    print(
        f"{args.rows} rows x {args.tokens} tokens ({args.sampled:.0%} sampled), SmolLM2-135M shape, "
        f"LoRA r=16, gradient checkpointing {'on' if args.gradient_checkpointing else 'off'}: "
        f"after/before = {ratio:.2f}"
    )


if __name__ == "__main__":
    main()
