"""GRPO throughput: generation, the local endpoint and the update step, in tokens per second.

CPU (default): tiny random Qwen2 models built from a config (nothing downloaded) on the byte tokenizer.

``--gpu``: a ~0.5B-parameter Qwen2 built from Qwen2.5-0.5B's config shape (random weights, bf16) in
three parts, each in its own process so that each peak-memory figure is its own:

- ``ours``: the transformers engine's generation and the trainer's update (full weights) on the rows
  it generated (``--batch`` completions in groups of ``--group``, micro-batch ``--micro-batch``);
- ``trl``: TRL's GRPOTrainer on the same model, prompt/completion lengths, batch, group size and
  micro-batching (gradient accumulation), timed per phase (generation vs the rest of the step);
  skipped with a message when ``trl`` is not installed;
- ``decode``: the transformers engine's milliseconds per decode step (``--batch`` prompts, greedy,
  ``--new-tokens`` steps) with each KV-cache mode: ``eager`` (dynamic cache, today's default), ``static``,
  and ``compiled`` (static + torch.compile / CUDA graphs; on a GPU only), median after a warm-up call;
- ``update2k``: our update alone on ``--update-rows`` rows of ``--row-len`` tokens, full weights and
  LoRA r16, several micro-batch sizes, with and without gradient checkpointing.

vLLM is timed too when it is installed (``aspen_rl[gpu]``); otherwise that line is skipped.

    python benchmarks/grpo_bench.py                              # CPU figures
    python benchmarks/grpo_bench.py --gpu --out results/gpu      # on a CUDA machine, all parts
    python benchmarks/grpo_bench.py --gpu --part trl             # one part
    python benchmarks/grpo_bench.py --gpu --device cpu --shape tiny --batch 16 --prompt-len 16 \\
        --new-tokens 16 --row-len 128 --steps 1                  # the --gpu code path on CPU, tiny sizes
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import gc
import importlib.metadata
import importlib.util
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import torch

from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
from aspen_rl.llm.chat_server import ChatCompletionServer
from aspen_rl.llm.engine import RolloutEngine, TransformersEngine
from aspen_rl.llm.engine.transformers_engine import Decode
from aspen_rl.llm.tiny_bytes import build_tiny_model, build_tiny_tokenizer
from aspen_rl.llm.types import Generation, RolloutSample, SamplingParams, TrajectoryRow

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

GPU_SHAPES: dict[str, tuple[int | None, dict[str, Any]]] = {
    "qwen2.5-0.5b": (QWEN_VOCAB, QWEN25_05B),
    "tiny": (None, {"hidden_size": 64, "num_layers": 2, "num_heads": 2, "num_key_value_heads": 1}),
}
"""``--shape``: (vocabulary, config fields); vocabulary None is the byte tokenizer's."""

CPU_MODELS = {
    "tiny (h32 x2)": {"hidden_size": 32, "num_layers": 2, "num_heads": 2},
    "small (h256 x4)": {"hidden_size": 256, "num_layers": 4, "num_heads": 4},
}

PARTS = ("ours", "decode", "trl", "update2k")


@dataclass
class Result:
    """One benchmark line."""

    model: str
    what: str
    tokens: int
    seconds: float
    note: str = ""
    peak_gib: float | None = None
    """Peak GPU memory allocated by torch during the timed phase (resident weights/optimizer included)."""
    key: str = ""
    """Stable id for the ratios (e.g. 'ours.generate', 'trl.update')."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tokens_per_s": self.tokens_per_s}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def _reset_peak(device: torch.device) -> float | None:
    """Start a peak-memory window; returns what is allocated now (GiB), the phase's resident part."""
    if device.type != "cuda":
        return None
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    return torch.cuda.memory_allocated() / 2**30


def _peak_gib(device: torch.device) -> float | None:
    if device.type != "cuda":
        return None
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() / 2**30


