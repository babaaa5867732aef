"""Rollout side: gathers concurrent chat-completion calls into batched ``engine.generate`` calls."""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict

from aspen_rl.llm.engine.base import RolloutEngine
from aspen_rl.llm.types import Generation, SamplingParams

_Item = tuple[list[int], SamplingParams, int | None, asyncio.Future[Generation]]


class GenerationBatcher:
    """Queue prompts; a worker task drains up to ``max_batch`` of them and generates them together.

    Calls sharing sampling parameters go into one ``generate`` (run in a thread, so the event loop keeps
    serving requests while the engine works). The worker is bound to the first running loop that submits.

    Args:
        engine: The rollout engine.
        max_batch: Most prompts per ``generate``.
        wait_s: How long to wait for more calls once one arrived.
    """

    def __init__(self, engine: RolloutEngine, *, max_batch: int = 64, wait_s: float = 0.005) -> None:
        self.engine = engine
        self.max_batch = max_batch
        self.wait_s = wait_s
        self._queue: asyncio.Queue[_Item] | None = None
        self._worker: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def submit(
        self, prompt_ids: list[int], sampling: SamplingParams, seed: int | None = None
    ) -> Generation:
        """One completion, batched with whatever else is pending (a ``seed``: its own random stream)."""
        loop = asyncio.get_running_loop()
        if self._worker is None or self._worker.done() or self._loop is not loop:
            self._loop = loop
            self._queue = asyncio.Queue()
            self._worker = loop.create_task(self._run())
        assert self._queue is not None
        future: asyncio.Future[Generation] = loop.create_future()
        self._queue.put_nowait((prompt_ids, sampling, seed, future))
        return await future

    async def _collect(self, queue: asyncio.Queue[_Item]) -> list[_Item]:
        batch = [await queue.get()]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait_s
        while len(batch) < self.max_batch:
            remaining = deadline - loop.time()
            if remaining <= 0:
                while not queue.empty() and len(batch) < self.max_batch:
                    batch.append(queue.get_nowait())
                break
            try:
                batch.append(await asyncio.wait_for(queue.get(), remaining))
            except TimeoutError:
                break
        return batch

    async def _run(self) -> None:
        queue = self._queue
        assert queue is not None
        while True:
            batch = await self._collect(queue)
            by_sampling: dict[SamplingParams, list[_Item]] = defaultdict(list)
            for item in batch:
                if not item[3].done():
                    by_sampling[item[1]].append(item)
            for sampling, items in by_sampling.items():
                prompts = [item[0] for item in items]
                seeds = [item[2] for item in items]
                try:
                    generations = await asyncio.to_thread(self.engine.generate, prompts, sampling, seeds)
                except Exception as exc:  # handed to every waiting caller
                    for *_, future in items:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (*_, future), generation in zip(items, generations, strict=True):
                    if not future.done():
                        future.set_result(generation)

    def close(self) -> None:
        """Stop the worker task."""
        if self._worker is not None and not self._worker.done() and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                self._loop.call_soon_threadsafe(self._worker.cancel)
        self._worker = None
