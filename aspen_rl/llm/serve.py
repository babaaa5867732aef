"""Serve a local model (a checkpoint, LoRA adapters, a GRPO step) on the OpenAI-compatible endpoint GRPO uses.

    python -m aspen_rl.llm.serve --model models/grpo/<run>            # the run's latest step
    python -m aspen_rl.llm.serve --model PATH --port 8001 --chat-template chatml-tools

``PATH`` is a transformers model directory, a peft LoRA adapter directory (its base model is read from
``adapter_config.json``), a GRPO checkpoint ``step_<n>/`` or a GRPO run directory (its latest step). The
endpoint is ``llm/chat_server.py``'s ``ChatCompletionServer``: chat completions with tools rendered by the
chat template (checked to render them) and Hermes ``<tool_call>`` blocks parsed back into OpenAI
``tool_calls``, so the agent drives it as it drives any OpenAI endpoint. From Python, a run starts and
stops it with ``start_local_model_server``.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ADAPTER_CONFIG = "adapter_config.json"
MODEL_CONFIG = "config.json"
GRPO_STATE = "trainer_state.json"
GRPO_MODEL_DIR = "model"
GRPO_TOKENIZER_DIR = "tokenizer"


@dataclass(frozen=True)
class ModelSource:
    """Where the weights and the tokenizer of a ``--model PATH`` are.

    Attributes:
        base: A full model directory or hub id (the adapter's base when ``adapter`` is set).
        adapter: LoRA adapter directory, or None.
        tokenizer: Directory or id of the tokenizer.
    """

    base: str
    adapter: Path | None
    tokenizer: str


def _latest_step(run_dir: Path) -> Path | None:
    steps = []
    for child in run_dir.glob("step_*"):
        suffix = child.name.removeprefix("step_")
        if suffix.isdigit() and (child / GRPO_STATE).is_file():
            steps.append((int(suffix), child))
    return max(steps)[1] if steps else None


def resolve_model(path: str | Path) -> ModelSource:
    """Tell a model directory, a LoRA adapter, a GRPO checkpoint and a GRPO run directory apart.

    Raises:
        FileNotFoundError: the path is none of these (the message says what was looked for).
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"--model {path}: no such file or directory")
    if not (path / GRPO_STATE).is_file() and (latest := _latest_step(path)) is not None:
        path = latest  # a GRPO run directory
    tokenizer_dir: Path | None = None
    if (path / GRPO_STATE).is_file():
        if (path / GRPO_TOKENIZER_DIR).is_dir():
            tokenizer_dir = path / GRPO_TOKENIZER_DIR
        path = path / GRPO_MODEL_DIR
    if (path / ADAPTER_CONFIG).is_file():
        adapter = json.loads((path / ADAPTER_CONFIG).read_text(encoding="utf-8"))
        base = adapter.get("base_model_name_or_path")
        if not base:
            raise FileNotFoundError(f"--model {path}: the LoRA adapter does not name its base model")
        has_tokenizer = any((path / name).is_file() for name in ("tokenizer.json", "tokenizer_config.json"))
        tokenizer = tokenizer_dir or (path if has_tokenizer else None)
        return ModelSource(base=str(base), adapter=path, tokenizer=str(tokenizer or base))
    if (path / MODEL_CONFIG).is_file():
        return ModelSource(base=str(path), adapter=None, tokenizer=str(tokenizer_dir or path))
    raise FileNotFoundError(
        f"--model {path}: not a model directory ({MODEL_CONFIG}), a LoRA adapter ({ADAPTER_CONFIG}), a GRPO "
        f"checkpoint ({GRPO_STATE}) nor a GRPO run directory (step_<n>/)"
    )


def load_local_model(
    path: str | Path, *, device: str = "auto", dtype: str = "auto", chat_template: str | None = None
) -> tuple[Any, Any]:
    """The model (LoRA adapters merged into their base) and its tokenizer, checked to render tools.

    Raises:
        FileNotFoundError: see ``resolve_model``.
        ChatTemplateError: the tokenizer's template (or ``chat_template``) drops the agent's tools.
    """
    from transformers import AutoModelForCausalLM

    from aspen_rl.llm.chat_template import prepare_tokenizer
    from aspen_rl.llm.loading import resolve_device, resolve_dtype
    from aspen_rl.llm.tokenizer_files import load_tokenizer

    source = resolve_model(path)
    torch_device = resolve_device(device)
    model: Any = AutoModelForCausalLM.from_pretrained(source.base, dtype=resolve_dtype(dtype, torch_device))
    if source.adapter is not None:
        from peft import PeftModel

        from aspen_rl.llm.loading import quiet_peft

        with quiet_peft():
            model = PeftModel.from_pretrained(model, str(source.adapter)).merge_and_unload()
    tokenizer = load_tokenizer(source.tokenizer)
    prepare_tokenizer(tokenizer, chat_template, where=str(path))
    return model.to(torch_device).eval(), tokenizer