def _free(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


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
    profile: Path | None = None,
) -> Result:
    """Median seconds of ``steps`` updates after a warm-up; with ``profile``, one more step under
    ``torch.profiler`` whose operator table goes to that file."""
    trainer.step(groups)  # warm-up (optimizer state allocation)
    times = []
    for _ in range(steps):
        _, seconds = _timed(lambda: trainer.step(groups), device)
        times.append(seconds)
    if profile is not None:
        profile_step(lambda: trainer.step(groups), device, profile)
    tokens = sum(len(r.input_ids) for g in groups for s in g for r in s.rows)
    loss_tokens = sum(r.num_loss_tokens for g in groups for s in g for r in s.rows)
    return Result(
        name,
        f"update ({label})",
        tokens,
        statistics.median(times),
        f"{loss_tokens} trained tokens of {tokens}",
    )


def profile_step(step: Callable[[], Any], device: torch.device, path: Path, rows: int = 30) -> None:
    """Run ``step`` once under ``torch.profiler``; write its heaviest operators (by device time on CUDA,
    by CPU time otherwise) to ``path``: where the time of an update goes."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with profile(activities=activities) as prof:
        _timed(step, device)
    key = "cuda_time_total" if device.type == "cuda" else "cpu_time_total"
    averages = prof.key_averages()
    text = (
        averages.table(sort_by=key, row_limit=rows, max_name_column_width=80)
        + "\n"
        + averages.table(sort_by="self_cpu_time_total", row_limit=rows, max_name_column_width=80)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"  update profile written to {path}", flush=True)


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


def _gpu_device(args: argparse.Namespace) -> torch.device:
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--gpu needs a CUDA GPU; none is visible here (--device cpu runs its logic on CPU)")
    return device


def _gpu_policy(
    args: argparse.Namespace, tokenizer: Any, device: torch.device
) -> tuple[torch.nn.Module, str]:
    """The benchmark policy (seed 0) on ``device``: bfloat16 on CUDA, float32 on CPU."""
    vocab, shape = GPU_SHAPES[args.shape]
    model = build_tiny_model(vocab or len(tokenizer), seed=0, **shape)
    dtype = torch.bfloat16 if torch.device(args.device).type == "cuda" else torch.float32
    model = model.to(device=device, dtype=dtype)
    params = sum(p.numel() for p in model.parameters())
    return model, f"{args.shape} {params / 1e6:.0f}M {str(dtype).removeprefix('torch.')}"


def part_ours(args: argparse.Namespace) -> list[Result]:
    """Our engine's generation, then our trainer's update on the generated rows (full weights)."""
    device = _gpu_device(args)
    tokenizer = build_tiny_tokenizer()
    model, name = _gpu_policy(args, tokenizer, device)
    ckpt = (
        {}
        if args.ours_gradient_checkpointing is None
        else {"gradient_checkpointing": args.ours_gradient_checkpointing}
    )
    cfg = GRPOConfig(
        model="bench",
        device=str(device),
        lora={"enabled": False},
        micro_batch_size=args.micro_batch,
        group_size=args.group,
        tensorboard=False,
        **ckpt,
    )
    trainer = GRPOTrainer(cfg, model=model, tokenizer=tokenizer)
    engine = TransformersEngine(trainer.model, tokenizer, max_batch_size=args.batch)
    prompts = _prompts(args.batch, args.prompt_len, len(tokenizer), 0)
    resident = _reset_peak(device)
    gen, generations = bench_generation(name, engine, prompts, args.new_tokens, device, "transformers")
    gen.peak_gib, gen.key = _peak_gib(device), "ours.generate"
    gen.extra["resident_gib"] = resident
    groups = _groups(generations, args.group, 0)
    resident = _reset_peak(device)
    profile = (args.out or Path(".")) / "ours_update_profile.txt" if args.profile_update else None
    update = bench_update(
        name, trainer, groups, device, f"full weights, micro-batch {args.micro_batch}", args.steps, profile
    )
    update.peak_gib, update.key = _peak_gib(device), "ours.update"
    update.extra["resident_gib"] = resident  # weights only: AdamW state appears at the warm-up step
    step = Result(
        name,
        "step (generate + update)",
        update.tokens,
        gen.seconds + update.seconds,
        "sum of the two medians",
        max(gen.peak_gib or 0.0, update.peak_gib or 0.0) if device.type == "cuda" else None,
        "ours.step",
    )
    results = [gen, update, step]
    if importlib.util.find_spec("vllm") is None:
        print("vllm is not installed: the vLLM engine line is skipped (pip install 'aspen_rl[gpu]')")
    else:
        from aspen_rl.llm.engine.vllm_engine import VLLMEngine

        with tempfile.TemporaryDirectory() as tmp:
            model_dir = Path(tmp) / "policy"
            trainer.model.save_pretrained(model_dir)
            tokenizer.save_pretrained(model_dir)
            del trainer, engine, model
            _free(device)
            vllm_engine = VLLMEngine(model_dir, tokenizer, dtype="bfloat16", gpu_memory_utilization=0.3)
            vllm = bench_generation(name, vllm_engine, prompts, args.new_tokens, device, "vLLM")[0]
            vllm.key = "vllm.generate"
            results.append(vllm)
    return results


@dataclass
class _TRLTimes:
    """What TRL's GRPOTrainer spent per step, phase by phase (filled by :meth:`instrument`)."""

    gen_times: list[float] = field(default_factory=list)
    gen_tokens: list[int] = field(default_factory=list)
    gen_peaks: list[float | None] = field(default_factory=list)
    gen_resident: list[float | None] = field(default_factory=list)
    update_resident: list[float | None] = field(default_factory=list)
    score_times: list[float] = field(default_factory=list)
    step_times: list[float] = field(default_factory=list)
    step_peaks: list[float | None] = field(default_factory=list)

    def instrument(self, trainer: Any, device: torch.device) -> None:
        """Time the trainer's generate, generate-and-score and whole steps (the update is the rest)."""
        from transformers import TrainerCallback

        generate = trainer._generate_single_turn
        score = trainer._generate_and_score_completions
        times = self

        def timed_generate(*a: Any, **k: Any) -> Any:
            times.gen_resident.append(_reset_peak(device))
            start = time.perf_counter()
            out_ = generate(*a, **k)
            _sync(device)
            times.gen_times.append(time.perf_counter() - start)
            times.gen_peaks.append(_peak_gib(device))
            times.gen_tokens.append(sum(len(c) for c in out_[0]))
            return out_

        def timed_score(*a: Any, **k: Any) -> Any:
            _sync(device)
            start = time.perf_counter()
            out_ = score(*a, **k)
            _sync(device)
            times.score_times.append(time.perf_counter() - start)
            times.update_resident.append(_reset_peak(device))  # the step's peak from here on is the update's
            return out_

        trainer._generate_single_turn = timed_generate
        trainer._generate_and_score_completions = timed_score

        class Timer(TrainerCallback):
            start = 0.0

            def on_step_begin(self, *a: Any, **k: Any) -> None:
                _sync(device)
                Timer.start = time.perf_counter()

            def on_step_end(self, *a: Any, **k: Any) -> None:
                _sync(device)
                times.step_times.append(time.perf_counter() - Timer.start)
                times.step_peaks.append(_peak_gib(device))

        trainer.add_callback(Timer())

    def check(self) -> None:
        """One generate, one generate-and-score and one step per training step, or the timing is void."""
        if len(self.step_times) != len(self.score_times) or len(self.gen_times) != len(self.score_times):
            raise RuntimeError(
                f"TRL phases do not line up: {len(self.step_times)} steps, {len(self.score_times)} "
                f"generate-and-score calls, {len(self.gen_times)} generate calls (expected one each per step)"
            )


