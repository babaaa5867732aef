"""Local OpenAI-compatible ``/v1/chat/completions`` endpoint over a rollout engine, recording token data.

The agent talks to it unchanged (AutoGen's OpenAI client): messages and tools are rendered with the
tokenizer's chat template, the engine samples token ids, tool calls are parsed from the text
(Hermes/Qwen2.5 format), and an OpenAI-shaped completion is returned. Calls made on the rollout-scoped
route ``/rollout/{rollout_id}/attempt/{attempt_id}/v1/chat/completions`` (what Agent Lightning's
``ProxyLLM.get_base_url(rollout_id, attempt_id)`` produces) are recorded with their prompt ids,
sampled ids, logprobs and timestamps; ``pop_records(rollout_id)`` hands them to trajectory building.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from aspen_rl.llm.call_recorder import CallRecorder
from aspen_rl.llm.chat_template import prepare_tokenizer
from aspen_rl.llm.engine.base import RolloutEngine
from aspen_rl.llm.generation_batcher import GenerationBatcher
from aspen_rl.llm.openai_wire import RequestError, chat_completions_app, completion_body
from aspen_rl.llm.settings import ServerConfig
from aspen_rl.llm.tool_calls import parse_tool_calls
from aspen_rl.llm.types import CallRecord, Generation, SamplingParams
from aspen_rl.rollout_seed import prompt_seed

if TYPE_CHECKING:
    from fastapi import FastAPI

ROLLOUT_HEADER = "x-rollout-id"
"""Alternative to the rollout-scoped route: calls to ``/v1`` carrying this header are recorded too."""

_STOP_TOKENS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>")


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def _tool_calls(calls: Any, where: str) -> list[Any]:
    """Tool calls with each ``function.arguments`` JSON string parsed into its object.

    OpenAI clients send the arguments as a JSON string; chat templates (Qwen2.5's ``tool_call.arguments |
    tojson``) expect the object, and would encode a string a second time: the prompt would show the model
    a call it never wrote, and the row would no longer extend the sampled tokens (vLLM parses them too).
    """
    if not isinstance(calls, list):
        raise RequestError(f"{where}.tool_calls must be a list")
    out: list[Any] = []
    for j, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
            out.append(call)
            continue
        try:
            arguments = json.loads(function["arguments"])
        except json.JSONDecodeError as exc:
            raise RequestError(
                f"{where}.tool_calls[{j}].function.arguments is not valid JSON: {exc}"
            ) from exc
        out.append({**call, "function": {**function, "arguments": arguments}})
    return out


def normalize_messages(messages: Any) -> list[dict[str, Any]]:
    """OpenAI messages as the chat template expects them: text content, tool-call arguments as objects."""
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list")
    normalized = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise RequestError(f"messages[{i}] must be an object with a 'role'")
        item = {k: v for k, v in message.items() if v is not None}
        item["content"] = _text(message.get("content"))
        if "tool_calls" in item:
            item["tool_calls"] = _tool_calls(item["tool_calls"], f"messages[{i}]")
        normalized.append(item)
    return normalized


def default_stop_token_ids(tokenizer: Any) -> tuple[int, ...]:
    """The tokenizer's eos plus ChatML/Llama end-of-turn tokens it knows."""
    ids: list[int] = []
    if isinstance(getattr(tokenizer, "eos_token_id", None), int):
        ids.append(tokenizer.eos_token_id)
    vocab = tokenizer.get_vocab()
    ids.extend(vocab[token] for token in _STOP_TOKENS if token in vocab)
    return tuple(dict.fromkeys(ids))


