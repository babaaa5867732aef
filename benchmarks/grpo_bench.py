"""GRPO throughput: generation, the local endpoint and the update step, in tokens per second.

CPU (default): tiny random Qwen2 models built from a config (nothing downloaded) on the byte tokenizer.
``--gpu``: a ~0.5B-parameter Qwen2 built from Qwen2.5-0.5B's config shape (random weights, bf16), the
transformers engine and, when installed, vLLM; plus TRL's GRPOTrainer on the same model and data for
a ratio when ``trl`` is installed (otherwise it says so and skips).

    python benchmarks/grpo_bench.py            # CPU figures
    python benchmarks/grpo_bench.py --gpu      # on a CUDA machine
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.algorithms.grpo.engine import RolloutEngine, TransformersEngine
from aspen_rl.algorithms.grpo.server import ChatCompletionServer
from aspen_rl.algorithms.grpo.tiny import build_tiny_model, build_tiny_tokenizer
from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
from aspen_rl.algorithms.grpo.types import Generation, RolloutSample, SamplingParams, TrajectoryRow

QWEN25_05B = {
    "hidden_size": 896,
    "num_layers": 24,
    "num_heads": 14,
    "num_key_value_heads": 2,
    "intermediate_size": 4864,
    "tie_word_embeddings": True,
}
"""Qwen2.5-0.5B's shape (494M parameters with its 151,936-token vocabulary)."""
QWEN_VOCAB = 151_936

CPU_MODELS = {
    "tiny (h32 x2)": {"hidden_size": 32, "num_layers": 2, "num_heads": 2},
    "small (h256 x4)": {"hidden_size": 256, "num_layers": 4, "num_heads": 4},
}


@dataclass
class Result:
    """One benchmark line."""

    model: str
    what: str
    tokens: int
    seconds: float
    note: str = ""

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0


def _timed(fn: Callable[[], Any], device: torch.device) -> tuple[Any, float]:
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    out = fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return out, time.perf_counter() - start


def _prompts(n: int, length: int, vocab: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [[rng.randrange(vocab) for _ in range(length)] for _ in range(n)]


def _groups(generations: list[Generation], group_size: int, seed: int) -> list[list[RolloutSample]]:
    rng = random.Random(seed)
    groups = []
    for start in range(0, len(generations), group_size):
        group = []
        for g in generations[start : start + group_size]:
            row = TrajectoryRow(
                g.prompt_ids + g.completion_ids,
                [0] * len(g.prompt_ids) + [1] * len(g.completion_ids),
                [0.0] * len(g.prompt_ids) + g.logprobs,
            )
            group.append(RolloutSample([row], rng.random()))
        groups.append(group)
    return groups


def bench_generation(
    name: str,
    engine: RolloutEngine,
    prompts: list[list[int]],
    new_tokens: int,
    device: torch.device,
    label: str,
    repeats: int = 3,
) -> tuple[Result, list[Generation]]:
    sampling = SamplingParams(max_tokens=new_tokens, temperature=1.0, ignore_eos=True)
    engine.generate(prompts, sampling)  # warm-up
    times = []
    for _ in range(repeats):
        generations, seconds = _timed(lambda: engine.generate(prompts, sampling), device)
        times.append(seconds)
    tokens = sum(len(g.completion_ids) for g in generations)
    return Result(
        name, f"generate ({label}, batch {len(prompts)})", tokens, statistics.median(times)
    ), generations


def bench_update(
    name: str,
    trainer: GRPOTrainer,
    groups: list[list[RolloutSample]],
    device: torch.device,
    label: str,
    steps: int,
) -> Result:
    trainer.step(groups)  # warm-up (optimizer state allocation)
    times = []
    for _ in range(steps):
        _, seconds = _timed(lambda: trainer.step(groups), device)
        times.append(seconds)
    tokens = sum(len(r.input_ids) for g in groups for s in g for r in s.rows)
    loss_tokens = sum(r.num_loss_tokens for g in groups for s in g for r in s.rows)
    return Result(
        name,
        f"update ({label})",
        tokens,
        statistics.median(times),
        f"{loss_tokens} trained tokens of {tokens}",
    )


def bench_endpoint(name: str, engine: RolloutEngine, tokenizer: Any, calls: int, new_tokens: int) -> Result:
    import httpx

    server = ChatCompletionServer(engine, tokenizer, sampling=SamplingParams(max_tokens=new_tokens))
    server.sampling = SamplingParams(max_tokens=new_tokens, ignore_eos=True)
    body = {"model": "m", "messages": [{"role": "user", "content": "Heat 100 kmol/hr of water to 80 C."}]}

    async def run() -> int:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=600) as client:
            responses = await asyncio.gather(
                *(
                    client.post(f"/rollout/b{i}/attempt/a/v1/chat/completions", json=body)
                    for i in range(calls)
                )
            )
        return sum(r.json()["usage"]["completion_tokens"] for r in responses)

    with server:
        asyncio.run(run())  # warm-up
        start = time.perf_counter()
        tokens = asyncio.run(run())
        seconds = time.perf_counter() - start
    return Result(
        name, f"endpoint ({calls} concurrent chat calls)", tokens, seconds, "HTTP + template + parse"
    )