def shared_prefix(rows: list[list[int]], reference: list[list[int]]) -> float:
    """Mean number of leading tokens each row shares with its reference row."""
    shared = []
    for row, ref in zip(rows, reference, strict=True):
        pairs = enumerate(zip(row, ref, strict=False))
        shared.append(next((i for i, (a, b) in pairs if a != b), min(len(row), len(ref))))
    return round(statistics.fmean(shared), 1)


def logprob_gap(model: torch.nn.Module, generations: list[Generation]) -> dict[str, float]:
    """Mean and max |engine logprob - the trainer's teacher-forced logprob| over the sampled tokens: whether
    a decode mode samples from the distribution the update scores (in bf16 the two differ by rounding; a
    wrong cache or mask shows as gaps of whole nats)."""
    from aspen_rl.llm.logprobs import token_logprobs

    gaps = []
    device = next(model.parameters()).device
    for g in generations:  # one row at a time: no padding to get right, and a small transient
        ids = torch.tensor([g.prompt_ids + g.completion_ids], device=device)
        needed = torch.zeros(1, ids.shape[1] - 1, dtype=torch.bool, device=device)
        needed[0, len(g.prompt_ids) - 1 :] = True
        with torch.no_grad():
            scored = token_logprobs(model, ids, torch.ones_like(ids), needed)[0, len(g.prompt_ids) - 1 :]
        gaps.append((scored.float().cpu() - torch.tensor(g.logprobs)).abs())
    every = torch.cat(gaps)
    return {"mean": round(float(every.mean()), 4), "max": round(float(every.max()), 4)}