class ChatCompletionServer:
    """The endpoint, its recorder, and (optionally) a uvicorn thread serving it on a local port.

    Args:
        engine: Samples completions.
        tokenizer: Renders the chat template and decodes sampled ids (default: the engine's).
        sampling: Default sampling; ``stop_token_ids`` default to the tokenizer's end-of-turn tokens.
        model_name: Name the endpoint answers as.
        max_prompt_tokens: Longer rendered prompts are refused (HTTP 400, context_length_exceeded).
        honour_request_sampling: Use the request's temperature/top_p. Off for training: the update
            recomputes logprobs at the configured temperature, so requests must not change it. A
            request's ``seed`` is always used: it fixes which draw is made, not the distribution.
        max_batch: Concurrent calls batched into one ``generate``.
        batch_wait_s: Wait for more calls once one arrived.
        host: Interface to bind (loopback by default).
        port: Port to bind; 0 picks a free one.
        chat_template: A Jinja file or 'chatml-tools' set on the tokenizer first (None: its own); the
            template must render tools (``chat_template.check_renders_tools``).
        record: Record the token data of rollout-scoped calls (off when only serving, e.g. evaluation).

    Raises:
        ChatTemplateError: the tokenizer's template drops tool definitions, tool calls or tool results.
    """

    def __init__(
        self,
        engine: RolloutEngine,
        tokenizer: Any = None,
        *,
        sampling: SamplingParams | None = None,
        model_name: str = "aspen-policy",
        max_prompt_tokens: int = 6144,
        honour_request_sampling: bool = False,
        max_batch: int = 64,
        batch_wait_s: float = 0.005,
        host: str = "127.0.0.1",
        port: int = 0,
        chat_template: str | None = None,
        record: bool = True,
    ) -> None:
        self.engine = engine
        self.tokenizer = tokenizer if tokenizer is not None else engine.tokenizer
        if self.tokenizer is None:
            raise ValueError("the chat endpoint needs a tokenizer with a chat template")
        prepare_tokenizer(self.tokenizer, chat_template, where="the policy's tokenizer")
        self.record = record
        sampling = sampling or SamplingParams()
        if not sampling.stop_token_ids:
            sampling = replace(sampling, stop_token_ids=default_stop_token_ids(self.tokenizer))
        self.sampling = sampling
        self.model_name = model_name
        self.max_prompt_tokens = max_prompt_tokens
        self.honour_request_sampling = honour_request_sampling
        self.recorder = CallRecorder()
        self.batcher = GenerationBatcher(engine, max_batch=max_batch, wait_s=batch_wait_s)
        self.host = host
        self.port = port
        self.app = self._build_app()
        self._uvicorn: Any = None
        self._thread: threading.Thread | None = None

    @classmethod
    def from_config(
        cls, config: ServerConfig, engine: RolloutEngine, tokenizer: Any = None
    ) -> ChatCompletionServer:
        """An endpoint with the config's sampling, limits and address."""
        sampling = SamplingParams(
            max_tokens=config.max_response_tokens,
            temperature=config.temperature,
            top_p=config.top_p,
            top_k=config.top_k,
        )
        return cls(
            engine,
            tokenizer,
            sampling=sampling,
            model_name=config.served_model_name,
            max_prompt_tokens=config.max_prompt_tokens,
            max_batch=config.server_max_batch,
            batch_wait_s=config.server_batch_wait_ms / 1000.0,
            host=config.server_host,
            port=config.server_port,
            chat_template=config.chat_template,
        )

    # ---- records -------------------------------------------------------------------------------------

    def pop_records(self, rollout_id: str, attempt_id: str | None = None) -> list[CallRecord]:
        """Remove and return the recorded calls of one rollout, in call order."""
        return self.recorder.pop(rollout_id, attempt_id)

    # ---- request handling ----------------------------------------------------------------------------

    def render(self, body: dict[str, Any]) -> list[int]:
        """Prompt token ids of a request: messages + tools through the chat template."""
        messages = normalize_messages(body.get("messages"))
        tools = body.get("tools") or None
        if tools is not None and not isinstance(tools, list):
            raise RequestError("'tools' must be a list")
        if body.get("tool_choice") == "none":
            tools = None
        try:
            text = self.tokenizer.apply_chat_template(
                messages, tools=tools, add_generation_prompt=True, tokenize=False
            )
        except Exception as exc:  # template errors are the request's fault
            raise RequestError(f"cannot render the messages with the chat template: {exc}") from exc
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def request_sampling(self, body: dict[str, Any]) -> SamplingParams:
        """The configured sampling, with the request's token budget (capped) and, if allowed, temperature."""
        sampling = self.sampling
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        if limit is not None:
            if not isinstance(limit, int) or limit <= 0:
                raise RequestError("'max_tokens' must be a positive integer")
            sampling = replace(sampling, max_tokens=min(limit, sampling.max_tokens))
        if self.honour_request_sampling:
            if body.get("temperature") is not None:
                sampling = replace(sampling, temperature=float(body["temperature"]))
            if body.get("top_p") is not None:
                sampling = replace(sampling, top_p=float(body["top_p"]))
        if body.get("n", 1) != 1:
            raise RequestError("only n=1 is supported")
        return sampling

    @staticmethod
    def request_seed(body: dict[str, Any]) -> int | None:
        """The request's ``seed`` (None when absent): the same prompt and seed give the same completion, the
        call drawing from the stream of ``prompt_seed(seed, prompt)``."""
        seed = body.get("seed")
        if seed is None:
            return None
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise RequestError("'seed' must be an integer from 0 to 2**63 - 1")
        return seed

    def _decode(self, generation: Generation, stop_ids: tuple[int, ...]) -> str:
        ids = generation.completion_ids
        if generation.finish_reason == "stop" and ids and ids[-1] in stop_ids:
            ids = ids[:-1]
        return self.tokenizer.decode(ids, skip_special_tokens=False)

    def _response(
        self, body: dict[str, Any], generation: Generation, sampling: SamplingParams
    ) -> dict[str, Any]:
        parsed = parse_tool_calls(self._decode(generation, sampling.stop_token_ids))
        message: dict[str, Any] = {"role": "assistant", "content": parsed.content}
        finish = generation.finish_reason
        if parsed.tool_calls:
            message["tool_calls"] = [call.to_openai() for call in parsed.tool_calls]
            finish = "tool_calls"
        response = completion_body(
            body.get("model") or self.model_name,
            message,
            finish,
            prompt_tokens=len(generation.prompt_ids),
            completion_tokens=len(generation.completion_ids),
        )
        if body.get("return_token_ids"):
            response["prompt_token_ids"] = generation.prompt_ids
            response["choices"][0]["token_ids"] = generation.completion_ids
        return response

    async def complete(
        self, body: dict[str, Any], rollout_id: str | None, attempt_id: str | None
    ) -> dict[str, Any]:
        """Answer one chat-completions request body; record it when it belongs to a rollout.

        Raises:
            RequestError: malformed request or a prompt over ``max_prompt_tokens``.
        """
        prompt_ids = self.render(body)
        if len(prompt_ids) > self.max_prompt_tokens:
            raise RequestError(
                f"the prompt has {len(prompt_ids)} tokens, "
                f"more than max_prompt_tokens={self.max_prompt_tokens}",
                code="context_length_exceeded",
            )
        sampling = self.request_sampling(body)
        seed = self.request_seed(body)
        index = self.recorder.next_index(rollout_id) if rollout_id is not None and self.record else -1
        started = time.time()
        version = self.engine.version
        stream = prompt_seed(seed, prompt_ids) if seed is not None else None
        generation = await self.batcher.submit(prompt_ids, sampling, stream)
        finished = time.time()
        if rollout_id is not None and self.record:
            self.recorder.add(
                CallRecord(
                    rollout_id=rollout_id,
                    attempt_id=attempt_id,
                    index=index,
                    prompt_ids=generation.prompt_ids,
                    completion_ids=generation.completion_ids,
                    logprobs=generation.logprobs,
                    finish_reason=generation.finish_reason,
                    started_at=started,
                    finished_at=finished,
                    policy_version=version,
                )
            )
        return self._response(body, generation, sampling)

    def _build_app(self) -> FastAPI:
        return chat_completions_app(
            "aspen_rl GRPO policy endpoint",
            self.complete,
            model_name=lambda: self.model_name,
            health=lambda: {"status": "ok", "model": self.model_name, "policy_version": self.engine.version},
            rollout_header=ROLLOUT_HEADER,
        )

    # ---- serving -------------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://host:port`` of the running server (use ``endpoint`` for OpenAI clients)."""
        return f"http://{self.host}:{self.port}"

    @property
    def endpoint(self) -> str:
        """The OpenAI base URL ``http://host:port/v1`` (what an Agent Lightning ``LLM`` resource names)."""
        return f"{self.base_url}/v1"

    def start(self, timeout_s: float = 30.0) -> str:
        """Serve in a background thread; returns ``endpoint``. Port 0 is replaced by the port bound."""
        import uvicorn

        if self._thread is not None:
            return self.endpoint
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off", access_log=False)
        self._uvicorn = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._uvicorn.run, kwargs={"sockets": [sock]}, name="grpo-chat-endpoint", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._uvicorn.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the chat endpoint did not start on {self.host}:{self.port}")
            time.sleep(0.01)
        return self.endpoint

    def stop(self) -> None:
        """Stop serving (records are kept)."""
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.batcher.close()
        self._thread = None
        self._uvicorn = None

    def __enter__(self) -> ChatCompletionServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