def run_cpu(args: argparse.Namespace) -> list[Result]:
    torch.set_num_threads(args.threads)
    device = torch.device("cpu")
    tokenizer = build_tiny_tokenizer()
    results = []
    for name, shape in CPU_MODELS.items():
        model = build_tiny_model(len(tokenizer), seed=0, **shape)
        params = sum(p.numel() for p in model.parameters())
        name = f"{name} {params / 1e6:.2f}M"
        cfg = GRPOConfig(
            model="bench", device="cpu", lora={"enabled": False}, micro_batch_size=8, tensorboard=False
        )
        trainer = GRPOTrainer(cfg, model=model, tokenizer=tokenizer)
        engine = TransformersEngine(trainer.model, tokenizer)
        prompts = _prompts(args.batch, args.prompt_len, len(tokenizer), 0)
        result, generations = bench_generation(name, engine, prompts, args.new_tokens, device, "transformers")
        results.append(result)
        results.append(
            bench_update(name, trainer, _groups(generations, 8, 0), device, "full weights", args.steps)
        )
        results.append(bench_endpoint(name, engine, tokenizer, args.batch, args.new_tokens))
    return results


def _save_model(model: torch.nn.Module, tokenizer: Any, path: Path) -> None:
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)


def run_trl(
    name: str, model_dir: Path, tokenizer: Any, args: argparse.Namespace, ours: Result | None
) -> list[Result]:
    if importlib.util.find_spec("trl") is None:
        print("trl is not installed: the TRL GRPOTrainer comparison is skipped (pip install trl datasets)")
        return []
    from datasets import Dataset
    from transformers import AutoModelForCausalLM
    from trl import GRPOConfig as TRLConfig
    from trl import GRPOTrainer as TRLTrainer

    rng = random.Random(0)
    texts = ["".join(chr(rng.randrange(97, 123)) for _ in range(args.prompt_len)) for _ in range(args.batch)]
    dataset = Dataset.from_dict({"prompt": texts * (args.steps + 2)})

    def reward(completions: list[str], **_: Any) -> list[float]:
        return [c.count("a") / max(len(c), 1) for c in completions]

    with tempfile.TemporaryDirectory() as out:
        trl_args = TRLConfig(
            output_dir=out,
            per_device_train_batch_size=args.batch,
            num_generations=8,
            max_completion_length=args.new_tokens,
            max_steps=args.steps + 1,
            learning_rate=1e-6,
            logging_steps=1,
            report_to="none",
            bf16=True,
            save_strategy="no",
            epsilon=0.2,
            epsilon_high=0.28,
            beta=0.0,
        )
        model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.bfloat16)
        trainer = TRLTrainer(
            model=model,
            reward_funcs=[reward],
            args=trl_args,
            train_dataset=dataset,
            processing_class=tokenizer,
        )
        step_times: list[float] = []

        from transformers import TrainerCallback

        class Timer(TrainerCallback):
            start = 0.0

            def on_step_begin(self, *a: Any, **k: Any) -> None:
                torch.cuda.synchronize()
                Timer.start = time.perf_counter()

            def on_step_end(self, *a: Any, **k: Any) -> None:
                torch.cuda.synchronize()
                step_times.append(time.perf_counter() - Timer.start)

        trainer.add_callback(Timer())
        trainer.train()
    seconds = statistics.median(step_times[1:] or step_times)
    tokens = args.batch * (args.prompt_len + args.new_tokens)
    note = ""
    if ours is not None:
        note = (
            f"aspen_rl generate+update is {seconds / ours.seconds:.2f}x faster per step"
            if ours.seconds
            else ""
        )
    return [Result(name, "TRL GRPOTrainer step (generate + update)", tokens, seconds, note)]