def part_decode(args: argparse.Namespace) -> list[Result]:
    """Milliseconds per decode step of the transformers engine, per KV-cache mode, same model and prompts."""
    device = _gpu_device(args)
    tokenizer = build_tiny_tokenizer()
    model, name = _gpu_policy(args, tokenizer, device)
    prompts = _prompts(args.batch, args.prompt_len, len(tokenizer), 0)
    sampling = SamplingParams(max_tokens=args.new_tokens, temperature=0.0, ignore_eos=True)
    modes: list[Decode] = ["eager", "static", "compiled"] if device.type == "cuda" else ["eager", "static"]
    if device.type != "cuda":
        print("decode 'compiled' needs a CUDA GPU: its line is skipped here")
    results: list[Result] = []
    tokens: dict[str, list[list[int]]] = {}
    for mode in modes:
        engine = TransformersEngine(model, tokenizer, max_batch_size=args.batch, decode=mode)

        def generate(engine: TransformersEngine = engine) -> list[Generation]:
            return engine.generate(prompts, sampling)

        _, first = _timed(generate, device)  # 'compiled' compiles here
        times: list[float] = []
        generations: list[Generation] = []
        for _ in range(3):
            generations, seconds = _timed(generate, device)
            times.append(seconds)
        tokens[mode] = [g.completion_ids for g in generations]
        seconds = statistics.median(times)
        result = Result(
            name,
            f"decode ({mode} KV cache, batch {args.batch})",
            sum(len(g.completion_ids) for g in generations),
            seconds,
            f"{1000 * seconds / args.new_tokens:.1f} ms/step; first call {first:.1f} s",
            key=f"ours.decode.{mode}",
        )
        result.extra["ms_per_step"] = round(1000 * seconds / args.new_tokens, 2)
        result.extra["same_tokens_as_eager"] = tokens[mode] == tokens["eager"]
        result.extra["prefix_shared_with_eager"] = shared_prefix(tokens[mode], tokens["eager"])
        result.extra["logprob_gap"] = logprob_gap(model, generations)
        results.append(result)
        print(
            f"  {result.what}: {result.note}; same tokens as eager {result.extra['same_tokens_as_eager']}"
            f" (mean {result.extra['prefix_shared_with_eager']} tokens before the first difference);"
            f" |sampling - trainer logprob| {result.extra['logprob_gap']}",
            flush=True,
        )
    return results