def start_local_model_server(
    path: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    chat_template: str | None = None,
    model_name: str = "local-model",
    device: str = "auto",
    dtype: str = "auto",
    threads: int = 0,
    max_prompt_tokens: int = 6144,
    max_tokens: int = 1024,
    temperature: float = 1.0,
) -> tuple[str, Callable[[], None]]:
    """Load ``path`` and serve it in a background thread; returns ``(base_url, stop)``.

    ``base_url`` is the OpenAI base URL (``http://host:port/v1``): hand it to the agent as an ``LLM``
    resource (``LLM(endpoint=base_url, model=model_name)``) or as ``MODEL_API_URL``; call ``stop()`` when
    the run ends. Requests' temperature/top_p/max_tokens are honoured (max_tokens capped at
    ``max_tokens``); nothing is recorded.

    Args:
        path: See ``resolve_model``.
        host: Interface to bind (loopback by default).
        port: Port; 0 picks a free one.
        chat_template: A Jinja file or 'chatml-tools' instead of the tokenizer's own template.
        model_name: The name the endpoint answers as.
        device: 'auto' (cuda when available), 'cpu', 'cuda', ...
        dtype: 'auto' (bfloat16 on a GPU that supports it, else float32), 'float32', 'bfloat16', 'float16'.
        threads: torch CPU threads; 0: usable cores minus one.
        max_prompt_tokens: Longer prompts are refused (HTTP 400, ``context_length_exceeded``).
        max_tokens: Most tokens sampled per call.
        temperature: Sampling temperature when a request gives none.

    Raises:
        FileNotFoundError: see ``resolve_model``.
        ChatTemplateError: the template drops the agent's tools.
    """
    from aspen_rl.llm.chat_server import ChatCompletionServer
    from aspen_rl.llm.engine import TransformersEngine
    from aspen_rl.llm.loading import set_cpu_threads
    from aspen_rl.llm.types import SamplingParams

    set_cpu_threads(threads)
    model, tokenizer = load_local_model(path, device=device, dtype=dtype, chat_template=chat_template)
    server = ChatCompletionServer(
        TransformersEngine(model, tokenizer),
        tokenizer,
        sampling=SamplingParams(max_tokens=max_tokens, temperature=temperature),
        model_name=model_name,
        max_prompt_tokens=max_prompt_tokens,
        honour_request_sampling=True,
        host=host,
        port=port,
        record=False,
    )
    return server.start(), server.stop


def main(argv: list[str] | None = None) -> int:
    """Command line: serve until interrupted (Ctrl-C or SIGTERM).

    Exit codes: 0 after Ctrl-C or SIGTERM, 1 when the port cannot be bound, 2 for a bad model or template.
    """
    parser = argparse.ArgumentParser(
        prog="python -m aspen_rl.llm.serve", description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument(
        "--model", required=True, help="model dir, LoRA adapter dir, GRPO step_<n>/ or GRPO run dir"
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: loopback)")
    parser.add_argument("--port", type=int, default=8001, help="port (0: a free one); default 8001")
    parser.add_argument(
        "--chat-template", help="Jinja file, or 'chatml-tools' (built in), replacing the tokenizer's template"
    )
    parser.add_argument("--model-name", default="local-model", help="name the endpoint answers as")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:1, ...")
    parser.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"])
    parser.add_argument(
        "--threads", type=int, default=0, help="torch CPU threads (0: usable cores minus one)"
    )
    parser.add_argument("--max-prompt-tokens", type=int, default=6144, help="longer prompts get HTTP 400")
    parser.add_argument("--max-tokens", type=int, default=1024, help="most tokens sampled per call")
    parser.add_argument("--temperature", type=float, default=1.0, help="when a request gives none")
    args = parser.parse_args(argv)
    from simulator_mock.service.listening import port_in_use  # the mock's check: one copy for both servers

    busy = port_in_use(args.host, args.port)
    if busy:  # before the model loads: one line, not an OSError traceback a minute later
        print(f"error: {busy}", file=sys.stderr)
        return 1
    try:
        resolve_model(args.model)  # a wrong path fails before torch loads
        url, stop = start_local_model_server(
            args.model,
            host=args.host,
            port=args.port,
            chat_template=args.chat_template,
            model_name=args.model_name,
            device=args.device,
            dtype=args.dtype,
            threads=args.threads,
            max_prompt_tokens=args.max_prompt_tokens,
            max_tokens=args.max_tokens,
            temperature=args.temperature,
        )
    except (FileNotFoundError, ValueError) as exc:  # ChatTemplateError is a ValueError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"serving {args.model} as '{args.model_name}' at {url} (Ctrl-C stops)", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