def run_gpu(args: argparse.Namespace) -> list[Result]:
    if not torch.cuda.is_available():
        raise SystemExit("--gpu needs a CUDA GPU; none is visible here")
    device = torch.device("cuda")
    tokenizer = build_tiny_tokenizer()
    model = build_tiny_model(QWEN_VOCAB, seed=0, **QWEN25_05B).to(device=device, dtype=torch.bfloat16)
    name = f"Qwen2 0.5B-shape {sum(p.numel() for p in model.parameters()) / 1e6:.0f}M bf16"
    prompts = _prompts(args.batch, args.prompt_len, len(tokenizer), 0)
    results = []
    cfg = GRPOConfig(
        model="bench", device="cuda", dtype="bfloat16", lora={"enabled": False}, micro_batch_size=8
    )
    trainer = GRPOTrainer(cfg, model=model, tokenizer=tokenizer)
    engine = TransformersEngine(trainer.model, tokenizer)
    gen, generations = bench_generation(name, engine, prompts, args.new_tokens, device, "transformers")
    results.append(gen)
    groups = _groups(generations, 8, 0)
    update = bench_update(name, trainer, groups, device, "full weights", args.steps)
    results.append(update)
    lora_cfg = cfg.replace(lora={"enabled": True, "r": 16, "alpha": 32})
    lora_model = build_tiny_model(QWEN_VOCAB, seed=0, **QWEN25_05B).to(device=device, dtype=torch.bfloat16)
    results.append(
        bench_update(name, GRPOTrainer(lora_cfg, model=lora_model), groups, device, "LoRA r16", args.steps)
    )
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / "qwen2-0.5b-random"
        _save_model(model, tokenizer, model_dir)
        if importlib.util.find_spec("vllm") is None:
            print("vllm is not installed: the vLLM engine line is skipped (pip install 'aspen_rl[gpu]')")
        else:
            from aspen_rl.algorithms.grpo.engine.vllm_engine import VLLMEngine

            vllm_engine = VLLMEngine(model_dir, tokenizer, dtype="bfloat16", gpu_memory_utilization=0.3)
            results.append(bench_generation(name, vllm_engine, prompts, args.new_tokens, device, "vLLM")[0])
        ours = Result(name, "aspen_rl step", 0, gen.seconds + update.seconds)
        try:
            results.extend(run_trl(name, model_dir, tokenizer, args, ours))
        except Exception as exc:  # report, keep the figures already measured
            print(f"TRL comparison failed: {type(exc).__name__}: {exc}")
    return results


def print_table(results: list[Result]) -> None:
    header = f"{'model':<28} {'what':<44} {'tokens':>8} {'seconds':>9} {'tokens/s':>10}  note"
    print(header)
    print("-" * len(header))
    for r in results:
        print(f"{r.model:<28} {r.what:<44} {r.tokens:>8} {r.seconds:>9.3f} {r.tokens_per_s:>10.0f}  {r.note}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", action="store_true", help="~0.5B model on CUDA, vLLM and TRL when installed")
    parser.add_argument("--batch", type=int, default=32, help="prompts per generate / rows per step")
    parser.add_argument("--prompt-len", type=int, default=64, help="prompt tokens")
    parser.add_argument("--new-tokens", type=int, default=64, help="sampled tokens per prompt")
    parser.add_argument("--steps", type=int, default=3, help="timed update steps (median reported)")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads (CPU mode)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    results = run_gpu(args) if args.gpu else run_cpu(args)
    print_table(results)
    if args.json:
        rows = [{**asdict(r), "tokens_per_s": r.tokens_per_s} for r in results]
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