def _trl_config(args: argparse.Namespace, output_dir: str, device: torch.device) -> Any:
    """TRL's GRPOConfig matching ours: lengths, batch, group size, micro-batching, clipping, no KL."""
    from trl import GRPOConfig as TRLConfig

    return TRLConfig(
        output_dir=output_dir,
        per_device_train_batch_size=args.micro_batch,
        gradient_accumulation_steps=args.batch // args.micro_batch,
        num_generations=args.group,
        max_completion_length=args.new_tokens,
        generation_kwargs={"min_new_tokens": args.new_tokens},  # as our ignore_eos: full length
        max_steps=args.steps + 1,
        learning_rate=1e-6,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        disable_tqdm=True,
        bf16=device.type == "cuda",
        use_cpu=device.type == "cpu",
        gradient_checkpointing=args.trl_gradient_checkpointing,
        epsilon=0.2,
        epsilon_high=0.28,
        beta=0.0,
        disable_dropout=True,
        shuffle_dataset=False,
        seed=0,
    )


def part_trl(args: argparse.Namespace) -> list[Result]:
    """TRL's GRPOTrainer on the same policy, lengths, batch, group size and micro-batching."""
    if importlib.util.find_spec("trl") is None:
        print("trl is not installed: the TRL GRPOTrainer comparison is skipped (pip install trl datasets)")
        return []
    from datasets import Dataset
    from trl import GRPOTrainer as TRLTrainer

    device = _gpu_device(args)
    tokenizer = build_tiny_tokenizer()
    model, name = _gpu_policy(args, tokenizer, device)
    rng = random.Random(0)
    # one byte token per letter: each prompt is exactly --prompt-len tokens, as ours are
    prompts_per_step = args.batch // args.group
    texts = [
        "".join(chr(rng.randrange(97, 123)) for _ in range(args.prompt_len))
        for _ in range(prompts_per_step * (args.steps + 2))
    ]
    dataset = Dataset.from_dict({"prompt": texts})

    def reward(completions: list[Any], **_: Any) -> list[float]:
        return [rng.random() for _ in completions]  # random, as ours: no group has zero variance

    times = _TRLTimes()
    with tempfile.TemporaryDirectory() as out:
        trainer = TRLTrainer(
            model=model,
            reward_funcs=[reward],
            args=_trl_config(args, out, device),
            train_dataset=dataset,
            processing_class=tokenizer,
        )
        times.instrument(trainer, device)
        trainer.train()
    times.check()
    return _trl_results(args, name, times)


def _trl_results(args: argparse.Namespace, name: str, times: _TRLTimes) -> list[Result]:
    """The medians of the timed steps (the first is the warm-up) as generate, update and step rows."""
    timed = slice(1, None) if len(times.step_times) > 1 else slice(None)
    gen_s = statistics.median(times.gen_times[timed])
    score_s = statistics.median(times.score_times[timed])
    update_s = statistics.median(
        [s - g for s, g in zip(times.step_times[timed], times.score_times[timed], strict=True)]
    )
    step_s = statistics.median(times.step_times[timed])
    gen_peak = max((p for p in times.gen_peaks[timed] if p is not None), default=None)
    update_peak = max((p for p in times.step_peaks[timed] if p is not None), default=None)
    step_tokens = args.batch * (args.prompt_len + args.new_tokens)
    ckpt = "on" if args.trl_gradient_checkpointing else "off"
    return [
        Result(
            name,
            f"TRL generate (transformers, batch {args.batch})",
            times.gen_tokens[-1],
            gen_s,
            f"generate+score {score_s:.3f}s",
            gen_peak,
            "trl.generate",
            {"resident_gib": times.gen_resident[-1]},
        ),
        Result(
            name,
            f"TRL update (micro-batch {args.micro_batch}, grad ckpt {ckpt})",
            step_tokens,
            update_s,
            "step minus generate+score",
            update_peak,
            "trl.update",
            {"resident_gib": times.update_resident[-1]},
        ),
        Result(
            name,
            "TRL step (generate + update)",
            step_tokens,
            step_s,
            f"median of {len(times.step_times[timed])} steps",
            max((p for p in (gen_peak, update_peak) if p is not None), default=None),
            "trl.step",
        ),
    ]


def _long_rows(n: int, length: int, prompt: int, vocab: int, seed: int) -> list[list[RolloutSample]]:
    """``n`` rows of ``length`` tokens (first ``prompt`` unmasked), in groups of 8, random rewards."""
    rng = random.Random(seed)
    groups: list[list[RolloutSample]] = []
    for i in range(n):
        if i % 8 == 0:
            groups.append([])
        ids = [rng.randrange(vocab) for _ in range(length)]
        mask = [0] * prompt + [1] * (length - prompt)
        logprobs = [0.0] * prompt + [-rng.uniform(0.5, 12.0) for _ in range(length - prompt)]
        groups[-1].append(RolloutSample([TrajectoryRow(ids, mask, logprobs)], rng.random()))
    return groups


LORA_VARIANTS = ("fp32", "bf16", "autocast")
"""``--lora-variants`` of update2k: how the LoRA adapters meet the bfloat16 base model.

fp32: as ``apply_lora`` ships them (peft keeps adapter weights in float32 and casts every adapted layer's
input to float32); bf16: the adapter weights cast to the model's dtype (benchmark only); autocast: float32
adapter weights, forward under ``torch.autocast`` bfloat16 with peft's input casting off (benchmark only).
"""


def _lora_variant(trainer: GRPOTrainer, variant: str, device: torch.device) -> None:
    if variant == "bf16":
        for param in trainer.params:  # the optimiser holds these objects: no state yet, so a cast is safe
            param.data = param.data.to(torch.bfloat16)
    elif variant == "autocast":
        from peft.helpers import disable_input_dtype_casting

        inner = trainer._token_logprobs

        def token_logprobs(model: torch.nn.Module, batch: Any) -> torch.Tensor:
            with (
                torch.autocast(device.type, dtype=torch.bfloat16),
                disable_input_dtype_casting(trainer.model),
            ):
                return inner(model, batch)

        trainer._token_logprobs = token_logprobs  # type: ignore[method-assign]


def part_update2k(args: argparse.Namespace) -> list[Result]:
    """Our update alone on long rows: full weights and LoRA, micro-batch sizes, gradient checkpointing."""
    device = _gpu_device(args)
    tokenizer = build_tiny_tokenizer()
    base, name = _gpu_policy(args, tokenizer, torch.device("cpu"))  # copied to the device per config
    vocab = base.config.vocab_size
    groups = _long_rows(args.update_rows, args.row_len, args.row_prompt, vocab, 0)
    runs = [(False, "", micro, ckpt) for micro, ckpt in args.update_configs if not args.lora_only]
    runs += [(True, v, micro, ckpt) for v in args.lora_variants for micro, ckpt in args.update_configs]
    results = []
    for lora, variant, micro, ckpt in runs:
        kind = f"LoRA r16 ({variant} adapters)" if lora else "full weights"
        label = f"{kind}, micro-batch {micro}, grad ckpt {ckpt}"
        cfg = GRPOConfig(
            model="bench",
            device=str(device),
            lora={"enabled": lora, "r": 16, "alpha": 32},
            micro_batch_size=micro,
            gradient_checkpointing=ckpt == "on",
            tensorboard=False,
        )
        trainer = None
        _free(device)
        _reset_peak(device)
        try:
            trainer = GRPOTrainer(cfg, model=copy.deepcopy(base), tokenizer=tokenizer)
            _lora_variant(trainer, variant, device)
            result = bench_update(
                name, trainer, groups, device, f"{args.row_len}-token rows, {label}", args.steps
            )
            result.peak_gib = _peak_gib(device)
        except torch.OutOfMemoryError as exc:
            result = Result(name, f"update ({args.row_len}-token rows, {label})", 0, 0.0, "out of memory")
            result.extra["error"] = str(exc).splitlines()[0]
            result.peak_gib = _peak_gib(device)
        lora_key = f"lora-{variant}" if variant != "fp32" else "lora"
        result.key = f"update2k.{lora_key if lora else 'full'}.mb{micro}.ckpt-{ckpt}"
        result.extra["rows"] = args.update_rows
        results.append(result)
        print(f"  {result.what}: {result.seconds:.3f}s, peak {result.peak_gib} GiB", flush=True)
        del trainer
    return results


def _environment() -> dict[str, Any]:
    env: dict[str, Any] = {"python": sys.version.split()[0], "torch": torch.__version__}
    for dist in ("transformers", "peft", "accelerate", "trl", "datasets", "vllm"):
        try:
            env[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            env[dist] = None
    if torch.cuda.is_available():
        env["gpu"] = torch.cuda.get_device_name(0)
        env["gpu_memory_gib"] = round(torch.cuda.get_device_properties(0).total_memory / 2**30, 1)
        env["cuda"] = torch.version.cuda
    return env


def ratios(results: list[Result]) -> list[str]:
    """Lines 'ours/TRL' for tokens/s (higher is better for us) and peak memory (lower is better), and
    each KV-cache mode's decode speed against eager."""
    by_key = {r.key: r for r in results if r.key}
    lines = []
    for phase in ("generate", "update", "step"):
        ours, trl = by_key.get(f"ours.{phase}"), by_key.get(f"trl.{phase}")
        if ours is None or trl is None or not trl.tokens_per_s:
            continue
        line = f"ours/TRL {phase}: tokens/s {ours.tokens_per_s / trl.tokens_per_s:.2f}x"
        if ours.peak_gib and trl.peak_gib:
            line += f", peak memory {ours.peak_gib / trl.peak_gib:.2f}x"
        lines.append(line)
    eager = by_key.get("ours.decode.eager")
    for mode in ("static", "compiled"):
        other = by_key.get(f"ours.decode.{mode}")
        if eager is not None and other is not None and other.seconds:
            lines.append(f"decode {mode}/eager: {eager.seconds / other.seconds:.2f}x faster per step")
    return lines


def run_part(part: str, args: argparse.Namespace) -> list[Result]:
    parts = {"ours": part_ours, "decode": part_decode, "trl": part_trl, "update2k": part_update2k}
    return parts[part](args)


def run_gpu(args: argparse.Namespace) -> list[Result]:
    """Every part in its own process (own peak memory, no leftovers); a failing part is reported."""
    out = args.out or Path(tempfile.mkdtemp(prefix="grpo_bench_"))
    out.mkdir(parents=True, exist_ok=True)
    results: list[Result] = []
    status: dict[str, Any] = {}
    for part in args.parts:
        path = out / f"{part}.json"
        path.unlink(missing_ok=True)
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            *sys.argv[1:],
            "--part",
            part,
            "--json",
            str(path),
        ]
        print(f"== part {part}", flush=True)
        started = time.perf_counter()
        try:
            code: int | str = subprocess.run(cmd, check=False, timeout=args.part_timeout).returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
        status[part] = {"returncode": code, "seconds": round(time.perf_counter() - started, 1)}
        if path.is_file():
            results.extend(Result.from_dict(row) for row in json.loads(path.read_text())["results"])
        else:
            print(f"part {part} wrote no results (exit {code})")
    summary = {
        "environment": _environment(),
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "parts": status,
        "results": [r.as_dict() for r in results],
        "ratios": ratios(results),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return results


def print_table(results: list[Result]) -> None:
    header = f"{'model':<24} {'what':<58} {'tokens':>7} {'seconds':>8} {'tokens/s':>9} {'peak GiB':>8}  note"
    print(header)
    print("-" * len(header))
    for r in results:
        peak = f"{r.peak_gib:.2f}" if r.peak_gib is not None else "-"
        numbers = f"{r.tokens:>7} {r.seconds:>8.3f} {r.tokens_per_s:>9.0f} {peak:>8}"
        print(f"{r.model:<24} {r.what:<58} {numbers}  {r.note}")
    for line in ratios(results):
        print(line)


def _update_config(text: str) -> tuple[int, str]:
    micro, _, ckpt = text.partition(":")
    if ckpt not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected MICRO:on or MICRO:off")
    return int(micro), ckpt


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", action="store_true", help="the ~0.5B parts (ours, TRL, long-row update)")
    parser.add_argument("--part", choices=PARTS, help="with --gpu: run only this part, in this process")
    parser.add_argument(
        "--parts", nargs="+", choices=PARTS, default=list(PARTS), help="with --gpu: parts to run"
    )
    parser.add_argument("--device", default="cuda", help="with --gpu: cuda, or cpu to check the logic")
    parser.add_argument("--shape", choices=sorted(GPU_SHAPES), default="qwen2.5-0.5b", help="with --gpu")
    parser.add_argument("--batch", type=int, default=32, help="prompts per generate / rows per step")
    parser.add_argument("--group", type=int, default=8, help="completions per prompt (GRPO group size)")
    parser.add_argument(
        "--micro-batch", type=int, default=8, help="rows per forward/backward (both trainers)"
    )
    parser.add_argument("--prompt-len", type=int, default=64, help="prompt tokens")
    parser.add_argument("--new-tokens", type=int, default=64, help="sampled tokens per prompt")
    parser.add_argument("--steps", type=int, default=3, help="timed update steps (median reported)")
    parser.add_argument(
        "--trl-gradient-checkpointing",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="TRL's default is on; off matches our trainer's default",
    )
    parser.add_argument(
        "--ours-gradient-checkpointing",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="our trainer's gradient checkpointing in the 'ours' part (default: GRPOConfig's, on)",
    )
    parser.add_argument("--row-len", type=int, default=2048, help="update2k: tokens per row")
    parser.add_argument(
        "--row-prompt", type=int, default=512, help="update2k: unmasked leading tokens per row"
    )
    parser.add_argument("--update-rows", type=int, default=16, help="update2k: rows per step (groups of 8)")
    parser.add_argument(
        "--update-configs",
        nargs="+",
        type=_update_config,
        default=[(1, "off"), (4, "off"), (8, "off"), (8, "on")],
        help="update2k: MICRO:on|off (micro-batch size, gradient checkpointing)",
    )
    parser.add_argument(
        "--lora-variants",
        nargs="+",
        choices=LORA_VARIANTS,
        default=["fp32"],
        help="update2k: LoRA adapter precision variants (fp32 is what apply_lora ships)",
    )
    parser.add_argument("--lora-only", action="store_true", help="update2k: skip the full-weight runs")
    parser.add_argument(
        "--profile-update",
        action="store_true",
        help="ours: profile one more update step (operator table to ours_update_profile.txt in --out)",
    )
    parser.add_argument("--part-timeout", type=float, help="with --gpu: seconds allowed to each part")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads (CPU mode)")
    parser.add_argument("--out", type=Path, help="with --gpu: folder for each part's JSON and summary.json")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    if args.batch % args.group or args.batch % args.micro_batch:
        parser.error("--batch must be a multiple of --group and of --micro-batch")
    if args.gpu and args.part:
        results = run_part(args.part, args)
        if args.json:
            payload = {"environment": _environment(), "results": [r.as_dict() for r in results]}
            args.json.write_text(json.dumps(payload, indent=2), encoding="utf-8")
        print_table(results)
        return
    results = run_gpu(args) if args.gpu else run_cpu(args)
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps([r.as_dict() for r in results], indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
